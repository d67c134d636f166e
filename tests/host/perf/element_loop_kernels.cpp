// Kernels for test_element_loop_registers: a user's loop of single-element operations in a
// 1024-thread CTA (64 registers per thread), built with -DMORI_SHMEM_STANDARD_CALLS=1. p's and
// g's general paths then keep the standard calling convention (mori/shmem/impl/rdma_ops.hpp), so
// such a loop keeps its state in registers; allocated together with the kernel (the default),
// the loop's state went to local memory around the rarely taken call
// (bench/results/2026-11-30T1148Z_*: 1.8x from L2 with the switch).
// Compiled only, never run: check_loop_spills.py reads ptxas's report for every kernel here.
#include "mori/shmem_device.h"

__global__ void __launch_bounds__(1024) pLoop(uint64_t* dst, const uint64_t* src, size_t n, int pe, int iters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  for (int i = 0; i < iters; ++i)
    for (size_t j = tid; j < n; j += threads) mori_shmem_uint64_p(dst + j, src[j], pe);
  mori_shmem_quiet();
}

__global__ void __launch_bounds__(1024) gLoop(uint64_t* dst, const uint64_t* src, size_t n, int pe, int iters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  for (int i = 0; i < iters; ++i)
    for (size_t j = tid; j < n; j += threads) dst[j] += mori_shmem_uint64_g(src + j, pe);
}
