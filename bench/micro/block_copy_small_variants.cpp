// Micro-benchmark behind the block put's small-share path: shmem_put_bw -s block at 1 MiB (132
// CTAs x 1024 threads, 7.9 KB per CTA, one 16-byte element per thread or none) ran at 0.67 of
// NVSHMEM's figure with PEs sharing one H200, and at par from 4 MiB. Which part of the copy makes
// the difference? One process, one GPU, a local destination, the shares mori-shmem-perf cuts
// (tools/perf/work_split.hpp, for multiples of 16 bytes), each CTA copying its share every iteration as the put_bw
// kernel does. Variants:
//   library        impl::copyBytes: what putmem_nbi_block runs on the P2P path
//   library_sync   the same between two __syncthreads, as NVSHMEM's block put is
//   simple         one 16-byte element per thread per step, no line skew, no unroll: NVSHMEM's loop
//   simple_sync    the same between two __syncthreads: NVSHMEM's block put, copy part
//   unroll1        copyElements with one load in flight (library: 4) and the line skew
//   elements4      copyElements<4> called directly (what copyBytes runs for these shares)
//   elements4_noskew  the same without the line skew
//   elements2      copyElements with two loads in flight
//   rem_loop       copyElements<4>'s main loop, then the positions left one at a time in a loop
//                  (instead of up to 3 predicated loads, then 3 predicated stores)
//   lib_aligned_only  copyBytes' 16-byte aligned branch alone (any other share traps)
//   lib_no_small   copyBytes without its up-to-16-bytes branch
//   lib_no_call    copyBytes with a trap in place of the device library's call
// Usage: block_copy_small_variants [iterations]. Prints one JSON object per variant and size;
// every destination is checked against the source.
#include <stdio.h>
#include <stdlib.h>

#include <utility>

#include "micro_check.hpp"
#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem/impl/copy.hpp"

enum Variant {
  kLibrary,
  kLibrarySync,
  kSimple,
  kSimpleSync,
  kUnroll1,
  kElements4,
  kElements4NoSkew,
  kElements2,
  kRemLoop,
  kLibAlignedOnly,
  kLibNoSmall,
  kLibNoCall,
  kCount
};
static const char* kNames[kCount] = {"library",  "library_sync",     "simple",           "simple_sync",
                                     "unroll1",  "elements4",        "elements4_noskew", "elements2",
                                     "rem_loop", "lib_aligned_only", "lib_no_small",     "lib_no_call"};

namespace impl = mori::shmem::impl;

// CTA u's share of `bytes` (a multiple of 16) cut among `units`: the shares mori-shmem-perf cuts
// (unitShare in tools/perf/work_split.hpp; bench/ does not include the tool's sources).
__device__ void cutShare(size_t bytes, size_t units, size_t u, size_t* begin, size_t* len) {
  const size_t n16 = bytes / 16, first = n16 * u / units, last = n16 * (u + 1) / units;
  *begin = first * 16;
  *len = (last - first) * 16;
}

// copyBytes (impl/copy.hpp) with parts left out, to find the part that costs.
template <bool kSmall, bool kHeadTail, bool kCall>
__device__ void copyBytesPart(uint8_t* dst, const uint8_t* src, size_t bytes, int rank, int size) {
  if (kSmall && bytes <= 16) {
    if (rank == 0) impl::copySmall(reinterpret_cast<char*>(dst), reinterpret_cast<const char*>(src), bytes);
    return;
  }
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (((d | s | bytes) & 15) == 0) {
    impl::copyElements<4>(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src), bytes >> 4, rank, size,
                          impl::lineSkew(d, 4, size));
    return;
  }
  if (!kHeadTail) __builtin_trap();
  if (((d ^ s) & 15) != 0) {
    if (kCall) return mori_shmemi_copy_unaligned(dst, src, bytes, rank, size, 0);
    __builtin_trap();
  }
  const size_t head = (16 - (d & 15)) & 15;
  const size_t n = (bytes - head) >> 4, done = head + (n << 4), tail = bytes - done;
  if (head && rank == 0) impl::copySmall(reinterpret_cast<char*>(dst), reinterpret_cast<const char*>(src), head);
  if (tail && rank == 1)
    impl::copySmall(reinterpret_cast<char*>(dst + done), reinterpret_cast<const char*>(src + done), tail);
  impl::copyElements<4>(reinterpret_cast<uint4*>(dst + head), reinterpret_cast<const uint4*>(src + head), n, rank, size,
                        impl::lineSkew(d + head, 4, size));
}

// copyElements<4>'s main loop, then what is left one position at a time (rem_loop).
__device__ void remLoopCopy(uint4* dst, const uint4* src, size_t n, int rank, int size, size_t skew) {
  const size_t stride = static_cast<size_t>(size), end = n + skew;
  size_t i = static_cast<size_t>(rank);
  if (i < skew) i += stride;
#pragma unroll 1
  for (; i + 3 * stride < end; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = src[i + u * stride - skew];
#pragma unroll
    for (int u = 0; u < 4; ++u) dst[i + u * stride - skew] = v[u];
  }
#pragma unroll 1
  for (; i < end; i += stride) dst[i - skew] = src[i - skew];
}

template <int V>
__global__ void __launch_bounds__(1024) copyKernel(uint8_t* dst, const uint8_t* src, size_t bytes, int iters) {
  size_t begin, len;
  cutShare(bytes, gridDim.x, blockIdx.x, &begin, &len);
  const int rank = static_cast<int>(threadIdx.x), size = static_cast<int>(blockDim.x);
  for (int it = 0; it < iters; ++it) {
    if constexpr (V == kLibrarySync || V == kSimpleSync) __syncthreads();
    if constexpr (V == kLibrary || V == kLibrarySync) {
      mori::shmem::impl::copyBytes(dst + begin, src + begin, len, rank, size);
    } else if constexpr (V == kSimple || V == kSimpleSync) {
      auto* d = reinterpret_cast<uint4*>(dst + begin);
      const auto* s = reinterpret_cast<const uint4*>(src + begin);
      for (size_t i = static_cast<size_t>(rank); i < len / 16; i += static_cast<size_t>(size)) d[i] = s[i];
    } else {
      mori::shmem::impl::copyElements<1>(
          reinterpret_cast<uint4*>(dst + begin), reinterpret_cast<const uint4*>(src + begin), len / 16, rank, size,
          mori::shmem::impl::lineSkew(reinterpret_cast<uintptr_t>(dst + begin), 4, size));
    }
    if constexpr (V == kLibrarySync || V == kSimpleSync) __syncthreads();
    asm volatile("" ::: "memory");
  }
}

__global__ void fillKernel(uint8_t* p, size_t bytes, uint32_t seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += gridDim.x * blockDim.x)
    p[i] = static_cast<uint8_t>((i * 2654435761u) >> 13 ^ seed);
}

__global__ void compareKernel(const uint8_t* a, const uint8_t* b, size_t bytes, unsigned long long* bad) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += gridDim.x * blockDim.x)
    if (a[i] != b[i]) atomicAdd(bad, 1ull);
}

template <int V>
void run(uint8_t* src, uint8_t* dst, unsigned long long* bad, size_t bytes, int iters) {
  MICRO_OK(hipMemset(dst, 0, bytes));
  MICRO_OK(hipDeviceSynchronize());
  copyKernel<V><<<132, 1024>>>(dst, src, bytes, 2);  // warm-up
  MICRO_OK(hipGetLastError());
  hipEvent_t a, b;
  MICRO_OK(hipEventCreate(&a));
  MICRO_OK(hipEventCreate(&b));
  MICRO_OK(hipEventRecord(a));
  copyKernel<V><<<132, 1024>>>(dst, src, bytes, iters);
  MICRO_OK(hipGetLastError());
  MICRO_OK(hipEventRecord(b));
  MICRO_OK(hipEventSynchronize(b));
  float ms = 0;
  MICRO_OK(hipEventElapsedTime(&ms, a, b));
  unsigned long long nbad = 0;
  MICRO_OK(hipMemset(bad, 0, sizeof(*bad)));
  compareKernel<<<264, 1024>>>(src, dst, bytes, bad);
  MICRO_OK(hipGetLastError());
  MICRO_OK(hipMemcpy(&nbad, bad, sizeof(nbad), hipMemcpyDeviceToHost));
  printf(
      "{\"test\": \"block_copy_small\", \"variant\": \"%s\", \"bytes\": %zu, \"iters\": %d, \"us_per_iter\": %.4f, "
      "\"GBps\": %.1f, \"bad_bytes\": %llu}\n",
      kNames[V], bytes, iters, ms * 1e3 / iters, static_cast<double>(bytes) * iters / (ms * 1e-3) / 1e9, nbad);
  MICRO_OK(hipEventDestroy(a));
  MICRO_OK(hipEventDestroy(b));
}

template <int... V>
void runAll(uint8_t* src, uint8_t* dst, unsigned long long* bad, size_t bytes, int iters,
            std::integer_sequence<int, V...>) {
  (run<V>(src, dst, bad, bytes, iters), ...);
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 200;
  constexpr size_t kMax = size_t{16} << 20;
  uint8_t *src, *dst;
  unsigned long long* bad;
  MICRO_OK(hipSetDevice(0));
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&src), kMax));
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&dst), kMax));
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&bad), sizeof(*bad)));
  fillKernel<<<264, 1024>>>(src, kMax, 77);
  MICRO_OK(hipGetLastError());
  MICRO_OK(hipDeviceSynchronize());
  for (size_t bytes : {size_t{256} << 10, size_t{1} << 20, size_t{4} << 20, size_t{16} << 20})
    runAll(src, dst, bad, bytes, iters, std::make_integer_sequence<int, kCount>{});
  MICRO_OK(hipFree(src));
  MICRO_OK(hipFree(dst));
  MICRO_OK(hipFree(bad));
  return 0;
}
