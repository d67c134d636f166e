// mori_shmem_collective_launch and mori_shmem_collective_launch_query_gridsize (mori/shmem.h):
// inline in the caller's code, which compiles with nvcc or hipcc, because a kernel's address
// names a kernel only in the GPU runtime of the program that defines it (on NVIDIA each program
// and library links the CUDA runtime statically). The GPU runtime calls are the caller's; the
// checks, the grid and the messages are the library's (mori_shmemi_collective_grid).
#pragma once

#include "mori/shmem.h"

#if MORI_PLATFORM_NVIDIA
#include <cuda_runtime.h>
#define MORI_SHMEMI_RT(name) cuda##name
using mori_shmemi_rt_error_t = cudaError_t;
using mori_shmemi_rt_stream_t = cudaStream_t;
#define MORI_SHMEMI_RT_SUCCESS cudaSuccess
#define MORI_SHMEMI_RT_SMS cudaDevAttrMultiProcessorCount
#else
#include <hip/hip_runtime.h>
#define MORI_SHMEMI_RT(name) hip##name
using mori_shmemi_rt_error_t = hipError_t;
using mori_shmemi_rt_stream_t = hipStream_t;
#define MORI_SHMEMI_RT_SUCCESS hipSuccess
#define MORI_SHMEMI_RT_SMS hipDeviceAttributeMultiprocessorCount
#endif

// A failed runtime call: logged by the library, and cleared from the caller's runtime so that a
// later launch check of the caller's does not see it again.
inline int mori_shmemi_collective_rt_failed(const char* call, const char* what, mori_shmemi_rt_error_t e) {
  (void)MORI_SHMEMI_RT(GetLastError)();
  return mori_shmemi_collective_gpu_error(call, what, MORI_SHMEMI_RT(GetErrorName)(e),
                                          MORI_SHMEMI_RT(GetErrorString)(e));
}

// The grid to run (*run) and the largest (*max_grid; NULL is refused) for func, block and
// shared_mem on this PE.
inline int mori_shmemi_collective_plan(const char* call, const void* func, mori_shmem_dim3_t grid,
                                       mori_shmem_dim3_t block, size_t shared_mem, mori_shmem_dim3_t* run,
                                       int* max_grid) {
  int perSm = 0, sms = 0, device = 0;
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (func && threads > 0 && threads <= 0x7fffffffull) {
    mori_shmemi_rt_error_t e = MORI_SHMEMI_RT(GetDevice)(&device);
    if (e == MORI_SHMEMI_RT_SUCCESS) e = MORI_SHMEMI_RT(DeviceGetAttribute)(&sms, MORI_SHMEMI_RT_SMS, device);
    if (e != MORI_SHMEMI_RT_SUCCESS) return mori_shmemi_collective_rt_failed(call, "the GPU's multiprocessors", e);
    e = MORI_SHMEMI_RT(OccupancyMaxActiveBlocksPerMultiprocessor)(&perSm, func, static_cast<int>(threads), shared_mem);
    if (e != MORI_SHMEMI_RT_SUCCESS) return mori_shmemi_collective_rt_failed(call, "the kernel's occupancy", e);
  }
  return mori_shmemi_collective_grid(call, func, grid, block, shared_mem, perSm, sms, run, max_grid);
}

inline int mori_shmem_collective_launch_query_gridsize(const void* func, mori_shmem_dim3_t block, void** args,
                                                       size_t shared_mem, int* grid_size) {
  (void)args;  // the occupancy does not depend on the arguments
  mori_shmem_dim3_t run{};
  return mori_shmemi_collective_plan("mori_shmem_collective_launch_query_gridsize", func, mori_shmem_dim3_t{0, 0, 0},
                                     block, shared_mem, &run, grid_size);
}

inline int mori_shmem_collective_launch(const void* func, mori_shmem_dim3_t grid, mori_shmem_dim3_t block, void** args,
                                        size_t shared_mem, mori_shmem_stream_t stream) {
  const char* call = "mori_shmem_collective_launch";
  mori_shmem_dim3_t run{};
  int largest = 0;
  const int rc = mori_shmemi_collective_plan(call, func, grid, block, shared_mem, &run, &largest);
  if (rc != MORI_SHMEM_SUCCESS) return rc;
  const mori_shmemi_rt_error_t e = MORI_SHMEMI_RT(LaunchCooperativeKernel)(
      func, dim3(run.x, run.y, run.z), dim3(block.x, block.y, block.z), args, static_cast<unsigned int>(shared_mem),
      reinterpret_cast<mori_shmemi_rt_stream_t>(stream));
  return e == MORI_SHMEMI_RT_SUCCESS ? MORI_SHMEM_SUCCESS : mori_shmemi_collective_rt_failed(call, "the launch", e);
}

#undef MORI_SHMEMI_RT_SMS
#undef MORI_SHMEMI_RT_SUCCESS
#undef MORI_SHMEMI_RT
