// Kernels for test_register_budget: what a user writes, built as a user's program is (through
// mori::shmem, nvcc defaults, no __launch_bounds__, no register flags). Each body is one device
// operation; every kernel must fit a 1024-thread block, the point-to-point ones with registers to
// spare (the budget: 40, NVSHMEM's kernels use 32) and keep no local memory of its own. check_register_budget.py reads
// the linked program's GPU code; the program is never run.
#include "mori/shmem.h"

__global__ void putNbiBlockQuiet(uint8_t* dst, const uint8_t* src, size_t bytes, int pe) {
  mori_shmem_putmem_nbi_block(dst, src, bytes, pe);
  mori_shmem_quiet();
}

__global__ void putNbiWarpQuiet(uint8_t* dst, const uint8_t* src, size_t bytes, int pe) {
  const size_t warp = threadIdx.x / warpSize;
  mori_shmem_putmem_nbi_warp(dst + warp * bytes, src + warp * bytes, bytes, pe);
  mori_shmem_quiet();
}

__global__ void putSignalNbiBlock(uint8_t* dst, const uint8_t* src, size_t bytes, uint64_t* sig, int pe) {
  mori_shmem_putmem_signal_nbi_block(dst, src, bytes, sig, 1, MORI_SHMEM_SIGNAL_ADD, pe);
}

__global__ void uint64P(uint64_t* dst, uint64_t value, int pe) {
  mori_shmem_uint64_p(dst + blockIdx.x * blockDim.x + threadIdx.x, value, pe);
}

__global__ void uint64AtomicFetchAdd(uint64_t* dst, uint64_t* out, int pe) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = mori_shmem_uint64_atomic_fetch_add(dst, 1, pe);
}

__global__ void signalWaitUntil(uint64_t* sig, uint64_t value, uint64_t* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = mori_shmem_signal_wait_until(sig, MORI_SHMEM_CMP_GE, value);
}

__global__ void barrierAllBlock() { mori_shmem_barrier_all_block(); }

__global__ void barrierAllWarp() {
  if (static_cast<int>(threadIdx.x) < warpSize) mori_shmem_barrier_all_warp();
}

// Loops of single-element operations (shmem_p_bw's shape): the loop's state stays in registers
// around the rarely taken call into the device library.
__global__ void pLoop(uint64_t* dst, const uint64_t* src, size_t n, int pe, int iters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  for (int i = 0; i < iters; ++i)
    for (size_t j = tid; j < n; j += threads) mori_shmem_uint64_p(dst + j, src[j], pe);
  mori_shmem_quiet();
}

__global__ void gLoop(uint64_t* dst, const uint64_t* src, size_t n, int pe, int iters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  for (int i = 0; i < iters; ++i)
    for (size_t j = tid; j < n; j += threads) dst[j] += mori_shmem_uint64_g(src + j, pe);
}

// Team collectives by handle and by value: each kernel calls one, whose body is in the device
// library (its own cap: 64 registers, test_register_budget_collectives).
__global__ void intSumReduceThread(mori_shmem_team_t team, int* dst, const int* src, size_t n) {
  mori_shmem_int_sum_reduce_thread(team, dst, src, n);
}
__global__ void halfSumReduceBlock(mori_shmem_team_device_t team, mori_shmem_half_t* dst, const mori_shmem_half_t* src,
                                   size_t n) {
  mori_shmem_half_sum_reduce_block(team, dst, src, n);
}
__global__ void floatMaxReducescatterWarp(mori_shmem_team_t team, float* dst, const float* src, size_t n) {
  mori_shmem_float_max_reducescatter_warp(team, dst, src, n);
}
__global__ void fcollectWarp(mori_shmem_team_t team, void* dst, const void* src, size_t bytes) {
  mori_shmem_fcollectmem_warp(team, dst, src, bytes);
}
__global__ void broadcastThread(mori_shmem_team_device_t team, void* dst, const void* src, size_t bytes, int root) {
  mori_shmem_broadcastmem_thread(team, dst, src, bytes, root);
}
__global__ void alltoallBlock(mori_shmem_team_t team, void* dst, const void* src, size_t bytes) {
  mori_shmem_alltoallmem_block(team, dst, src, bytes);
}
__global__ void barrierWarp(mori_shmem_team_t team) { mori_shmem_barrier_warp(team); }

// A program calls the host API; the kernels need no launch to be checked.
int main() { return mori_shmem_device_error(nullptr, 0); }
