// Bootstrap: the host-side collectives the runtime needs before (and besides) the GPUs can talk.
// Implementations: MPI (plugin libmori_shmem_bootstrap_mpi.so, loaded on demand so that the
// runtime starts where MPI is absent) and TCP sockets (unique ID or launcher environment).
// Every wait is bounded by MORI_SHMEM_BOOTSTRAP_TIMEOUT; a timeout names the PE(s) that did not
// answer.
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
  // PEs sharing this host (same boot id and hostname): index among them and their number.
  int localRank() const { return localRank_; }
  int localSize() const { return localSize_; }
  virtual const char* name() const = 0;

  // out[r*bytes .. (r+1)*bytes) receives rank r's `in`. `in` may alias out + rank()*bytes.
  virtual Status allGather(const void* in, void* out, size_t bytes) = 0;
  // in[r*bytes ..) goes to rank r; out[r*bytes ..) receives what rank r sent to this rank.
  virtual Status allToAll(const void* in, void* out, size_t bytes) = 0;
  virtual Status barrier() = 0;
  // `root`'s buf is copied to every rank's buf.
  virtual Status broadcast(void* buf, size_t bytes, int root) = 0;

 protected:
  // Implementations call this once connected: fills localRank/localSize from host identities.
  Status discoverLocalRanks();

 private:
  int localRank_ = 0;
  int localSize_ = 1;
};

// Host identity: boot id + hostname; equal strings mean the same OS instance.
std::string hostIdentity();

// mori_shmem_init(): MORI_SHMEM_BOOTSTRAP=auto|mpi|env.
Status createDefault(const env::Config& cfg, std::unique_ptr<Bootstrap>* out);
// MORI_SHMEM_INIT_WITH_MPI_COMM: mpiComm points at the caller's MPI_Comm.
Status createMpi(void* mpiComm, const env::Config& cfg, std::unique_ptr<Bootstrap>* out);
// MORI_SHMEM_INIT_WITH_UNIQUEID.
Status createUniqueId(int rank, int nranks, const mori_shmem_uniqueid_t& uid, const env::Config& cfg,
                      std::unique_ptr<Bootstrap>* out);
// MORI_SHMEM_INIT_WITH_ENV: RANK/WORLD_SIZE (torchrun), SLURM_PROCID/SLURM_NTASKS,
// OMPI_COMM_WORLD_RANK/SIZE, with MASTER_ADDR and MASTER_PORT or MORI_SHMEM_BOOTSTRAP_PORT.
Status createFromLauncherEnv(const env::Config& cfg, std::unique_ptr<Bootstrap>* out);
// mori_shmem_get_uniqueid(): starts the root's listener and describes it in uid.
Status generateUniqueId(const env::Config& cfg, mori_shmem_uniqueid_t* uid);

}  // namespace mori::bootstrap
