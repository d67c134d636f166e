// Device helpers shared by the benchmark kernels: who is who inside a scope, and the scope's quiet.
// Kernels are launched with 1-D grids and 1-D blocks.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "mori/platform/wave.hpp"
#include "tools/perf/backend.hpp"
#include "tools/perf/expected_data.hpp"
#include "tools/perf/work_split.hpp"

namespace mori::perf {

// A benchmark kernel declares the most threads per CTA it is launched with. At -t 1024 the
// compiler must keep it within 64 registers per thread (65536 / 1024), or the launch fails for
// lack of registers (a kernel's count includes the device library's functions it calls, which
// are capped below that: docs/DEVICE_API_FOOTPRINT.md).
// Kernels that only ever run one wave (thread- and warp-scope latency, -t <= 64) take the wave
// bound instead, and with it the register budget of a user's one-wave kernel; NVSHMEM's perftest
// kernels declare no bound at all. On NVIDIA such a kernel also asks for one resident CTA per SM:
// told only the thread bound, ptxas still budgets for several (72 registers here) and spills the
// loop counter of the put-latency kernel.
#if MORI_PLATFORM_AMD
#define MORI_PERF_KERNEL_FOR(max_threads) __global__ __launch_bounds__(max_threads)
#else
#define MORI_PERF_KERNEL_FOR(max_threads) \
  __global__ __launch_bounds__(max_threads, (max_threads) < kMaxCtaThreads ? 1 : 0)
#endif
#define MORI_PERF_KERNEL MORI_PERF_KERNEL_FOR(kMaxCtaThreads)
constexpr int kMaxCtaThreads = 1024;
constexpr int kOneWave = gpu::kMaxWaveSize;

// Keeps each timed iteration a real one: the compiler may not merge or hoist the memory accesses of
// one iteration into another (identical iterations of plain loads and stores otherwise could be).
// No instruction is emitted.
MORI_PERF_DEVICE void iterationBoundary() { asm volatile("" ::: "memory"); }

// ---- scopes ------------------------------------------------------------------------------------

template <Scope S>
MORI_PERF_DEVICE int scopeRank() {
  if constexpr (S == Scope::Thread) return 0;
  if constexpr (S == Scope::Warp) return static_cast<int>(threadIdx.x) % gpu::waveSize();
  if constexpr (S == Scope::Block) return static_cast<int>(threadIdx.x);
}

template <Scope S>
MORI_PERF_DEVICE void scopeSync() {
  if constexpr (S == Scope::Warp) gpu::waveSync(~gpu::LaneMask{0});
  if constexpr (S == Scope::Block) __syncthreads();
}

// Index of this thread's scope instance in the grid, and how many there are.
template <Scope S>
MORI_PERF_DEVICE size_t scopeUnit() {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if constexpr (S == Scope::Thread) return tid;
  if constexpr (S == Scope::Warp) return tid / static_cast<size_t>(gpu::waveSize());
  if constexpr (S == Scope::Block) return blockIdx.x;
}
template <Scope S>
MORI_PERF_DEVICE size_t scopeUnits() {
  if constexpr (S == Scope::Thread) return gridDim.x * static_cast<size_t>(blockDim.x);
  if constexpr (S == Scope::Warp) return gridDim.x * static_cast<size_t>(blockDim.x / gpu::waveSize());
  if constexpr (S == Scope::Block) return gridDim.x;
}

// The launch bound of a latency kernel of scope S: thread and warp scope run one wave.
template <Scope S>
constexpr int kLatencyBound = S == Scope::Block ? kMaxCtaThreads : kOneWave;

// Picks the instance of a kernel template that may run `threads` per CTA: the one-wave instance
// when it can, else the 1024-thread one. launch(std::integral_constant<int, bound>{}).
template <typename LaunchWithBound>
void launchWithinBound(unsigned threads, LaunchWithBound&& launch) {
  if (threads <= static_cast<unsigned>(kOneWave))
    launch(std::integral_constant<int, kOneWave>{});
  else
    launch(std::integral_constant<int, kMaxCtaThreads>{});
}

// Completes the scope's operations: one thread of the scope calls quiet, between two scope syncs.
template <Scope S>
MORI_PERF_DEVICE void scopeQuiet() {
  scopeSync<S>();
  if (scopeRank<S>() == 0) backend::quiet();
  scopeSync<S>();
}

}  // namespace mori::perf
