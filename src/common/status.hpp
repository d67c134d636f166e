// Internal error handling. Functions return Status; the C boundary turns it into
// mori_shmem_status_t. A failure is logged once where it happens, with who/what/where, and
// MORI_TRY logs each frame it passes through so one failure prints its path.
#pragma once

#include "mori/shmem.h"
#include "src/common/log.hpp"

namespace mori {

enum class Status : int {
  Success = MORI_SHMEM_SUCCESS,
  InvalidUsage = MORI_SHMEM_ERROR_INVALID_USAGE,
  Timeout = MORI_SHMEM_ERROR_TIMEOUT,
  Remote = MORI_SHMEM_ERROR_REMOTE,
  System = MORI_SHMEM_ERROR_SYSTEM,
  OutOfMemory = MORI_SHMEM_ERROR_OUT_OF_MEMORY,
  NotSupported = MORI_SHMEM_ERROR_NOT_SUPPORTED,
  Internal = MORI_SHMEM_ERROR_INTERNAL,
};

inline bool ok(Status s) { return s == Status::Success; }
const char* statusName(Status s);

}  // namespace mori

// Logs `fmt` at ERROR for `subsys` and evaluates to `status`: `return MORI_FAIL(...)`.
#define MORI_FAIL(status, subsys, ...) \
  (::mori::log::write(::mori::log::Level::Error, subsys, __FILE__, __LINE__, __VA_ARGS__), (status))

// Propagates a non-success Status, logging this frame.
#define MORI_TRY(expr)                                                                                        \
  do {                                                                                                        \
    ::mori::Status mori_try_status_ = (expr);                                                                 \
    if (mori_try_status_ != ::mori::Status::Success) {                                                        \
      ::mori::log::write(::mori::log::Level::Error, ::mori::log::kAll, __FILE__, __LINE__, "  <- %s", #expr); \
      return mori_try_status_;                                                                                \
    }                                                                                                         \
  } while (0)
