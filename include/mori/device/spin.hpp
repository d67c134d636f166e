// Every device spin loop goes through Spinner: the first kHotPolls polls follow each other
// directly (a sleep of even 100 ns between polls adds about as much to the latency of a wait
// that the peer ends within microseconds: a ping-pong pays it twice per round trip), later ones
// pause between polls. Once per kAbortPolls polls it reads the abort word (the error record's
// code: the host's peer monitor sets it when a PE dies, a kernel of this PE when it stops on an
// error) and, once per 256 polls when a limit is set (MORI_SHMEM_TIMEOUT), the wall clock. A wait
// that ends within the hot polls makes neither read.
//
// MORI_SHMEM_ABORT_POLLS (compile-time, for measurement builds only) overrides kAbortPolls: a power
// of two >= 256, or 0, which never reads the abort word, so a dead PE leaves the survivors' waits
// spinning (until MORI_SHMEM_TIMEOUT, if set). bench/abort_poll_cost.sh builds with 0 to measure
// what the read costs; never ship a build with it. Every translation unit of a program, the device
// library's included, must see the same value.
#pragma once

#include "mori/device/error.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"

#if MORI_GPU_COMPILER
namespace mori::device {

class Spinner {
 public:
  static constexpr uint32_t kHotPolls = 256;
  // Polls between two reads of the abort word, a host-mapped (PCIe) read. With a read every 256
  // polls, test_rdma_stress (132 x 256 threads waiting on a 64-slot ring, NIC model, one H200)
  // took 221 s instead of 5 s; the likeliest cause: tens of thousands of waiting threads' reads
  // share the link with the doorbells. NCCL reads its abort flag once per 10,000 spins; once per
  // 65,536 polls still ends a wait within tens of milliseconds of the host setting the word.
#ifdef MORI_SHMEM_ABORT_POLLS
  static constexpr uint32_t kAbortPolls = MORI_SHMEM_ABORT_POLLS;
#else
  static constexpr uint32_t kAbortPolls = 1u << 16;
#endif
  static_assert(kAbortPolls == 0 || (kAbortPolls >= 256 && (kAbortPolls & (kAbortPolls - 1)) == 0),
                "MORI_SHMEM_ABORT_POLLS: a power of two >= 256, or 0 (measurement builds: never read)");

  // `diag` (its errorRecord and timeoutTicks) must outlive the wait.
  MORI_DEVICE_INLINE explicit Spinner(const Diag& diag) : diag_(&diag), limit_(diag.timeoutTicks) {}

  // Call once per unsuccessful poll; true once the wait has exceeded its limit. Does not return
  // once the abort word is set: mori_device_stop_wait says why (the failed PE) and stops the kernel.
  MORI_DEVICE_INLINE bool expired() {
    if (++polls_ > kHotPolls) gpu::spinPause();
    if ((polls_ & 255u) != 0) return false;
    if (kAbortPolls != 0 && (polls_ & (kAbortPolls - 1)) == 0) {
      const DeviceErrorRecord* record = diag_->errorRecord;
      if (record && gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::System>(&record->code) != 0)
        mori_device_stop_wait(diag_);
    }
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
