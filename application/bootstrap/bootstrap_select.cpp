// createDefault(): which bootstrap mori_shmem_init() uses (MORI_SHMEM_BOOTSTRAP).
#include <stdlib.h>
#include <strings.h>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/mpi_bootstrap_loader.hpp"

namespace mori::bootstrap {

bool launchedByMpiLauncher() {
  // Open MPI's mpirun, PMI launchers (MPICH's hydra, srun --mpi=pmi2), PMIx launchers.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (const char* s = getenv(v); s && *s) return true;
  return false;
}

Status createDefault(const env::Config& cfg, std::unique_ptr<Bootstrap>* out) {
  const char* mode = cfg.bootstrap.c_str();
  if (strcasecmp(mode, "mpi") == 0) {
    MORI_TRY(createMpi(nullptr, cfg, out));
    return Status::Success;
  }
  if (strcasecmp(mode, "env") == 0) {
    MORI_TRY(createFromLauncherEnv(cfg, out));
    return Status::Success;
  }
  if (strcasecmp(mode, "auto") != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "MORI_SHMEM_BOOTSTRAP='%s' is not one of auto, mpi, env",
                     mode);
  if (launchedByMpiLauncher()) {
    std::string why;
    if (loadMpiPlugin(&why)) {
      MORI_TRY(createMpi(nullptr, cfg, out));
      return Status::Success;
    }
    MORI_LOG_INFO(log::kBootstrap,
                  "launched by an MPI launcher, but the MPI bootstrap plugin is not available (%s): using the "
                  "launcher environment",
                  why.c_str());
  }
  MORI_TRY(createFromLauncherEnv(cfg, out));
  return Status::Success;
}

}  // namespace mori::bootstrap
