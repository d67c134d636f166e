// Small broadcasts, fcollects and alltoalls in one step (the LL protocol, "low latency"): every member
// writes its data into every other member's LL area (team_types.hpp) as 8-byte words of 4 data
// bytes and a 4-byte call tag, each word one 8-byte store, and waits until every word it expects
// from the others carries this call's tag. A reader that sees a word's tag sees its data: no
// fence, no separate flag, no entry or exit sync. Cost: one one-way trip through memory, where
// the pull form (sync, gets, sync) pays two syncs and a remote read.
//
// Buffer reuse without a barrier: the area has two halves, used by alternate calls, a region per
// member in each. Every member writes to every other member in every call (a broadcast's
// non-roots send one arrival word), so no member finishes call e+1 before every member has
// started it, i.e. finished call e: a writer in call e+2 never overwrites a half that a reader
// still reads for call e. The reader copies the words out into dest, so dest is written only by
// its own PE (as in the pull form).
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

// Largest per-member byte count sent through the LL area. One thread receives 256 words at
// 1 KiB, 16 passes of 16 loads in flight: about what the pull form's two syncs and read cost
// (a thread's fcollect of 2 x 2 KiB took 14 us in the pull form on one H200). Above it the pull
// form's 16-byte copies win (an estimate: no crossover has been measured).
constexpr size_t kLlMaxBytes = 1024;

MORI_HOST_DEVICE_INLINE constexpr size_t llWords(size_t bytes) { return bytes ? (bytes + 3) / 4 : 1; }
// Bytes of one member's region, in whole 16-byte units.
MORI_HOST_DEVICE_INLINE constexpr size_t llStride(size_t bytes) { return alignUp(llWords(bytes) * 8, 16); }
// Whether a collective of `bytes` per member on a team of `members` takes the LL path. Depends only
// on arguments every member passes alike, so every member takes the same path.
MORI_HOST_DEVICE_INLINE constexpr bool llApplies(size_t bytes, int members) {
  return bytes <= kLlMaxBytes && static_cast<size_t>(members) * llStride(bytes) <= kLlHalfBytes;
}
static_assert(2 * kLlHalfBytes <= kScratchBytes, "alltoall stages a half's worth of words per parity in the scratch");
// The call count after `count`: never zero in its low 32 bits (the tag), parity alternating.
MORI_HOST_DEVICE_INLINE constexpr uint64_t llNextCount(uint64_t count) {
  return static_cast<uint32_t>(count + 1) == 0 ? count + 3 : count + 1;
}
static_assert(llNextCount(0) == 1 && llNextCount(0xfffffffeull) == 0xffffffffull &&
                  llNextCount(0xffffffffull) == 0x100000002ull,
              "tags skip 0 and halves alternate across the wrap");
static_assert(llApplies(0, 2) && llApplies(kLlMaxBytes, 8) && !llApplies(kLlMaxBytes, 9) &&
                  !llApplies(kLlMaxBytes + 1, 2) && llApplies(16, 512) && !llApplies(16, 513),
              "the LL limits: 1 KiB per member, and every member's region in one half");

}  // namespace mori::shmem::team

#if MORI_GPU_COMPILER
namespace mori::shmem::team {

// Bytes [4w, 4w + 4) of p (fewer at the end of `bytes`), as the low bytes of a word.
MORI_DEVICE_INLINE uint32_t llLoadChunk(const uint8_t* p, size_t bytes, size_t w) {
  const size_t at = w * 4;
  if (at + 4 <= bytes && (reinterpret_cast<uintptr_t>(p) & 3) == 0) return *reinterpret_cast<const uint32_t*>(p + at);
  uint32_t v = 0;
  for (size_t i = 0; i < 4 && at + i < bytes; ++i) v |= static_cast<uint32_t>(p[at + i]) << (8 * i);
  return v;
}
MORI_DEVICE_INLINE void llStoreChunk(uint8_t* p, size_t bytes, size_t w, uint32_t v) {
  const size_t at = w * 4;
  if (at + 4 <= bytes && (reinterpret_cast<uintptr_t>(p) & 3) == 0) {
    *reinterpret_cast<uint32_t*>(p + at) = v;
    return;
  }
  for (size_t i = 0; i < 4 && at + i < bytes; ++i) p[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// Words per thread and pass: loads in flight before their use. One thread (thread scope) covers
// 256 B in 4 passes with 16 (its registers: 32 for the words); a wave's or a block's threads
// cover 1 KiB in one pass with 8.
template <class S>
constexpr int kLlInFlight = std::is_same_v<S, Thread> ? 16 : 8;

// Writes words [0, words) (word(w)) to `to` (threads rank, rank + size, ...), the loads behind
// each pass's words issued before its stores.
template <int kInFlight, class WordFn>
MORI_DEVICE_INLINE void llWrite(uint64_t* to, size_t words, WordFn word, int rank, int size) {
  const size_t step = static_cast<size_t>(size);
  for (size_t w0 = static_cast<size_t>(rank); w0 < words; w0 += step * kInFlight) {
    uint64_t v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (w0 + u * step < words) v[u] = word(w0 + u * step);
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (w0 + u * step < words) *reinterpret_cast<volatile uint64_t*>(to + w0 + u * step) = v[u];
  }
}

// Waits for `words` words of `region` tagged `tag` (threads rank, rank + size, ...; every poll
// reloads all of a pass's words still missing at once) and, when `out` is set, stores their data
// bytes into out[0, bytes).
template <int kInFlight>
MORI_DEVICE_INLINE void llReceive(const uint64_t* region, size_t words, uint32_t tag, uint8_t* out, size_t bytes,
                                  int rank, int size) {
  static_assert(kInFlight <= 32, "one bit per word in flight");
  const size_t step = static_cast<size_t>(size);
  device::Spinner spin(impl::states());
  for (size_t w0 = static_cast<size_t>(rank); w0 < words; w0 += step * kInFlight) {
    uint64_t v[kInFlight] = {};
    unsigned missing = 0;  // bit u: word w0 + u * step has not shown this call's tag yet
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (w0 + u * step < words) missing |= 1u << u;
    for (;;) {
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (missing & (1u << u))
          v[u] = gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::System>(region + w0 + u * step);
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if ((missing & (1u << u)) && static_cast<uint32_t>(v[u] >> 32) == tag) missing &= ~(1u << u);
      if (!missing) break;
      if (spin.expired()) {
        uint64_t seen = 0;  // a missing word's tag (constant indices keep v in registers)
#pragma unroll
        for (int u = 0; u < kInFlight; ++u)
          if (missing & (1u << u)) seen = v[u] >> 32;
        mori_shmemi_fail_wait(static_cast<uint32_t>(device::DeviceWait::WaitUntil), spin.elapsedNs(), seen, tag);
      }
    }
    if (out) {
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (w0 + u * step < words) llStoreChunk(out, bytes, w0 + u * step, static_cast<uint32_t>(v[u]));
    }
  }
}

enum class LlOp { Broadcast, Fcollect, Alltoall };

// The LL form of broadcast (dest <- root's source), fcollect (dest block j <- member j's
// source) and alltoall (dest block j <- member j's source block <my index>), blocks of `bytes`;
// llApplies(bytes, t.size) on every member. `root` is read for broadcasts only.
template <class S>
MORI_DEVICE_INLINE void llExchange(const TeamDevice& t, LlOp op, void* dest, const void* source, size_t bytes,
                                   int root) {
  uint64_t* countWord = reinterpret_cast<uint64_t*>(t.slot + kLlEpochOffset);
  S::sync();  // the scope's writes of source are done; the previous call's count is stored
  const uint64_t count = llNextCount(*countWord);
  const uint32_t tag = static_cast<uint32_t>(count);
  const size_t stride = llStride(bytes);
  const size_t halfOffset = (count & 1) * kLlHalfBytes;
  uint8_t* scratch = t.slot + static_cast<size_t>(t.scratch);
  uint8_t* half = scratch + kScratchBytes + halfOffset;
  uint64_t* mine = reinterpret_cast<uint64_t*>(half + static_cast<size_t>(t.myIndex) * stride);
  const int rank = S::rank(), size = S::size();
  const bool sends = op != LlOp::Broadcast || root == t.myIndex;
  const size_t sendWords = sends ? llWords(bytes) : 1;
  const uint8_t* src = static_cast<const uint8_t*>(source);

  // Send: load/store peers directly; the others by a put of the words packed into `mine` (the
  // same words for every peer) or, for alltoall, into the scratch's region for that peer.
  bool packed = false;
  for (int k = 1; k < t.size; ++k) {
    const int j = (t.myIndex + k) % t.size, pe = t.worldPe(j);
    const uint8_t* payload = op == LlOp::Alltoall ? src + static_cast<size_t>(j) * bytes : src;
    const auto word = [&](size_t w) -> uint64_t {
      return (static_cast<uint64_t>(tag) << 32) | (sends ? llLoadChunk(payload, bytes, w) : 0u);
    };
    if (uint64_t* remote = static_cast<uint64_t*>(mori_shmem_ptr(mine, pe))) {
      llWrite<kLlInFlight<S>>(remote, sendWords, word, rank, size);
      continue;
    }
    uint64_t* staged = mine;
    if (op == LlOp::Alltoall) {
      staged = reinterpret_cast<uint64_t*>(scratch + halfOffset + static_cast<size_t>(j) * stride);
      packed = false;
    }
    if (!packed) {
      llWrite<kLlInFlight<S>>(staged, sendWords, word, rank, size);
      S::sync();  // every word is in place before any thread's part of the put reads it
      packed = true;
    }
    S::putNbi(mine, staged, sendWords * 8, pe);
  }

  // This PE's own part of dest, then the others' words.
  uint8_t* out = static_cast<uint8_t*>(dest);
  const size_t myBlock = static_cast<size_t>(t.myIndex) * bytes;
  if (sends)
    impl::copyBytes(op == LlOp::Broadcast ? out : out + myBlock, op == LlOp::Alltoall ? src + myBlock : src, bytes,
                    rank, size);
  for (int k = 1; k < t.size; ++k) {
    const int j = (t.myIndex + t.size - k) % t.size;
    const uint64_t* region = reinterpret_cast<const uint64_t*>(half + static_cast<size_t>(j) * stride);
    if (op != LlOp::Broadcast)
      llReceive<kLlInFlight<S>>(region, llWords(bytes), tag, out + static_cast<size_t>(j) * bytes, bytes, rank, size);
    else if (j == root)
      llReceive<kLlInFlight<S>>(region, llWords(bytes), tag, out, bytes, rank, size);
    else
      llReceive<kLlInFlight<S>>(region, 1, tag, nullptr, 0, rank, size);  // arrival only
  }
  S::sync();  // dest is complete; every thread has read the count
  if (rank == 0) *countWord = count;
}

}  // namespace mori::shmem::team
#endif
