// The SDMA side of the one ring-posting mechanism (mori/transport/ring_post.hpp: reserve and
// submit -> ring are shared with the RDMA send queues). SDMA is a provider there: its slots hold
// packets (sdma_slot.hpp), its doorbell carries the write pointer (indexed: kIndexedDoorbells), a
// slot is free once the engine completed its previous lap, and completion is one counter the
// engine writes. A posting thread:
//
//   reserve  k consecutive slots (ring::reserveSlots on SdmaQueueState::reserved); k is at most
//            half the ring, so the earliest unannounced reservation always fits once the engine
//            drains what is announced before it
//   room     waits until the engine has completed the slots' previous lap (completion >=
//            base + k - slots, sdma_flow.hpp): the completion word is in GPU memory, so tens of
//            thousands of waiting threads do not poll the host-mapped read pointer
//   write    encodes each slot (COPY_LINEAR, ATOMIC for a signal, one-dword NOPs, and on the
//            batch's last slot FENCEs writing its end index to the mirror word (plus 2^31) and
//            to `completion`, the slot's last packet: nothing of the slot is left for the engine
//            to read once it frees the slot)
//   submit   (ring::announce) once every earlier slot is announced (posted == base), after a
//            system fence (the slots reach memory before the engine can see the new write pointer)
//   ring     SdmaProvider::ringDoorbell: the write pointer (bytes) to the shadow and the doorbell;
//            announce fences again so the next ringer's larger pointer cannot overtake it, and
//            releases posted = end
//
// Completion: the engine runs a queue's packets in order, so the completion word only grows (mod
// 2^32) and reaching N means every slot below N is done. quiet waits for the announced count.
//
// Lanes: the submit wait depends on other threads' progress. On NVIDIA lanes run apart
// (gpu::kIndependentLanes); on lockstep AMD waves a lane spinning there would hold back the
// lane it waits for, so the lanes of a wave that post together take turns (eachLaneInTurn).
#pragma once

#include <stdio.h>

#include "mori/device/error.hpp"
#include "mori/device/spin.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"
#include "mori/platform/mmio.hpp"
#include "mori/platform/wave.hpp"
#include "mori/transport/ring_post.hpp"
#include "mori/transport/sdma/device_host/sdma_queue.hpp"
#include "mori/transport/sdma/sdma_flow.hpp"
#include "mori/transport/sdma/sdma_slot.hpp"

#if MORI_GPU_COMPILER
namespace mori::sdma {

using gpu::Order;
using gpu::Scope;

// A wait on `q` timed out: prints the queue's counters and stops the kernel. Cold path.
[[noreturn]] inline MORI_DEVICE_NOINLINE void queueTimeout(const SdmaQueueDevice& q, const char* what,
                                                           uint64_t progress, uint64_t target) {
  printf(
      "mori-shmem PE %d: SDMA queue %u to PE %d (engine %d): timed out waiting for %s (at %llu, awaiting %llu); "
      "reserved %llu, posted %llu slots, engine read pointer %llu bytes, completion %u\n",
      q.myPe, q.queueIndex, q.peer, static_cast<int>(q.engine), what, static_cast<unsigned long long>(progress),
      static_cast<unsigned long long>(target),
      static_cast<unsigned long long>(gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&q.state->reserved)),
      static_cast<unsigned long long>(gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&q.state->posted)),
      static_cast<unsigned long long>(gpu::atomicLoad<Order::Relaxed, Scope::System>(q.readPtr)),
      gpu::atomicLoad<Order::Relaxed, Scope::System>(q.completion));
  gpu::trap();
}

// The runtime's abort word, the device error record's code (mori/device/error.hpp): the host's
// peer monitor sets it when a PE dies, a kernel of this PE when it stops on an error. Every SDMA
// wait reads it, as the P2P and RDMA waits do (device::Spinner), so a dead peer never hangs one.
// Null: no record (tests that drive the queues without a runtime).
using AbortRecord = const device::DeviceErrorRecord*;

// A wait on `q` saw the abort word set: says why and stops the kernel. Cold path.
[[noreturn]] inline MORI_DEVICE_NOINLINE void queueAborted(const SdmaQueueDevice& q, const char* what,
                                                           AbortRecord abort, uint32_t code) {
  gpu::fenceSystem();
  if (code == static_cast<uint32_t>(device::DeviceErrorCode::PeerFailed))
    printf(
        "mori-shmem PE %d: SDMA queue %u to PE %d: wait for %s stopped: PE %d failed (the host's peer monitor saw "
        "it go)\n",
        q.myPe, q.queueIndex, q.peer, what, static_cast<int>(abort->a));
  else
    printf(
        "mori-shmem PE %d: SDMA queue %u to PE %d: wait for %s stopped: an earlier device error (code %u) stopped "
        "this PE\n",
        q.myPe, q.queueIndex, q.peer, what, code);
  gpu::trap();
}

// Polls until met(poll()) holds. Every device::Spinner::kAbortPolls polls it reads the abort word
// (stops the kernel once set); past q.timeoutTicks (if set) it reports and stops the kernel.
template <class Poll, class Met>
MORI_DEVICE_INLINE uint64_t waitUntil(const SdmaQueueDevice& q, const char* what, uint64_t target, AbortRecord abort,
                                      Poll poll, Met met) {
  constexpr uint32_t kAbortPolls = device::Spinner::kAbortPolls;
  const uint64_t start = gpu::wallClock();
  uint32_t spins = 0;
  uint64_t v;
  while (!met(v = poll())) {
    gpu::spinPause();
    ++spins;
    if (kAbortPolls != 0 && abort != nullptr && (spins & (kAbortPolls - 1)) == 0) {
      const uint32_t code = gpu::atomicLoad<Order::Relaxed, Scope::System>(&abort->code);
      if (code != 0) queueAborted(q, what, abort, code);
    }
    if (q.timeoutTicks != 0 && (spins & 63u) == 0 && gpu::wallClock() - start > q.timeoutTicks)
      queueTimeout(q, what, v, target);
  }
  return v;
}

MORI_DEVICE_INLINE uint32_t* slotAddress(const SdmaQueueDevice& q, uint64_t idx) {
  return q.ring + ((idx & (q.slots - 1)) << (kSlotShift - 2));
}

// The SDMA provider of ring_post.hpp: what differs from the NICs' send queues.
struct SdmaProvider {
  // The doorbell is the write pointer itself: an older value landing after a newer one would move
  // the engine's view backwards.
  static constexpr bool kIndexedDoorbells = true;

  // write: one slot: [POLL_REGMEM per poll] [COPY_LINEAR if bytes] [ATOMIC if sig], one-dword NOPs,
  // and [FENCE mirror, FENCE completion = fenceValue if fence] in the slot's last dwords (encodeSlot).
  MORI_DEVICE_INLINE static void encode(const SdmaQueueDevice& q, uint64_t idx, uint64_t dst, uint64_t src,
                                        uint64_t bytes, const SignalDesc* sig, bool fence, uint32_t fenceValue,
                                        const PollDesc* polls = nullptr, uint32_t nPolls = 0) {
    encodeSlot(slotAddress(q, idx), dst, src, bytes, sig, fence ? reinterpret_cast<uint64_t>(q.completion) : 0,
               fenceValue, polls, nPolls);
  }

  // ring: slots [0, end) announced: the write pointer in bytes, to the shadow the engine (or KFD
  // on resume) reads and to the 64-bit doorbell.
  MORI_DEVICE_INLINE static void ringDoorbell(const SdmaQueueDevice& q, uint64_t end) {
    const uint64_t wp = end << kSlotShift;
    gpu::atomicStore<Order::Relaxed, Scope::System>(q.writePtr, wp);
    gpu::mmioStore64(q.doorbell, wp);
  }
};

// reserve: k (1..slots/2) consecutive slots; returns the first.
MORI_DEVICE_INLINE uint64_t reserveSlots(const SdmaQueueDevice& q, uint32_t k) {
  return ring::reserveSlots(&q.state->reserved, k);
}

// room: the slots [base, base + k) were completed by the engine on their previous lap
// (sdma_flow.hpp: the completion word in GPU memory, never the host-mapped read pointer).
MORI_DEVICE_INLINE void waitForRoom(const SdmaQueueDevice& q, uint64_t base, uint32_t k, AbortRecord abort) {
  if (base + k <= q.slots) return;
  const uint64_t need = roomTarget(base, k, q.slots);
  waitUntil(
      q, "ring space (completion of the slots' previous lap)", need, abort,
      [&] { return static_cast<uint64_t>(gpu::atomicLoad<Order::Relaxed, Scope::System>(q.completion)); },
      [&](uint64_t c) { return completionReached(static_cast<uint32_t>(c), need); });
  gpu::atomicFence<Order::Acquire, Scope::System>();  // the engine's reads of the old lap precede our writes
}

// submit + ring: announces [base, end) once every earlier slot is announced.
MORI_DEVICE_INLINE void submitAndRing(const SdmaQueueDevice& q, uint64_t base, uint64_t end, AbortRecord abort) {
  ring::announce<SdmaProvider::kIndexedDoorbells>(
      &q.state->posted, base, end,
      [&](uint64_t turn) {
        waitUntil(
            q, "earlier slots to be announced", turn, abort,
            [&] { return gpu::atomicLoad<Order::Acquire, Scope::Agent>(&q.state->posted); },
            [&](uint64_t v) { return v == turn; });
      },
      [&](uint64_t e) { SdmaProvider::ringDoorbell(q, e); });
}

// Runs f in each active lane, one lane at a time where lanes are not independent (AMD); at once
// where they are (NVIDIA).
template <class F>
MORI_DEVICE_INLINE void eachLaneInTurn(F f) {
  if constexpr (gpu::kIndependentLanes) {
    f();
  } else {
    gpu::LaneMask pending = gpu::activeMask();
    while (pending != 0) {
      const int lane = gpu::firstLane(pending);
      if (gpu::laneId() == lane) f();
      pending &= ~(gpu::LaneMask{1} << lane);
    }
  }
}

// One thread posts a copy of `bytes` (0 allowed when sig is set) from src to dst, chunked by
// kMaxCopyBytes, with sig (if any) after the last chunk in the same queue. Returns the slot
// count announced after it (the completion value that covers it).
MORI_DEVICE_INLINE uint64_t postCopy(const SdmaQueueDevice& q, uint64_t dst, uint64_t src, uint64_t bytes,
                                     const SignalDesc* sig, AbortRecord abort) {
  const uint64_t chunks = bytes == 0 ? 1 : (bytes + kMaxCopyBytes - 1) / kMaxCopyBytes;
  const uint32_t maxBatch = q.slots / 2;
  uint64_t done = 0, end = 0;
  while (done < chunks) {
    const uint32_t k = static_cast<uint32_t>(chunks - done < maxBatch ? chunks - done : maxBatch);
    const uint64_t base = reserveSlots(q, k);
    waitForRoom(q, base, k, abort);
    end = base + k;
    for (uint32_t i = 0; i < k; ++i) {
      const uint64_t c = done + i;
      const uint64_t off = c * kMaxCopyBytes;
      const uint64_t len = bytes - off < kMaxCopyBytes ? bytes - off : kMaxCopyBytes;
      SdmaProvider::encode(q, base + i, dst + off, src + off, len, c == chunks - 1 ? sig : nullptr, i == k - 1,
                           static_cast<uint32_t>(end));
    }
    submitAndRing(q, base, end, abort);
    done += k;
  }
  return end;
}

// One thread posts `sig`, applied by the engine only once every poll in polls[0..nPolls) is met
// (kMaxSlotPolls per slot; the signal and the completion fence in the last slot). Returns the
// completion value that covers it.
MORI_DEVICE_INLINE uint64_t postWaitingSignal(const SdmaQueueDevice& q, const PollDesc* polls, uint32_t nPolls,
                                              const SignalDesc& sig, AbortRecord abort) {
  const uint32_t k = nPolls == 0 ? 1 : (nPolls + kMaxSlotPolls - 1) / kMaxSlotPolls;
  if (k > q.slots / 2) {
    printf(
        "mori-shmem PE %d: SDMA queue %u to PE %d: a signal waiting on %u queues needs %u slots, over half the ring "
        "(%u slots)\n",
        q.myPe, q.queueIndex, q.peer, nPolls, k, q.slots);
    gpu::trap();
  }
  const uint64_t base = reserveSlots(q, k);
  waitForRoom(q, base, k, abort);
  const uint64_t end = base + k;
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t first = i * kMaxSlotPolls;
    const uint32_t n = nPolls - first < kMaxSlotPolls ? nPolls - first : kMaxSlotPolls;
    const bool last = i == k - 1;
    SdmaProvider::encode(q, base + i, 0, 0, 0, last ? &sig : nullptr, last, static_cast<uint32_t>(end), polls + first,
                         nPolls > first ? n : 0);
  }
  submitAndRing(q, base, end, abort);
  return end;
}

// Waits until the engine has completed every slot below `end`, then acquires what it wrote.
MORI_DEVICE_INLINE void waitCompleted(const SdmaQueueDevice& q, uint64_t end, AbortRecord abort) {
  waitUntil(
      q, "completion", end, abort,
      [&] { return static_cast<uint64_t>(gpu::atomicLoad<Order::Relaxed, Scope::System>(q.completion)); },
      [&](uint64_t c) { return completionReached(static_cast<uint32_t>(c), end); });
  gpu::atomicFence<Order::Acquire, Scope::System>();
}

// quiet on one queue: everything announced before the call is complete on return.
MORI_DEVICE_INLINE void quietQueue(const SdmaQueueDevice& q, AbortRecord abort) {
  waitCompleted(q, gpu::atomicLoad<Order::Acquire, Scope::Agent>(&q.state->posted), abort);
}

}  // namespace mori::sdma
#endif
