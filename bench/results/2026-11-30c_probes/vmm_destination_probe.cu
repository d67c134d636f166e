// Probe: warp-share peer writes into a cudaMalloc destination vs a cuMem (VMM) destination.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { auto e = (x); if (e != 0) { printf("fail %s: %d line %d\n", #x, (int)e, __LINE__); exit(1); } } while (0)
__device__ void unitShare(size_t bytes, size_t units, size_t u, size_t* begin, size_t* len) {
  const size_t grains = bytes / 16;
  const size_t first = grains * u / units, last = grains * (u + 1) / units;
  *begin = first * 16; *len = (last - first) * 16;
}
template <int MODE>
__global__ void __launch_bounds__(1024) k(uint4* dst, const uint4* src, size_t n16, int iters) {
  const size_t warps = gridDim.x * (blockDim.x / 32), w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  size_t b, len;
  if (MODE == 0) unitShare(n16 * 16, warps, w, &b, &len);
  else { size_t s = n16 / gridDim.x; b = (blockIdx.x * s) * 16; len = s * 16; }  // block shares
  for (int it = 0; it < iters; ++it) {
    if (MODE == 0) { for (size_t i = lane; i < len / 16; i += 32) dst[b / 16 + i] = src[b / 16 + i]; }
    else { for (size_t i = threadIdx.x; i < len / 16; i += blockDim.x) dst[b / 16 + i] = src[b / 16 + i]; }
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
  const size_t maxB = size_t{1} << 30;
  CK(cuInit(0));
  CK(cudaSetDevice(1)); uint4* dMalloc; CK(cudaMalloc(&dMalloc, maxB));
  CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
  uint4* src; CK(cudaMalloc(&src, maxB)); CK(cudaMemset(src, 7, maxB));
  // VMM destination: physical on device 1, mapped for devices 0 and 1.
  CUmemAllocationProp prop = {}; prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE; prop.location.id = 1;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0; CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  size_t gmin = 0; CK(cuMemGetAllocationGranularity(&gmin, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  printf("granularity recommended %zu minimum %zu\n", gran, gmin);
  CUmemGenericAllocationHandle h; CK(cuMemCreate(&h, maxB, &prop, 0));
  CUdeviceptr va; CK(cuMemAddressReserve(&va, maxB, 0, 0, 0)); CK(cuMemMap(va, maxB, 0, h, 0));
  CUmemAccessDesc acc[2] = {}; for (int i = 0; i < 2; ++i) { acc[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE; acc[i].location.id = i; acc[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE; }
  CK(cuMemSetAccess(va, maxB, acc, 2));
  uint4* dVmm = reinterpret_cast<uint4*>(va);
  const size_t sizes[] = {size_t{8} << 20, size_t{16} << 20, size_t{32} << 20, size_t{64} << 20, size_t{256} << 20};
  for (size_t s : sizes) {
    int it = (int)(200 * (size_t{8} << 20) / s); if (it < 20) it = 20;
    printf("%4zu MiB  warp: malloc %.1f vmm %.1f   block: malloc %.1f vmm %.1f\n", s >> 20, run<0>(dMalloc, src, s, it),
           run<0>(dVmm, src, s, it), run<1>(dMalloc, src, s, it), run<1>(dVmm, src, s, it));
  }
  return 0;
}
