// Every device spin loop goes through Spinner: the first kHotPolls polls follow each other
// directly (a sleep of even 100 ns between polls adds about as much to the latency of a wait
// that the peer ends within microseconds: a ping-pong pays it twice per round trip), later ones
// pause between polls; when a limit is set (MORI_SHMEM_TIMEOUT) it reads the wall clock once per
// 256 polls, so the check costs nothing measurable while still bounding the wait.
#pragma once

#include "mori/platform/clock.hpp"

#if MORI_GPU_COMPILER
namespace mori::device {

class Spinner {
 public:
  static constexpr uint32_t kHotPolls = 256;

  MORI_DEVICE_INLINE explicit Spinner(uint64_t limitTicks) : limit_(limitTicks) {}

  // Call once per unsuccessful poll; true once the wait has exceeded its limit.
  MORI_DEVICE_INLINE bool expired() {
    if (++polls_ > kHotPolls) gpu::spinPause();
    if (limit_ == 0 || (polls_ & 255u) != 0) return false;
    const uint64_t now = gpu::wallClock();
    if (start_ == 0) start_ = now;
    return now - start_ > limit_;
  }
  MORI_DEVICE_INLINE uint64_t elapsedNs() const { return gpu::wallTicksToNs(gpu::wallClock() - start_); }

 private:
  uint64_t limit_;
  uint64_t start_ = 0;
  uint32_t polls_ = 0;  // wraps only after hours of polling (then 256 polls run hot again)
};

}  // namespace mori::device
#endif
