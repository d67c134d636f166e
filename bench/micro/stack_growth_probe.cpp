// Micro-probe behind mori_shmem_init's stack reservation: does launching a kernel that needs more
// per-thread stack (local memory) than the context has reserved wait for the kernels already
// running? If so, a kernel that spins until another kernel of the same process runs (a receiver
// waiting for a sender launched after it, on another stream) waits out its own bound.
//
// Usage: stack_growth_probe <warm-up guest bytes> <guest bytes> <stack limit to set first>
// (0: none; bytes are 96, 1024 or 4096). One case per process: the reservation belongs to the
// context. In order: the limit is set (if asked), the warm-up guest runs to completion (if asked),
// a "spinner" (no stack) spins up to 3 s until a flag is set, and 50 ms later the guest sets the
// flag from another stream. Prints one JSON object: the limit before and after, the guest's
// launch call time (host), when the guest finished after its launch, whether the spinner saw the
// flag, and the device memory the warm-up guest took (free memory before and after it).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <chrono>

#include "micro_check.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"
#include "mori/platform/gpu_runtime.hpp"

namespace g = mori::gpu;

__global__ void spinner(const uint32_t* flag, uint64_t deadlineTicks, uint32_t* saw) {
  const uint64_t start = g::wallClock();
  while (g::atomicLoad<g::Order::Relaxed, g::Scope::System>(flag) == 0u)
    if (g::wallClock() - start > deadlineTicks) return;
  *saw = 1;
}

// A dynamically indexed volatile array: the compiler keeps it in local memory (BYTES of stack).
template <int BYTES>
__global__ void guest(uint32_t* flag, uint32_t index) {
  volatile uint32_t frame[BYTES / 4];
  for (int i = 0; i < BYTES / 4; ++i) frame[i] = static_cast<uint32_t>(i);
  frame[index % (BYTES / 4)] = 7;
  if (threadIdx.x == 0)
    g::atomicStore<g::Order::Relaxed, g::Scope::System>(flag, frame[index % (BYTES / 4)] == 7 ? 1u : 2u);
}

// 96, 1024 or 4096 bytes of stack; false for another size.
bool launchGuest(int bytes, hipStream_t s, uint32_t* flag, hipFuncAttributes* attr) {
  switch (bytes) {
    case 96: guest<96><<<1, 128, 0, s>>>(flag, 3); return hipFuncGetAttributes(attr, guest<96>) == hipSuccess;
    case 1024: guest<1024><<<1, 128, 0, s>>>(flag, 3); return hipFuncGetAttributes(attr, guest<1024>) == hipSuccess;
    case 4096: guest<4096><<<1, 128, 0, s>>>(flag, 3); return hipFuncGetAttributes(attr, guest<4096>) == hipSuccess;
    default: return false;
  }
}

static double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <warm-up guest bytes> <guest bytes> <stack limit to set first>\n", argv[0]);
    return 2;
  }
  const int warmBytes = atoi(argv[1]), guestBytes = atoi(argv[2]);
  const size_t setLimit = strtoull(argv[3], nullptr, 10);
  MICRO_OK(hipSetDevice(0));
  hipStream_t a, b;
  MICRO_OK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  MICRO_OK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  uint32_t *flag, *saw, *dummy;
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&flag), 4));
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&saw), 4));
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&dummy), 4));
  MICRO_OK(hipMemset(flag, 0, 4));
  MICRO_OK(hipMemset(saw, 0, 4));
  MICRO_OK(hipDeviceSynchronize());
  size_t before = 0, after = 0;
  MICRO_OK(hipDeviceGetLimit(&before, hipLimitStackSize));
  if (setLimit) MICRO_OK(hipDeviceSetLimit(hipLimitStackSize, setLimit));
  hipFuncAttributes attr;
  size_t freeBefore = 0, freeAfter = 0, total = 0;
  MICRO_OK(hipMemGetInfo(&freeBefore, &total));
  if (warmBytes) {
    if (!launchGuest(warmBytes, b, dummy, &attr)) {
      fprintf(stderr, "warm-up guest of %d bytes: no such guest or launch failed\n", warmBytes);
      return 2;
    }
    MICRO_OK(hipGetLastError());
    MICRO_OK(hipDeviceSynchronize());
  }
  MICRO_OK(hipMemGetInfo(&freeAfter, &total));
  spinner<<<1, 32, 0, a>>>(flag, g::nsToWallTicks(3000000000ull), saw);
  MICRO_OK(hipGetLastError());
  usleep(50000);
  const auto t0 = std::chrono::steady_clock::now();
  if (!launchGuest(guestBytes, b, flag, &attr)) {
    fprintf(stderr, "guest of %d bytes: no such guest or launch failed\n", guestBytes);
    return 2;
  }
  MICRO_OK(hipGetLastError());
  const double launchSecs = secondsSince(t0);
  MICRO_OK(hipStreamSynchronize(b));
  const double guestSecs = secondsSince(t0);
  MICRO_OK(hipDeviceSynchronize());
  MICRO_OK(hipDeviceGetLimit(&after, hipLimitStackSize));
  uint32_t sawHost = 0;
  MICRO_OK(hipMemcpy(&sawHost, saw, 4, hipMemcpyDeviceToHost));
  printf(
      "{\"warmup_bytes\": %d, \"guest_bytes\": %d, \"set_limit\": %zu, \"guest_local_bytes\": %zu, "
      "\"stack_limit_before\": %zu, \"stack_limit_after\": %zu, \"guest_launch_call_ms\": %.3f, "
      "\"guest_done_after_ms\": %.3f, \"spinner_saw_flag\": %s, \"warmup_took_MiB\": %.1f}\n",
      warmBytes, guestBytes, setLimit, static_cast<size_t>(attr.localSizeBytes), before, after, launchSecs * 1e3,
      guestSecs * 1e3, sawHost ? "true" : "false",
      (static_cast<double>(freeBefore) - static_cast<double>(freeAfter)) / 1048576.0);
  return 0;
}
