// Compile mode, decided once: which vendor, whether this pass compiles device code, and the
// qualifiers every other header uses. Nothing else in the project tests compiler macros directly.
#pragma once

#include "mori/platform/config.h"

#if MORI_PLATFORM_AMD == MORI_PLATFORM_NVIDIA
#error "mori/platform/config.h must select exactly one GPU platform"
#endif

// A GPU compiler (hipcc/clang -x hip, nvcc) is compiling this translation unit.
#if defined(__HIPCC__) || defined(__CUDACC__)
#define MORI_GPU_COMPILER 1
#else
#define MORI_GPU_COMPILER 0
#endif

#if MORI_GPU_COMPILER
#if MORI_PLATFORM_NVIDIA && !defined(__CUDACC__)
#error "this mori-shmem package was built for NVIDIA: compile device code with nvcc"
#endif
#if MORI_PLATFORM_AMD && !defined(__HIPCC__)
#error "this mori-shmem package was built for AMD: compile device code with hipcc"
#endif
#endif

// The HIP headers' platform macro, for host compilers too: this package's platform.
#if MORI_PLATFORM_AMD && !defined(__HIP_PLATFORM_AMD__)
#define __HIP_PLATFORM_AMD__ 1
#endif

#if MORI_GPU_COMPILER && MORI_PLATFORM_AMD
#include <hip/hip_runtime.h>  // the device qualifiers and builtins every GPU header uses
#endif

// This pass generates device code.
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
#define MORI_DEVICE_COMPILE 1
#else
#define MORI_DEVICE_COMPILE 0
#endif

#if MORI_GPU_COMPILER
#define MORI_HOST_DEVICE __host__ __device__
#define MORI_DEVICE __device__
#define MORI_DEVICE_INLINE __device__ __forceinline__
#define MORI_HOST_DEVICE_INLINE __host__ __device__ __forceinline__
#define MORI_DEVICE_NOINLINE __device__ __noinline__
#else
#define MORI_HOST_DEVICE
#define MORI_DEVICE
#define MORI_DEVICE_INLINE inline
#define MORI_HOST_DEVICE_INLINE inline
#define MORI_DEVICE_NOINLINE
#endif

// Loop unrolling hints for code compiled for host and device: the device pass sees the pragma,
// the host compiler (which does not know it, and warns) does not.
#if MORI_DEVICE_COMPILE
#define MORI_UNROLL _Pragma("unroll")
#define MORI_UNROLL_NONE _Pragma("unroll 1")
#else
#define MORI_UNROLL
#define MORI_UNROLL_NONE
#endif

#define MORI_LIKELY(...) __builtin_expect(!!(__VA_ARGS__), 1)
#define MORI_UNLIKELY(...) __builtin_expect(!!(__VA_ARGS__), 0)
