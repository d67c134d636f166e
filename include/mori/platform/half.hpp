// The 16-bit floating types with one spelling on both vendors: gpu::half (IEEE binary16) and
// gpu::bfloat16, the vendor's types. GPU compilers: always, with conversions to and from float
// (round to nearest even) usable in host and device code. Host compilers: the types alone, where
// the vendor's headers can be included (NVIDIA: cuda_fp16.h and cuda_bf16.h on the include path;
// AMD: hip_fp16.h and hip_bfloat16.h). MORI_GPU_HALF_TYPES says whether the types are declared.
#pragma once

#include "mori/platform/device.hpp"

#if !MORI_GPU_COMPILER
#if MORI_PLATFORM_NVIDIA && __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
namespace mori::gpu {
using half = __half;
using bfloat16 = __nv_bfloat16;
}  // namespace mori::gpu
#define MORI_GPU_HALF_TYPES 1
#elif MORI_PLATFORM_AMD && __has_include(<hip/hip_fp16.h>)
#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
namespace mori::gpu {
using half = __half;
using bfloat16 = hip_bfloat16;
}  // namespace mori::gpu
#define MORI_GPU_HALF_TYPES 1
#else
#define MORI_GPU_HALF_TYPES 0
#endif
#else
#define MORI_GPU_HALF_TYPES 1
#if MORI_PLATFORM_NVIDIA
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#else
#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#endif

namespace mori::gpu {

#if MORI_PLATFORM_NVIDIA
using half = __half;
using bfloat16 = __nv_bfloat16;
MORI_HOST_DEVICE_INLINE float toFloat(bfloat16 v) { return __bfloat162float(v); }
template <typename T>
MORI_HOST_DEVICE_INLINE T fromFloat(float v);
template <>
MORI_HOST_DEVICE_INLINE bfloat16 fromFloat<bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
#else
using half = __half;
using bfloat16 = hip_bfloat16;
MORI_HOST_DEVICE_INLINE float toFloat(bfloat16 v) { return static_cast<float>(v); }
template <typename T>
MORI_HOST_DEVICE_INLINE T fromFloat(float v);
template <>
MORI_HOST_DEVICE_INLINE bfloat16 fromFloat<bfloat16>(float v) {
  return bfloat16(v);  // rounds to nearest even
}
#endif
MORI_HOST_DEVICE_INLINE float toFloat(half v) { return __half2float(v); }
template <>
MORI_HOST_DEVICE_INLINE half fromFloat<half>(float v) {
  return __float2half_rn(v);
}

}  // namespace mori::gpu
#endif
