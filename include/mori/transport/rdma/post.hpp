// The RDMA side of the one ring-posting mechanism (mori/transport/ring_post.hpp: reserve and
// submit -> ring are shared with the SDMA rings), written once for every operation and provider.
// Operations differ only in the WqeDesc they build; providers (P = Mlx5, Bnxt, Ionic) only in how a
// WqeDesc becomes bytes, how the doorbell is rung and how a completion entry reads.
//
//   reserve   one atomicAdd on EndpointState::reserved per group of threads (warp-aggregated),
//             which never waits
//   flow      each thread then claims its own slot: a slot is reused only after the completion
//             covering its previous WQE was consumed (the group waits for room for its whole
//             reservation: end - completed <= sqDepth - kSqHeadroom) and its fetched result, if
//             any, was read
//   write     each thread encodes its WQE into its slot, then marks the slot written for this lap
//             (EndpointDevice::slotState, release)
//   submit    the thread that wrote a group's last slot (that WQE requests a completion, so every
//             posted slot is eventually covered and the CQ, depth >= SQ depth, cannot overflow)
//             waits for the group's other marks, then for every earlier slot to be announced
//             (posted == base), and rings once; where the register carries the index, doorbells
//             also arrive in that order. No warp-synchronous step is relied on after a lane may
//             have waited (see postFromThreads).
//   complete  one poller per CQ at a time (try-lock); error entries stop the kernel with the
//             PE, peer, QP, opcode and syndrome instead of being mistaken for "not yet"
#pragma once

#include <stdio.h>

#include "mori/device/error.hpp"
#include "mori/device/spin.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/wave.hpp"
#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "mori/transport/rdma/providers/provider.hpp"
#include "mori/transport/ring_post.hpp"

#if MORI_GPU_COMPILER
namespace mori::rdma {

// Every function here takes the caller's Diag (PE, error record, wait limit) as `s`.
using DeviceCtx = device::Diag;
using device::DeviceWait;
using gpu::Order;
using gpu::Scope;

MORI_DEVICE_INLINE void* slotAddress(const EndpointDevice& ep, uint64_t idx) {
  return ep.sq + ((idx & (ep.sqDepth - 1)) << ep.sqSlotShift);
}

MORI_DEVICE_INLINE device::ErrorSite siteOf(const EndpointDevice& ep) {
  return device::ErrorSite{ep.peer, static_cast<int>(ep.qpIndex), ep.qpn};
}

// A wait on `ep` timed out: prints what the endpoint holds, so that a reservation never
// submitted, a NIC that stopped consuming and a lost completion read differently (the timeout
// reported below names only the awaited counter), then reports the timeout. Cold path.
[[noreturn]] inline MORI_DEVICE_NOINLINE void endpointTimeout(const DeviceCtx& s, const EndpointDevice& ep,
                                                              DeviceWait why, uint64_t ns, uint64_t progress,
                                                              uint64_t target, int line, const char* where) {
  EndpointState* st = ep.state;
  printf(
      "mori-shmem PE %d: %s: endpoint to PE %d qp %u (qpn 0x%x) at the timeout: reserved %llu, posted %llu, "
      "completed %llu, completion entries consumed %llu, fetched results unread %u\n",
      s.myPe, where, ep.peer, ep.qpIndex, ep.qpn,
      (unsigned long long)gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->reserved),
      (unsigned long long)gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->posted),
      (unsigned long long)gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->completed),
      (unsigned long long)gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->cqConsumer),
      gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->resultsInFlight));
  device::fail(s, static_cast<uint32_t>(device::DeviceErrorCode::Timeout), siteOf(ep), static_cast<uint64_t>(why), ns,
               progress, target, line, where);
}

// Every wait on an endpoint: polls until met(v) holds for v = poll(); past the timeout, reports
// `why` in `where` (the waiting function) with the last v as progress and `target`.
template <class Poll, class Met>
MORI_DEVICE_INLINE uint64_t spinUntil(const DeviceCtx& s, const EndpointDevice& ep, DeviceWait why, uint64_t target,
                                      const char* where, Poll poll, Met met) {
  device::Spinner spin(s);
  uint64_t v;
  while (!met(v = poll()))
    if (spin.expired()) endpointTimeout(s, ep, why, spin.elapsedNs(), v, target, __LINE__, where);
  return v;
}

// Consumes the completion entries that have arrived, if no other thread is doing so, and
// returns the number of slots known complete. The lock word is read before it is swapped: with
// every thread of a grid in quiet, a waiting warp then issues one coalesced read per poll instead
// of one read-modify-write per thread queued at the lock's L2 slice (with traffic behind them).
// Of the lanes that call together for the same endpoint, one tries the lock (every lane of a
// posting group waits for its own slot: 32 exchanges per warp and poll would queue there too).
template <class P>
MORI_DEVICE_NOINLINE uint64_t pollCompletions(const DeviceCtx& s, const EndpointDevice& ep) {
  EndpointState* st = ep.state;
  const gpu::LaneMask sameEndpoint = gpu::matchAny(gpu::activeMask(), reinterpret_cast<uint64_t>(&ep));
  if (gpu::laneId() == gpu::firstLane(sameEndpoint) &&
      gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->pollLock) == 0u &&
      gpu::atomicExchange<Order::Acquire, Scope::Agent>(&st->pollLock, 1u) == 0u) {
    uint64_t ci = gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->cqConsumer);
    uint64_t done = gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->completed);
    const uint64_t start = ci;
    for (;;) {
      const Completion c = P::readCompletion(ep, ci);
      if (!c.valid) break;
      if (c.error) {
        gpu::atomicStore<Order::Relaxed, Scope::Agent>(&st->errorSeen, 1u);
        MORI_DEVICE_FAIL(s, device::DeviceErrorCode::ErrorCompletion, siteOf(ep), c.opcode, c.syndrome,
                         c.vendorSyndrome, c.wqeIndex);
      }
      // The entry completes WQE c.wqeIndex and, on an RC QP, every WQE before it. Fewer than
      // sqDepth slots are ever outstanding (kSqHeadroom), so the advance is unambiguous.
      done = completedThrough(ep, done, c.wqeIndex);
      ++ci;
    }
    if (ci != start) {
      gpu::atomicStore<Order::Relaxed, Scope::Agent>(&st->cqConsumer, ci);
      P::releaseCompletions(ep, ci);
      // The next poller's (larger) consumer index must not reach the NIC before this one.
      if constexpr (P::kIndexedDoorbells) gpu::fenceSystem();
      gpu::atomicStore<Order::Release, Scope::Agent>(&st->completed, done);
    }
    gpu::atomicStore<Order::Release, Scope::Agent>(&st->pollLock, 0u);
  }
  return gpu::atomicLoad<Order::Acquire, Scope::Agent>(&st->completed);
}

// Waits until at least `target` slots are complete.
template <class P>
MORI_DEVICE_NOINLINE void waitCompleted(const DeviceCtx& s, const EndpointDevice& ep, uint64_t target,
                                        DeviceWait why = DeviceWait::Completion) {
  spinUntil(
      s, ep, why, target, __func__, [&] { return pollCompletions<P>(s, ep); },
      [&](uint64_t done) { return done >= target; });
}

// Slot state words (EndpointDevice::slotState): bits 31..1 carry the lap tag of the WQE the slot
// holds, lap + 1 (31 bits), so that a zeroed word names no lap; bit 0 says its fetched result
// is unread.
MORI_DEVICE_INLINE uint32_t lapTag(const EndpointDevice& ep, uint64_t idx) {
  return static_cast<uint32_t>((idx >> (__ffs(static_cast<int>(ep.sqDepth)) - 1)) + 1) & 0x7fffffffu;
}

// Slow path of claimSlot: the slot's previous WQE fetched a result its thread has not read yet.
// A timeout reports the slot's state word as progress and `idx` as target.
template <class P>
MORI_DEVICE_NOINLINE void waitResultRead(const DeviceCtx& s, const EndpointDevice& ep, uint64_t idx) {
  const uint32_t* state = &ep.slotState[idx & (ep.sqDepth - 1)];
  spinUntil(
      s, ep, DeviceWait::SendQueueSlot, idx, __func__,
      [&] { return uint64_t{gpu::atomicLoad<Order::Acquire, Scope::Agent>(state)}; },
      [](uint64_t word) { return (word & 1u) == 0; });
}

// Waits until slot `idx` of a group's reservation [.., end) may be written: the ring has room
// for the whole reservation (so that a group's threads leave this wait together and go on
// posting in groups as large) and the WQE a lap before `idx` had its fetched result, if any,
// read. Each thread waits itself, after the reservation: a thread that waits never holds up
// another thread's step.
template <class P>
MORI_DEVICE_INLINE void claimSlot(const DeviceCtx& s, const EndpointDevice& ep, uint64_t idx, uint64_t end) {
  const uint64_t capacity = ep.sqDepth - P::kSqHeadroom;
  // posted <= idx < end, so completed < end: no wrap in the subtraction
  if (MORI_UNLIKELY(end - gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->completed) > capacity))
    waitCompleted<P>(s, ep, end - capacity, DeviceWait::SendQueueSlot);
  if (MORI_UNLIKELY(gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->resultsInFlight) != 0u))
    waitResultRead<P>(s, ep, idx);
}

// Atomics and scalar reads without a destination fetch into the slot's result word, which
// stays reserved until takeResult() has read it.
MORI_DEVICE_INLINE bool fetchesToScratch(const WqeDesc& d) {
  return d.localAddr == 0 && (d.op == WqeOp::AtomicFetchAdd || d.op == WqeOp::AtomicCompareSwap || d.op == WqeOp::Read);
}

// Encodes `d` into claimed slot `idx`, then marks the slot written for this lap (release: the
// WQE bytes before the mark, which the ringer reads before it announces the slot).
template <class P>
MORI_DEVICE_INLINE void writeWqe(const EndpointDevice& ep, uint64_t idx, WqeDesc d) {
  const uint64_t slot = idx & (ep.sqDepth - 1);
  const bool fetches = fetchesToScratch(d);
  if (fetches) {
    gpu::atomicFetchAdd<Order::Relaxed, Scope::Agent>(&ep.state->resultsInFlight, 1u);
    d.localAddr = reinterpret_cast<uint64_t>(&ep.atomicResults[slot]);
    d.lkey = ep.atomicLkey;
  }
  P::encode(ep, slotAddress(ep, idx), static_cast<uint32_t>(idx), d);
  gpu::atomicStore<Order::Release, Scope::Agent>(&ep.slotState[slot], (lapTag(ep, idx) << 1) | (fetches ? 1u : 0u));
}

// Whether slots [first, first + n) are all marked written for their lap. Independent loads, so
// that a batch costs about one round trip.
MORI_DEVICE_INLINE bool slotsWritten(const EndpointDevice& ep, uint64_t first, uint32_t n) {
  bool all = true;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&ep.slotState[(first + i) & (ep.sqDepth - 1)]);
    all &= (v >> 1) == lapTag(ep, first + i);
  }
  return all;
}

// Slow path of submitSlots: some thread of the batch has not written its slot yet. A timeout
// reports the lap tag found in the slot as progress and the awaited one as target.
template <class P>
MORI_DEVICE_NOINLINE void waitSlotsWritten(const DeviceCtx& s, const EndpointDevice& ep, uint64_t first, uint32_t n) {
  for (uint64_t idx = first; idx < first + n; ++idx) {
    const uint32_t* state = &ep.slotState[idx & (ep.sqDepth - 1)];
    const uint32_t tag = lapTag(ep, idx);
    spinUntil(
        s, ep, DeviceWait::SendQueueSlot, tag, __func__,
        [&] { return uint64_t{gpu::atomicLoad<Order::Relaxed, Scope::Agent>(state) >> 1}; },
        [&](uint64_t seen) { return seen == tag; });
  }
}

// Announces slots [base, base + n) of one reservation; called by the thread that wrote the last
// of them (the one requesting the completion), once. Waits for the other slots' marks (their
// writers may be other threads: nothing else tells this thread they are done), then for every
// earlier slot to be announced, so that doorbells go out in reservation order.
template <class P>
MORI_DEVICE_INLINE void submitSlots(const DeviceCtx& s, const EndpointDevice& ep, uint64_t base, uint32_t n) {
  if (n > 1 && MORI_UNLIKELY(!slotsWritten(ep, base, n - 1))) waitSlotsWritten<P>(s, ep, base, n - 1);
  // With the marks read, announce()'s first fence makes their WQE bytes visible to the NIC before
  // it hears of them. Its hand-off orders the next ringer after us on the GPU, not our MMIO store's
  // arrival at the NIC: where the register carries the index, its second fence waits for it to land.
  EndpointState* st = ep.state;
  const char* where = __func__;
  ring::announce<P::kIndexedDoorbells>(
      &st->posted, base, base + n,
      [&](uint64_t turn) {
        spinUntil(
            s, ep, DeviceWait::SendQueueSlot, turn, where,
            [&] { return gpu::atomicLoad<Order::Acquire, Scope::Agent>(&st->posted); },
            [&](uint64_t posted) { return posted == turn; });
      },
      [&](uint64_t end) { P::ringDoorbell(ep, end, slotAddress(ep, end - 1)); });
}

// Waits until slots up to `end` are announced (another thread rings for them).
template <class P>
MORI_DEVICE_INLINE void waitAnnounced(const DeviceCtx& s, const EndpointDevice& ep, uint64_t end) {
  spinUntil(
      s, ep, DeviceWait::SendQueueSlot, end, __func__,
      [&] { return gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&ep.state->posted); },
      [&](uint64_t posted) { return posted >= end; });
}

// Hands out `n` consecutive slots. Never waits: the threads wait for their own slots after the
// group has learnt where its slots are (claimSlot).
MORI_DEVICE_INLINE uint64_t reserveSlots(const EndpointDevice& ep, uint32_t n) {
  return ring::reserveSlots(&ep.state->reserved, n);
}

// A thread's part of a group's reservation [base, base + n): claims and writes slot base + rank;
// the thread holding the last slot requests the completion and rings. Returns the slot index.
template <class P>
MORI_DEVICE_INLINE uint64_t postInSlot(const DeviceCtx& s, const EndpointDevice& ep, uint64_t base, uint32_t n,
                                       uint32_t rank, WqeDesc d) {
  const uint64_t idx = base + rank;
  const bool last = rank == n - 1;
  claimSlot<P>(s, ep, idx, base + n);
  if (last) d.signal = 1;
  writeWqe<P>(ep, idx, d);
  if (last) {
    submitSlots<P>(s, ep, base, n);
  } else if constexpr (gpu::kIndependentLanes) {
    // Leave with the last lane, once it rang: lanes that ran ahead would post again in ever
    // smaller groups, each with its own doorbell and completion. (Lockstep waves stay together
    // anyway, and there this wait would keep the ringing lane from running.)
    waitAnnounced<P>(s, ep, base + n);
  }
  return idx;
}

// Lowest `count` lanes of `mask`.
MORI_DEVICE_INLINE gpu::LaneMask lowestLanes(gpu::LaneMask mask, uint32_t count) {
  gpu::LaneMask out = 0;
  for (uint32_t i = 0; i < count && mask; ++i) {
    out |= mask & (~mask + 1);
    mask &= mask - 1;
  }
  return out;
}

// Every calling lane posts its own `d` on its own endpoint `ep` (lanes may differ). Lanes with
// the same endpoint share one reservation (one atomic) and one doorbell; the batch's last WQE
// requests a completion. Returns the calling lane's slot index.
template <class P>
MORI_DEVICE_INLINE uint64_t postFromThreads(const DeviceCtx& s, const EndpointDevice& ep, WqeDesc d) {
  if constexpr (gpu::kIndependentLanes) {
    // Independent thread scheduling: the lanes of a warp may run apart, and device runs showed a
    // warp-synchronous step placed after lanes had diverged (the leader alone in a wait for ring
    // room) let a lane through without the lanes its mask named. So the group's only warp steps
    // come first, before any lane can branch off: match, the leader's one atomic (predicated),
    // one shuffle. Then each lane claims and writes its slot, the last slot's lane rings once the
    // others' slots are marked, and the others leave once it has rung (memory, not a warp step,
    // tells them). Groups (one per endpoint) go on independently: the scheduler
    // guarantees each forward progress, and the wave size (32) never exceeds the ring's capacity
    // (QP depth >= 64).
    const gpu::LaneMask group = gpu::matchAny(gpu::activeMask(), reinterpret_cast<uint64_t>(&ep));
    const int leader = gpu::firstLane(group);
    const uint32_t n = static_cast<uint32_t>(gpu::popcount(group));
    const uint64_t mine = gpu::laneId() == leader ? reserveSlots(ep, n) : 0;
    const uint64_t base = gpu::shfl(group, mine, leader);
    return postInSlot<P>(s, ep, base, n, static_cast<uint32_t>(gpu::popcount(group & gpu::lanesBelow())), d);
  } else {
    // Lockstep waves (CDNA): batches are handled one after the other by the whole wave, so a wave
    // never holds two unannounced reservations: a lane waiting for its endpoint must not keep
    // another lane's earlier reservation from being announced. (Lanes reconverge after each batch,
    // so the next batch's wave steps see every lane.)
    const gpu::LaneMask active = gpu::activeMask();
    const gpu::LaneMask sameEndpoint = gpu::matchAny(active, reinterpret_cast<uint64_t>(&ep));
    const uint32_t capacity = ep.sqDepth - P::kSqHeadroom;
    uint64_t mySlot = 0;
    for (gpu::LaneMask remaining = active; remaining;) {
      const int leader = gpu::firstLane(remaining);
      gpu::LaneMask batch = gpu::shfl(active, sameEndpoint, leader) & remaining;
      if (static_cast<uint32_t>(gpu::popcount(batch)) > capacity) batch = lowestLanes(batch, capacity);
      const uint32_t n = static_cast<uint32_t>(gpu::popcount(batch));
      const uint64_t mine = gpu::laneId() == leader ? reserveSlots(ep, n) : 0;
      const uint64_t base = gpu::shfl(active, mine, leader);
      if (batch & gpu::thisLane())
        mySlot = postInSlot<P>(s, ep, base, n, static_cast<uint32_t>(gpu::popcount(batch & gpu::lanesBelow())), d);
      remaining &= ~batch;
    }
    return mySlot;
  }
}

// A cooperating scope (all its threads call with equal arguments) posts `count` WQEs built by
// make(i) on one endpoint: rank 0 reserves, the threads claim and write, the thread writing a
// batch's last WQE requests its completion and rings; batches are what the ring can hold.
// Returns the last slot index (same value in every thread).
template <class P, class CoopScope, class MakeFn>
MORI_DEVICE_INLINE uint64_t postFromScope(const DeviceCtx& s, const EndpointDevice& ep, uint32_t count, MakeFn make) {
  const uint32_t capacity = ep.sqDepth - P::kSqHeadroom;
  uint64_t last = 0;
  for (uint32_t first = 0; first < count; first += capacity) {
    const uint32_t n = count - first < capacity ? count - first : capacity;
    const uint64_t base = CoopScope::broadcast(CoopScope::rank() == 0 ? reserveSlots(ep, n) : uint64_t{0});
    bool rang = false;
    for (uint32_t i = static_cast<uint32_t>(CoopScope::rank()); i < n; i += static_cast<uint32_t>(CoopScope::size())) {
      WqeDesc d = make(first + i);
      rang = i == n - 1;
      claimSlot<P>(s, ep, base + i, base + n);
      if (rang) d.signal = 1;
      writeWqe<P>(ep, base + i, d);
      if (rang) submitSlots<P>(s, ep, base, n);
    }
    // As in postInSlot: the scope leaves together, told by memory that the batch was rung.
    if constexpr (gpu::kIndependentLanes) {
      if (!rang) waitAnnounced<P>(s, ep, base + n);
    }
    last = base + n - 1;
  }
  return last;
}

// Waits for the WQE in slot `idx` (posted with a fetch to scratch) and returns its result.
template <class P>
MORI_DEVICE_INLINE uint64_t takeResult(const DeviceCtx& s, const EndpointDevice& ep, uint64_t idx) {
  if (gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->completed) <= idx) waitCompleted<P>(s, ep, idx + 1);
  const uint64_t slot = idx & (ep.sqDepth - 1);
  const uint64_t v = gpu::atomicLoad<Order::Acquire, Scope::System>(&ep.atomicResults[slot]);
  gpu::atomicStore<Order::Release, Scope::Agent>(&ep.slotState[slot], lapTag(ep, idx) << 1);
  // Release: a claimer that reads the count as 0 skips the state word and may mark the slot
  // next; our store above must not land after its mark.
  gpu::atomicFetchAdd<Order::Release, Scope::Agent>(&ep.state->resultsInFlight, ~0u);  // -1
  return v;
}

// Completes everything posted on `ep` so far.
template <class P>
MORI_DEVICE_INLINE void quietEndpoint(const DeviceCtx& s, const EndpointDevice& ep) {
  const uint64_t posted = gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->posted);
  if (gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->completed) < posted) waitCompleted<P>(s, ep, posted);
}

}  // namespace mori::rdma
#endif
