// One PE's shmem_p_bw loop into its own heap (local HBM, no NVLink): the loop overhead of
// mori_shmem_uint64_p in a 132 x 1024 grid, for A/B of device-header versions on one GPU.
// Build against each include tree: nvcc -O3 -arch=sm_90 -std=c++17 -x cu -I<tree>/include
//   -I<build>/include p_loop_local_probe.cpp -L<build>/src -lmori_shmem -lmpi -o probe
// Run: mpirun -np 1 ./probe [MiB=8] [iters=200]; prints G messages/s for 5 timed kernels and
// checks every word of the destination.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"
#include "mori/shmem_device.h"

#define CHECK(x)                                                     \
  do {                                                               \
    if ((x) != 0) {                                                  \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
      exit(1);                                                       \
    }                                                                \
  } while (0)

__global__ void __launch_bounds__(1024) pLoop(uint64_t* dst, const uint64_t* src, size_t words, int pe, int iters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  for (int i = 0; i < iters; ++i) {
    for (size_t j = tid; j < words; j += threads) mori_shmem_uint64_p(dst + j, src[j], pe);
    asm volatile("" ::: "memory");
  }
  mori_shmem_quiet();
}

__global__ void fill(uint64_t* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = seed ^ (i * 0x9e3779b97f4a7c15ull);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const size_t mib = argc > 1 ? strtoull(argv[1], nullptr, 10) : 8;
  const int iters = argc > 2 ? atoi(argv[2]) : 200;
  const size_t words = mib * 1024 * 1024 / 8;
  CHECK(mori_shmem_init());
  auto* src = static_cast<uint64_t*>(mori_shmem_malloc(words * 8));
  auto* dst = static_cast<uint64_t*>(mori_shmem_malloc(words * 8));
  if (!src || !dst) return 1;
  fill<<<132, 1024>>>(src, words, 12345);
  CHECK(hipMemset(dst, 0, words * 8));
  hipEvent_t a, b;
  CHECK(hipEventCreate(&a));
  CHECK(hipEventCreate(&b));
  pLoop<<<132, 1024>>>(dst, src, words, mori_shmem_my_pe(), 10);
  CHECK(hipDeviceSynchronize());
  for (int k = 0; k < 5; ++k) {
    CHECK(hipEventRecord(a));
    pLoop<<<132, 1024>>>(dst, src, words, mori_shmem_my_pe(), iters);
    CHECK(hipEventRecord(b));
    CHECK(hipEventSynchronize(b));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, a, b));
    printf("%.3f ", static_cast<double>(words) * iters / (ms * 1e-3) / 1e9);
  }
  std::vector<uint64_t> s(words), d(words);
  CHECK(hipMemcpy(s.data(), src, words * 8, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(d.data(), dst, words * 8, hipMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < words; ++i) bad += s[i] != d[i];
  printf("G msg/s  %zu MiB  mismatches %zu\n", mib, bad);
  mori_shmem_finalize();
  MPI_Finalize();
  return bad != 0;
}
