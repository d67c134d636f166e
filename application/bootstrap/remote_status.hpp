// Status codes that arrive from another process (the bootstrap root's verdict, the MPI plugin's
// return value) are data, not trusted enums: only the error codes of mori/shmem.h pass.
#pragma once

#include <stdint.h>

#include "src/common/status.hpp"

namespace mori::bootstrap {

// True when `code` is one of the error codes (not success) of mori_shmem_status_t.
inline bool isErrorCode(int64_t code) {
  return code <= MORI_SHMEM_ERROR_INVALID_USAGE && code >= MORI_SHMEM_ERROR_INTERNAL;
}

// `code` as an error Status; anything else (0 where an error was announced, positive numbers,
// codes this build does not know) becomes Status::Remote: the peer is misbehaving.
inline Status remoteError(int64_t code) { return isErrorCode(code) ? static_cast<Status>(code) : Status::Remote; }

}  // namespace mori::bootstrap
