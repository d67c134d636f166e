// Probe: warp-share peer writes (mori-shmem-perf's put_bw -s warp pattern), store forms.
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
__device__ __noinline__ void callCopy(uint4* __restrict__ d, const uint4* __restrict__ s, size_t n, int lane) {
  for (size_t i = lane; i < n; i += 32) d[i] = s[i];
}
template <int MODE>
__global__ void __launch_bounds__(1024) k(uint4* dst, const uint4* src, size_t n16, int iters) {
  const size_t warps = gridDim.x * (blockDim.x / 32), w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  size_t b, len;
  unitShare(n16 * 16, warps, w, &b, &len);
  uint4* d = dst + b / 16; const uint4* s = src + b / 16; const size_t n = len / 16;
  for (int it = 0; it < iters; ++it) {
    if (MODE == 0) { for (size_t i = lane; i < n; i += 32) d[i] = s[i]; }
    if (MODE == 1) { for (size_t i = lane; i < n; i += 32) { uint4 v = s[i];
        asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(d + i), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory"); } }
    if (MODE == 2) { const uint32_t* s32 = reinterpret_cast<const uint32_t*>(s); uint32_t* d32 = reinterpret_cast<uint32_t*>(d);
      for (size_t i = lane * 4; i < n * 4; i += 128)
        asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(d32 + i), "r"(s32[i]), "r"(s32[i + 1]), "r"(s32[i + 2]), "r"(s32[i + 3]) : "memory"); }
    if (MODE == 3) callCopy(d, s, n, lane);
    if (MODE == 4) { for (size_t i = lane; i < n; i += 32) { uint4 v = s[i];
        asm volatile("st.relaxed.sys.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(d + i), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory"); } }
    if (MODE == 6) { for (size_t i = lane; i < n; i += 32) d[i] = s[i]; __syncwarp(); }
    if (MODE == 5) { for (size_t i = lane; i < n; i += 32) { uint4 v = s[i];
        asm volatile("st.global.cg.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(d + i), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory"); } }
    asm volatile("" ::: "memory");
  }
}
template <int MODE>
double run(uint4* dst, uint4* src, size_t bytes, int iters) {
  k<MODE><<<132, 1024>>>(dst, src, bytes / 16, 2);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a); k<MODE><<<132, 1024>>>(dst, src, bytes / 16, iters); cudaEventRecord(b);
  CK(cudaEventSynchronize(b)); float ms; cudaEventElapsedTime(&ms, a, b);
  return bytes * (double)iters / (ms * 1e-3) / 1e9;
}
int main() {
  const size_t maxB = size_t{256} << 20;
  CK(cudaSetDevice(1)); uint4* dst; CK(cudaMalloc(&dst, maxB));
  CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
  uint4* src; CK(cudaMalloc(&src, maxB)); CK(cudaMemset(src, 7, maxB));
  const size_t sizes[] = {size_t{8} << 20, size_t{16} << 20, size_t{32} << 20, size_t{64} << 20, size_t{256} << 20};
  printf("MiB   plain  call  plain+syncwarp\n");
  for (size_t s : sizes) {
    int it = (int)(200 * (size_t{8} << 20) / s); if (it < 20) it = 20;
    printf("%4zu  %.1f  %.1f  %.1f\n", s >> 20, run<0>(dst, src, s, it), run<3>(dst, src, s, it), run<6>(dst, src, s, it));
  }
  return 0;
}
