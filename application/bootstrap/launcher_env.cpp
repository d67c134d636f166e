// The env bootstrap: rank and size from the launcher's variables, rank 0's address from
// MASTER_ADDR, its port from MORI_SHMEM_BOOTSTRAP_PORT or MASTER_PORT + 1 (torchrun's own store
// holds MASTER_PORT), over the TCP-socket bootstrap.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/format.hpp"
#include "application/bootstrap/socket_bootstrap.hpp"

namespace mori::bootstrap {
namespace {

struct Launcher {
  const char* rankVar;
  const char* sizeVar;
  const char* localRankVar;
  const char* name;
};

// In order of preference: torchrun sets RANK even inside a SLURM or mpirun allocation.
constexpr Launcher kLaunchers[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "torchrun"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI"},
};

// Variables that identify one job (and, for torchrun, one restart of it) for each launcher, all
// equal on every PE of the job; they feed the job tag and the derived secret.
constexpr const char* kJobVars[] = {
    // torchrun / torchelastic
    "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT", "GROUP_WORLD_SIZE", "ROLE_NAME", "ROLE_WORLD_SIZE",
    // SLURM
    "SLURM_JOB_ID", "SLURM_JOBID", "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
    "SLURM_NTASKS",
    // Open MPI, PMIx launchers (prterun, srun --mpi=pmix), PMI launchers (hydra)
    "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid", "OMPI_COMM_WORLD_SIZE", "PMIX_NAMESPACE", "PMI_SIZE",
    // other batch systems
    "LSB_JOBID", "PBS_JOBID", "FLUX_JOB_ID", "COBALT_JOBID"};

const char* envOrNull(const char* name) {
  const char* v = getenv(name);
  return v && *v ? v : nullptr;
}

bool parseInt(const char* s, long long* out) {
  errno = 0;
  char* end = nullptr;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end) return false;
  *out = v;
  return true;
}

Status readRankAndSize(const Launcher** which, int* rank, int* size) {
  for (const Launcher& l : kLaunchers) {
    const char* r = envOrNull(l.rankVar);
    const char* n = envOrNull(l.sizeVar);
    if (!r && !n) continue;
    if (!r || !n)
      return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                       "env bootstrap: %s is set but %s is not (%s launch environment incomplete)",
                       r ? l.rankVar : l.sizeVar, r ? l.sizeVar : l.rankVar, l.name);
    long long rv = 0, nv = 0;
    if (!parseInt(r, &rv))
      return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "env bootstrap: %s='%s' is not an integer", l.rankVar, r);
    if (!parseInt(n, &nv))
      return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "env bootstrap: %s='%s' is not an integer", l.sizeVar, n);
    if (nv < 1 || nv > (1 << 24))
      return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "env bootstrap: %s=%lld is not a valid number of PEs",
                       l.sizeVar, nv);
    if (rv < 0 || rv >= nv)
      return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "env bootstrap: %s=%lld is not in 0..%lld (%s=%lld)",
                       l.rankVar, rv, nv - 1, l.sizeVar, nv);
    *which = &l;
    *rank = static_cast<int>(rv);
    *size = static_cast<int>(nv);
    return Status::Success;
  }
  return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                   "env bootstrap: no launcher environment found: set RANK and WORLD_SIZE (as torchrun does), or "
                   "launch with srun (SLURM_PROCID, SLURM_NTASKS) or mpirun (OMPI_COMM_WORLD_RANK, "
                   "OMPI_COMM_WORLD_SIZE)");
}

Status readPort(const env::Config& cfg, uint16_t* port) {
  if (cfg.bootstrapPort != 0) {
    if (cfg.bootstrapPort < 1 || cfg.bootstrapPort > 65535)
      return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                       "MORI_SHMEM_BOOTSTRAP_PORT=%lld is not a TCP port (1..65535)",
                       static_cast<long long>(cfg.bootstrapPort));
    *port = static_cast<uint16_t>(cfg.bootstrapPort);
    return Status::Success;
  }
  const char* mp = envOrNull("MASTER_PORT");
  if (!mp)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "env bootstrap: neither MORI_SHMEM_BOOTSTRAP_PORT nor MASTER_PORT is set: rank 0's port is "
                     "unknown");
  long long v = 0;
  if (!parseInt(mp, &v) || v < 1 || v > 65534)
    return MORI_FAIL(
        Status::InvalidUsage, log::kBootstrap,
        "env bootstrap: MASTER_PORT='%s' is not a TCP port below 65535 (the bootstrap uses MASTER_PORT + 1)", mp);
  *port = static_cast<uint16_t>(v + 1);
  return Status::Success;
}

// The job's identity (every job variable the launcher set, rank 0's address and port, the
// launcher and the number of PEs), its tag, and the secret: MORI_SHMEM_BOOTSTRAP_SECRET, else
// derived from the identity.
void chooseSecret(const env::Config& cfg, const Launcher& launcher, const std::string& addr, uint16_t port, int size,
                  SocketParams* p) {
  std::string text, used, shown;
  for (const char* v : kJobVars)
    if (const char* val = envOrNull(v)) {
      text += std::string(v) + "=" + val + ";";
      used += std::string(used.empty() ? "" : ", ") + v;
      shown += strprintf("%s=%.64s, ", v, val);
    }
  text += strprintf("launcher=%s;MASTER_ADDR=%s;port=%u;size=%d", launcher.name, addr.c_str(), port, size);
  p->jobIdentity = strprintf("%s%s=%.64s, port %u, %d PEs", shown.c_str(), "MASTER_ADDR", addr.c_str(), port, size);
  p->jobTag = jobTagOf(text);
  if (!cfg.bootstrapSecret.empty()) {
    p->secret = digestSecret("mori-shmem secret v2", cfg.bootstrapSecret);
    return;
  }
  if (used.empty())
    MORI_LOG_WARN(log::kBootstrap,
                  "env bootstrap: the launcher (%s) set no job identity variable (TORCHELASTIC_RUN_ID, SLURM_JOB_ID, "
                  "PMIX_NAMESPACE, ...): the derived secret depends only on MASTER_ADDR, the port and the number of "
                  "PEs, so a second job started with the same values could join this one; set "
                  "MORI_SHMEM_BOOTSTRAP_SECRET to a value unique to the job",
                  launcher.name);
  else
    MORI_LOG_INFO(log::kBootstrap,
                  "env bootstrap: secret derived from %s, MASTER_ADDR, the port and the number of PEs; set "
                  "MORI_SHMEM_BOOTSTRAP_SECRET for one that others cannot reconstruct",
                  used.c_str());
  p->secret = digestSecret("mori-shmem derived secret v2", text);
}

}  // namespace

Status createFromLauncherEnv(const env::Config& cfg, std::unique_ptr<Bootstrap>* out) {
  const Launcher* launcher = nullptr;
  int rank = -1, size = 0;
  MORI_TRY(readRankAndSize(&launcher, &rank, &size));
  SocketParams p;
  p.rank = rank;
  p.nranks = size;
  p.timeoutS = cfg.bootstrapTimeout;
  p.kind = "socket-env";
  p.secretHint = cfg.bootstrapSecret.empty()
                     ? " (the secret is derived from the launcher's job variables, MASTER_ADDR, the port and the "
                       "number of PEs: do all PEs see the same? Or set MORI_SHMEM_BOOTSTRAP_SECRET on every PE)"
                     : " (is MORI_SHMEM_BOOTSTRAP_SECRET the same on every PE?)";
  if (size == 1) {
    MORI_LOG_INFO(log::kBootstrap, "env bootstrap: a single PE (%s=0, %s=1)", launcher->rankVar, launcher->sizeVar);
    MORI_TRY(SocketBootstrap::createRoot(p, Fd(), SockAddr(), out));
    return Status::Success;
  }
  const char* master = envOrNull("MASTER_ADDR");
  if (!master)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "env bootstrap: MASTER_ADDR is not set (%s=%d of %s=%d): it must name the host of rank 0",
                     launcher->rankVar, rank, launcher->sizeVar, size);
  uint16_t port = 0;
  MORI_TRY(readPort(cfg, &port));
  chooseSecret(cfg, *launcher, master, port, size, &p);
  std::vector<SockAddr> addrs;
  MORI_TRY(resolveHost(master, port, "MASTER_ADDR", &addrs));
  MORI_LOG_INFO(log::kBootstrap, "env bootstrap: PE %d of %d (from %s), root at MASTER_ADDR=%s -> %s", rank, size,
                launcher->name, master, addrs.front().str().c_str());
  if (rank == 0) {
    Fd listener;
    SockAddr bound;
    Status st = Status::InvalidUsage;
    for (const SockAddr& a : addrs) {
      st = listenOn(a, "rank 0 of the env bootstrap", &listener, &bound);
      if (ok(st)) break;
    }
    if (!ok(st))
      return MORI_FAIL(st, log::kBootstrap,
                       "env bootstrap: rank 0 cannot listen at MASTER_ADDR=%s port %u: rank 0 must run on the host "
                       "MASTER_ADDR names, and the port must be free (MORI_SHMEM_BOOTSTRAP_PORT chooses another)",
                       master, port);
    MORI_TRY(SocketBootstrap::createRoot(p, std::move(listener), bound, out));
  } else {
    MORI_TRY(SocketBootstrap::createPeer(p, addrs, out));
  }
  long long lr = 0;
  const char* lv = envOrNull(launcher->localRankVar);
  if (lv && parseInt(lv, &lr) && lr != (*out)->localRank())
    MORI_LOG_WARN(log::kBootstrap,
                  "PE %d: %s=%lld but the PEs sharing this host make it local rank %d of %d (ordered by rank); GPU "
                  "selection follows the latter",
                  rank, launcher->localRankVar, lr, (*out)->localRank(), (*out)->localSize());
  return Status::Success;
}

}  // namespace mori::bootstrap
