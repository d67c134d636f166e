// Micro-probe behind mori_shmem_init's warm-up kernel: which first launches of a kernel wait for
// the kernels already running? If one does, a kernel that spins until another kernel of the same
// process runs (a receiver waiting for a sender launched after it, on another stream) waits out
// its own bound.
//
// Usage: first_launch_probe <guest> <warm-up> <preload>
//   guest:   the kernel launched while a "spinner" runs: plain (no stack, no printf), stack (96
//            bytes of stack), printf (a printf call it never makes), both (stack and printf)
//   warm-up: none, or another kernel of a kind, run to completion before the spinner: plain,
//            stack (1 KiB), printf, both (1 KiB)
//   preload: 1: hipFuncGetAttributes(guest) before the spinner
// One case per process (what the driver sets up belongs to the context). The spinner (no stack,
// no printf) spins up to 3 s until a flag is set; 50 ms after it starts, the guest sets the flag
// from another stream. Prints one JSON object: CUDA_MODULE_LOADING, the case, the guest's launch
// call time (host), when the guest finished after its launch, whether the spinner saw the flag,
// and the device memory the warm-up took.
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

__device__ void setFlag(uint32_t* flag, uint32_t v) {
  if (threadIdx.x == 0) g::atomicStore<g::Order::Relaxed, g::Scope::System>(flag, v);
}

// K distinguishes two kernels of one kind (the guest and the warm-up are different kernels).
template <int K>
__global__ void plainKernel(uint32_t* flag, uint32_t) {
  setFlag(flag, 1u);
}

// BYTES of stack: a local array indexed at run time stays in local memory, whole.
template <int BYTES, bool PRINTF>
__global__ void stackKernel(uint32_t* flag, uint32_t index) {
  volatile uint32_t frame[BYTES / 4];
  for (int i = 0; i < BYTES / 4; ++i) frame[i] = static_cast<uint32_t>(i);
  frame[index % (BYTES / 4)] = 7;
  if (PRINTF && index == 0xffffffffu) printf("never printed: %u\n", frame[0]);
  setFlag(flag, frame[index % (BYTES / 4)] == 7 ? 1u : 2u);
}

// A printf the kernel never makes (index is 3 at every launch here).
template <int K>
__global__ void printfKernel(uint32_t* flag, uint32_t index) {
  if (index == 0xffffffffu) printf("never printed (%d)\n", K);
  setFlag(flag, 1u);
}

using KernelFn = void (*)(uint32_t*, uint32_t);

// The guest (warmUp false) or the warm-up kernel of a kind; null for an unknown kind.
KernelFn kernelOf(const char* kind, bool warmUp) {
  if (!strcmp(kind, "plain")) return warmUp ? plainKernel<1> : plainKernel<0>;
  if (!strcmp(kind, "stack")) return warmUp ? stackKernel<1024, false> : stackKernel<96, false>;
  if (!strcmp(kind, "printf")) return warmUp ? printfKernel<1> : printfKernel<0>;
  if (!strcmp(kind, "both")) return warmUp ? stackKernel<1024, true> : stackKernel<96, true>;
  return nullptr;
}

static double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr,
            "usage: %s <guest: plain|stack|printf|both> <warm-up: none|plain|stack|printf|both> <preload 0|1>\n",
            argv[0]);
    return 2;
  }
  const KernelFn guest = kernelOf(argv[1], false);
  const KernelFn warm = strcmp(argv[2], "none") ? kernelOf(argv[2], true) : nullptr;
  const bool preload = atoi(argv[3]) != 0;
  if (!guest || (strcmp(argv[2], "none") && !warm)) {
    fprintf(stderr, "unknown kind\n");
    return 2;
  }
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
  size_t freeBefore = 0, freeAfter = 0, total = 0;
  MICRO_OK(hipMemGetInfo(&freeBefore, &total));
  if (warm) {
    warm<<<1, 128, 0, b>>>(dummy, 3);
    MICRO_OK(hipGetLastError());
    MICRO_OK(hipDeviceSynchronize());
  }
  MICRO_OK(hipMemGetInfo(&freeAfter, &total));
  hipFuncAttributes attr;
  if (preload) MICRO_OK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(guest)));
  spinner<<<1, 32, 0, a>>>(flag, g::nsToWallTicks(3000000000ull), saw);
  MICRO_OK(hipGetLastError());
  usleep(50000);
  const auto t0 = std::chrono::steady_clock::now();
  guest<<<1, 128, 0, b>>>(flag, 3);
  MICRO_OK(hipGetLastError());
  const double launchSecs = secondsSince(t0);
  MICRO_OK(hipStreamSynchronize(b));
  const double guestSecs = secondsSince(t0);
  MICRO_OK(hipDeviceSynchronize());
  uint32_t sawHost = 0;
  MICRO_OK(hipMemcpy(&sawHost, saw, 4, hipMemcpyDeviceToHost));
  MICRO_OK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(guest)));
  const char* loading = getenv("CUDA_MODULE_LOADING");
  printf(
      "{\"module_loading\": \"%s\", \"guest\": \"%s\", \"warmup\": \"%s\", \"preload\": %d, \"guest_local_bytes\": "
      "%zu, "
      "\"guest_launch_call_ms\": %.3f, \"guest_done_after_ms\": %.3f, \"spinner_saw_flag\": %s, "
      "\"warmup_took_MiB\": %.1f}\n",
      loading ? loading : "(unset)", argv[1], argv[2], preload ? 1 : 0, static_cast<size_t>(attr.localSizeBytes),
      launchSecs * 1e3, guestSecs * 1e3, sawHost ? "true" : "false",
      (static_cast<double>(freeBefore) - static_cast<double>(freeAfter)) / 1048576.0);
  return 0;
}
