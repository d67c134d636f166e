// The device operations over SDMA, for the dispatch in include/mori/shmem/impl/operations.hpp:
// every function takes the peer's queues and addresses already translated to ones the engine
// can reach (the P2P mapping of the peer's window, and local buffers), like the P2P path.
//
// Scope G is one of the device API's scope types (rank(), size(), sync(); every thread of the
// scope calls with the same arguments). Contracts:
//   put        returns once the copy is queued (nbi semantics); complete at quiet. Thread scope:
//              one queue, chosen by the calling wave. Warp and block scope: a put of at least
//              kSplitBytes per queue is split in equal parts across the peer's queues, part i
//              posted by rank i; smaller ones go whole to one queue.
//   Warp and block scope sync the group first: rank 0 (or rank i) fences system-wide before it
//   rings (on AMD that writes L2 back, where the engine would otherwise miss the group's data),
//   so every thread's stores to the source must have been issued.
//   putSignal  the copy and then the signal ATOMIC in ONE queue, so the engine applies the
//              signal only after the data (ordered in the queue); never split.
//   signalOp   the ATOMIC alone, in queue 0 (ordered after earlier putSignal/signalOp there,
//              not after puts on other queues: fence() first, as OpenSHMEM requires).
//   signalAfterCopies  one thread: the ATOMIC on its wave's queue, applied by the engine after
//              every copy announced on any of the peer's queues before the call (the other busy
//              queues are waited for by POLL_REGMEM on their completion words: the peer's queues
//              run on distinct engines, engine_choice). For ordered signals behind puts that may
//              have gone to several queues; idle() says when none is needed.
//   get        the copy peer -> local, then waits for its completion (blocking).
//   quiet      every queue of the peer: all that was announced before is complete; fence is
//              quiet (the peer's queues run concurrently, so only completion orders them).
// Every operation's last argument is the runtime's abort record (sdma_post.hpp: AbortRecord),
// which every wait of the operation reads; null (the default) only where no runtime exists (the
// DMA-model tests that drive queue sets directly).
#pragma once

#include <stdio.h>

#include "mori/transport/sdma/sdma_post.hpp"

#if MORI_GPU_COMPILER
namespace mori::sdma {

// Below this many bytes per queue a warp/block put goes to one queue: a split would add a
// slot and a doorbell per queue for less than one engine burst (not yet measured on hardware;
// see docs/SDMA.md).
constexpr uint64_t kSplitBytes = 64 * 1024;

// An operation on a peer without SDMA queues (the dispatch sent a non-SDMA peer here): stops the
// kernel instead of dividing by zero or posting nowhere.
[[noreturn]] inline MORI_DEVICE_NOINLINE void noQueues(const char* op) {
  printf("mori-shmem: SDMA %s on a peer that has no SDMA queues (block %u thread %u)\n", op,
         static_cast<unsigned>(blockIdx.x), static_cast<unsigned>(threadIdx.x));
  gpu::trap();
}

MORI_DEVICE_INLINE uint32_t waveQueue(const SdmaPeerDevice& p) {
  const uint32_t wave =
      (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / static_cast<uint32_t>(gpu::waveSize());
  return (blockIdx.x * 7u + wave) % p.count;
}

template <class G>
MORI_DEVICE_INLINE void put(const SdmaPeerDevice& p, void* dst, const void* src, uint64_t bytes,
                            AbortRecord abort = nullptr) {
  if (p.count == 0) noQueues("put");
  if (bytes == 0) return;
  const uint64_t d = reinterpret_cast<uint64_t>(dst), s = reinterpret_cast<uint64_t>(src);
  if (G::size() == 1) {
    const SdmaQueueDevice& q = p.queues[waveQueue(p)];
    eachLaneInTurn([&] { postCopy(q, d, s, bytes, nullptr, abort); });
    return;
  }
  G::sync();  // the group's stores to src are done before a rank fences and rings
  uint32_t parts = static_cast<uint32_t>(bytes / kSplitBytes);
  if (parts > p.count) parts = p.count;
  if (parts > static_cast<uint32_t>(G::size())) parts = static_cast<uint32_t>(G::size());
  if (parts == 0) parts = 1;
  const uint32_t r = static_cast<uint32_t>(G::rank());
  if (r < parts) {
    // Equal parts, 256-byte aligned boundaries; the last takes the rest.
    const uint64_t share = (bytes / parts) & ~uint64_t{255};
    const uint64_t off = share * r;
    const uint64_t len = r == parts - 1 ? bytes - off : share;
    eachLaneInTurn([&] { postCopy(p.queues[r], d + off, s + off, len, nullptr, abort); });
  }
  G::sync();
}

template <class G>
MORI_DEVICE_INLINE void putSignal(const SdmaPeerDevice& p, void* dst, const void* src, uint64_t bytes,
                                  uint64_t* signalAddr, uint64_t value, AtomicOp op, AbortRecord abort = nullptr) {
  if (p.count == 0) noQueues("put-with-signal");
  G::sync();  // the group's stores to src are done before rank 0 fences and rings
  if (G::rank() == 0) {
    const SignalDesc sig{reinterpret_cast<uint64_t>(signalAddr), value, op};
    const SdmaQueueDevice& q = p.queues[0];
    eachLaneInTurn(
        [&] { postCopy(q, reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), bytes, &sig, abort); });
  }
  G::sync();
}

template <class G>
MORI_DEVICE_INLINE void signalOp(const SdmaPeerDevice& p, uint64_t* signalAddr, uint64_t value, AtomicOp op,
                                 AbortRecord abort = nullptr) {
  putSignal<G>(p, nullptr, nullptr, 0, signalAddr, value, op, abort);
}

// Whether every copy announced on p's queues before the call is complete.
MORI_DEVICE_INLINE bool idle(const SdmaPeerDevice& p) {
  for (uint32_t i = 0; i < p.count; ++i) {
    const SdmaQueueDevice& q = p.queues[i];
    const uint32_t posted = static_cast<uint32_t>(gpu::atomicLoad<Order::Acquire, Scope::Agent>(&q.state->posted));
    if (static_cast<int32_t>(gpu::atomicLoad<Order::Acquire, Scope::System>(q.completion) - posted) < 0) return false;
  }
  return true;
}

// The largest queue count an ordered signal can wait on (MORI_SHMEM_SDMA_QUEUES' limit).
constexpr uint32_t kMaxQueuesPerPeer = 16;

// Completion words compare as 32-bit unsigned in POLL_REGMEM (GreaterEqual): each poll reads
// whichever of the queue's completion word and its mirror (+ 2^31) keeps the target away from
// the wrap (pollTarget, sdma_flow.hpp).
MORI_DEVICE_INLINE void signalAfterCopies(const SdmaPeerDevice& p, uint64_t* signalAddr, uint64_t value, AtomicOp op,
                                          AbortRecord abort = nullptr) {
  if (p.count == 0) noQueues("ordered signal");
  if (p.count > kMaxQueuesPerPeer) {
    printf("mori-shmem PE %d: an ordered SDMA signal to PE %d waits on at most %u queues, not %u\n", p.queues[0].myPe,
           p.queues[0].peer, kMaxQueuesPerPeer, p.count);
    gpu::trap();
  }
  const uint32_t mine = waveQueue(p);
  const SignalDesc sig{reinterpret_cast<uint64_t>(signalAddr), value, op};
  eachLaneInTurn([&] {
    PollDesc polls[kMaxQueuesPerPeer];
    uint32_t n = 0;
    for (uint32_t i = 0; i < p.count; ++i) {
      if (i == mine) continue;  // in-queue order covers this queue
      const SdmaQueueDevice& q = p.queues[i];
      const uint32_t posted = static_cast<uint32_t>(gpu::atomicLoad<Order::Acquire, Scope::Agent>(&q.state->posted));
      if (static_cast<int32_t>(gpu::atomicLoad<Order::Relaxed, Scope::System>(q.completion) - posted) < 0) {
        const PollTarget t = pollTarget(posted);  // the word of the pair that compares right unsigned
        polls[n++] = PollDesc{reinterpret_cast<uint64_t>(q.completion + t.word), t.value};
      }
    }
    postWaitingSignal(p.queues[mine], polls, n, sig, abort);
  });
}

template <class G>
MORI_DEVICE_INLINE void get(const SdmaPeerDevice& p, void* dst, const void* peerSrc, uint64_t bytes,
                            AbortRecord abort = nullptr) {
  if (p.count == 0) noQueues("get");
  if (bytes != 0 && G::rank() == 0) {
    const SdmaQueueDevice& q = p.queues[0];
    eachLaneInTurn([&] {
      waitCompleted(
          q, postCopy(q, reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(peerSrc), bytes, nullptr, abort),
          abort);
    });
  }
  G::sync();
}

template <class G>
MORI_DEVICE_INLINE void quiet(const SdmaPeerDevice& p, AbortRecord abort = nullptr) {
  const uint32_t r = static_cast<uint32_t>(G::rank());
  for (uint32_t i = r; i < p.count; i += static_cast<uint32_t>(G::size())) quietQueue(p.queues[i], abort);
  G::sync();
}

// quiet over every peer in `peers` (nPes entries; entries with count 0 are not SDMA peers).
template <class G>
MORI_DEVICE_INLINE void quietAll(const SdmaPeerDevice* peers, int nPes, AbortRecord abort = nullptr) {
  const int r = G::rank();
  int k = 0;
  for (int pe = 0; pe < nPes; ++pe)
    for (uint32_t i = 0; i < peers[pe].count; ++i, ++k)
      if (k % G::size() == r) quietQueue(peers[pe].queues[i], abort);
  G::sync();
}

template <class G>
MORI_DEVICE_INLINE void fence(const SdmaPeerDevice& p, AbortRecord abort = nullptr) {
  quiet<G>(p, abort);
}

}  // namespace mori::sdma
#endif
