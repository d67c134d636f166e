#include "src/common/status.hpp"

namespace mori {

const char* statusName(Status s) { return mori_shmem_status_string(static_cast<int>(s)); }

}  // namespace mori

extern "C" __attribute__((visibility("default"))) const char* mori_shmem_status_string(int status) {
  switch (status) {
    case MORI_SHMEM_SUCCESS: return "SUCCESS";
    case MORI_SHMEM_ERROR_INVALID_USAGE: return "INVALID_USAGE";
    case MORI_SHMEM_ERROR_TIMEOUT: return "TIMEOUT";
    case MORI_SHMEM_ERROR_REMOTE: return "REMOTE";
    case MORI_SHMEM_ERROR_SYSTEM: return "SYSTEM";
    case MORI_SHMEM_ERROR_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case MORI_SHMEM_ERROR_NOT_SUPPORTED: return "NOT_SUPPORTED";
    case MORI_SHMEM_ERROR_INTERNAL: return "INTERNAL";
    default: return "UNKNOWN";
  }
}
