// The 16-bit floating types with one spelling on both vendors: gpu::half (IEEE binary16) and
// gpu::bfloat16, with conversions to and from float (round to nearest even) usable in host and
// device code. GPU compilers only (the types are the vendor's).
#pragma once

#include "mori/platform/device.hpp"

#if MORI_GPU_COMPILER
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
