// Time on the device: a wall clock for timeouts (not cycles: it must not depend on the SM clock)
// and a polite sleep for spin loops.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::gpu {

#if MORI_PLATFORM_AMD
// s_memrealtime / wall_clock64 tick at a fixed 100 MHz on CDNA (gfx90a, gfx94x, gfx950).
constexpr uint64_t kWallClockHz = 100000000ull;
#else
// %globaltimer counts nanoseconds.
constexpr uint64_t kWallClockHz = 1000000000ull;
#endif

MORI_HOST_DEVICE_INLINE constexpr uint64_t nsToWallTicks(uint64_t ns) { return ns / (1000000000ull / kWallClockHz); }
MORI_HOST_DEVICE_INLINE constexpr uint64_t wallTicksToNs(uint64_t t) { return t * (1000000000ull / kWallClockHz); }

#if MORI_GPU_COMPILER
MORI_DEVICE_INLINE uint64_t wallClock() {
#if MORI_PLATFORM_AMD
#if defined(HIP_VERSION) && HIP_VERSION >= 50300000
  return wall_clock64();
#else
  return __builtin_amdgcn_s_memrealtime();
#endif
#else
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#endif
}

// Yields the issue slot for roughly 100-200 ns; used inside every spin loop.
MORI_DEVICE_INLINE void spinPause() {
#if MORI_PLATFORM_AMD
  __builtin_amdgcn_s_sleep(2);
#else
  __nanosleep(100);
#endif
}
#endif

}  // namespace mori::gpu
