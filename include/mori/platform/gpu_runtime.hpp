// The GPU runtime API the project is written against: HIP. On AMD this is HIP itself; on NVIDIA
// it is the project's own alias table over the CUDA runtime (hip_on_cuda.hpp).
#pragma once

#include "mori/platform/device.hpp"

#if MORI_PLATFORM_AMD  // __HIP_PLATFORM_AMD__: mori/platform/device.hpp
#if MORI_GPU_COMPILER
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif
#else
#include "mori/platform/hip_on_cuda.hpp"
#endif
