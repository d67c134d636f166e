// Bootstrap: the host-side collectives the runtime needs before (and besides) the GPUs can talk.
// Implementations: MPI (plugin libmori_shmem_bootstrap_mpi.so, loaded on demand so that the
// runtime starts where MPI is absent) and TCP sockets (unique ID or launcher environment).
// Every wait is bounded by MORI_SHMEM_BOOTSTRAP_TIMEOUT; a timeout names the PE(s) that did not
// answer.
//
// Contract of every collective: all PEs call the same collectives in the same order with the
// same sizes (and root); a mismatch is detected and reported as InvalidUsage. Calls on one
// Bootstrap must not overlap (one thread at a time). After any failure the Bootstrap refuses
// further collectives (the peers may be mid-way in a different step); destroy it and create a
// new one. Destruction is local (closes connections / frees the communicator), not collective.
#pragma once

#include <stddef.h>

#include <memory>
#include <string>

#include "mori/shmem.h"
#include "src/common/env.hpp"
#include "src/common/status.hpp"

namespace mori::bootstrap {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // PEs sharing this host (same boot id and hostname): index among them (ordered by rank) and
  // their number.
  int localRank() const { return localRank_; }
  int localSize() const { return localSize_; }
  // "mpi", "socket-uid" or "socket-env".
  virtual const char* name() const = 0;

  // out[r*bytes .. (r+1)*bytes) receives rank r's `in`. `in` may alias out + rank()*bytes.
  virtual Status allGather(const void* in, void* out, size_t bytes) = 0;
  // in[r*bytes ..) goes to rank r; out[r*bytes ..) receives what rank r sent to this rank.
  // `in` may equal `out`.
  virtual Status allToAll(const void* in, void* out, size_t bytes) = 0;
  virtual Status barrier() = 0;
  // `root`'s buf is copied to every rank's buf.
  virtual Status broadcast(void* buf, size_t bytes, int root) = 0;

  // Fault detection (the peer monitor, peer_monitor.hpp). Non-blocking, and the one call that may
  // run on another thread than the collectives: -1 while every peer is alive as far as this
  // implementation can tell, else the PE that failed (its connection dropped, or the root said
  // so). Once a failure is seen the Bootstrap is failed: collectives return an error naming it.
  // Implementations that cannot tell (MPI: the launcher ends the job) always return -1.
  virtual int failedPe() { return -1; }
  virtual bool detectsPeerFailure() const { return false; }

  // Global exit (mori_shmem_global_exit): every PE of the job exits with `status`; never returns.
  // MPI: MPI_Abort on the bootstrap's communicator (the launcher ends every process). Sockets: an
  // exit request to the root, which sends every PE an exit notice; a PE reads it in its next
  // bootstrap step or, between steps, in failedPe() (the peer monitor's 50 ms period), and exits
  // with the status (process_exit.hpp). The requester exits once the root acknowledges, the root
  // once every PE has closed its connection, each within a few seconds at most: a PE that reads
  // no notice in that time (no monitor yet, not in a bootstrap call) finds it in its next call,
  // or sees the root's connection close. Any thread may call it; one in a collective on another
  // thread is waited for at most a few seconds, after which this PE exits alone (its peers see
  // its connection drop: an error, not a hang).
  [[noreturn]] virtual void globalExit(int status) = 0;

 protected:
  // Implementations call this once connected: fills localRank/localSize from host identities.
  Status discoverLocalRanks();

 private:
  int localRank_ = 0;
  int localSize_ = 1;
};

// Host identity: boot id + hostname; equal strings mean the same OS instance.
std::string hostIdentity();

// mori_shmem_init(): MORI_SHMEM_BOOTSTRAP=auto|mpi|env. auto: MPI when an MPI launcher started
// this process (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK is set) and the MPI plugin loads,
// else the launcher environment.
Status createDefault(const env::Config& cfg, std::unique_ptr<Bootstrap>* out);
// MORI_SHMEM_INIT_WITH_MPI_COMM: mpiComm points at the caller's MPI_Comm, which is duplicated.
// mpiComm == nullptr: MPI_COMM_WORLD, initialising MPI first if the application has not (it is
// then finalised at process exit, never by mori-shmem's finalize, so a later init still works).
Status createMpi(void* mpiComm, const env::Config& cfg, std::unique_ptr<Bootstrap>* out);
// MORI_SHMEM_INIT_WITH_UNIQUEID. Rank 0 must run in the process that called generateUniqueId()
// (else it listens at the address the ID names, which must be one of its host's).
Status createUniqueId(int rank, int nranks, const mori_shmem_uniqueid_t& uid, const env::Config& cfg,
                      std::unique_ptr<Bootstrap>* out);
// MORI_SHMEM_INIT_WITH_ENV: RANK/WORLD_SIZE (torchrun), SLURM_PROCID/SLURM_NTASKS,
// OMPI_COMM_WORLD_RANK/SIZE, with MASTER_ADDR and MASTER_PORT (the bootstrap uses MASTER_PORT + 1)
// or MORI_SHMEM_BOOTSTRAP_PORT; secret from MORI_SHMEM_BOOTSTRAP_SECRET, else derived from the
// launcher's job variables.
Status createFromLauncherEnv(const env::Config& cfg, std::unique_ptr<Bootstrap>* out);
// mori_shmem_get_uniqueid(): starts the root's listener and describes it in uid.
Status generateUniqueId(const env::Config& cfg, mori_shmem_uniqueid_t* uid);

// True when an MPI launcher started this process (what auto looks at).
bool launchedByMpiLauncher();

}  // namespace mori::bootstrap
