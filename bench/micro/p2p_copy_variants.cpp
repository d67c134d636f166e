// Micro-benchmark behind the P2P block copy (impl/copy.hpp): where does putmem_nbi_block lose
// to the SM store ceiling (FACTS.md: 367-370 GB/s with 16-byte stores, block put 348)? GPU 0
// writes into GPU 1 through peer access, 132 CTAs x 1024 threads, each CTA moving its share of
// the buffer per iteration, as shmem_put_bw does. Variants:
//   library      impl::copyBytes, what putmem_nbi_block runs
//   unroll1/8    the same loop with 1 or 8 16-byte loads in flight per thread (library: 4)
//   warp_chunks  each warp copies a contiguous part of its CTA's share
//   rotated      each CTA starts its share at a CTA-dependent offset and wraps around
//   grid_stride  the whole grid sweeps the whole buffer together (not a per-CTA share)
//   store_only   per-CTA shares, stores of a register value (no loads): the pattern alone
//   grid_store   grid-stride stores of a register value: the ceiling measurement
// Prints one JSON object per measurement; every copying variant's destination is checked.
#include <stdio.h>
#include <stdlib.h>

#include <utility>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem/impl/copy.hpp"

enum Variant { kLibrary, kUnroll1, kUnroll8, kWarpChunks, kRotated, kGridStride, kStoreOnly, kGridStore, kCount };
static const char* kNames[] = {"library", "unroll1",     "unroll8",    "warp_chunks",
                               "rotated", "grid_stride", "store_only", "grid_store"};

template <int U>
__device__ __forceinline__ void copyUnrolled(uint4* dst, const uint4* src, size_t n, size_t rank, size_t size) {
  size_t i = rank;
  for (; i + (U - 1) * size < n; i += U * size) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = src[i + u * size];
#pragma unroll
    for (int u = 0; u < U; ++u) dst[i + u * size] = v[u];
  }
  for (; i < n; i += size) dst[i] = src[i];
}

// n16: 16-byte elements in the whole buffer; CTA b owns [b * share, (b + 1) * share).
template <int V>
__global__ void __launch_bounds__(1024) copyKernel(uint4* dst, const uint4* src, size_t n16, int iters) {
  const size_t share = n16 / gridDim.x, begin = blockIdx.x * share;
  const uint4 value = make_uint4(blockIdx.x, threadIdx.x, 1, 2);
  for (int it = 0; it < iters; ++it) {
    if constexpr (V == kLibrary) {
      mori::shmem::impl::copyBytes(dst + begin, src + begin, share * 16, static_cast<int>(threadIdx.x),
                                   static_cast<int>(blockDim.x));
    } else if constexpr (V == kUnroll1) {
      copyUnrolled<1>(dst + begin, src + begin, share, threadIdx.x, blockDim.x);
    } else if constexpr (V == kUnroll8) {
      copyUnrolled<8>(dst + begin, src + begin, share, threadIdx.x, blockDim.x);
    } else if constexpr (V == kWarpChunks) {
      const size_t warps = blockDim.x / 32, w = threadIdx.x / 32, part = share / warps;
      const size_t len = w == warps - 1 ? share - w * part : part;
      copyUnrolled<4>(dst + begin + w * part, src + begin + w * part, len, threadIdx.x % 32, 32);
    } else if constexpr (V == kRotated) {
      const size_t rot = (static_cast<size_t>(blockIdx.x) * 2654435761u) % share & ~size_t{1023};
      copyUnrolled<4>(dst + begin + rot, src + begin + rot, share - rot, threadIdx.x, blockDim.x);
      copyUnrolled<4>(dst + begin, src + begin, rot, threadIdx.x, blockDim.x);
    } else if constexpr (V == kGridStride) {
      copyUnrolled<4>(dst, src, n16, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
    } else if constexpr (V == kStoreOnly) {
      for (size_t i = threadIdx.x; i < share; i += blockDim.x) dst[begin + i] = value;
    } else {
      for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += gridDim.x * blockDim.x) dst[i] = value;
    }
    asm volatile("" ::: "memory");
  }
}

__global__ void fillKernel(uint4* p, size_t n16, uint32_t seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += gridDim.x * blockDim.x) {
    const uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    p[i] = make_uint4(x, x + 1, x + 2, static_cast<uint32_t>(i >> 32));
  }
}

__global__ void compareKernel(const uint4* a, const uint4* b, size_t n16, unsigned long long* bad) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += gridDim.x * blockDim.x) {
    const uint4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) atomicAdd(bad, 1ull);
  }
}

#define CHECK(x)                                                     \
  do {                                                               \
    hipError_t e_ = (x);                                             \
    if (e_ != hipSuccess) {                                          \
      fprintf(stderr, "%s failed: %s\n", #x, hipGetErrorString(e_)); \
      exit(1);                                                       \
    }                                                                \
  } while (0)

template <int V>
void run(uint4* src, uint4* dst, uint4* check, unsigned long long* bad, size_t bytes, int iters) {
  const size_t n16 = bytes / 16;
  CHECK(hipSetDevice(1));
  CHECK(hipMemset(dst, 0, bytes));
  CHECK(hipDeviceSynchronize());
  CHECK(hipSetDevice(0));
  copyKernel<V><<<132, 1024>>>(dst, src, n16, 2);  // warm-up
  CHECK(hipGetLastError());
  hipEvent_t a, b;
  CHECK(hipEventCreate(&a));
  CHECK(hipEventCreate(&b));
  CHECK(hipEventRecord(a));
  copyKernel<V><<<132, 1024>>>(dst, src, n16, iters);
  CHECK(hipEventRecord(b));
  CHECK(hipEventSynchronize(b));
  float ms = 0;
  CHECK(hipEventElapsedTime(&ms, a, b));
  unsigned long long nbad = 0;
  const bool copies = V != kStoreOnly && V != kGridStore;
  if (copies) {
    CHECK(hipMemset(bad, 0, sizeof(*bad)));
    CHECK(hipMemcpy(check, dst, bytes, hipMemcpyDeviceToDevice));    // peer access: one address space
    compareKernel<<<264, 1024>>>(src, check, n16 / 132 * 132, bad);  // the shares' union
    CHECK(hipMemcpy(&nbad, bad, sizeof(nbad), hipMemcpyDeviceToHost));
  }
  printf(
      "{\"test\": \"p2p_copy\", \"variant\": \"%s\", \"bytes\": %zu, \"iters\": %d, \"GBps\": %.1f, "
      "\"checked\": %s, \"bad_elements\": %llu}\n",
      kNames[V], bytes, iters, static_cast<double>(bytes) * iters / (ms * 1e-3) / 1e9, copies ? "true" : "false", nbad);
  CHECK(hipEventDestroy(a));
  CHECK(hipEventDestroy(b));
}

template <int... V>
void runAll(uint4* src, uint4* dst, uint4* check, unsigned long long* bad, size_t bytes, int iters,
            std::integer_sequence<int, V...>) {
  (run<V>(src, dst, check, bad, bytes, iters), ...);
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 20;
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess || n < 2) {
    printf("SKIPPED: needs 2 GPUs (%d visible)\n", n);
    return 77;
  }
  const size_t maxBytes = size_t{256} << 20;
  uint4 *src, *dst, *check;
  unsigned long long* bad;
  CHECK(hipSetDevice(1));
  CHECK(hipDeviceEnablePeerAccess(0, 0));
  CHECK(hipMalloc(&dst, maxBytes));
  CHECK(hipSetDevice(0));
  CHECK(hipDeviceEnablePeerAccess(1, 0));
  CHECK(hipMalloc(&src, maxBytes));
  CHECK(hipMalloc(&check, maxBytes));
  CHECK(hipMalloc(&bad, sizeof(*bad)));
  fillKernel<<<264, 1024>>>(src, maxBytes / 16, 12345);
  CHECK(hipDeviceSynchronize());
  for (size_t bytes : {size_t{64} << 20, maxBytes})
    runAll(src, dst, check, bad, bytes, iters, std::make_integer_sequence<int, kCount>{});
  return 0;
}
