// createDefault(): which bootstrap mori_shmem_init() uses (MORI_SHMEM_BOOTSTRAP).
#include <stdlib.h>
#include <strings.h>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/mpi_bootstrap_loader.hpp"
#include "application/bootstrap/mpi_bootstrap_plugin.h"

namespace mori::bootstrap {

namespace {
// The variable that shows an MPI launcher started this process, or null.
const char* mpiLauncherVariable() {
  // Open MPI's mpirun, PMI launchers (MPICH's hydra, srun --mpi=pmi2), PMIx launchers.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (const char* s = getenv(v); s && *s) return v;
  return nullptr;
}
}  // namespace

bool launchedByMpiLauncher() { return mpiLauncherVariable() != nullptr; }

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
  if (const char* var = mpiLauncherVariable()) {
    std::string why;
    if (loadMpiPlugin(&why)) {
      MORI_TRY(createMpi(nullptr, cfg, out));
      return Status::Success;
    }
    // Said at WARN: under mpirun the user expects MPI, and the env bootstrap may then fail for
    // a reason (no MASTER_ADDR) that hides this one.
    MORI_LOG_WARN(log::kBootstrap,
                  "MORI_SHMEM_BOOTSTRAP=auto: an MPI launcher started this process (%s is set), but MPI is not used: "
                  "the MPI bootstrap plugin %s could not be loaded (%s); trying the launcher environment instead",
                  var, MORI_BOOTSTRAP_MPI_LIBRARY, why.c_str());
    Status st = createFromLauncherEnv(cfg, out);
    if (!ok(st))
      return MORI_FAIL(st, log::kBootstrap,
                       "MORI_SHMEM_BOOTSTRAP=auto: the launcher environment did not work either; MPI was not used "
                       "because %s could not be loaded (%s): install it next to libmori_shmem.so, or set "
                       "MORI_SHMEM_BOOTSTRAP=env with MASTER_ADDR/MASTER_PORT",
                       MORI_BOOTSTRAP_MPI_LIBRARY, why.c_str());
    return Status::Success;
  }
  MORI_TRY(createFromLauncherEnv(cfg, out));
  return Status::Success;
}

}  // namespace mori::bootstrap
