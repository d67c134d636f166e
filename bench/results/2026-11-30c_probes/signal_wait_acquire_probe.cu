// Probe: put + release + signal ping-pong between GPU0 and GPU1 (one process, peer access), one
// thread each; the wait polls with ld.acquire.sys (mori-shmem) or ld.volatile (NVSHMEM 3.4.5's
// signal_wait_until), then the 8-byte put reads its source from local memory.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#define CK(x) do { auto e = (x); if (e != 0) { printf("fail %s: %d line %d\n", #x, (int)e, __LINE__); exit(1); } } while (0)
template <bool ACQUIRE>
__device__ __forceinline__ uint64_t poll(const uint64_t* p) {
  uint64_t v;
  if (ACQUIRE) asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  else asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
template <bool ACQUIRE>
__global__ void pp(uint64_t* myFlag, uint64_t* peerFlag, const uint64_t* src, uint64_t* peerData, int iters, bool first,
                   unsigned long long* bad, uint64_t* myData) {
  for (int i = 1; i <= iters; ++i) {
    if (!first) { while (poll<ACQUIRE>(myFlag) < (uint64_t)i) {} if (ACQUIRE && *myData != (uint64_t)i) atomicAdd(bad, 1); }
    uint64_t v = *(volatile const uint64_t*)src + i;  // the put's source, from local memory
    *(volatile uint64_t*)peerData = v;
    asm volatile("fence.release.sys;" ::: "memory");
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(peerFlag), "l"((uint64_t)i) : "memory");
    if (first) { while (poll<ACQUIRE>(myFlag) < (uint64_t)i) {} }
  }
}
template <bool ACQUIRE>
double run(uint64_t** flag, uint64_t** data, uint64_t** src, unsigned long long* bad, int iters) {
  for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); CK(cudaMemset(flag[d], 0, 8)); CK(cudaDeviceSynchronize()); }
  cudaEvent_t a, b; CK(cudaSetDevice(0)); cudaEventCreate(&a); cudaEventCreate(&b);
  CK(cudaSetDevice(1)); pp<ACQUIRE><<<1, 1>>>(flag[1], flag[0], src[1], data[0], iters, false, bad, data[1]);
  CK(cudaSetDevice(0)); cudaEventRecord(a);
  pp<ACQUIRE><<<1, 1>>>(flag[0], flag[1], src[0], data[1], iters, true, bad, data[0]); cudaEventRecord(b);
  CK(cudaEventSynchronize(b)); CK(cudaSetDevice(1)); CK(cudaDeviceSynchronize());
  float ms; cudaEventElapsedTime(&ms, a, b); return ms * 1e3 / iters;
}
int main() {
  uint64_t *flag[2], *data[2], *src[2]; unsigned long long* bad;
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d)); CK(cudaDeviceEnablePeerAccess(1 - d, 0));
    CK(cudaMalloc(&flag[d], 8)); CK(cudaMalloc(&data[d], 8)); CK(cudaMalloc(&src[d], 8)); CK(cudaMemset(src[d], 0, 8));
  }
  CK(cudaMallocManaged(&bad, 8)); *bad = 0;
  for (int rep = 0; rep < 2; ++rep)
    printf("round trip us: acquire %.3f  volatile %.3f\n", run<true>(flag, data, src, bad, 20000), run<false>(flag, data, src, bad, 20000));
  printf("payload mismatches seen by the acquiring side: %llu\n", *bad);
  return 0;
}
