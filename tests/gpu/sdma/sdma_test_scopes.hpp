// The device API's three scope shapes (rank, size, sync; every thread of the scope calls with
// the same arguments), declared for the SDMA suites so they need no SHMEM runtime headers; unit()
// numbers the scope instances of a grid.
#pragma once

#include <stdint.h>

#include "mori/platform/wave.hpp"

namespace mori::test::dma {

struct ThreadG {
  __device__ static int rank() { return 0; }
  __device__ static int size() { return 1; }
  __device__ static void sync() {}
  __device__ static uint64_t unit() { return blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; }
};

struct WarpG {
  __device__ static int rank() { return gpu::laneId(); }
  __device__ static int size() { return gpu::waveSize(); }
  __device__ static void sync() { gpu::waveSync(~gpu::LaneMask{0}); }
  __device__ static uint64_t unit() {
    return (blockIdx.x * uint64_t{blockDim.x} + threadIdx.x) / static_cast<uint64_t>(gpu::waveSize());
  }
};

struct BlockG {
  __device__ static int rank() { return static_cast<int>(threadIdx.x); }
  __device__ static int size() { return static_cast<int>(blockDim.x); }
  __device__ static void sync() { __syncthreads(); }
  __device__ static uint64_t unit() { return blockIdx.x; }
};

}  // namespace mori::test::dma
