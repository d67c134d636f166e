/* Must not compile (test_nvshmem_unsupported_constant_c): a C file using an NVSHMEM constant
 * outside mori-shmem's subset. The compiler's error names the constant. */
#include <mori/nvshmem.h>

int main(void) { return NVSHMEMX_INIT_WITH_SHMEM; }
