// CUDA driver entry points through the runtime (NVIDIA only): libcuda is never linked, so the
// library loads on machines without a GPU driver (CI).
#pragma once

#include "mori/platform/gpu_runtime.hpp"

#if MORI_PLATFORM_NVIDIA
namespace mori::platform {

// The driver function `name` as type Fn (its CUDA 12.0 ABI), or null when the driver lacks it.
template <typename Fn>
Fn driverEntry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(fn);
}

}  // namespace mori::platform
#endif
