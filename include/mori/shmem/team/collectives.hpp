// Team collectives, one template per operation over the cooperation scope (coop.hpp), written on
// the public point-to-point device API: signals + waits for synchronisation, blocking gets (direct
// loads through the peer mapping for P2P peers, RDMA READs otherwise) to move data, and direct
// loads through mori_shmem_ptr for reductions where every member is P2P-reachable.
//
// Small broadcasts, fcollects, alltoalls and reductions (llApplies) take one step: each member
// pushes its data with a tag in every word and waits for the others' (ll_exchange.hpp). A block's
// fcollects and alltoalls up to 64 KiB for all members together, and its broadcasts up to
// kStagedBroadcastMaxBytes, are staged: puts into every member's stage area, an arrival word each,
// and a copy into dest by its own PE (stagedExchange).
// Larger ones, and one thread's or a wave's, push: an entry sync (every member has entered, so its
// dest may be written), puts of this PE's data into every member's dest, a barrier (every put is
// complete and visible). Broadcast, collect and the reductions pull: an entry sync (each member's
// source is ready), the moves, an exit sync (no member overwrites its source while another still
// reads it).
// No central PE: each PE moves its share itself, starting with its successor so that peers' links
// share the load. One collective at a time per team and PE (the sync slot's epochs and words are
// per team).
#pragma once

#include <type_traits>

#include "mori/platform/half.hpp"
#include "mori/shmem/team/coop.hpp"
#include "mori/shmem/team/ll_exchange.hpp"
#include "mori/shmem/team/team_lookup.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::team {

// Dissemination barrier over the team's members: ceil(log2 n) rounds; in round k member i signals
// member (i + 2^k) mod n and waits for member (i - 2^k) mod n. Flags hold the sync's epoch (one
// writer per flag and epoch), so they are never reset.
// kRelease: what this PE wrote (and learned) before is visible to every member after it, for the
// collectives' entry and exit syncs and the barrier. Teams of up to kDirectSyncMembers: one system
// release, then a signal to every other member and a wait for every other member's (each member
// synchronises with each directly); larger teams: dissemination with a release before each round's
// signal, which carries what the rounds before learned (4 PEs on one H200: the barrier took
// 5.6-7.0 us that way, NVSHMEM 4.0;
// bench/results/2026-12-02T2215Z_h200x1_mps_pct50_collectives_split_and_quick_polls.json). The
// team sync is arrival only (mori/shmem_team.h), as NVSHMEM's is: a round is one signal and one
// wait (with the release the thread-scope team sync took 1.69 us against NVSHMEM's 1.37, one
// shared H200, a78d80b).
// kDirectMax is the largest team synchronised directly (a test forces dissemination with 1).
// kQuieted: the caller's S::quiet() ran just before (the barrier): the scope is in step and its
// rank 0 has released, so the first release is not repeated (4 PEs on one H200: the thread-scope
// barrier 4.5 -> 3.2 us, NVSHMEM 4.0; bench/results/2026-12-03T0100Z_h200x1_mps_barrier_one_release.json).
// syncRounds: the rounds alone, run by the scope's rank 0 of a team of more than one member.
template <bool kRelease, int kDirectMax, bool kQuieted>
MORI_DEVICE_INLINE void syncRounds(const TeamDevice& t) {
  uint64_t* epochWord = reinterpret_cast<uint64_t*>(t.slot + kEpochOffset);
  const uint64_t epoch = *epochWord + 1;
  *epochWord = epoch;
  if (kRelease && t.size <= kDirectMax) {
    uint64_t* arrived = reinterpret_cast<uint64_t*>(t.slot + kArrivalOffset);
    if constexpr (!kQuieted) mori_shmem_fence();
    for (int k = 1; k < t.size; ++k)
      mori_shmem_signal_op(arrived + t.myIndex, epoch, MORI_SHMEM_SIGNAL_SET, t.worldPe((t.myIndex + k) % t.size));
    for (int k = 1; k < t.size; ++k)
      mori_shmem_signal_wait_until(arrived + (t.myIndex + t.size - k) % t.size, MORI_SHMEM_CMP_GE, epoch);
  } else {
    uint64_t* flags = reinterpret_cast<uint64_t*>(t.slot + kFlagsOffset);
    int round = 0;
    for (int dist = 1; dist < t.size; dist <<= 1, ++round) {
      if (kRelease && !(kQuieted && round == 0)) mori_shmem_fence();
      mori_shmem_signal_op(flags + round, epoch, MORI_SHMEM_SIGNAL_SET, t.worldPe((t.myIndex + dist) % t.size));
      mori_shmem_signal_wait_until(flags + round, MORI_SHMEM_CMP_GE, epoch);
    }
  }
}
template <class S, bool kRelease = false, int kDirectMax = kDirectSyncMembers, bool kQuieted = false>
MORI_DEVICE_INLINE void sync(const TeamDevice& t) {
  static_assert(kRelease || !kQuieted, "only a release sync follows a quiet");
  if constexpr (!kQuieted) S::sync();
  if (S::rank() == 0 && t.size > 1) syncRounds<kRelease, kDirectMax, kQuieted>(t);
  S::sync();
}
// The collectives' syncs: every member's earlier writes are visible to the others afterwards.
template <class S, int kDirectMax = kDirectSyncMembers>
MORI_DEVICE_INLINE void syncRelease(const TeamDevice& t) {
  sync<S, true, kDirectMax>(t);
}

template <class S, int kDirectMax = kDirectSyncMembers>
MORI_DEVICE_INLINE void barrier(const TeamDevice& t) {
  S::quiet();
  sync<S, true, kDirectMax, true>(t);
}

// ---- data movement without the syncs --------------------------------------------------------
// Bytes [lo, hi) of every piece (hi <= the piece's size). A collective moves [0, bytes) between
// its entry and exit syncs; the host's multi-block kernel (shmem/team_kernels.cpp) gives each
// block a slice of it after the entry sync, and each block tells every member when it is done.

template <class S>
MORI_DEVICE_INLINE void broadcastMove(const TeamDevice& t, void* dest, const void* source, size_t lo, size_t hi,
                                      int root) {
  if (hi > lo) S::get(static_cast<char*>(dest) + lo, static_cast<const char*>(source) + lo, hi - lo, t.worldPe(root));
}

// Every member's dest block <my index> <- this PE's source (fcollect), or its source block <that
// member's index> (alltoall); this PE last. A wave's fcollect sends the same bytes to every member:
// the load/store members' blocks (this PE's own among them; the windows impl::put takes) go
// kPushFanout at a time, each unit of source loaded once for all of them (Warp::copyEach), the
// others by the device library's puts (RDMA, SDMA). A wave only: 4 PEs on one H200, its fcollect
// of 8-64 KiB per member 13.5-33.6 -> 12.9-27.5 us, where one thread's, a block's and the
// stream's puts were slower as fanouts (bench/results/2026-12-04T1300Z_h200x1_mps_push_fanout.json).
constexpr int kPushFanout = 4;
template <class S>
MORI_DEVICE_INLINE void fcollectPush(const TeamDevice& t, void* dest, const void* source, size_t bytes, size_t lo,
                                     size_t hi) {
  if (hi <= lo) return;
  char* to = static_cast<char*>(dest) + static_cast<size_t>(t.myIndex) * bytes + lo;
  const char* from = static_cast<const char*>(source) + lo;
  const size_t n = hi - lo;
  if constexpr (!std::is_same_v<S, Warp>) {
    for (int k = 1; k <= t.size; ++k) S::putNbi(to, from, n, t.worldPe((t.myIndex + k) % t.size));
  } else {
    char* group[kPushFanout] = {};  // the latest member first; constant indices keep it in registers
    int grouped = 0;
    for (int k = 1; k <= t.size; ++k) {
      const int pe = t.worldPe((t.myIndex + k) % t.size);
      char* mapped = impl::heapP2pRange(impl::states(), to, n, pe);
      if (MORI_UNLIKELY(!mapped)) mapped = static_cast<char*>(mori_shmemi_p2p_window(to, n, pe));
      if (mapped) {
        MORI_UNROLL
        for (int g = kPushFanout - 1; g > 0; --g) group[g] = group[g - 1];
        group[0] = mapped;
        ++grouped;
      } else {
        S::putNbiGeneral(to, from, n, pe);
      }
      if (grouped == kPushFanout || (k == t.size && grouped > 0)) {
        S::copyEach(group, grouped, from, n);
        grouped = 0;
      }
    }
  }
}

template <class S>
MORI_DEVICE_INLINE void alltoallPush(const TeamDevice& t, void* dest, const void* source, size_t bytes, size_t lo,
                                     size_t hi) {
  if (hi <= lo) return;
  char* to = static_cast<char*>(dest) + static_cast<size_t>(t.myIndex) * bytes + lo;
  for (int k = 1; k <= t.size; ++k) {
    const int j = (t.myIndex + k) % t.size;
    S::putNbi(to, static_cast<const char*>(source) + static_cast<size_t>(j) * bytes + lo, hi - lo, t.worldPe(j));
  }
}

// The entry of a push: every member has entered the call, after which the others write into its
// dest; this PE's earlier accesses to its dest (reads of the previous call's result, in-place
// writes) are ordered before theirs by a release for its own memory, not a system release (4 PEs
// on one H200, a block's fcollect of 16 KiB per member: 9.8 us with a system release sync at the
// entry, 8.5 with this; the pull form took 10.3, NVSHMEM 7.8;
// bench/results/2026-12-03T0625Z_h200x1_mps_push_fcollect_alltoall.json).
// Under MORI_SHMEM_COLLECTIVE_ENTRY=caller (the same on every PE: init checks) the caller has made
// every member's dest ready before any member calls, as OpenSHMEM and NVSHMEM require, and the
// push writes at once. The scope's syncs stay outside the branch: around them Debian's hipcc (HIP 5.2,
// clang 15) fails the amdgcn link ("failed to annotate CFG" in the host's one-block fcollect kernel).
template <class S>
MORI_DEVICE_INLINE void pushEntry(const TeamDevice& t) {
  S::sync();
  if (S::rank() == 0 && !(impl::states().collectiveFlags & kCollectiveCallerEntry)) {
    gpu::releaseOwnMemory();
    if (t.size > 1) syncRounds<false, kDirectSyncMembers, false>(t);
  }
  S::sync();
}

// A push: its entry, this PE's puts of [0, bytes) of every piece (kOp: fcollect or alltoall), a
// barrier. A wave's puts run in a function of their own (where MORI_DEVICE_NOINLINE holds: not
// with ROCm 5's hipcc, docs/DEVICE_API_FOOTPRINT.md): 4 PEs on one H200, its fcollect of 256 KiB
// in all 27.4 -> 17.1 us and alltoall 45.5 -> 25.4 (NVSHMEM 50.9, 95.5); one thread's and a
// block's were slower that way (bench/results/2026-12-04T1600Z_h200x1_mps_wave_push_apart.json;
// docs/TEAMS.md says what is known of why).
template <class S, LlOp kOp>
MORI_DEVICE_INLINE void pushMove(const TeamDevice& t, void* dest, const void* source, size_t bytes) {
  if constexpr (kOp == LlOp::Fcollect)
    fcollectPush<S>(t, dest, source, bytes, 0, bytes);
  else
    alltoallPush<S>(t, dest, source, bytes, 0, bytes);
}
template <class S, LlOp kOp>
MORI_DEVICE_NOINLINE void pushMoveApart(const TeamDevice t, void* dest, const void* source, size_t bytes) {
  pushMove<S, kOp>(t, dest, source, bytes);
}
template <class S, LlOp kOp>
MORI_DEVICE_INLINE void push(const TeamDevice& t, void* dest, const void* source, size_t bytes) {
  pushEntry<S>(t);
  if constexpr (std::is_same_v<S, Warp>)
    pushMoveApart<S, kOp>(t, dest, source, bytes);
  else
    pushMove<S, kOp>(t, dest, source, bytes);
  barrier<S>(t);
}

// ---- the staged exchange: a block's broadcast, fcollect and alltoall above the one-step limit ----
// Every member puts its data (alltoall: that member's block; broadcast: the root alone, its
// source) into its own region of every other member's stage area (the half of this call's
// parity: team_types.hpp; a broadcast's region is the half's start), completes its puts (a quiet:
// for RDMA peers the source is then free too), sets its arrival word there to the call's count,
// copies its own block of dest (broadcast: the root its source), waits for every other member's
// arrival word and copies their regions into its dest. dest is written by its own PE alone, so the
// call needs no entry sync (the push's costs a round trip before the first put) and no exit sync.
// A half read in call c is written next in call c + 2, which a member starts only after it saw
// every member's arrival in call c + 1, sent after that member had finished reading for call c (so
// a broadcast's other members send their arrival words too). An arrival word holds the count of
// its writer's latest call, never lower than the call a reader waits for.
// Where every member's region fits a half (broadcast: the root's, up to kStagedBroadcastMaxBytes),
// in teams of up to kStageMembers; a block only. 4 PEs on one H200, 8 and 16 KiB per member: a
// block's fcollect 7.9 -> 6.8 and 8.3 -> 7.8 us (NVSHMEM 7.0, 7.9); a wave staged too took its
// 8 KiB per member 13.6 -> 11.9 but its 16 KiB 16.3 -> 16.5 and its one-step 4 KiB 8.1 -> 8.8 (the
// wave function's spills grew by half)
// (bench/results/2026-12-03T2250Z_h200x1_mps_staged_exchange.json). A block's broadcast of 16 and
// 32 KiB at 4 PEs: 8.1-8.5 -> 5.9-6.9 us by the pull form (NVSHMEM 6.6, 16.3); the root's puts
// of 3 x 32 KiB took less than the pull's two syncs, so the limit is the whole half (the stream's
// 32 KiB: 12.9-13.2 us pulled, 11.4-11.5 staged)
// (bench/results/2026-12-04T0050Z_h200x1_mps_staged_broadcast.json).
template <class S>
constexpr bool kStagedScope = std::is_same_v<S, Block>;
constexpr size_t kStagedBroadcastMaxBytes = kStageHalfBytes;
MORI_HOST_DEVICE_INLINE constexpr bool stagedApplies(size_t bytes, int members) {
  return members <= kStageMembers && static_cast<size_t>(members) * alignUp(bytes, 16) <= kStageHalfBytes;
}
MORI_HOST_DEVICE_INLINE constexpr bool stagedBroadcastApplies(size_t bytes, int members) {
  return members <= kStageMembers && bytes <= kStagedBroadcastMaxBytes;
}
static_assert(kStagedBroadcastMaxBytes <= kStageHalfBytes, "the root's region fits a half");

template <class S>
MORI_DEVICE_INLINE void scopeCopyLocal(void* dest, const void* source, size_t bytes) {
  impl::copyBytes<std::is_same_v<S, Warp>>(dest, source, bytes, S::rank(), S::size());
}

// The other members' regions of `half` into dest. With dest and `bytes` on 16 bytes the half is
// laid out as dest is (stride == bytes), and the others' 16-byte units go in one loop, kInFlight
// loads per thread in flight across members; otherwise one member's region after another. One
// region after another, 4 vectors in flight, a block's fcollect of 16 KiB per member at 4 PEs took
// 8.5 us, where the push's took 8.2 (the same file).
template <class S, int kInFlight = 8>
MORI_DEVICE_INLINE void stagedCopyOut(const TeamDevice& t, char* out, const uint8_t* half, size_t bytes,
                                      size_t stride) {
  if (((reinterpret_cast<uintptr_t>(out) | bytes) & 15) != 0) {
    for (int k = 1; k < t.size; ++k) {
      const int j = (t.myIndex + t.size - k) % t.size;
      scopeCopyLocal<S>(out + static_cast<size_t>(j) * bytes, half + static_cast<size_t>(j) * stride, bytes);
    }
    return;
  }
  const uint32_t units = static_cast<uint32_t>(bytes / 16), mineFrom = static_cast<uint32_t>(t.myIndex) * units;
  const uint32_t total = units * static_cast<uint32_t>(t.size - 1);  // at most kStageHalfBytes / 16
  const uint32_t step = static_cast<uint32_t>(S::size());
  const auto* from = reinterpret_cast<const impl::Vec16*>(half);
  auto* to = reinterpret_cast<impl::Vec16*>(out);
  for (uint32_t i0 = static_cast<uint32_t>(S::rank()); i0 < total; i0 += step * kInFlight) {
    impl::Vec16 v[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const uint32_t i = i0 + k * step, u = i < mineFrom ? i : i + units;
      if (i < total) v[k] = from[u];
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const uint32_t i = i0 + k * step, u = i < mineFrom ? i : i + units;
      if (i < total) to[u] = v[k];
    }
  }
}

// kOp names the exchange (the LL form's names); `root` is read for broadcasts only.
template <class S, LlOp kOp>
MORI_DEVICE_INLINE void stagedExchange(const TeamDevice& t, void* dest, const void* source, size_t bytes, int root) {
  S::sync();  // the scope's writes of source are done and the previous call's count is stored
  uint64_t* countWord = reinterpret_cast<uint64_t*>(t.slot + kStageEpochOffset);
  const uint64_t count = *countWord + 1;
  uint8_t* area = t.slot + static_cast<uint32_t>(t.scratch) + kStageAfterScratch;
  uint64_t* arrived = reinterpret_cast<uint64_t*>(area);
  uint8_t* half = area + kStageArrivalBytes + (count & 1) * kStageHalfBytes;
  const size_t stride = alignUp(bytes, 16);
  const char* src = static_cast<const char*>(source);
  char* out = static_cast<char*>(dest);
  constexpr bool kBroadcast = kOp == LlOp::Broadcast;
  if (!kBroadcast || t.myIndex == root) {
    uint8_t* region = kBroadcast ? half : half + static_cast<size_t>(t.myIndex) * stride;
    for (int k = 1; k < t.size; ++k) {
      const int j = (t.myIndex + k) % t.size;
      S::putNbi(region, kOp == LlOp::Alltoall ? src + static_cast<size_t>(j) * bytes : src, bytes, t.worldPe(j));
    }
    S::quiet();
  }
  if (S::rank() == 0)
    for (int k = 1; k < t.size; ++k)
      mori_shmem_signal_op(arrived + t.myIndex, count, MORI_SHMEM_SIGNAL_SET, t.worldPe((t.myIndex + k) % t.size));
  const size_t mine = kBroadcast ? 0 : static_cast<size_t>(t.myIndex) * bytes;
  if (!kBroadcast || t.myIndex == root) scopeCopyLocal<S>(out + mine, kOp == LlOp::Alltoall ? src + mine : src, bytes);
  if (S::rank() == 0)
    for (int k = 1; k < t.size; ++k)
      mori_shmem_signal_wait_until(arrived + (t.myIndex + t.size - k) % t.size, MORI_SHMEM_CMP_GE, count);
  S::sync();
  if constexpr (kBroadcast) {
    if (t.myIndex != root) scopeCopyLocal<S>(out, half, bytes);
  } else {
    stagedCopyOut<S>(t, out, half, bytes, stride);
  }
  S::sync();  // dest is complete and every thread has read the count
  if (S::rank() == 0) *countWord = count;
}

// dest <- root's source (bytes), on every member, root included.
template <class S>
MORI_DEVICE_INLINE void broadcast(const TeamDevice& t, void* dest, const void* source, size_t bytes, int root) {
  if (llBroadcastApplies(bytes, t.size, kOneThread<S>))
    return llExchange<S, LlOp::Broadcast>(t, dest, source, bytes, root);
  if (kStagedScope<S> && stagedBroadcastApplies(bytes, t.size))
    return stagedExchange<S, LlOp::Broadcast>(t, dest, source, bytes, root);
  syncRelease<S>(t);
  broadcastMove<S>(t, dest, source, 0, bytes, root);
  syncRelease<S>(t);
}

// dest[j*bytes .. ] <- member j's source (bytes), for every member j.
template <class S>
MORI_DEVICE_INLINE void fcollect(const TeamDevice& t, void* dest, const void* source, size_t bytes) {
  if (llApplies(bytes, t.size, kOneThread<S>)) return llExchange<S, LlOp::Fcollect>(t, dest, source, bytes, 0);
  if (kStagedScope<S> && stagedApplies(bytes, t.size))
    return stagedExchange<S, LlOp::Fcollect>(t, dest, source, bytes, 0);
  push<S, LlOp::Fcollect>(t, dest, source, bytes);
}

// dest <- the members' sources concatenated in team order; each member's byte count may differ.
// The counts travel through each member's own count word, read by the others after the entry sync.
template <class S>
MORI_DEVICE_INLINE void collect(const TeamDevice& t, void* dest, const void* source, size_t bytes) {
  uint64_t* count = reinterpret_cast<uint64_t*>(t.slot + kCountOffset);
  S::sync();
  if (S::rank() == 0) *count = bytes;
  syncRelease<S>(t);
  size_t offset = 0;
  for (int j = 0; j < t.size; ++j) {
    const int pe = t.worldPe(j);
    const size_t n = j == t.myIndex ? bytes : static_cast<size_t>(mori_shmem_uint64_g(count, pe));
    if (n) S::get(static_cast<char*>(dest) + offset, source, n, pe);
    offset += n;
  }
  syncRelease<S>(t);
}

// dest block j <- member j's source block <my index> (blocks of `bytes`).
template <class S>
MORI_DEVICE_INLINE void alltoall(const TeamDevice& t, void* dest, const void* source, size_t bytes) {
  if (llApplies(bytes, t.size, kOneThread<S>)) return llExchange<S, LlOp::Alltoall>(t, dest, source, bytes, 0);
  if (kStagedScope<S> && stagedApplies(bytes, t.size))
    return stagedExchange<S, LlOp::Alltoall>(t, dest, source, bytes, 0);
  push<S, LlOp::Alltoall>(t, dest, source, bytes);
}

// ---- reductions -------------------------------------------------------------------------------
enum class Op { Sum = 0, Prod, Min, Max, And, Or, Xor };

template <typename T>
constexpr bool kIsHalf16 = std::is_same_v<T, gpu::half> || std::is_same_v<T, gpu::bfloat16>;

template <Op O, typename T>
MORI_HOST_DEVICE_INLINE T combine(T a, T b) {
  if constexpr (kIsHalf16<T>) {
    // Each step rounds to T: the result is what a chain of T operations gives.
    const float x = gpu::toFloat(a), y = gpu::toFloat(b);
    static_assert(O == Op::Sum || O == Op::Prod || O == Op::Min || O == Op::Max, "16-bit floats: arithmetic ops");
    return gpu::fromFloat<T>(O == Op::Sum    ? x + y
                             : O == Op::Prod ? x * y
                             : O == Op::Min  ? (y < x ? y : x)
                                             : (y > x ? y : x));
  } else if constexpr (std::is_floating_point_v<T>) {
    static_assert(O == Op::Sum || O == Op::Prod || O == Op::Min || O == Op::Max, "floating types: arithmetic ops");
    return O == Op::Sum ? a + b : O == Op::Prod ? a * b : O == Op::Min ? (b < a ? b : a) : (b > a ? b : a);
  } else {
    // Integers wrap (computed unsigned: no signed overflow).
    using U = std::make_unsigned_t<T>;
    const U x = static_cast<U>(a), y = static_cast<U>(b);
    switch (O) {
      case Op::Sum: return static_cast<T>(static_cast<U>(x + y));
      case Op::Prod: return static_cast<T>(static_cast<U>(x * y));
      case Op::Min: return b < a ? b : a;
      case Op::Max: return b > a ? b : a;
      case Op::And: return static_cast<T>(x & y);
      case Op::Or: return static_cast<T>(x | y);
      case Op::Xor: return static_cast<T>(x ^ y);
    }
    return a;
  }
}

// Members whose source pointers a one-pass reduction keeps in registers.
constexpr int kOnePassMembers = 8;

// dest[i] = source_0[i] op source_1[i] op ... op source_{n-1}[i] (team order, so every member
// computes bitwise the same value). dest may equal (or overlap) source.
//  - llApplies to the bytes per member, dest equal to or apart from source: one step (llReduce);
//  - every member P2P-reachable, dest apart from source: direct loads of the members' sources
//    (one pass for teams up to kOnePassMembers, else member by member into dest);
//  - otherwise chunks of half the scratch: members that are not P2P-reachable are fetched into
//    the other half by gets; an in-place result is staged and written after a team sync, so no
//    member reads a source that is already overwritten.
// The operation as a value: reduceWith takes an AnyOp (the device library's and the host API's
// kernels: the operation chosen per call, one switch per element where a loop keeps it); Fixed<O>
// is the operation of one combine loop, which withFixedOp picks once per call: one thread's
// one-step reduction and the direct-load path of every scope. There the switch was the loop's
// time, not the loads (4 PEs on one H200, float: one thread's 1 KiB 60.4 -> 21.8 us, a wave's
// 16 KiB 78.0 -> 36.7, a block's 256 KiB 80.2 -> 37.4; NVSHMEM 54.5, 86.3, 333;
// bench/results/2026-12-03T1600Z_h200x1_mps_direct_reduction_fixed_op.json). Callers check
// opApplies<T> first: AnyOp has a case for those operations only.
template <Op O>
struct Fixed {
  template <typename T>
  MORI_DEVICE_INLINE T operator()(T a, T b) const {
    return combine<O>(a, b);
  }
};
template <typename T>
MORI_HOST_DEVICE_INLINE bool opApplies(Op op) {
  return (op >= Op::Sum && op <= Op::Max) || (std::is_integral_v<T> && op >= Op::And && op <= Op::Xor);
}
struct AnyOp {
  Op op;
  template <typename T>
  MORI_DEVICE_INLINE T operator()(T a, T b) const {
    switch (op) {
      case Op::Sum: return combine<Op::Sum>(a, b);
      case Op::Prod: return combine<Op::Prod>(a, b);
      case Op::Min: return combine<Op::Min>(a, b);
      case Op::Max: return combine<Op::Max>(a, b);
      default:
        if constexpr (std::is_integral_v<T>) {
          if (op == Op::And) return combine<Op::And>(a, b);
          if (op == Op::Or) return combine<Op::Or>(a, b);
          return combine<Op::Xor>(a, b);
        }
        return a;
    }
  }
};

// body(Fixed<O>{}) for the operation of combineOp, chosen once per call. Stops the kernel naming
// team `handle` for an operation that does not apply to T.
template <typename T, class Body>
MORI_DEVICE_INLINE void withFixedOp(int handle, AnyOp combineOp, Body&& body) {
  switch (combineOp.op) {
    case Op::Sum: return body(Fixed<Op::Sum>{});
    case Op::Prod: return body(Fixed<Op::Prod>{});
    case Op::Min: return body(Fixed<Op::Min>{});
    case Op::Max: return body(Fixed<Op::Max>{});
    default:
      if constexpr (std::is_integral_v<T>) {
        if (combineOp.op == Op::And) return body(Fixed<Op::And>{});
        if (combineOp.op == Op::Or) return body(Fixed<Op::Or>{});
        if (combineOp.op == Op::Xor) return body(Fixed<Op::Xor>{});
      }
      failKind(handle, "reduction operation", static_cast<int>(combineOp.op));
  }
}

// The unit of the direct-load path's vector loads: 16 bytes of 4- and 8-byte elements, 4 narrower
// ones (each lane is combined in a register of its own: 16 one-byte lanes per unit took a thread
// 64 registers for the values alone).
template <typename T>
struct alignas(sizeof(T) >= 4 ? 16 : 4 * sizeof(T)) Lanes {
  static constexpr int kCount = sizeof(T) >= 4 ? 16 / static_cast<int>(sizeof(T)) : 4;
  T v[kCount];
};
// Units per member that a thread of the direct-load path loads before it combines them, and the
// members whose units it loads at once in the device forms (the host's spread kernel, many blocks
// of threads, loads one member's at a time). Loads in flight are what the path is bound by once
// the operation is chosen per call: 4 PEs on one H200, float, a wave's 16 KiB 35.0 us one member
// at a time, 24.3 four at once, a block's 256 KiB 36.2 and 27.2
// (bench/results/2026-12-03T1600Z_h200x1_mps_direct_reduction_fixed_op.json).
constexpr int kReduceUnits = 2;
constexpr int kReduceMembers = 4;

// The direct-load path without the syncs: elements rank, rank + size, ... of [0, n), by direct
// loads of every member's source (every member P2P-reachable, dest apart from source). The host's
// multi-block reduction kernel runs it with the grid's thread index and size. Teams of up to
// kOnePassMembers: one pass, in units of Lanes<T> when dest and every source are aligned to them
// (kUnits of them per member and thread, of kMembers members at a time, in flight), the rest
// element by element.
template <int kUnits = kReduceUnits, int kMembers = 1, typename T, class F>
MORI_DEVICE_INLINE void reduceDirect(const TeamDevice& t, T* dest, const T* source, size_t n, F combineOp, size_t rank,
                                     size_t size) {
  static_assert(kOnePassMembers % kMembers == 0, "members go in whole groups");
  if (t.size <= kOnePassMembers) {
    // Every index of src is a constant after unrolling: the pointers stay in registers. Past the
    // team, this PE's own source: a group's loads are all valid, its values past the team unused.
    const T* src[kOnePassMembers];
    uintptr_t align = reinterpret_cast<uintptr_t>(dest);
#pragma unroll
    for (int j = 0; j < kOnePassMembers; ++j) {
      src[j] = j < t.size ? static_cast<const T*>(mori_shmem_ptr(source, t.worldPe(j))) : source;
      align |= reinterpret_cast<uintptr_t>(src[j]);
    }
    using L = Lanes<T>;
    const size_t units = (align % alignof(L)) == 0 ? n / L::kCount : 0;
    if constexpr (kMembers == 1) {
      for (size_t u = rank; u < units; u += size * kUnits) {
        L acc[kUnits], v[kUnits];
#pragma unroll
        for (int k = 0; k < kUnits; ++k)
          if (u + k * size < units) acc[k] = reinterpret_cast<const L*>(src[0])[u + k * size];
#pragma unroll
        for (int j = 1; j < kOnePassMembers; ++j) {
          if (j < t.size) {
#pragma unroll
            for (int k = 0; k < kUnits; ++k)
              if (u + k * size < units) v[k] = reinterpret_cast<const L*>(src[j])[u + k * size];
#pragma unroll
            for (int k = 0; k < kUnits; ++k)
#pragma unroll
              for (int l = 0; l < L::kCount; ++l) acc[k].v[l] = combineOp(acc[k].v[l], v[k].v[l]);
          }
        }
#pragma unroll
        for (int k = 0; k < kUnits; ++k)
          if (u + k * size < units) reinterpret_cast<L*>(dest)[u + k * size] = acc[k];
      }
    } else {
      for (size_t u = rank; u < units; u += size * kUnits) {
        L acc[kUnits];
#pragma unroll
        for (int j0 = 0; j0 < kOnePassMembers; j0 += kMembers) {
          if (j0 < t.size) {
            L v[kMembers][kUnits];
#pragma unroll
            for (int g = 0; g < kMembers; ++g)
#pragma unroll
              for (int k = 0; k < kUnits; ++k)
                if (u + k * size < units) v[g][k] = reinterpret_cast<const L*>(src[j0 + g])[u + k * size];
#pragma unroll
            for (int g = 0; g < kMembers; ++g) {
              if (j0 + g == 0) {
#pragma unroll
                for (int k = 0; k < kUnits; ++k) acc[k] = v[g][k];
              } else if (j0 + g < t.size) {
#pragma unroll
                for (int k = 0; k < kUnits; ++k)
#pragma unroll
                  for (int l = 0; l < L::kCount; ++l) acc[k].v[l] = combineOp(acc[k].v[l], v[g][k].v[l]);
              }
            }
          }
        }
#pragma unroll
        for (int k = 0; k < kUnits; ++k)
          if (u + k * size < units) reinterpret_cast<L*>(dest)[u + k * size] = acc[k];
      }
    }
    for (size_t i = units * L::kCount + rank; i < n; i += size) {
      T acc = src[0][i];
#pragma unroll
      for (int j = 1; j < kOnePassMembers; ++j)
        if (j < t.size) acc = combineOp(acc, src[j][i]);
      dest[i] = acc;
    }
  } else {
    for (int j = 0; j < t.size; ++j) {
      const T* p = static_cast<const T*>(mori_shmem_ptr(source, t.worldPe(j)));
      for (size_t i = rank; i < n; i += size) dest[i] = j ? combineOp(dest[i], p[i]) : p[i];
    }
  }
}

// One thread's LL reduction, out of line: inline, it takes the registers of the direct path in the
// same function (one thread's 256 KiB float reduction: 6.01 ms beside it, 5.46 apart). A wave's
// or block's stays inline, where the call costs a small reduction about 1 us
// (bench/results/2026-12-02T0723Z_h200x1_mps_pct50_ll_reductions_and_vector_words.json).
// Its operation is chosen once per call (withFixedOp), one combine loop per operation after the
// one send: chosen per element, one thread's float reduction of 128 B took 8.06 us, against 6.62
// once per call (NVSHMEM 7.43)
// (bench/results/2026-12-02T1242Z_h200x1_mps_pct50_thread_rows_fixed_op_and_t256.json).
template <class S, typename T, class F>
MORI_DEVICE_NOINLINE void llReduceApart(const TeamDevice t, T* dest, const T* source, size_t n, F combineOp,
                                        bool scatter) {
  const LlCall c = llReduceSend<S>(t, source, n * sizeof(T), scatter);
  const T* own = scatter ? source + static_cast<size_t>(t.myIndex) * n : source;
  withFixedOp<T>(t.handle, combineOp, [&](auto op) { llCombine<S, kLlInFlight<S>>(t, c, dest, own, n, op); });
  llEnd<S>(t, c);
}

// The direct-load path of scope S, one function per element type and operation (withFixedOp),
// out of line: inline, one thread's copies took its reduction functions' spill stores from
// 400-650 to 1400-2500 bytes (ptxas, sm_90).
template <class S, typename T, class F>
MORI_DEVICE_NOINLINE void reduceDirectApart(const TeamDevice t, T* dest, const T* source, size_t n, F combineOp) {
  reduceDirect<kReduceUnits, kReduceMembers>(t, dest, source, n, combineOp, static_cast<size_t>(S::rank()),
                                             static_cast<size_t>(S::size()));
}

// A reducescatter's dest that overlaps its source other than as this PE's own piece: members
// read the other pieces while this PE writes dest. Stops the kernel naming the call's pointers.
[[noreturn]] inline MORI_DEVICE_NOINLINE void failScatterOverlap(int handle, const void* dest, const void* source,
                                                                 size_t pieceBytes, int myIndex) {
  printf(
      "mori-shmem: PE %d: team handle %d: reducescatter dest %p overlaps source %p (pieces of %llu bytes) other "
      "than as this PE's own piece (%d) [block %d thread %d]\n",
      impl::states().myPe, handle, dest, source, static_cast<unsigned long long>(pieceBytes), myIndex,
      static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  gpu::trap();
}

// reduce (scatter false): dest[i] = op over the members j of source_j[i].
// reducescatter (scatter): source holds t.size pieces of n elements and this PE's dest[i] = op
// over the members j of source_j[myIndex * n + i], in team order, so each PE's dest is bitwise its
// piece of the reduction of the whole source. dest is apart from the whole source or is this PE's
// own piece of it (in place: no other member reads that piece), on each PE independently: the
// syncs do not depend on it. A value, not a template argument: the two share every compiled body
// (a copy of them for reducescatter made CI's AMD build 949 s instead of 811:
// bench/results/2026-12-05T0040Z_cpu2_reducescatter_build_cost_and_codegen.json).
template <class S, typename T, class F>
MORI_DEVICE_INLINE void reduceWith(const TeamDevice& t, T* dest, const T* source, size_t n, F combineOp,
                                   bool scatter = false) {
  const size_t bytes = n * sizeof(T);
  const T* own = scatter ? source + static_cast<size_t>(t.myIndex) * n : source;  // what this PE reduces
  const uintptr_t d = reinterpret_cast<uintptr_t>(dest), s = reinterpret_cast<uintptr_t>(source);
  const size_t span = scatter ? bytes * static_cast<size_t>(t.size) : bytes;  // the source the members read
  const bool overlap = n && d < s + span && s < d + bytes;
  const bool inPlace = dest == own;
  if (scatter && overlap && !inPlace) failScatterOverlap(t.handle, dest, source, bytes, t.myIndex);
  if (llApplies(bytes, t.size, kOneThread<S>) && (!overlap || inPlace)) {
    if constexpr (kOneThread<S>)
      llReduceApart<S>(t, dest, source, n, combineOp, scatter);
    else
      llReduce<S>(t, dest, source, n, combineOp, scatter);
    return;
  }
  syncRelease<S>(t);
  bool allP2p = true;
  for (int j = 0; j < t.size && allP2p; ++j) allP2p = mori_shmem_ptr(own, t.worldPe(j)) != nullptr;

  // In place, a reducescatter's one pass reads each unit of its piece before it writes it.
  if (allP2p && (!overlap || (scatter && t.size <= kOnePassMembers))) {
    withFixedOp<T>(t.handle, combineOp, [&](auto op) { reduceDirectApart<S>(t, dest, own, n, op); });
    syncRelease<S>(t);
    return;
  }

  // Staged when dest overlaps: after a team sync per chunk for a reduction (every member has read
  // the chunk of every source); a reducescatter's in-place piece is read by this PE alone.
  uint8_t* scratch = t.slot + static_cast<size_t>(t.scratch);
  T* stage = reinterpret_cast<T*>(scratch);
  T* fetched = reinterpret_cast<T*>(scratch + kScratchBytes / 2);
  const size_t chunk = (kScratchBytes / 2) / sizeof(T);
  for (size_t c0 = 0; c0 < n; c0 += chunk) {
    const size_t m = n - c0 < chunk ? n - c0 : chunk;
    T* acc = overlap ? stage : dest + c0;
    for (int j = 0; j < t.size; ++j) {
      const int pe = t.worldPe(j);
      const T* p = static_cast<const T*>(mori_shmem_ptr(own + c0, pe));
      if (!p) {
        S::sync();  // every thread is done with the previous fetch
        S::get(fetched, own + c0, m * sizeof(T), pe);
        S::sync();
        p = fetched;
      }
      for (size_t i = S::rank(); i < m; i += S::size()) acc[i] = j ? combineOp(acc[i], p[i]) : p[i];
    }
    if (overlap) {
      if (!scatter) syncRelease<S>(t);  // every member has read this chunk of every source
      for (size_t i = S::rank(); i < m; i += S::size()) dest[c0 + i] = stage[i];  // each thread its own
    }
  }
  syncRelease<S>(t);
}

}  // namespace mori::shmem::team
#endif
