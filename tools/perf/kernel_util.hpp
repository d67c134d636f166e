// Device helpers shared by the benchmark kernels: who is who inside a scope, and the scope's quiet.
// Kernels are launched with 1-D grids and 1-D blocks.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/wave.hpp"
#include "tools/perf/backend.hpp"
#include "tools/perf/expected_data.hpp"
#include "tools/perf/work_split.hpp"

namespace mori::perf {

// Benchmark kernels run with up to 1024 threads per CTA (-t 1024): the compiler must keep them
// within 64 registers per thread (65536 / 1024), or such a launch fails for lack of registers
// (the device API is inlined, RDMA path included).
#define MORI_PERF_KERNEL __global__ __launch_bounds__(1024)

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

// Completes the scope's operations: one thread of the scope calls quiet, between two scope syncs.
template <Scope S>
MORI_PERF_DEVICE void scopeQuiet() {
  scopeSync<S>();
  if (scopeRank<S>() == 0) backend::quiet();
  scopeSync<S>();
}

}  // namespace mori::perf
