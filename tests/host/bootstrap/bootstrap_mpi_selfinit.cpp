// An application that never touches MPI, launched by mpirun: MORI_SHMEM_BOOTSTRAP=auto must pick
// MPI, load the plugin, initialise MPI itself, survive destroy + re-create (MPI stays up), and
// MPI must be finalised at exit (mpirun fails the job otherwise). This program does not link
// MPI; the verdict is the exit status of every rank. Not a GoogleTest binary: the test main
// initialises MPI, which is exactly what must not happen here.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/mpi_bootstrap_loader.hpp"
#include "src/common/env.hpp"

using namespace mori;

#define CHECK(cond)                                                                                    \
  do {                                                                                                 \
    if (!(cond)) {                                                                                     \
      fprintf(stderr, "bootstrap_mpi_selfinit: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                                        \
    }                                                                                                  \
  } while (0)

int main() {
  setenv("MORI_SHMEM_BOOTSTRAP", "auto", 1);
  setenv("MORI_SHMEM_BOOTSTRAP_TIMEOUT", "30", 1);
  env::Config cfg;
  CHECK(env::load(&cfg) == Status::Success);
  CHECK(bootstrap::launchedByMpiLauncher());
  const char* sizeVar = getenv("OMPI_COMM_WORLD_SIZE");
  CHECK(sizeVar != nullptr);
  const int expected = atoi(sizeVar);
  for (int round = 0; round < 3; ++round) {
    std::unique_ptr<bootstrap::Bootstrap> b;
    CHECK(bootstrap::createDefault(cfg, &b) == Status::Success);
    CHECK(strcmp(b->name(), "mpi") == 0);
    CHECK(b->size() == expected);
    std::vector<int> all(b->size());
    int mine = b->rank() * 3 + round;
    CHECK(b->allGather(&mine, all.data(), sizeof(int)) == Status::Success);
    for (int r = 0; r < b->size(); ++r) CHECK(all[r] == r * 3 + round);
    CHECK(b->barrier() == Status::Success);
  }
  fprintf(stderr, "bootstrap_mpi_selfinit: OK (plugin %s)\n", bootstrap::mpiPluginPath().c_str());
  return 0;  // MPI_Finalize runs from the plugin's exit handler
}
