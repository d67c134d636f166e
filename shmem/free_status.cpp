// mori_shmem_free_status (mori/shmem.h): the collective free with its status, for bindings.
#include "mori/shmem.h"
#include "shmem/runtime.hpp"

extern "C" __attribute__((visibility("default"))) int mori_shmem_free_status(void* ptr) {
  mori::shmem::Runtime* r = mori::shmem::Runtime::get("mori_shmem_free");
  return r ? static_cast<int>(r->mem().release(ptr)) : MORI_SHMEM_ERROR_INVALID_USAGE;
}
