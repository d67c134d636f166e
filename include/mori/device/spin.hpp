// Every device spin loop goes through Spinner: the first kHotPolls polls follow each other
// directly (a sleep of even 100 ns between polls adds about as much to the latency of a wait
// that the peer ends within microseconds: a ping-pong pays it twice per round trip), later ones
// pause between polls. Once per 256 polls it reads the abort word (the error record's code: the
// host's peer monitor sets it when a PE dies, a kernel of this PE when it stops on an error) and,
// when a limit is set (MORI_SHMEM_TIMEOUT), the wall clock. Both are reads a wait that ends
// within the hot polls never makes; past them, one host-mapped read per 256 polls.
#pragma once

#include "mori/device/error.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"

#if MORI_GPU_COMPILER
namespace mori::device {

class Spinner {
 public:
  static constexpr uint32_t kHotPolls = 256;

  // `diag` (its errorRecord and timeoutTicks) must outlive the wait.
  MORI_DEVICE_INLINE explicit Spinner(const Diag& diag) : diag_(&diag), limit_(diag.timeoutTicks) {}

  // Call once per unsuccessful poll; true once the wait has exceeded its limit. Does not return
  // once the abort word is set: mori_device_stop_wait says why (the failed PE) and stops the kernel.
  MORI_DEVICE_INLINE bool expired() {
    if (++polls_ > kHotPolls) gpu::spinPause();
    if ((polls_ & 255u) != 0) return false;
    const DeviceErrorRecord* record = diag_->errorRecord;
    if (record && gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::System>(&record->code) != 0)
      mori_device_stop_wait(diag_);
    if (limit_ == 0) return false;
    const uint64_t now = gpu::wallClock();
    if (start_ == 0) start_ = now;
    return now - start_ > limit_;
  }
  MORI_DEVICE_INLINE uint64_t elapsedNs() const { return gpu::wallTicksToNs(gpu::wallClock() - start_); }

 private:
  const Diag* diag_;
  uint64_t limit_;
  uint64_t start_ = 0;
  uint32_t polls_ = 0;  // wraps only after hours of polling (then 256 polls run hot again)
};

}  // namespace mori::device
#endif
