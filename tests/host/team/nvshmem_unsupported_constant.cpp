// Must not compile: an NVSHMEM constant outside mori-shmem's subset. The test passes when the
// compiler's message names the constant (tests/host/team/CMakeLists.txt).
#include "mori/nvshmem.h"

int main() {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  return nvshmemx_init_attr(NVSHMEMX_INIT_WITH_SHMEM, &attr);
}
