/* Must not compile (test_nvshmem_unsupported_call_c): a C file calling an NVSHMEM function outside
 * mori-shmem's subset. The compiler's error names the call. */
#include <mori/nvshmem.h>

int main(void) {
  static char buffer[64];
  return nvshmemx_buffer_register(buffer, sizeof(buffer));
}
