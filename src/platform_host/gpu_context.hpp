// Small host queries about GPU memory and the calling thread's GPU context that the HIP subset
// does not cover on both vendors alike.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "src/common/status.hpp"

namespace mori::platform {

// The allocation containing `ptr`: its base and size (what an IPC handle maps).
Status allocationRange(const void* ptr, uint64_t* base, uint64_t* size);

// True if the calling thread already has a current GPU context (the application selected a
// device before init), so init must use that device rather than choose one.
bool hasCurrentContext();

// 16-byte UUID of `device` (zeros if unknown).
Status deviceUuid(int device, uint8_t uuid[16]);

}  // namespace mori::platform
