// Must not compile: an NVSHMEM call outside mori-shmem's subset. The test passes when the
// compiler's message names the call (tests/host/team/CMakeLists.txt).
#include "mori/nvshmem.h"

int main() {
  nvshmem_init();
  return nvshmem_ctx_create(0, nullptr);
}
