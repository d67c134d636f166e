// Micro-benchmark behind the P2P block copy (impl/copy.hpp): where does putmem_nbi_block lose
// to the SM store ceiling (367-370 GB/s with 16-byte stores, block put 348 on 2 x H200)? GPU 0
// writes into GPU 1 through peer access, 132 CTAs x 1024 threads, each CTA moving its share of
// the buffer per iteration, as shmem_put_bw does. Variants:
//   library      impl::copyBytes, what putmem_nbi_block runs
//   library_generic  the same with a destination the compiler cannot place in global memory
//                (as an address computed from a peer base is): generic stores
//   unit_share   the library copy on mori-shmem-perf's shares (tools/perf/work_split.hpp: the
//                grains are cut as evenly as possible, so shares differ by one 16-byte element and
//                start at uneven offsets) instead of equal shares that drop the remainder
//   unit_share_unskewed  the same shares copied without the line skew (copyElements with
//                skew 0): the loop as it was before copyBytes grouped warps on 128-byte lines
//   warp_unit_share  putmem_nbi_warp as mori-shmem-perf runs it: every warp of the grid copies its
//                even share of the buffer with copyBytes over its 32 lanes
//   warp_simple  the same shares with one 16-byte load and store per lane at a time
//   library_1cta_per_sm  the library copy with 200 KB of shared memory per CTA, so that no SM
//                can hold two CTAs (as in a kernel at 64 registers x 1024 threads)
//   unroll1/8    the same loop with 1 or 8 16-byte loads in flight per thread (library: 4)
//   warp_chunks  each warp copies a contiguous part of its CTA's share
//   rotated      each CTA starts its share at a CTA-dependent offset and wraps around
//   grid_stride  the whole grid sweeps the whole buffer together (not a per-CTA share)
//   store_only   per-CTA shares, stores of a register value (no loads): the pattern alone
//   grid_store   grid-stride stores of a register value: the ceiling measurement
// Each runs twice: "peer" (one process, peer access enabled) and "ipc" (a second, forked process
// opens the destination with hipIpcOpenMemHandle, and the first opens that process's source:
// how PEs map each other's heaps).
// Prints one JSON object per measurement; every copying variant's destination is checked.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

#include "micro_check.hpp"
#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem/impl/copy.hpp"

enum Variant {
  kLibrary,
  kLibraryGeneric,
  kUnitShare,
  kUnitShareUnskewed,
  kWarpUnitShare,
  kWarpSimple,
  kLibraryOneCta,
  kUnroll1,
  kUnroll8,
  kWarpChunks,
  kRotated,
  kGridStride,
  kStoreOnly,
  kGridStore,
  kCount
};
static const char* kNames[kCount] = {"library",
                                     "library_generic",
                                     "unit_share",
                                     "unit_share_unskewed",
                                     "warp_unit_share",
                                     "warp_simple",
                                     "library_1cta_per_sm",
                                     "unroll1",
                                     "unroll8",
                                     "warp_chunks",
                                     "rotated",
                                     "grid_stride",
                                     "store_only",
                                     "grid_store"};

// Unit u's share, in bytes, of n16 16-byte elements cut among `units` as evenly as possible
// (neighbours differ by at most one element): the shares mori-shmem-perf cuts for a multiple of
// 16 bytes (unitShare in tools/perf/work_split.hpp; bench/ does not include the tool's sources).
__device__ void evenShare(size_t n16, size_t units, size_t u, size_t* begin, size_t* len) {
  const size_t first = n16 * u / units, last = n16 * (u + 1) / units;
  *begin = first * 16;
  *len = (last - first) * 16;
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
    } else if constexpr (V == kUnitShare) {
      size_t b, len;
      evenShare(n16, gridDim.x, blockIdx.x, &b, &len);
      mori::shmem::impl::copyBytes(reinterpret_cast<uint8_t*>(dst) + b, reinterpret_cast<const uint8_t*>(src) + b, len,
                                   static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
    } else if constexpr (V == kUnitShareUnskewed) {
      size_t b, len;
      evenShare(n16, gridDim.x, blockIdx.x, &b, &len);
      mori::shmem::impl::copyElements<4>(dst + b / 16, src + b / 16, len / 16, static_cast<int>(threadIdx.x),
                                         static_cast<int>(blockDim.x));
    } else if constexpr (V == kWarpUnitShare || V == kWarpSimple) {
      const size_t warps = gridDim.x * (blockDim.x / 32), w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
      const int lane = static_cast<int>(threadIdx.x % 32);
      size_t b, len;
      evenShare(n16, warps, w, &b, &len);
      if constexpr (V == kWarpUnitShare) {
        mori::shmem::impl::copyBytes<true>(reinterpret_cast<uint8_t*>(dst) + b,
                                           reinterpret_cast<const uint8_t*>(src) + b, len, lane, 32);
      } else {
        for (size_t i = lane; i < len / 16; i += 32) dst[b / 16 + i] = src[b / 16 + i];
      }
    } else if constexpr (V == kLibraryOneCta) {
      mori::shmem::impl::copyBytes(dst + begin, src + begin, share * 16, static_cast<int>(threadIdx.x),
                                   static_cast<int>(blockDim.x));
    } else if constexpr (V == kLibraryGeneric) {
      volatile uint64_t d = reinterpret_cast<uint64_t>(dst + begin);  // the compiler loses where it points
      mori::shmem::impl::copyBytes(reinterpret_cast<uint4*>(d), src + begin, share * 16, static_cast<int>(threadIdx.x),
                                   static_cast<int>(blockDim.x));
    } else if constexpr (V == kUnroll1) {
      mori::shmem::impl::copyElements<1>(dst + begin, src + begin, share, static_cast<int>(threadIdx.x),
                                         static_cast<int>(blockDim.x));
    } else if constexpr (V == kUnroll8) {
      mori::shmem::impl::copyElements<8>(dst + begin, src + begin, share, static_cast<int>(threadIdx.x),
                                         static_cast<int>(blockDim.x));
    } else if constexpr (V == kWarpChunks) {
      const size_t warps = blockDim.x / 32, w = threadIdx.x / 32, part = share / warps;
      const size_t len = w == warps - 1 ? share - w * part : part;
      mori::shmem::impl::copyElements<4>(dst + begin + w * part, src + begin + w * part, len,
                                         static_cast<int>(threadIdx.x % 32), static_cast<int>(32));
    } else if constexpr (V == kRotated) {
      const size_t rot = (static_cast<size_t>(blockIdx.x) * 2654435761u) % share & ~size_t{1023};
      mori::shmem::impl::copyElements<4>(dst + begin + rot, src + begin + rot, share - rot,
                                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
      mori::shmem::impl::copyElements<4>(dst + begin, src + begin, rot, static_cast<int>(threadIdx.x),
                                         static_cast<int>(blockDim.x));
    } else if constexpr (V == kGridStride) {
      mori::shmem::impl::copyElements<4>(dst, src, n16, static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x),
                                         static_cast<int>(gridDim.x * blockDim.x));
    } else if constexpr (V == kStoreOnly) {
      for (size_t i = threadIdx.x; i < share; i += blockDim.x) dst[begin + i] = value;
    } else {
      for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += gridDim.x * blockDim.x) dst[i] = value;
    }
    asm volatile("" ::: "memory");
  }
}

__device__ uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// random: every byte pseudo-random (as mori-shmem-perf's patterns); else a structured pattern
// (one 32-bit word per element, the next two close to it, the last zero).
__global__ void fillKernel(uint4* p, size_t n16, uint32_t seed, bool random) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += gridDim.x * blockDim.x) {
    if (random) {
      const uint64_t a = mix64(2 * i + seed), b = mix64(2 * i + 1 + seed);
      p[i] = make_uint4(static_cast<uint32_t>(a), static_cast<uint32_t>(a >> 32), static_cast<uint32_t>(b),
                        static_cast<uint32_t>(b >> 32));
    } else {
      const uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ seed;
      p[i] = make_uint4(x, x + 1, x + 2, static_cast<uint32_t>(i >> 32));
    }
  }
}

__global__ void compareKernel(const uint4* a, const uint4* b, size_t n16, unsigned long long* bad) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += gridDim.x * blockDim.x) {
    const uint4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) atomicAdd(bad, 1ull);
  }
}

// Byte offsets of the source and destination from their (2 MiB-aligned) allocations, argv[2..3]:
// symmetric-heap buffers are 256-byte aligned.
size_t srcOffset = 0, dstOffset = 0;
// argv[4] == "random": source bytes all pseudo-random (fillKernel).
bool randomData = false;

template <int V>
void run(const char* mapping, uint4* src, uint4* dst, uint4* check, unsigned long long* bad, size_t bytes, int iters) {
  const size_t n16 = bytes / 16;
  MICRO_OK(hipMemset(dst, 0, bytes));
  MICRO_OK(hipDeviceSynchronize());
  const unsigned smem = V == kLibraryOneCta ? 200 * 1024 : 0;
  if (smem)
    MICRO_OK(hipFuncSetAttribute(reinterpret_cast<const void*>(&copyKernel<V>),
                                 hipFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  copyKernel<V><<<132, 1024, smem>>>(dst, src, n16, 2);  // warm-up
  MICRO_OK(hipGetLastError());
  hipEvent_t a, b;
  MICRO_OK(hipEventCreate(&a));
  MICRO_OK(hipEventCreate(&b));
  MICRO_OK(hipEventRecord(a));
  copyKernel<V><<<132, 1024, smem>>>(dst, src, n16, iters);
  MICRO_OK(hipEventRecord(b));
  MICRO_OK(hipEventSynchronize(b));
  float ms = 0;
  MICRO_OK(hipEventElapsedTime(&ms, a, b));
  unsigned long long nbad = 0;
  const bool copies = V != kStoreOnly && V != kGridStore;
  if (copies) {
    MICRO_OK(hipMemset(bad, 0, sizeof(*bad)));
    MICRO_OK(hipMemcpy(check, dst, bytes, hipMemcpyDeviceToDevice));  // one address space (UVA)
    const bool whole =
        V == kUnitShare || V == kUnitShareUnskewed || V == kGridStride;  // the others drop n16 % 132 elements
    compareKernel<<<264, 1024>>>(src, check, whole ? n16 : n16 / 132 * 132, bad);
    MICRO_OK(hipMemcpy(&nbad, bad, sizeof(nbad), hipMemcpyDeviceToHost));
  }
  printf(
      "{\"test\": \"p2p_copy\", \"data\": \"%s\", \"mapping\": \"%s\", \"variant\": \"%s\", \"bytes\": %zu, "
      "\"src_offset\": %zu, "
      "\"dst_offset\": %zu, "
      "\"iters\": %d, "
      "\"GBps\": %.1f, \"checked\": %s, \"bad_elements\": %llu}\n",
      randomData ? "random" : "structured", mapping, kNames[V], bytes, srcOffset, dstOffset, iters,
      static_cast<double>(bytes) * iters / (ms * 1e-3) / 1e9, copies ? "true" : "false", nbad);
  MICRO_OK(hipEventDestroy(a));
  MICRO_OK(hipEventDestroy(b));
}

template <int... V>
void runAll(const char* mapping, uint4* src, uint4* dst, uint4* check, unsigned long long* bad, size_t bytes, int iters,
            std::integer_sequence<int, V...>) {
  (run<V>(mapping, src, dst, check, bad, bytes, iters), ...);
}

constexpr size_t kMaxBytes = size_t{1} << 30;
constexpr size_t kSizes[] = {size_t{8} << 20,  size_t{16} << 20,  size_t{32} << 20,
                             size_t{64} << 20, size_t{256} << 20, kMaxBytes};

// GPU 0's side: source, check buffer, every variant at every size into `dst` (on GPU 1).
// IPC mode: the source is exported too and the other process maps it before the sweep, as every
// PE maps every other PE's heap (-1: not in IPC mode).
int exportFd = -1, ackFd = -1;

void sweep(const char* mapping, uint4* dst, int iters) {
  uint4 *src, *check;
  unsigned long long* bad;
  MICRO_OK(hipSetDevice(0));
  MICRO_OK(hipMalloc(&src, kMaxBytes + srcOffset));
  if (exportFd >= 0) {
    hipIpcMemHandle_t h;
    char ack = 0;
    MICRO_OK(hipIpcGetMemHandle(&h, src));
    if (write(exportFd, &h, sizeof(h)) != static_cast<ssize_t>(sizeof(h)) || read(ackFd, &ack, 1) != 1) exit(1);
  }
  MICRO_OK(hipMalloc(&check, kMaxBytes));
  src = reinterpret_cast<uint4*>(reinterpret_cast<char*>(src) + srcOffset);
  dst = reinterpret_cast<uint4*>(reinterpret_cast<char*>(dst) + dstOffset);
  MICRO_OK(hipMalloc(&bad, sizeof(*bad)));
  fillKernel<<<264, 1024>>>(src, kMaxBytes / 16, 12345, randomData);
  MICRO_OK(hipDeviceSynchronize());
  for (size_t bytes : kSizes)
    runAll(mapping, src, dst, check, bad, bytes, iters, std::make_integer_sequence<int, kCount>{});
  MICRO_OK(hipFree(bad));
  MICRO_OK(hipFree(check));
  MICRO_OK(hipFree(reinterpret_cast<char*>(src) - srcOffset));
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 20;
  if (argc > 3) srcOffset = strtoull(argv[2], nullptr, 0), dstOffset = strtoull(argv[3], nullptr, 0);
  randomData = argc > 4 && strcmp(argv[4], "random") == 0;
  if (srcOffset % 16 || dstOffset % 16) return 2;  // the variants copy 16-byte elements
  int fds[2], back[2], ack[2];
  if (pipe(fds) != 0 || pipe(back) != 0 || pipe(ack) != 0) return 1;
  // The IPC child is forked before either process touches the GPU runtime.
  const pid_t child = fork();
  if (child == 0) {
    hipIpcMemHandle_t h;
    if (read(fds[0], &h, sizeof(h)) != static_cast<ssize_t>(sizeof(h))) _exit(0);  // parent found < 2 GPUs
    void* dst = nullptr;
    MICRO_OK(hipSetDevice(0));
    MICRO_OK(hipIpcOpenMemHandle(&dst, h, hipIpcMemLazyEnablePeerAccess));
    exportFd = back[1], ackFd = ack[0];
    sweep("ipc", static_cast<uint4*>(dst), iters);
    MICRO_OK(hipIpcCloseMemHandle(dst));
    fflush(stdout);
    _exit(0);
  }
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess || n < 2) {
    close(fds[1]);
    waitpid(child, nullptr, 0);
    printf("SKIPPED: needs 2 GPUs (%d visible)\n", n);
    return 77;
  }
  uint4* dst;
  MICRO_OK(hipSetDevice(1));
  MICRO_OK(hipMalloc(&dst, kMaxBytes + dstOffset));
  hipIpcMemHandle_t h;
  MICRO_OK(hipIpcGetMemHandle(&h, dst));
  fflush(stdout);
  if (write(fds[1], &h, sizeof(h)) != static_cast<ssize_t>(sizeof(h))) return 1;
  void* childSrc = nullptr;  // the child's source, mapped here as a peer's heap is
  if (read(back[0], &h, sizeof(h)) == static_cast<ssize_t>(sizeof(h))) {
    MICRO_OK(hipIpcOpenMemHandle(&childSrc, h, hipIpcMemLazyEnablePeerAccess));
    if (write(ack[1], "k", 1) != 1) return 1;
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (childSrc) MICRO_OK(hipIpcCloseMemHandle(childSrc));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "the IPC child failed (status %d)\n", status);
    return 1;
  }
  MICRO_OK(hipSetDevice(1));
  MICRO_OK(hipDeviceEnablePeerAccess(0, 0));
  MICRO_OK(hipSetDevice(0));
  MICRO_OK(hipDeviceEnablePeerAccess(1, 0));
  sweep("peer", dst, iters);
  MICRO_OK(hipSetDevice(1));
  MICRO_OK(hipFree(dst));
  return 0;
}
