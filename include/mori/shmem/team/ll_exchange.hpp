// Small broadcasts, fcollects and alltoalls in one step (the LL protocol, "low latency"): every member
// writes its data into every other member's LL area (team_types.hpp) as 8-byte words of 4 data
// bytes and a 4-byte call tag, each word one 8-byte store, and waits until every word it expects
// from the others carries this call's tag. A reader that sees a word's tag sees its data: no
// fence, no separate flag, no entry or exit sync. Cost: one one-way trip through memory, where
// the pull form (sync, gets, sync) pays two syncs and a remote read.
//
// Buffer reuse without a barrier: the area has two halves, used by alternate calls, a region per
// member in each (a broadcast's: one 16-byte slot per member for the arrival words, then the
// root's region). Every member writes to every other member in every call (a broadcast's
// non-roots send one arrival word), so no member finishes call e+1 before every member has
// started it, i.e. finished call e: a writer in call e+2 never overwrites a half that a reader
// still reads for call e. The reader copies the words out into dest, so in this form dest is
// written only by its own PE.
//
// Tags: the low 32 bits of the team's LL call count, which skips counts whose low 32 bits are
// zero (the area starts zeroed) and keeps alternating halves. A stale word can match only if the
// same half's word went unwritten for 2^32 calls and is then read before its new value lands.
//
// RDMA peers (no load/store mapping): the words are packed into registered memory and put from
// there, exactly the words the peer waits for (a byte more could land after the peer's
// next-but-one call began): broadcast and fcollect pack once into this PE's own region of its own
// area (which no peer writes), alltoall packs each peer's block into the scratch's half of this
// call's parity (every other user of the scratch starts with a team sync, after which every
// member has received these words). Regions start on 16 bytes, so the copy moves whole 16- and
// 8-byte units: each word lands whole.
#pragma once

#include <stdint.h>

#include <type_traits>

#include "mori/device/spin.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/shmem/impl/copy.hpp"
#include "mori/shmem/impl/device_library.hpp"
#include "mori/shmem/team/coop.hpp"
#include "mori/shmem/team/team_types.hpp"

namespace mori::shmem::team {

// Largest per-member byte count sent through the LL area, by the scope of the call: one thread, or
// a wave or block (a "group"). The path depends on the scope, so every member of a collective call
// calls it at the same scope (NVSHMEM's device fcollect also picks its algorithm by scope: no LL
// for one thread); members at different scopes wait for each other until the wait timeout reports
// it. Crossovers on one H200, 2 PEs, NVSHMEM with full MPS support beside it: a wave or a block
// broadcasts 256 B-1 KiB by LL in 1.1-1.4 us, where the pull form takes 3.3-4.6 us at 2-8 KiB
// (NVSHMEM 2.9-3.5; bench/results/2026-12-02T0050Z_h200x1_mps_final_run_commitd2cb5aa.json); one
// thread's LL fcollect took 3.2, 4.7 and 7.6 us at 64, 128 and 256 B per member, where the pull
// form, two syncs and one thread's remote read, took 4.9 at 256 B
// (bench/results/2026-12-02T0723Z_h200x1_mps_pct50_ll_reductions_and_vector_words.json, 5db044d).
constexpr size_t kLlMaxBytesThread = 128;
constexpr size_t kLlMaxBytesGroup = 8192;
// Every member's region of an fcollect, alltoall or reduction within this many bytes of a half (a
// broadcast may fill the whole half: kLlMaxBroadcastBytesGroup). 8 KiB per member in one step at
// 4 PEs, within a whole 64 KiB half, took a wave's float reduction from 20.5 to 31.7 us and a
// block's alltoall from 7.0 to 7.3-7.8 on one H200
// (bench/results/2026-12-04T0340Z_h200x1_mps_ll_broadcast_16k.json).
constexpr size_t kLlRegionsMaxBytes = 32 * 1024;
// A wave's or block's broadcast: the root's words and an arrival word from every other member in
// one half. At 4 PEs a block's broadcast of 16 KiB took 6.0-6.2 us staged and 4.5-4.7 in one step
// (NVSHMEM 6.4-6.5; the same file).
constexpr size_t kLlMaxBroadcastBytesGroup = 16384;

MORI_HOST_DEVICE_INLINE constexpr size_t llWords(size_t bytes) { return bytes ? (bytes + 3) / 4 : 1; }
// Bytes of one member's region, in whole 16-byte units.
MORI_HOST_DEVICE_INLINE constexpr size_t llStride(size_t bytes) { return alignUp(llWords(bytes) * 8, 16); }
// Whether a collective of `bytes` per member on a team of `members`, called by one thread
// (`oneThread`) or by a wave or block, takes the LL path. Depends only on arguments every member
// passes alike and on the scope, so every member takes the same path.
MORI_HOST_DEVICE_INLINE constexpr bool llApplies(size_t bytes, int members, bool oneThread) {
  return bytes <= (oneThread ? kLlMaxBytesThread : kLlMaxBytesGroup) &&
         static_cast<size_t>(members) * llStride(bytes) <= kLlRegionsMaxBytes;
}
// The same for a broadcast, whose half holds the root's region and an arrival slot per member (at
// 4 PEs a block's broadcast of 8 KiB took 7.9 us by the pull form and 5.6 staged, NVSHMEM 4.6, where
// every member's region of 8 KiB's words did not fit a half:
// bench/results/2026-12-04T0050Z_h200x1_mps_staged_broadcast.json).
MORI_HOST_DEVICE_INLINE constexpr bool llBroadcastApplies(size_t bytes, int members, bool oneThread) {
  return bytes <= (oneThread ? kLlMaxBytesThread : kLlMaxBroadcastBytesGroup) &&
         static_cast<size_t>(members) * 16 + llStride(bytes) <= kLlHalfBytes;
}
static_assert(llBroadcastApplies(kLlMaxBroadcastBytesGroup, 2048, false) &&
                  !llBroadcastApplies(kLlMaxBroadcastBytesGroup, 2049, false) &&
                  !llBroadcastApplies(kLlMaxBroadcastBytesGroup + 1, 2, false) &&
                  llBroadcastApplies(kLlMaxBytesThread, 4080, true) &&
                  !llBroadcastApplies(kLlMaxBytesThread, 4081, true) &&
                  !llBroadcastApplies(kLlMaxBytesThread + 1, 2, true),
              "a broadcast's LL limits: the same bytes, every member's arrival slot beside the root's region");
static_assert(kLlRegionsMaxBytes <= kLlHalfBytes && kLlHalfBytes + kLlRegionsMaxBytes <= kScratchBytes,
              "alltoall stages its regions in the scratch, at the offset of this call's half");
// The call count after `count`: never zero in its low 32 bits (the tag), parity alternating.
MORI_HOST_DEVICE_INLINE constexpr uint64_t llNextCount(uint64_t count) {
  return static_cast<uint32_t>(count + 1) == 0 ? count + 3 : count + 1;
}
static_assert(llNextCount(0) == 1 && llNextCount(0xfffffffeull) == 0xffffffffull &&
                  llNextCount(0xffffffffull) == 0x100000002ull,
              "tags skip 0 and halves alternate across the wrap");
static_assert(llApplies(0, 2, true) && llApplies(kLlMaxBytesThread, 64, true) &&
                  !llApplies(kLlMaxBytesThread + 1, 2, true) && llApplies(kLlMaxBytesGroup, 2, false) &&
                  !llApplies(kLlMaxBytesGroup, 3, false) && !llApplies(kLlMaxBytesGroup + 1, 2, false) &&
                  llApplies(4096, 4, false) && !llApplies(4096, 5, false) && llApplies(1024, 16, false) &&
                  llApplies(16, 1024, true) && !llApplies(16, 1025, false),
              "the LL limits: 128 B per member for one thread, 8 KiB for a wave or block, and every member's "
              "region within kLlRegionsMaxBytes");

}  // namespace mori::shmem::team

#if MORI_GPU_COMPILER
namespace mori::shmem::team {

// Bytes [4w, 4w + 4) of p (fewer at the end of `bytes`), as the low bytes of a word; one byte
// at a time (the unaligned and partial words: the bulk goes as whole 32-bit words).
MORI_DEVICE_INLINE uint32_t llLoadChunk(const uint8_t* p, uint32_t bytes, uint32_t w) {
  uint32_t v = 0;
  for (uint32_t i = 0, at = w * 4; i < 4 && at + i < bytes; ++i) v |= static_cast<uint32_t>(p[at + i]) << (8 * i);
  return v;
}
MORI_DEVICE_INLINE void llStoreChunk(uint8_t* p, uint32_t bytes, uint32_t w, uint32_t v) {
  for (uint32_t i = 0, at = w * 4; i < 4 && at + i < bytes; ++i) p[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
// How many leading words of `bytes` at p are whole 32-bit words at 4-byte alignment (0 for null).
MORI_DEVICE_INLINE uint32_t llWholeWords(const void* p, uint32_t bytes) {
  return p && (reinterpret_cast<uintptr_t>(p) & 3) == 0 ? bytes / 4 : 0;
}

// Loads per thread and pass in flight before their use: pairs of words (llReceive), 16-byte source
// units or words (llWrite), units (llReduce). 4 for one thread; 1 for a block; for a wave, 1 up to
// kLlWaveFewBytes per member and 4 above (llWithInFlight), for its broadcast 4 at every size. The
// LL paths run in the device library (shmem/device/team_general.cpp) within its register cap of 64,
// where each unit in flight is more unrolled code and live registers: one unit took a wave's
// fcollect of 32 B per member from 4.66 to 3.65 us at 4 PEs on one H200
// (bench/results/2026-12-03T1221Z_h200x1_mps_ll_in_flight_by_size.json), and its 2 KiB per member,
// which takes more passes, from 6.34 to 9.88
// (bench/results/2026-12-03T1136Z_h200x1_mps_ll_in_flight.json). A wave's broadcast keeps 4 at
// every size (kLlWaveFewBytesBroadcast 0, a template argument like the other limit): at 4 PEs its
// 256 B took 3.2 us with one unit and 2.7 with 4
// (bench/results/2026-12-04T0340Z_h200x1_mps_ll_broadcast_16k.json), its 128 B 3.06 and 2.75
// (bench/results/2026-12-04T1300Z_h200x1_mps_push_fanout.json), and without a one-unit form the
// function spills less (bench/results/2026-12-04T1400Z_h200x1_mps_wave_broadcast_in_flight.json).
template <class S>
constexpr int kLlInFlight = std::is_same_v<S, Block> ? 1 : 4;
constexpr uint32_t kLlWaveFewBytes = 256;
constexpr uint32_t kLlWaveFewBytesBroadcast = 0;

// Calls body(std::integral_constant<int, units in flight>) for an LL call of `bytes` per member
// (kWaveFewBytes 0: a wave has no one-unit form).
template <class S, uint32_t kWaveFewBytes, class F>
MORI_DEVICE_INLINE void llWithInFlight(uint32_t bytes, F&& body) {
  if constexpr (std::is_same_v<S, Warp> && kWaveFewBytes > 0) {
    if (bytes <= kWaveFewBytes) return body(std::integral_constant<int, 1>{});
  }
  body(std::integral_constant<int, kLlInFlight<S>>{});
}

MORI_DEVICE_INLINE void llStore(uint64_t* p, uint64_t v) { *reinterpret_cast<volatile uint64_t*>(p) = v; }
MORI_DEVICE_INLINE uint64_t llLoad(const uint64_t* p) {
  return gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::System>(p);
}
// Two words at a 16-byte boundary. NVIDIA: one 16-byte access (a vector access is one access per
// element for the memory model: each word stays whole). AMD: two 8-byte accesses.
MORI_DEVICE_INLINE void llStore2(uint64_t* p, uint64_t a, uint64_t b) {
#if MORI_PLATFORM_AMD
  llStore(p, a);
  llStore(p + 1, b);
#else
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
#endif
}
MORI_DEVICE_INLINE void llLoad2(const uint64_t* p, uint64_t& a, uint64_t& b) {
#if MORI_PLATFORM_AMD
  a = llLoad(p);
  b = llLoad(p + 1);
#else
  asm volatile("ld.relaxed.sys.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
#endif
}

// Writes `words` words, tag | bytes [4w, 4w + 4) of src (src null: the tag alone), to `to`
// (16-byte aligned; threads rank, rank + size, ...). A 16-byte aligned source goes 16 bytes (four
// words) per load and thread, the rest 4 bytes per load, or byte by byte when unaligned.
template <int kInFlight>
MORI_DEVICE_INLINE void llWrite(uint64_t* to, const uint8_t* src, uint32_t bytes, uint32_t words, uint32_t tag,
                                uint32_t rank, uint32_t step) {
  const uint64_t tagBits = static_cast<uint64_t>(tag) << 32;
  uint32_t done = 0;  // words written by the 16-byte loop
  if (src && (reinterpret_cast<uintptr_t>(src) & 15) == 0) {
    const uint32_t quads = bytes / 16;
    const auto* src16 = reinterpret_cast<const impl::Vec16*>(src);
    for (uint32_t q = rank; q < quads; q += step * kInFlight) {
      impl::Vec16 v[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (q + u * step < quads) v[u] = src16[q + u * step];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (q + u * step < quads) {
          uint64_t* p = to + 4 * (q + u * step);
          llStore2(p, tagBits | v[u].x, tagBits | v[u].y);
          llStore2(p + 2, tagBits | v[u].z, tagBits | v[u].w);
        }
    }
    done = quads * 4;
  }
  const uint32_t whole = llWholeWords(src, bytes);
  const uint32_t* src32 = reinterpret_cast<const uint32_t*>(src);
  uint32_t w = done + rank;
  for (; w < whole; w += step * kInFlight) {
    uint64_t v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (w + u * step < whole) v[u] = tagBits | src32[w + u * step];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (w + u * step < whole) llStore(to + w + u * step, v[u]);
  }
  for (w = (whole > done ? whole : done) + rank; w < words; w += step)
    llStore(to + w, tagBits | (src ? llLoadChunk(src, bytes, w) : 0u));
}

// Copies bytes [0, bytes) (threads rank, rank + step, ...): 32-bit words when both ends are 4-byte
// aligned, else bytes.
template <int kInFlight>
MORI_DEVICE_INLINE void llCopy(uint8_t* to, const uint8_t* from, uint32_t bytes, uint32_t rank, uint32_t step) {
  const uint32_t whole =
      ((reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(from)) & 3) == 0 ? bytes / 4 : 0;
  const uint32_t* from32 = reinterpret_cast<const uint32_t*>(from);
  uint32_t* to32 = reinterpret_cast<uint32_t*>(to);
  for (uint32_t w = rank; w < whole; w += step * kInFlight) {
    uint32_t v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (w + u * step < whole) v[u] = from32[w + u * step];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (w + u * step < whole) to32[w + u * step] = v[u];
  }
  for (uint32_t i = whole * 4 + rank; i < bytes; i += step) to[i] = from[i];
}

// Polls words w0 + u * step of `region` (bit u of `missing`) until each carries `tag`; reports a
// timeout like every wait. Out of line: the waits' state stays out of the calling kernel's
// registers (its polls are the slow path: the first poll of a pass found a word missing).
inline MORI_DEVICE_NOINLINE void llWaitMissing(const uint64_t* region, uint32_t w0, uint32_t step, uint32_t missing,
                                               uint32_t tag) {
  device::Spinner spin(impl::states());
  for (;;) {
    uint32_t seen = tag;
    for (uint32_t rest = missing; rest; rest &= rest - 1) {
      const uint32_t u = static_cast<uint32_t>(__ffs(static_cast<int>(rest)) - 1);
      const uint32_t got = static_cast<uint32_t>(llLoad(region + w0 + u * step) >> 32);
      if (got == tag)
        missing &= ~(1u << u);
      else
        seen = got;
    }
    if (!missing) return;
    if (spin.expired())
      mori_shmemi_fail_wait(static_cast<uint32_t>(device::DeviceWait::WaitUntil), spin.elapsedNs(), seen, tag);
  }
}

// Loads of a pass's missing words made inline before llReceive waits out of line (llWaitMissing,
// then every word of the pass loaded again): one thread's alltoall of 32 B per member took 3.33 us
// going straight to the wait, 1.98 with these loads, a wave's fcollect of 2 KiB per member 3.95 ->
// 2.60 (one H200, 2 PEs, medians of 3 runs). The same loads in llCombine (the one-step
// reductions) gained nothing: one thread's reduction of 64 B 4.25 -> 4.39 us
// (bench/results/2026-12-02T2215Z_h200x1_mps_pct50_collectives_split_and_quick_polls.json).
constexpr int kLlQuickPolls = 8;

// Word w of an LL region once it carries `tag`.
MORI_DEVICE_INLINE uint64_t llTake(const uint64_t* region, uint32_t w, uint32_t tag) {
  uint64_t v = llLoad(region + w);
  if (static_cast<uint32_t>(v >> 32) != tag) {
    llWaitMissing(region, w, 1, 1u, tag);
    v = llLoad(region + w);
  }
  return v;
}

// Waits for `words` words of `region` (16-byte aligned) tagged `tag` (threads rank, rank + step,
// ...) and, when `out` is set, stores their data bytes into out[0, bytes). Words go two per load
// (a pair), kInFlight pairs per thread and pass.
template <int kInFlight>
MORI_DEVICE_INLINE void llReceive(const uint64_t* region, uint32_t words, uint32_t tag, uint8_t* out, uint32_t bytes,
                                  uint32_t rank, uint32_t step) {
  static_assert(kInFlight <= 32, "one bit per pair in flight");
  const uint32_t whole = llWholeWords(out, bytes);
  uint32_t* out32 = reinterpret_cast<uint32_t*>(out);
  const uint32_t pairs = words / 2;
  for (uint32_t p0 = rank; p0 < pairs; p0 += step * kInFlight) {
    uint64_t a[kInFlight], b[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (p0 + u * step < pairs) llLoad2(region + 2 * (p0 + u * step), a[u], b[u]);
    uint32_t missA = 0, missB = 0;  // bit u: the pair's first (second) word lacks this call's tag
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (p0 + u * step < pairs) {
        if (static_cast<uint32_t>(a[u] >> 32) != tag) missA |= 1u << u;
        if (static_cast<uint32_t>(b[u] >> 32) != tag) missB |= 1u << u;
      }
#pragma unroll 1
    // A missing word is usually a few loads away (the peer is storing it): the missing pairs are
    // loaded again here, kLlQuickPolls times, before the out-of-line wait.
    for (int poll = 0; (missA | missB) && poll < kLlQuickPolls; ++poll) {
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if ((missA | missB) & (1u << u)) {
          llLoad2(region + 2 * (p0 + u * step), a[u], b[u]);
          if (static_cast<uint32_t>(a[u] >> 32) == tag) missA &= ~(1u << u);
          if (static_cast<uint32_t>(b[u] >> 32) == tag) missB &= ~(1u << u);
        }
    }
    if (missA | missB) {
      if (missA) llWaitMissing(region, 2 * p0, 2 * step, missA, tag);
      if (missB) llWaitMissing(region, 2 * p0 + 1, 2 * step, missB, tag);
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)  // every word is there now
        if (p0 + u * step < pairs) llLoad2(region + 2 * (p0 + u * step), a[u], b[u]);
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const uint32_t w = 2 * (p0 + u * step);
      if (w + 1 < whole) {
        out32[w] = static_cast<uint32_t>(a[u]);
        out32[w + 1] = static_cast<uint32_t>(b[u]);
      }
    }
  }
  // The rest: an odd last word, and the words of dest that are not whole aligned pairs (a partial
  // last word, every word of an unaligned dest). Another thread of the scope may have been the one
  // that saw word w's tag above, and nothing orders this thread's read after that: each thread
  // checks the tags of the words it reads here. No member rewrites a word of this half before this
  // PE's next-but-one call.
  const uint32_t stored = whole / 2 * 2;  // words stored by the pair loop (at most 2 * pairs)
  for (uint32_t w = stored + rank; w < words; w += step) {
    const uint32_t v = static_cast<uint32_t>(llTake(region, w, tag));
    if (w < whole)
      out32[w] = v;
    else if (out)
      llStoreChunk(out, bytes, w, v);
  }
}

enum class LlOp { Broadcast, Fcollect, Alltoall };

// The member index of the i-th member (in team order) other than members a and b (a may equal b).
MORI_DEVICE_INLINE int llNthOther(uint32_t i, int a, int b) {
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  int j = static_cast<int>(i);
  if (j >= lo) ++j;
  if (hi != lo && j >= hi) ++j;
  return j;
}

// One LL call's places: its count (tag = the low 32 bits), the half it uses and each member's
// region in that half, `stride` bytes apart (a broadcast: 16-byte arrival slots, and the root's
// region after every member's slot).
struct LlCall {
  uint64_t count;
  uint32_t tag, stride, halfOffset, rootOffset;
  uint8_t* scratch;
  uint8_t* half;
  MORI_DEVICE_INLINE uint64_t* region(int member) const {
    return reinterpret_cast<uint64_t*>(half + static_cast<uint32_t>(member) * stride);
  }
  MORI_DEVICE_INLINE uint64_t* rootRegion() const { return reinterpret_cast<uint64_t*>(half + rootOffset); }
};

// Starts an LL call of `bytes` per member: the scope's writes of source are done and the previous
// call's count is stored.
template <class S>
MORI_DEVICE_INLINE LlCall llBegin(const TeamDevice& t, uint32_t bytes, LlOp op) {
  S::sync();
  LlCall c;
  c.count = llNextCount(*reinterpret_cast<const uint64_t*>(t.slot + kLlEpochOffset));
  c.tag = static_cast<uint32_t>(c.count);
  c.stride = op == LlOp::Broadcast ? 16u : static_cast<uint32_t>(llStride(bytes));
  c.rootOffset = static_cast<uint32_t>(t.size) * 16u;
  c.halfOffset = (c.count & 1) ? static_cast<uint32_t>(kLlHalfBytes) : 0u;
  c.scratch = t.slot + static_cast<uint32_t>(t.scratch);
  c.half = c.scratch + kScratchBytes + c.halfOffset;
  return c;
}

// Ends it: every thread of the scope is done with it and has read the count.
template <class S>
MORI_DEVICE_INLINE void llEnd(const TeamDevice& t, const LlCall& c) {
  S::sync();
  if (S::rank() == 0) *reinterpret_cast<uint64_t*>(t.slot + kLlEpochOffset) = c.count;
}

// Sends this PE's words to every other member: its source (Broadcast from the root, Fcollect),
// its source's block for that member (Alltoall), or the arrival word alone (a broadcast's
// non-roots). Load/store peers directly, at their windows in the team's table (one load per
// peer: mori_shmem_ptr's transport and window lookups took 800-1000 cycles per peer on one H200,
// bench/results/2026-12-03T1107Z_h200x1_mps_ll_send_profile.json); the others by a put of the
// words packed into this PE's own region (the same words for every peer) or, for alltoall, into
// the scratch's region for that peer.
template <class S, int kIf>
MORI_DEVICE_INLINE void llSend(const TeamDevice& t, const LlCall& c, LlOp op, const void* source, uint32_t bytes,
                               int root) {
  const uint32_t rank = static_cast<uint32_t>(S::rank()), step = static_cast<uint32_t>(S::size());
  const bool sends = op != LlOp::Broadcast || root == t.myIndex;
  const uint32_t sendWords = sends ? static_cast<uint32_t>(llWords(bytes)) : 1u;
  const uint8_t* src = static_cast<const uint8_t*>(source);
  uint64_t* mine = op == LlOp::Broadcast && sends ? c.rootRegion() : c.region(t.myIndex);
  const uint64_t mineInSlot = static_cast<uint64_t>(reinterpret_cast<uint8_t*>(mine) - t.slot);
  bool packed = false;
  for (int k = 1, j = t.myIndex; k < t.size; ++k) {
    if (++j == t.size) j = 0;
    const uint8_t* payload = !sends ? nullptr : op == LlOp::Alltoall ? src + static_cast<uint32_t>(j) * bytes : src;
    if (const uint64_t window = gpu::loadReadOnly(t.slotWindows + j)) {
      llWrite<kIf>(reinterpret_cast<uint64_t*>(window + mineInSlot), payload, bytes, sendWords, c.tag, rank, step);
      continue;
    }
    const int pe = t.worldPe(j);
    uint64_t* staged = mine;
    if (op == LlOp::Alltoall) {
      staged = reinterpret_cast<uint64_t*>(c.scratch + c.halfOffset + static_cast<uint32_t>(j) * c.stride);
      packed = false;
    }
    if (!packed) {
      llWrite<kIf>(staged, payload, bytes, sendWords, c.tag, rank, step);
      S::sync();  // every word is in place before any thread's part of the put reads it
      packed = true;
    }
    S::putNbiGeneral(mine, staged, sendWords * 8, pe);
  }
}

// The LL form of broadcast (dest <- root's source), fcollect (dest block j <- member j's
// source) and alltoall (dest block j <- member j's source block <my index>), blocks of `bytes`;
// llApplies (broadcast: llBroadcastApplies)(bytes, t.size, <S is Thread>) on every member. `root`
// is read for broadcasts only.
template <class S, int kIf>
MORI_DEVICE_INLINE void llExchangeIn(const TeamDevice& t, LlOp op, void* dest, const void* source, uint32_t bytes,
                                     int root) {
  const LlCall c = llBegin<S>(t, bytes, op);
  llSend<S, kIf>(t, c, op, source, bytes, root);

  // This PE's own part of dest, then the others' words.
  const uint32_t rank = static_cast<uint32_t>(S::rank()), step = static_cast<uint32_t>(S::size());
  const uint8_t* src = static_cast<const uint8_t*>(source);
  uint8_t* out = static_cast<uint8_t*>(dest);
  const uint32_t myBlock = static_cast<uint32_t>(t.myIndex) * bytes;
  if (op != LlOp::Broadcast || root == t.myIndex)
    llCopy<kIf>(op == LlOp::Broadcast ? out : out + myBlock, op == LlOp::Alltoall ? src + myBlock : src, bytes, rank,
                step);
  // The others' regions, their first loads in flight together where that costs no extra pass
  // (one region at a time, each region's first poll was one more load's wait per member: 4 PEs on
  // one H200, a block's fcollect of 32 B per member 4.43 -> 3.41 us, NVSHMEM 2.70; a wave's of
  // 2 KiB per member, 3 groups of 10 lanes, 5.77 -> 6.86, so the split is made only where it takes
  // fewer passes; bench/results/2026-12-02T2215Z_h200x1_mps_pct50_collectives_split_and_quick_polls.json):
  //  - broadcast: the other members' arrival words one thread each (the scope's last threads),
  //    at once with the root's words on the remaining threads when that is as many passes over
  //    the root's words, else after every thread's part of them (a wave: one after another,
  //    beside the root's region, in team order);
  //  - fcollect, alltoall: groups of `lanes` threads, one region per group at a time, when that is
  //    fewer passes than every thread on one region after another.
  const uint32_t words = static_cast<uint32_t>(llWords(bytes));
  const uint32_t others = static_cast<uint32_t>(t.size - 1);
  const auto passes = [](uint32_t w, uint32_t threads) {
    const uint32_t perPass = threads * static_cast<uint32_t>(kIf) * 2;  // words
    return (w + perPass - 1) / perPass;
  };
  if (op == LlOp::Broadcast) {
    const bool fromRoot = root != t.myIndex;
    const uint32_t arrivals = others - (fromRoot ? 1u : 0u);
    const bool together =
        !kOneThread<S> && step > arrivals && (!fromRoot || passes(words, step - arrivals) == passes(words, step));
    // A wave waits for the arrival words one by one in team order, beside the root's region
    // (unless they go together); one thread and a block take the form below. That form moved the
    // wave function's spills: its broadcast of 4 KiB at 2 PEs, a path the form leaves as it was,
    // went 2.76 -> 3.50 us on one H200
    // (bench/results/2026-12-03T1405Z_h200x1_mps_broadcast_arrivals_by_scope.json).
    if constexpr (std::is_same_v<S, Warp>) {
      if (together) {
        const uint32_t dataLanes = step - arrivals;  // arrival word i: thread dataLanes + i
        if (rank < dataLanes) {
          if (fromRoot) llReceive<kIf>(c.rootRegion(), words, c.tag, out, bytes, rank, dataLanes);
        } else {
          llReceive<kIf>(c.region(llNthOther(rank - dataLanes, t.myIndex, root)), 1, c.tag, nullptr, 0, 0, 1);
        }
      } else {
        for (int k = 1; k < t.size; ++k) {
          const int j = (t.myIndex + t.size - k) % t.size;
          if (j == root)
            llReceive<kIf>(c.rootRegion(), words, c.tag, out, bytes, rank, step);
          else
            llReceive<kIf>(c.region(j), 1, c.tag, nullptr, 0, rank, step);  // arrival only
        }
      }
    } else {
      const uint32_t dataLanes = together ? step - arrivals : step;
      if (fromRoot && rank < dataLanes) llReceive<kIf>(c.rootRegion(), words, c.tag, out, bytes, rank, dataLanes);
      // Arrival words i = step - 1 - rank, then every step-th after it: after the root's words.
      for (uint32_t i = step - 1 - rank; i < arrivals; i += step)
        llReceive<kIf>(c.region(llNthOther(i, t.myIndex, root)), 1, c.tag, nullptr, 0, 0, 1);
    }
  } else {
    const uint32_t groups = others < step ? others : step, lanes = step / (groups ? groups : 1u);
    if (groups > 1 && (others + groups - 1) / groups * passes(words, lanes) < others * passes(words, step)) {
      for (uint32_t k = rank / lanes; k < others && rank / lanes < groups; k += groups) {
        const int j = (t.myIndex + t.size - 1 - static_cast<int>(k)) % t.size;
        llReceive<kIf>(c.region(j), words, c.tag, out + static_cast<uint32_t>(j) * bytes, bytes, rank % lanes, lanes);
      }
    } else {
      for (int k = 1; k < t.size; ++k) {
        const int j = (t.myIndex + t.size - k) % t.size;
        llReceive<kIf>(c.region(j), words, c.tag, out + static_cast<uint32_t>(j) * bytes, bytes, rank, step);
      }
    }
  }
  llEnd<S>(t, c);  // dest is complete
}
template <class S, LlOp kOp>
MORI_DEVICE_INLINE void llExchange(const TeamDevice& t, void* dest, const void* source, size_t bytesIn, int root) {
  const uint32_t bytes = static_cast<uint32_t>(bytesIn);  // at most kLlMaxBroadcastBytesGroup
  constexpr uint32_t kFew = kOp == LlOp::Broadcast ? kLlWaveFewBytesBroadcast : kLlWaveFewBytes;
  llWithInFlight<S, kFew>(
      bytes, [&](auto inFlight) { llExchangeIn<S, decltype(inFlight)::value>(t, kOp, dest, source, bytes, root); });
}

// The LL form of a reduction (collectives.hpp: reduceWith) of n elements of T, n * sizeof(T)
// bytes per member with llApplies; dest equal to source or apart from it. Every member sends its
// source as an fcollect does (llReduceSend); each then combines, for its elements, its own
// source's values and the others' words in team order (llCombine) and ends the call (llEnd). A
// unit is a word's 4 data bytes (kE elements of up to 4 bytes) or two words (one 8-byte element);
// each thread keeps kIf units per member in flight (llWithInFlight).
// scatter (reducescatter): source holds a piece of n elements per member, and each member's piece
// goes to that member only, as an alltoall's blocks do; each combines its own piece of every
// member (llCombine's source: this PE's own piece).
template <class S, int kIf = kLlInFlight<S>>
MORI_DEVICE_INLINE LlCall llReduceSend(const TeamDevice& t, const void* source, size_t bytesIn, bool scatter) {
  const uint32_t bytes = static_cast<uint32_t>(bytesIn);  // at most kLlMaxBytesGroup
  const LlOp op = scatter ? LlOp::Alltoall : LlOp::Fcollect;
  const LlCall c = llBegin<S>(t, bytes, op);
  llSend<S, kIf>(t, c, op, source, bytes, 0);
  S::sync();  // every thread's part of the sends has read source before dest (maybe source) changes
  return c;
}
template <class S, int kIf, typename T, class F>
MORI_DEVICE_INLINE void llCombine(const TeamDevice& t, const LlCall& c, T* dest, const T* source, size_t nIn,
                                  F combineOp) {
  constexpr uint32_t kE = sizeof(T) >= 4 ? 1 : 4 / sizeof(T), kW = sizeof(T) == 8 ? 2 : 1;
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  static_assert(kE * sizeof(T) == sizeof(Bits), "a unit is one word's data bytes or two words'");
  const uint32_t n = static_cast<uint32_t>(nIn);
  const uint32_t rank = static_cast<uint32_t>(S::rank()), step = static_cast<uint32_t>(S::size());
  const uint32_t units = (n + kE - 1) / kE;
  if (units == 0)  // nothing to combine: still wait for every member's arrival word
    for (int j = 0; j < t.size; ++j)
      if (j != t.myIndex) llReceive<kIf>(c.region(j), 1, c.tag, nullptr, 0, rank, step);
  for (uint32_t u0 = rank; u0 < units; u0 += step * kIf) {
    T acc[kIf][kE], own[kIf][kE];
    const auto fold = [&](int j, const T(&v)[kIf][kE]) {
#pragma unroll
      for (int k = 0; k < kIf; ++k)
#pragma unroll
        for (uint32_t e = 0; e < kE; ++e) acc[k][e] = j ? combineOp(acc[k][e], v[k][e]) : v[k][e];
    };
    // This PE's values first: their loads overlap those of the first member's words.
#pragma unroll
    for (int k = 0; k < kIf; ++k)
#pragma unroll
      for (uint32_t e = 0; e < kE; ++e) {
        const uint32_t i = (u0 + k * step) * kE + e;
        own[k][e] = i < n ? source[i] : T{};
      }
    for (int j = 0; j < t.size; ++j) {
      if (j == t.myIndex) {
        fold(j, own);
        continue;
      }
      const uint64_t* region = c.region(j);
      uint64_t raw[kIf][kW];
#pragma unroll
      for (int k = 0; k < kIf; ++k) {
#pragma unroll
        for (uint32_t h = 0; h < kW; ++h)
          if (u0 + k * step < units) raw[k][h] = llLoad(region + (u0 + k * step) * kW + h);
      }
      // Word h of unit u0 + k * step is word u0 * kW + h + k * (kW * step): one wait per h for the
      // words of the pass that did not carry this call's tag yet, then those are loaded again.
#pragma unroll
      for (uint32_t h = 0; h < kW; ++h) {
        uint32_t missing = 0;
#pragma unroll
        for (int k = 0; k < kIf; ++k)
          if (u0 + k * step < units && static_cast<uint32_t>(raw[k][h] >> 32) != c.tag) missing |= 1u << k;
        if (MORI_UNLIKELY(missing != 0)) {
          llWaitMissing(region, u0 * kW + h, kW * step, missing, c.tag);
#pragma unroll
          for (int k = 0; k < kIf; ++k)
            if (u0 + k * step < units) raw[k][h] = llLoad(region + (u0 + k * step) * kW + h);
        }
      }
      T v[kIf][kE] = {};
#pragma unroll
      for (int k = 0; k < kIf; ++k) {
        Bits bits = static_cast<uint32_t>(raw[k][0]);
        if constexpr (kW == 2) bits |= static_cast<uint64_t>(static_cast<uint32_t>(raw[k][1])) << 32;
        __builtin_memcpy(v[k], &bits, sizeof(Bits));
      }
      fold(j, v);
    }
#pragma unroll
    for (int k = 0; k < kIf; ++k)
#pragma unroll
      for (uint32_t e = 0; e < kE; ++e) {
        const uint32_t i = (u0 + k * step) * kE + e;
        if (i < n) dest[i] = acc[k][e];
      }
  }
}
template <class S, typename T, class F>
MORI_DEVICE_INLINE void llReduce(const TeamDevice& t, T* dest, const T* source, size_t n, F combineOp, bool scatter) {
  const T* own = scatter ? source + static_cast<size_t>(t.myIndex) * n : source;
  llWithInFlight<S, kLlWaveFewBytes>(static_cast<uint32_t>(n * sizeof(T)), [&](auto inFlight) {
    const LlCall c = llReduceSend<S, decltype(inFlight)::value>(t, source, n * sizeof(T), scatter);
    llCombine<S, decltype(inFlight)::value>(t, c, dest, own, n, combineOp);
    llEnd<S>(t, c);
  });
}

}  // namespace mori::shmem::team
#endif
