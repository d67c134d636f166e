// What the C API's source files share: the export attribute of their entry points and the status
// code (mori_shmem_status_t) a Status becomes there.
#pragma once

#include "src/common/status.hpp"

#define MORI_API extern "C" __attribute__((visibility("default")))

namespace mori::shmem {
inline int code(Status s) { return static_cast<int>(s); }
}  // namespace mori::shmem
