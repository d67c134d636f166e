// The three cooperation scopes of the device API as value types: every thread of the scope calls
// the operation with the same arguments; rank()/size() split the work; sync() orders it.
#pragma once

#include "mori/platform/wave.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

struct ThreadScope {
  static constexpr bool kSingleThread = true;
  static constexpr bool kOneWave = false;  // whether the threads are one whole wave
  MORI_DEVICE_INLINE static int rank() { return 0; }
  MORI_DEVICE_INLINE static int size() { return 1; }
  MORI_DEVICE_INLINE static void sync() {}
  template <typename T>
  MORI_DEVICE_INLINE static T broadcast(T v) {
    return v;
  }
};

// All lanes of the wave (warp) call together.
struct WarpScope {
  static constexpr bool kSingleThread = false;
  static constexpr bool kOneWave = true;
  MORI_DEVICE_INLINE static int rank() { return gpu::laneId(); }
  MORI_DEVICE_INLINE static int size() { return gpu::waveSize(); }
  MORI_DEVICE_INLINE static void sync() { gpu::waveSync(~gpu::LaneMask{0}); }
  // Rank 0's value, in every lane.
  template <typename T>
  MORI_DEVICE_INLINE static T broadcast(T v) {
    return gpu::shfl(~gpu::LaneMask{0}, v, 0);
  }
};

// All threads of the block call together.
struct BlockScope {
  static constexpr bool kSingleThread = false;
  static constexpr bool kOneWave = false;
  MORI_DEVICE_INLINE static int rank() {
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  }
  MORI_DEVICE_INLINE static int size() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }
  MORI_DEVICE_INLINE static void sync() { __syncthreads(); }
  // Rank 0's value, in every thread (one shared word per T per module).
  template <typename T>
  MORI_DEVICE_INLINE static T broadcast(T v) {
    __shared__ T slot;
    if (rank() == 0) slot = v;
    __syncthreads();
    const T r = slot;
    __syncthreads();
    return r;
  }
};

}  // namespace mori::shmem::impl
#endif
