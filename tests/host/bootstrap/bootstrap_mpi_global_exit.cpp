// Global exit over the MPI bootstrap: the last rank calls globalExit(7) while the others wait in
// a bootstrap barrier for it; MPI_Abort must end every rank, and mpirun must report status 7 (the
// test command checks it). A rank that gets past the barrier, or whose barrier fails, exits 1
// and 2 instead. Not a GoogleTest binary: the test main would initialise MPI itself.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <memory>

#include "application/bootstrap/bootstrap.hpp"
#include "src/common/env.hpp"

using namespace mori;

int main() {
  setenv("MORI_SHMEM_BOOTSTRAP", "mpi", 1);
  env::Config cfg;
  if (env::load(&cfg) != Status::Success) return 3;
  cfg.bootstrapTimeout = 60;
  std::unique_ptr<bootstrap::Bootstrap> b;
  if (bootstrap::createDefault(cfg, &b) != Status::Success || !b) return 3;
  if (b->rank() == b->size() - 1) {
    usleep(200 * 1000);
    b->globalExit(7);
  }
  const Status s = b->barrier();
  fprintf(stderr, "bootstrap_mpi_global_exit: PE %d: the barrier returned %d instead of ending the process\n",
          b->rank(), static_cast<int>(s));
  return ok(s) ? 1 : 2;
}
