// Probe: one thread of GPU0 reads 8 or 64 bytes of GPU1's memory (peer access, one process) and
// stores them locally, 20,000 times in a row (what shmem_get_latency times); the remote loads in
// several forms: plain (ld.global), generic ld (as the libraries' inlined copies compile to), .cg,
// .relaxed.sys, all issued before the
// stores, or each load followed by its store (NVSHMEM 3.4.5's 64-byte thread get).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { auto e = (x); if (e != 0) { printf("fail %s: %d line %d\n", #x, (int)e, __LINE__); exit(1); } } while (0)
enum Form { Plain, Cg, RelaxedSys, Generic };
template <Form F>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  uint4 v;
  if (F == Plain) v = *p;
  if (F == Cg) asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  if (F == RelaxedSys)
    asm volatile("ld.relaxed.sys.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
  if (F == Generic) asm volatile("ld.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
template <Form F>
__device__ __forceinline__ uint64_t load8(const uint64_t* p) {
  uint64_t v;
  if (F == Plain) v = *p;
  if (F == Cg) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  if (F == RelaxedSys) asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  if (F == Generic) asm volatile("ld.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}
// N16 = 0: one 8-byte get; else N16 16-byte vectors, loads first (BATCH) or load/store pairs.
template <Form F, int N16, bool BATCH>
__global__ void get(uint4* dst, const uint4* remote, int iters) {
  for (int i = 0; i < iters; ++i) {
    if constexpr (N16 == 0) {
      reinterpret_cast<uint64_t*>(dst)[0] = load8<F>(reinterpret_cast<const uint64_t*>(remote));
    } else if constexpr (BATCH) {
      uint4 v[N16 > 0 ? N16 : 1];
#pragma unroll
      for (int u = 0; u < N16; ++u) v[u] = load16<F>(remote + u);
#pragma unroll
      for (int u = 0; u < N16; ++u) dst[u] = v[u];
    } else {
#pragma unroll
      for (int u = 0; u < N16; ++u) {
        const uint4 v = load16<F>(remote + u);
        asm volatile("" ::: "memory");
        dst[u] = v;
      }
    }
    asm volatile("" ::: "memory");
  }
}
template <Form F, int N16, bool BATCH>
double us(uint4* dst, const uint4* remote, int iters) {
  cudaEvent_t a, b;
  cudaEventCreate(&a), cudaEventCreate(&b);
  get<F, N16, BATCH><<<1, 1>>>(dst, remote, 100);
  cudaEventRecord(a);
  get<F, N16, BATCH><<<1, 1>>>(dst, remote, iters);
  cudaEventRecord(b);
  CK(cudaEventSynchronize(b));
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  return ms * 1e3 / iters;
}
int main() {
  uint4 *dst, *remote;
  CK(cudaSetDevice(1));
  CK(cudaMalloc(&remote, 4096));
  CK(cudaMemset(remote, 7, 4096));
  CK(cudaSetDevice(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  CK(cudaMalloc(&dst, 4096));
  const int n = 20000;
  for (int rep = 0; rep < 2; ++rep) {
    printf("8 B   generic %.4f plain %.4f  cg %.4f  relaxed.sys %.4f\n", us<Generic, 0, true>(dst, remote, n), us<Plain, 0, true>(dst, remote, n), us<Cg, 0, true>(dst, remote, n),
           us<RelaxedSys, 0, true>(dst, remote, n));
    printf("16 B  generic %.4f plain %.4f  cg %.4f  relaxed.sys %.4f\n", us<Generic, 1, true>(dst, remote, n), us<Plain, 1, true>(dst, remote, n), us<Cg, 1, true>(dst, remote, n),
           us<RelaxedSys, 1, true>(dst, remote, n));
    printf("64 B batched  generic %.4f plain %.4f  cg %.4f  relaxed.sys %.4f\n", us<Generic, 4, true>(dst, remote, n), us<Plain, 4, true>(dst, remote, n),
           us<Cg, 4, true>(dst, remote, n), us<RelaxedSys, 4, true>(dst, remote, n));
    printf("64 B pairs    generic %.4f plain %.4f  cg %.4f  relaxed.sys %.4f\n", us<Generic, 4, false>(dst, remote, n), us<Plain, 4, false>(dst, remote, n),
           us<Cg, 4, false>(dst, remote, n), us<RelaxedSys, 4, false>(dst, remote, n));
    printf("128 B batched plain %.4f  cg %.4f  relaxed.sys %.4f\n", us<Plain, 8, true>(dst, remote, n),
           us<Cg, 8, true>(dst, remote, n), us<RelaxedSys, 8, true>(dst, remote, n));
  }
  return 0;
}
