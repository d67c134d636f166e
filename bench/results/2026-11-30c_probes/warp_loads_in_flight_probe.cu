// Probe: loads in flight per lane (batched x4 vs one at a time) for warp shares and CTA shares,
// full grid (132 x 1024) and one CTA, GPU0 -> GPU1 peer writes.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#define CK(x) do { auto e = (x); if (e != 0) { printf("fail %s: %d line %d\n", #x, (int)e, __LINE__); exit(1); } } while (0)
__device__ void unitShare(size_t bytes, size_t units, size_t u, size_t* begin, size_t* len) {
  const size_t grains = bytes / 16;
  const size_t first = grains * u / units, last = grains * (u + 1) / units;
  *begin = first * 16; *len = (last - first) * 16;
}
// BATCH: 4 loads, then 4 stores (mori's copyElements); else one load then its store, 4 per trip.
template <bool BATCH>
__device__ __forceinline__ void copy(uint4* __restrict__ d, const uint4* __restrict__ s, size_t n, size_t r, size_t st) {
  size_t i = r;
  for (; i + 3 * st < n; i += 4 * st) {
    if (BATCH) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = s[i + u * st];
#pragma unroll
      for (int u = 0; u < 4; ++u) d[i + u * st] = v[u];
    } else {
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        uint4 v;  // volatile asm: the next load stays behind this store
        asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(s + i + u * st));
        asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(d + i + u * st), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
      }
    }
  }
  for (; i < n; i += st) d[i] = s[i];
}
template <bool WARP, bool BATCH>
__global__ void __launch_bounds__(1024) k(uint4* dst, const uint4* src, size_t n16, int iters) {
  size_t b, len, r, st;
  if (WARP) {
    unitShare(n16 * 16, gridDim.x * (blockDim.x / 32), blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, &b, &len);
    r = threadIdx.x % 32; st = 32;
  } else {
    unitShare(n16 * 16, gridDim.x, blockIdx.x, &b, &len);
    r = threadIdx.x; st = blockDim.x;
  }
  for (int it = 0; it < iters; ++it) {
    copy<BATCH>(dst + b / 16, src + b / 16, len / 16, r, st);
    asm volatile("" ::: "memory");
  }
}
template <bool WARP, bool BATCH>
double run(int grid, uint4* dst, uint4* src, size_t bytes, int iters) {
  k<WARP, BATCH><<<grid, 1024>>>(dst, src, bytes / 16, 1);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a); k<WARP, BATCH><<<grid, 1024>>>(dst, src, bytes / 16, iters); cudaEventRecord(b);
  CK(cudaEventSynchronize(b)); float ms; cudaEventElapsedTime(&ms, a, b);
  return bytes * (double)iters / (ms * 1e-3) / 1e9;
}
int main() {
  const size_t maxB = size_t{256} << 20;
  CK(cudaSetDevice(1)); uint4* dst; CK(cudaMalloc(&dst, maxB));
  CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
  uint4* src; CK(cudaMalloc(&src, maxB)); CK(cudaMemset(src, 7, maxB));
  const size_t sizes[] = {size_t{1} << 20, size_t{4} << 20, size_t{8} << 20, size_t{16} << 20, size_t{32} << 20, size_t{64} << 20, size_t{256} << 20};
  printf("grid 132x1024: MiB  warp_batch warp_onebyone  cta_batch cta_onebyone\n");
  for (size_t s : sizes) {
    int it = (int)(200 * (size_t{8} << 20) / s); if (it < 20) it = 20;
    printf("%4zu  %.1f  %.1f  %.1f  %.1f\n", s >> 20, run<true, true>(132, dst, src, s, it), run<true, false>(132, dst, src, s, it),
           run<false, true>(132, dst, src, s, it), run<false, false>(132, dst, src, s, it));
  }
  printf("one CTA of 1024: MiB  warp_batch warp_onebyone  cta_batch cta_onebyone\n");
  for (size_t s : {size_t{1} << 20, size_t{16} << 20}) {
    printf("%4zu  %.1f  %.1f  %.1f  %.1f\n", s >> 20, run<true, true>(1, dst, src, s, 5), run<true, false>(1, dst, src, s, 5),
           run<false, true>(1, dst, src, s, 5), run<false, false>(1, dst, src, s, 5));
  }
  return 0;
}
