// Every device spin loop goes through Spinner: it pauses between polls and, when a limit is set
// (MORI_SHMEM_TIMEOUT), reads the wall clock once per 256 polls so the check costs nothing
// measurable while still bounding the wait.
#pragma once

#include "mori/platform/clock.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

class Spinner {
 public:
  MORI_DEVICE_INLINE explicit Spinner(uint64_t limitTicks) : limit_(limitTicks) {}

  // Call once per unsuccessful poll; true once the wait has exceeded its limit.
  MORI_DEVICE_INLINE bool expired() {
    gpu::spinPause();
    if (limit_ == 0 || (++polls_ & 255u) != 0) return false;
    const uint64_t now = gpu::wallClock();
    if (start_ == 0) start_ = now;
    return now - start_ > limit_;
  }
  MORI_DEVICE_INLINE uint64_t elapsedNs() const { return gpu::wallTicksToNs(gpu::wallClock() - start_); }

 private:
  uint64_t limit_;
  uint64_t start_ = 0;
  uint32_t polls_ = 0;
};

}  // namespace mori::shmem::impl
#endif
