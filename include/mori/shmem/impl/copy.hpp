// Cooperative copy used by P2P put and get: 16-byte vector loads/stores when source and
// destination share 16-byte alignment (head and tail handled separately), else the widest
// common element; the threads' accesses are grouped on the destination's 128-byte lines. Each
// thread keeps 4 vectors in flight before storing: one 16-byte access per thread at a time cannot
// cover NVLink latency.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/device.hpp"
#include "mori/shmem/impl/device_library.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

// Cache line the destination's accesses are grouped on: a warp's 32 16-byte stores that start
// mid-line touch 5 lines instead of 4 (peer writes 348-349 GB/s on the H200s against 366-370
// line-aligned; bench/micro/p2p_copy_variants.cpp measures both).
constexpr uintptr_t kLineBytes = 128;

// The 16-byte element of the copies. clang compiling CUDA (the device library's bitcode for
// Triton) copies the struct uint4 with llvm.memcpy, which the NVPTX backend lowers to two 8-byte
// loads and stores: Triton's block put ran at 808 against the C++ API's 1904 GB/s on an H200. A
// vector type is one 16-byte access (ld.v4.u32) there; nvcc and hipcc already make uint4 one.
#if defined(__clang__) && defined(__CUDA__) && !defined(__NVCC__)
using Vec16 = unsigned int __attribute__((ext_vector_type(4)));
#else
using Vec16 = uint4;
#endif

// The destinations of a copy after its first, as byte offsets from it, each a multiple of the
// element size (n of them, at most kMax): a fanout, every unit loaded once and stored to each
// destination (a wave's fcollect push to its load/store members). kMax 0: the first destination
// alone.
template <int kMax>
struct MoreDests {
  ptrdiff_t by[kMax];
  int n = 0;
};
template <>
struct MoreDests<0> {};

// Copies n elements; thread `rank` of `size` takes positions rank, rank + size, ... of a sequence
// that starts `skew` positions before dst[0] (position i is element i - skew; positions before
// element 0 are skipped). A skew of the destination's offset into its line, in elements, puts
// each group of `size` consecutive positions on whole lines. skew < size.
// kUnroll: loads in flight per thread. The loop is not unrolled further: nvcc's 4x unroll (16
// vectors a pass) sends warp shares smaller than a pass through its remainder code (warp put at
// 32 MiB 330 against 348 GB/s).
// kOneWave: the threads are one wave (warp scope). They then leave the loop together: a wave in
// which some threads still had a full pass would run that pass and the remainder one after the
// other (warp put at 8 MiB 324-329 against 355-356 GB/s). The wave's furthest thread starts its
// passes at (skew ? skew + size : size) - 1, which is at least i and less than i + size, so every
// thread has at most kUnroll positions left after the loop.
// Positions are 32-bit (kChunkElements at a time): an address is then one multiply-add, not a
// chain of 64-bit adds and compares, and a share of at most one element per thread takes one
// predicated access. With one element per thread (a 1 MiB put over 132 blocks of 1024 threads)
// the call is issue-bound, every warp running every instruction of it: 0.64 us per call in the
// 64-bit form on an H200, 0.41 in this one, against NVSHMEM's 0.46
// (bench/results/2026-12-02T0100Z_h200x1_mps_block_put_small_shares.json).
// `more`: further destinations, each element loaded once and stored to all of them (MoreDests).
// Host and device: tests/host/device_copy runs every thread's part on the CPU.
template <int kUnroll, bool kOneWave, typename T, int kMore = 0>
MORI_HOST_DEVICE_INLINE void copyElements32(T* __restrict__ dst, const T* __restrict__ src, uint32_t n, uint32_t rank,
                                            uint32_t stride, uint32_t skew, const MoreDests<kMore>& more = {}) {
  const auto store = [&](uint32_t e, const T& v) {
    dst[e] = v;
    if constexpr (kMore > 0) {
      MORI_UNROLL
      for (int d = 0; d < kMore; ++d)
        if (d < more.n) reinterpret_cast<T*>(reinterpret_cast<char*>(dst) + more.by[d])[e] = v;
    }
  };
  const uint32_t end = n + skew;
  uint32_t i = rank;
  if (i < skew) i += stride;
  if (n <= stride) {  // one position per thread at most (a 1 MiB put over 132 blocks, 2 MiB over warps)
    if (i < end) store(i - skew, src[i - skew]);
    return;
  }
  uint32_t reach = (kUnroll - 1) * stride;
  if constexpr (kOneWave) reach += (skew ? skew + stride : stride) - 1 - i;
  MORI_UNROLL_NONE
  for (; i + reach < end; i += kUnroll * stride) {
    T v[kUnroll];
    MORI_UNROLL
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * stride - skew];
    MORI_UNROLL
    for (int u = 0; u < kUnroll; ++u) store(i + u * stride - skew, v[u]);
  }
  constexpr int kLeft = kOneWave ? kUnroll : kUnroll - 1;  // positions left at most
  if constexpr (kLeft > 0) {                               // loads first here too
    T v[kLeft] = {};
    MORI_UNROLL
    for (int u = 0; u < kLeft; ++u)
      if (i + u * stride < end) v[u] = src[i + u * stride - skew];
    MORI_UNROLL
    for (int u = 0; u < kLeft; ++u)
      if (i + u * stride < end) store(i + u * stride - skew, v[u]);
  }
}

// Elements per copyElements32 call: positions stay below 2^31 with any block size, and a multiple
// of a line's elements keeps every piece's skew the first one's.
constexpr size_t kChunkElements = size_t{1} << 30;

template <int kUnroll = 4, bool kOneWave = false, typename T, int kMore = 0>
MORI_HOST_DEVICE_INLINE void copyElements(T* dst, const T* src, size_t n, int rank, int size, size_t skew = 0,
                                          const MoreDests<kMore>& more = {}) {
  do {  // once below kChunkElements (one inlined copy of the loop, not two)
    const size_t m = n < kChunkElements ? n : kChunkElements;
    copyElements32<kUnroll, kOneWave>(dst, src, static_cast<uint32_t>(m), static_cast<uint32_t>(rank),
                                      static_cast<uint32_t>(size), static_cast<uint32_t>(skew), more);
    dst += m, src += m, n -= m;
  } while (n);
}

// The skew that aligns copyElements' position groups with the destination's lines, for elements
// of 1 << shift bytes starting at dst (0 when the group is smaller than a line's worth).
MORI_HOST_DEVICE_INLINE size_t lineSkew(uintptr_t dst, int shift, int size) {
  const size_t skew = (dst & (kLineBytes - 1)) >> shift;
  return skew < static_cast<size_t>(size) ? skew : 0;
}

// A piece shorter than 16 bytes (head, tail, whole small message), copied by one thread with
// the widest accesses the pointers' alignment allows: an 8-byte put is one 8-byte store, not
// eight byte stores (byte stores tripled the P2P put + quiet latency on the H200s).
MORI_DEVICE_INLINE void copySmall(char* dst, const char* src, size_t n) {
  // A word or a value at its alignment is one access without the loop's chain of dependent width
  // tests (one thread's 8-byte P2P get 0.133 -> 0.075 us).
  const uintptr_t ends = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src);
  if (n == 8 && (ends & 7) == 0) {
    *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<const uint64_t*>(src);
    return;
  }
  if (n == 4 && (ends & 3) == 0) {
    *reinterpret_cast<uint32_t*>(dst) = *reinterpret_cast<const uint32_t*>(src);
    return;
  }
  while (n) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src);
    if (n >= 16 && (a & 15) == 0) {
      *reinterpret_cast<Vec16*>(dst) = *reinterpret_cast<const Vec16*>(src);
      dst += 16, src += 16, n -= 16;
    } else if (n >= 8 && (a & 7) == 0) {
      *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<const uint64_t*>(src);
      dst += 8, src += 8, n -= 8;
    } else if (n >= 4 && (a & 3) == 0) {
      *reinterpret_cast<uint32_t*>(dst) = *reinterpret_cast<const uint32_t*>(src);
      dst += 4, src += 4, n -= 4;
    } else if (n >= 2 && (a & 1) == 0) {
      *reinterpret_cast<uint16_t*>(dst) = *reinterpret_cast<const uint16_t*>(src);
      dst += 2, src += 2, n -= 2;
    } else {
      *dst++ = *src++;
      --n;
    }
  }
}

// Copies `bytes` from src to dst using the threads rank in [0, size). No ordering is implied.
// Ends that share their offset in 16 bytes (the usual case) move as 16-byte vectors, the head and
// tail (under 16 bytes each) through copySmall on two threads; other ends go through the device
// library's copy (mori_shmemi_copy_unaligned: narrower elements). kOneWave: the threads are one
// wave (see copyElements). kUnroll: 16-byte vectors in flight per thread (the public API keeps 4).
// Only the 16-byte path is inline: all five element widths inline took the put_bw block kernel to
// the 64-register cap of a 1024-thread launch, with spills reloaded in every iteration.
// `more`: the same bytes to further destinations (MoreDests): where every destination shares src's
// offset in 16 bytes, each 16-byte vector is loaded once and stored to all of them, and so is each
// byte of the head and tail; otherwise one device-library copy each. With none the code is the
// single-destination copy's.
template <bool kOneWave = false, int kUnroll = 4, int kMore = 0>
MORI_DEVICE_INLINE void copyBytes(void* dstv, const void* srcv, size_t bytes, int rank, int size,
                                  const MoreDests<kMore>& more = {}) {
  char* dst = static_cast<char*>(dstv);
  const char* src = static_cast<const char*>(srcv);
  // A piece under 16 bytes at `at`: thread `by`'s copySmall to one destination; to several, a byte
  // per thread stored to each (a copySmall for each took a wave's fcollect push from 348 to 624
  // bytes of spill loads under the device library's register cap; ptxas, sm_90).
  const auto piece = [&](size_t at, size_t len, int by) {
    if constexpr (kMore == 0) {
      if (rank == by) copySmall(dst + at, src + at, len);
    } else {
      copyElements<1, kOneWave>(dst + at, src + at, len, rank, size, 0, more);
    }
  };
  // Up to 16 bytes (latency-bound puts and gets) is one piece: the split below is a chain of
  // dependent 64-bit arithmetic that one thread waits through before its access.
  if (bytes <= 16) return piece(0, bytes, 0);
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  uintptr_t moreOffsets = 0;  // OR of the further destinations' offsets: low 4 bits 0 when all share dst's
  if constexpr (kMore > 0) {
    MORI_UNROLL
    for (int k = 0; k < kMore; ++k)
      if (k < more.n) moreOffsets |= static_cast<uintptr_t>(more.by[k]);
  }
  // Whole 16-byte vectors at 16-byte aligned ends: no head, no tail, no split. Not for a fanout:
  // a second inline copy of its loop took a wave's fcollect push from 348 to 416 bytes of spill
  // loads.
  if (kMore == 0 && ((d | s | bytes) & 15) == 0) {
    copyElements<kUnroll, kOneWave>(reinterpret_cast<Vec16*>(dst), reinterpret_cast<const Vec16*>(src), bytes >> 4,
                                    rank, size, lineSkew(d, 4, size), more);
    return;
  }
  if ((((d ^ s) | moreOffsets) & 15) != 0) {
    mori_shmemi_copy_unaligned(dst, src, bytes, rank, size, kOneWave);
    if constexpr (kMore > 0) {
      MORI_UNROLL
      for (int k = 0; k < kMore; ++k)
        if (k < more.n) mori_shmemi_copy_unaligned(dst + more.by[k], src, bytes, rank, size, kOneWave);
    }
    return;
  }
  const size_t head = (16 - (d & 15)) & 15;  // < bytes: bytes > 16
  const size_t n = (bytes - head) >> 4, done = head + (n << 4), tail = bytes - done;
  if (head) piece(0, head, 0);
  if (tail) piece(done, tail, size > 1 ? 1 : 0);
  copyElements<kUnroll, kOneWave>(reinterpret_cast<Vec16*>(dst + head), reinterpret_cast<const Vec16*>(src + head), n,
                                  rank, size, lineSkew(d + head, 4, size), more);
}

// The destinations to[1, n) as offsets from to[0] (copyBytes' `more`; 1 <= n <= kMax). Every index
// into to[] and MoreDests is a constant after unrolling: indexed at run time, both went to local
// memory and one thread's fanout to 4 members ran 3.5x slower than 4 copies
// (bench/results/2026-12-04_s22_j_push_fanout_local_arrays_not_kept.patch).
template <int kMax>
MORI_HOST_DEVICE_INLINE MoreDests<kMax - 1> moreDestsAfterFirst(char* const (&to)[kMax], int n) {
  static_assert(kMax >= 2, "one destination has no more");
  MoreDests<kMax - 1> more;
  more.n = n - 1;
  MORI_UNROLL
  for (int k = 1; k < kMax; ++k) more.by[k - 1] = k < n ? to[k] - to[0] : 0;
  return more;
}

// One thread's copy (thread scope), shaped for latency: few dependent branches in front of the
// accesses. Whole 16-byte vectors at 16-byte aligned ends go kInFlight at a time while more than
// kInFlight remain, the last ones under predicates (the public API keeps 4: registers in the
// caller's kernel; the team collectives' gets and puts 8); up to 16 other bytes go through
// copySmall; anything else through copyBytes. One thread's 64-byte P2P get (L1 hits) took
// 0.156 us through copyBytes and 0.107 in this form.
template <int kInFlight = 4>
MORI_DEVICE_INLINE void copyThread(void* dstv, const void* srcv, size_t bytes) {
  char* dst = static_cast<char*>(dstv);
  const char* src = static_cast<const char*>(srcv);
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes) & 15) == 0) {
    auto* d = reinterpret_cast<Vec16*>(dst);
    const auto* s = reinterpret_cast<const Vec16*>(src);
    size_t n = bytes >> 4;
#pragma unroll 1  // nvcc's unrolling adds a remainder's branches in front of small copies
    for (; n > kInFlight; n -= kInFlight, d += kInFlight, s += kInFlight) {
      Vec16 v[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) v[u] = s[u];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) d[u] = v[u];
    }
    Vec16 v[kInFlight] = {};
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (static_cast<size_t>(u) < n) v[u] = s[u];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (static_cast<size_t>(u) < n) d[u] = v[u];
    return;
  }
  if (bytes <= 16) return copySmall(dst, src, bytes);
  copyBytes(dst, src, bytes, 0, 1);
}

}  // namespace mori::shmem::impl
#endif
