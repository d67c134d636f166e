// Must not compile: an NVSHMEM call outside mori-shmem's subset. The test passes when the
// compiler's message names the call (tests/host/team/CMakeLists.txt).
#include "mori/nvshmem.h"

int main() {
  nvshmem_init();
  return nvshmemx_collective_launch(nullptr, 1, 1, nullptr, 0, nullptr);
}
