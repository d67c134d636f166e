// Regression (issue 20): MORI_SHMEM_BOOTSTRAP_TIMEOUT=1e10 overflowed the deadline, so duplicating
// MPI_COMM_WORLD "timed out" at once on every rank; the process then died with SIGSEGV at exit
// (rc 139 under mpirun): Open MPI's MPI_Finalize crashes on a communicator whose MPI_Comm_idup is
// still in flight. The same happens with any timeout that expires before the duplicate
// completes; here a 100 ns one. The failed init must return an error, and the process must exit
// cleanly (MPI finalised by the plugin's exit handler). Not a GoogleTest binary: the test main
// would initialise MPI and make progress on the duplicate before exit.
#include <stdio.h>
#include <stdlib.h>

#include <memory>

#include "application/bootstrap/bootstrap.hpp"
#include "src/common/env.hpp"

using namespace mori;

int main() {
  setenv("MORI_SHMEM_BOOTSTRAP", "mpi", 1);
  setenv("MORI_SHMEM_DEBUG", "NONE", 1);
  env::Config cfg;
  if (env::load(&cfg) != Status::Success) return 2;
  cfg.bootstrapTimeout = 1e-7;
  std::unique_ptr<bootstrap::Bootstrap> b;
  const Status s = bootstrap::createDefault(cfg, &b);
  if (s != Status::Success && s != Status::Timeout) {
    fprintf(stderr, "bootstrap_mpi_failed_init: createDefault returned %d, expected Timeout (or Success)\n",
            static_cast<int>(s));
    return 1;
  }
  if (static_cast<int>(s) > 0) return 1;
  fprintf(stderr, "bootstrap_mpi_failed_init: init returned %d; exiting (MPI_Finalize at exit)\n", static_cast<int>(s));
  return 0;
}
