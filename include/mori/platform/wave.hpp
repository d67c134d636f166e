// Wave (warp) primitives with one spelling on both vendors. The wave is 64 lanes on CDNA and 32 on
// NVIDIA and RDNA; nothing may assume either, so lane masks are always 64 bits wide and
// waveSize() is asked, never written down.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::gpu {

using LaneMask = uint64_t;
constexpr int kMaxWaveSize = 64;

// Whether the lanes of a wave are scheduled independently (NVIDIA since Volta: diverged lanes
// run apart and a warp-synchronous step must name lanes that really arrive), or run in lockstep
// under an execution mask (AMD: a branch's sides run one after the other, so a lane spinning on
// work that a lane on the other side must do never ends).
#if MORI_PLATFORM_NVIDIA
constexpr bool kIndependentLanes = true;
#else
constexpr bool kIndependentLanes = false;
#endif

#if MORI_GPU_COMPILER

MORI_DEVICE_INLINE int waveSize() {
#if MORI_PLATFORM_AMD
#if __has_builtin(__builtin_amdgcn_wavefrontsize)
  return __builtin_amdgcn_wavefrontsize();
#else
  return __AMDGCN_WAVEFRONT_SIZE;
#endif
#else
  return 32;
#endif
}

MORI_DEVICE_INLINE int laneId() {
#if MORI_PLATFORM_AMD
  return static_cast<int>(__lane_id());
#else
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return static_cast<int>(id);
#endif
}

// Lanes executing this call together.
MORI_DEVICE_INLINE LaneMask activeMask() {
#if MORI_PLATFORM_AMD
  return __ballot(1);
#else
  return __activemask();
#endif
}

// Wave-wide operations take the mask of participating lanes explicitly (captured once with
// activeMask() before any divergence): on NVIDIA lanes that diverged need not have reconverged,
// and the *_sync forms wait for every lane named in the mask. On AMD the wave runs in lockstep
// and the mask is implied.

// Lanes of `mask` whose predicate is true. Every lane in `mask` must call.
MORI_DEVICE_INLINE LaneMask ballot(LaneMask mask, bool pred) {
#if MORI_PLATFORM_AMD
  return __ballot(pred) & mask;
#else
  return __ballot_sync(static_cast<unsigned>(mask), pred);
#endif
}

// Value of `v` in lane `src` (which must be in `mask`). 4- and 8-byte trivially copyable types.
template <typename T>
MORI_DEVICE_INLINE T shfl(LaneMask mask, T v, int src) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shfl moves 4 or 8 bytes");
  if constexpr (sizeof(T) == 4) {
    int x = __builtin_bit_cast(int, v);
#if MORI_PLATFORM_AMD
    (void)mask;
    x = __shfl(x, src);
#else
    x = __shfl_sync(static_cast<unsigned>(mask), x, src);
#endif
    return __builtin_bit_cast(T, x);
  } else {
    long long x = __builtin_bit_cast(long long, v);
    int lo = static_cast<int>(x), hi = static_cast<int>(x >> 32);
#if MORI_PLATFORM_AMD
    (void)mask;
    lo = __shfl(lo, src);
    hi = __shfl(hi, src);
#else
    lo = __shfl_sync(static_cast<unsigned>(mask), lo, src);
    hi = __shfl_sync(static_cast<unsigned>(mask), hi, src);
#endif
    return __builtin_bit_cast(T, (static_cast<long long>(hi) << 32) | static_cast<unsigned>(lo));
  }
}

// Synchronises (and orders memory among) the lanes in `mask`; every lane in it must call.
MORI_DEVICE_INLINE void waveSync(LaneMask mask) {
#if MORI_PLATFORM_AMD
  (void)mask;
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "wavefront");
#else
  __syncwarp(static_cast<unsigned>(mask));
#endif
}

MORI_DEVICE_INLINE int popcount(LaneMask m) { return __popcll(m); }
// Lowest lane in a non-empty mask.
MORI_DEVICE_INLINE int firstLane(LaneMask m) { return __ffsll(static_cast<unsigned long long>(m)) - 1; }
// Lanes below this one.
MORI_DEVICE_INLINE LaneMask lanesBelow() { return (LaneMask{1} << laneId()) - 1; }
MORI_DEVICE_INLINE LaneMask thisLane() { return LaneMask{1} << laneId(); }

// Lanes of `mask` holding the same `key` as this lane. Every lane in `mask` must call.
MORI_DEVICE_INLINE LaneMask matchAny(LaneMask mask, uint64_t key) {
#if MORI_PLATFORM_NVIDIA
  return __match_any_sync(static_cast<unsigned>(mask), static_cast<unsigned long long>(key));
#else
  // One round per distinct key: the lowest remaining lane's key is broadcast and matched.
  LaneMask remaining = mask, mine = 0;
  while (remaining) {
    const uint64_t k = shfl(mask, key, firstLane(remaining));
    const LaneMask same = ballot(mask, k == key) & remaining;
    if (same & thisLane()) mine = same;
    remaining &= ~same;
  }
  return mine;
#endif
}

#endif  // MORI_GPU_COMPILER

}  // namespace mori::gpu
