// The one RDMA posting mechanism, written once for every operation and provider. Operations
// differ only in the WqeDesc they build; providers (P = Mlx5, Bnxt, Ionic) only in how a WqeDesc
// becomes bytes, how the doorbell is rung and how a completion entry reads.
//
//   reserve   one atomicAdd on EndpointState::reserved per group of threads (warp-aggregated)
//   flow      a slot is reused only after the completion covering it was consumed:
//             reserved_end - completed <= sqDepth - kSqHeadroom, else poll the CQ until it is
//   write     each thread encodes its WQE into its slot
//   submit    doorbells go out in reservation order (wait for posted == base), one per group,
//             and where the register carries the index they also arrive in that order;
//             the group's last WQE requests a completion, so every posted slot is eventually
//             covered by a completion entry and the CQ (depth >= SQ depth) cannot overflow
//   complete  one poller per CQ at a time (try-lock); error entries stop the kernel with the
//             PE, peer, QP, opcode and syndrome instead of being mistaken for "not yet"
#pragma once

#include "mori/platform/atomic.hpp"
#include "mori/platform/wave.hpp"
#include "mori/shmem/device_host/gpu_states.hpp"
#include "mori/shmem/impl/device_error.hpp"
#include "mori/shmem/impl/spin.hpp"
#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "mori/transport/rdma/providers/provider.hpp"

#if MORI_GPU_COMPILER
namespace mori::rdma {

using shmem::GpuStates;
namespace sh = mori::shmem;
namespace shi = mori::shmem::impl;
using gpu::Order;
using gpu::Scope;

MORI_DEVICE_INLINE void* slotAddress(const EndpointDevice& ep, uint64_t idx) {
  return ep.sq + ((idx & (ep.sqDepth - 1)) << ep.sqSlotShift);
}

MORI_DEVICE_INLINE shi::ErrorSite siteOf(const EndpointDevice& ep) {
  return shi::ErrorSite{ep.peer, static_cast<int>(ep.qpIndex), ep.qpn};
}

// A wait on `ep` timed out: prints what the endpoint holds, so that a reservation never
// submitted, a NIC that stopped consuming and a lost completion read differently (the timeout
// reported below names only the awaited counter), then reports the timeout. Cold path.
[[noreturn]] inline MORI_DEVICE_NOINLINE void endpointTimeout(const GpuStates& s, const EndpointDevice& ep,
                                                              sh::DeviceWait why, uint64_t ns, uint64_t progress,
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
  shi::reportError(s, sh::DeviceErrorCode::Timeout, siteOf(ep), static_cast<uint64_t>(why), ns, progress, target, line,
                   where);
}
#define MORI_RDMA_TIMEOUT(s, ep, why, ns, progress, target) \
  endpointTimeout(s, ep, why, ns, progress, target, __LINE__, __func__)

// Consumes the completion entries that have arrived, if no other thread is doing so, and
// returns the number of slots known complete. The lock word is read before it is swapped: with
// every thread of a grid in quiet, a waiting warp then issues one coalesced read per poll instead
// of one read-modify-write per thread queued at the lock's L2 slice (with traffic behind them).
template <class P>
MORI_DEVICE_NOINLINE uint64_t pollCompletions(const GpuStates& s, const EndpointDevice& ep) {
  EndpointState* st = ep.state;
  if (gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->pollLock) == 0u &&
      gpu::atomicExchange<Order::Acquire, Scope::Agent>(&st->pollLock, 1u) == 0u) {
    uint64_t ci = gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->cqConsumer);
    uint64_t done = gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&st->completed);
    const uint64_t start = ci;
    for (;;) {
      const Completion c = P::readCompletion(ep, ci);
      if (!c.valid) break;
      if (c.error) {
        gpu::atomicStore<Order::Relaxed, Scope::Agent>(&st->errorSeen, 1u);
        MORI_DEVICE_FAIL(s, sh::DeviceErrorCode::ErrorCompletion, siteOf(ep), c.opcode, c.syndrome, c.vendorSyndrome,
                         c.wqeIndex);
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
MORI_DEVICE_NOINLINE void waitCompleted(const GpuStates& s, const EndpointDevice& ep, uint64_t target,
                                        sh::DeviceWait why = sh::DeviceWait::Completion) {
  shi::Spinner spin(s.timeoutTicks);
  uint64_t done;
  while ((done = pollCompletions<P>(s, ep)) < target) {
    if (spin.expired()) MORI_RDMA_TIMEOUT(s, ep, why, spin.elapsedNs(), done, target);
  }
}

// A slot whose fetched result its thread has not read yet may not be reused (slow path of
// reserveSlots; only taken while such results exist on this endpoint).
template <class P>
MORI_DEVICE_NOINLINE void waitResultsRead(const GpuStates& s, const EndpointDevice& ep, uint64_t base, uint32_t n) {
  shi::Spinner spin(s.timeoutTicks);
  for (uint64_t idx = base; idx < base + n; ++idx) {
    const uint32_t* busy = &ep.resultBusy[idx & (ep.sqDepth - 1)];
    while (gpu::atomicLoad<Order::Acquire, Scope::Agent>(busy) != 0u) {
      if (spin.expired())
        MORI_RDMA_TIMEOUT(s, ep, sh::DeviceWait::SendQueueSlot, spin.elapsedNs(), idx - ep.sqDepth, idx);
    }
  }
}

// Hands out `n` consecutive slots, waiting until the ring has room for them.
template <class P>
MORI_DEVICE_INLINE uint64_t reserveSlots(const GpuStates& s, const EndpointDevice& ep, uint32_t n) {
  EndpointState* st = ep.state;
  const uint64_t base = gpu::atomicFetchAdd<Order::Relaxed, Scope::Agent>(&st->reserved, uint64_t{n});
  const uint64_t end = base + n;
  const uint64_t capacity = ep.sqDepth - P::kSqHeadroom;
  if (MORI_UNLIKELY(end - gpu::atomicLoad<Order::Acquire, Scope::Agent>(&st->completed) > capacity))
    waitCompleted<P>(s, ep, end - capacity, sh::DeviceWait::SendQueueSlot);
  if (MORI_UNLIKELY(gpu::atomicLoad<Order::Acquire, Scope::Agent>(&st->resultsInFlight) != 0u))
    waitResultsRead<P>(s, ep, base, n);
  return base;
}

// Atomics and scalar reads without a destination fetch into the slot's result word, which
// stays reserved until takeResult() has read it.
MORI_DEVICE_INLINE bool fetchesToScratch(const WqeDesc& d) {
  return d.localAddr == 0 && (d.op == WqeOp::AtomicFetchAdd || d.op == WqeOp::AtomicCompareSwap || d.op == WqeOp::Read);
}

template <class P>
MORI_DEVICE_INLINE void writeWqe(const EndpointDevice& ep, uint64_t idx, WqeDesc d) {
  if (fetchesToScratch(d)) {
    const uint64_t slot = idx & (ep.sqDepth - 1);
    gpu::atomicStore<Order::Relaxed, Scope::Agent>(&ep.resultBusy[slot], 1u);
    gpu::atomicFetchAdd<Order::Relaxed, Scope::Agent>(&ep.state->resultsInFlight, 1u);
    d.localAddr = reinterpret_cast<uint64_t>(&ep.atomicResults[slot]);
    d.lkey = ep.atomicLkey;
  }
  P::encode(ep, slotAddress(ep, idx), static_cast<uint32_t>(idx), d);
}

// Announces slots [base, base + n), whose WQEs the calling group has written (and synchronised).
template <class P>
MORI_DEVICE_INLINE void submitSlots(const GpuStates& s, const EndpointDevice& ep, uint64_t base, uint32_t n) {
  gpu::fenceSystem();  // WQE bytes visible to the NIC before it hears of them
  EndpointState* st = ep.state;
  if (MORI_UNLIKELY(gpu::atomicLoad<Order::Acquire, Scope::Agent>(&st->posted) != base)) {
    shi::Spinner spin(s.timeoutTicks);
    uint64_t posted;
    while ((posted = gpu::atomicLoad<Order::Acquire, Scope::Agent>(&st->posted)) != base) {
      if (spin.expired()) MORI_RDMA_TIMEOUT(s, ep, sh::DeviceWait::SendQueueSlot, spin.elapsedNs(), posted, base);
    }
  }
  P::ringDoorbell(ep, base + n, slotAddress(ep, base + n - 1));
  // The agent-scope hand-off below orders the next ringer after us on the GPU, not our MMIO
  // store's arrival at the NIC: where the register carries the index, wait for it to land.
  if constexpr (P::kIndexedDoorbells) gpu::fenceSystem();
  gpu::atomicStore<Order::Release, Scope::Agent>(&st->posted, base + n);
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
// the same endpoint share one reservation and one doorbell; the batch's last WQE requests a
// completion. Batches are handled one after the other by the whole wave, so a wave never holds
// two unsubmitted reservations: on hardware whose lanes run in lockstep (CDNA) a lane waiting
// for its endpoint must not keep another lane's earlier reservation from being submitted.
// Returns the calling lane's slot index.
template <class P>
MORI_DEVICE_INLINE uint64_t postFromThreads(const GpuStates& s, const EndpointDevice& ep, WqeDesc d) {
  const gpu::LaneMask active = gpu::activeMask();
  const gpu::LaneMask sameEndpoint = gpu::matchAny(active, reinterpret_cast<uint64_t>(&ep));
  const uint32_t capacity = ep.sqDepth - P::kSqHeadroom;
  uint64_t mySlot = 0;
  for (gpu::LaneMask remaining = active; remaining;) {
    const int leader = gpu::firstLane(remaining);
    gpu::LaneMask batch = gpu::shfl(active, sameEndpoint, leader) & remaining;
    if (static_cast<uint32_t>(gpu::popcount(batch)) > capacity) batch = lowestLanes(batch, capacity);
    const uint32_t n = static_cast<uint32_t>(gpu::popcount(batch));
    uint64_t base = 0;
    if (gpu::laneId() == leader) base = reserveSlots<P>(s, ep, n);
    base = gpu::shfl(active, base, leader);
    if (batch & gpu::thisLane()) {
      const uint32_t rank = static_cast<uint32_t>(gpu::popcount(batch & gpu::lanesBelow()));
      WqeDesc mine = d;
      if (rank == n - 1) mine.signal = 1;
      mySlot = base + rank;
      writeWqe<P>(ep, mySlot, mine);
    }
    gpu::waveSync(active);
    if (gpu::laneId() == leader) submitSlots<P>(s, ep, base, n);
    remaining &= ~batch;
  }
  return mySlot;
}

// A cooperating scope (all its threads call with equal arguments) posts `count` WQEs built by
// make(i) on one endpoint: rank 0 reserves and rings, the threads write, in batches the ring can
// hold. The last WQE of each batch requests a completion. Returns the last slot index (same
// value in every thread).
template <class P, class CoopScope, class MakeFn>
MORI_DEVICE_INLINE uint64_t postFromScope(const GpuStates& s, const EndpointDevice& ep, uint32_t count, MakeFn make) {
  const uint32_t capacity = ep.sqDepth - P::kSqHeadroom;
  uint64_t last = 0;
  for (uint32_t first = 0; first < count; first += capacity) {
    const uint32_t n = count - first < capacity ? count - first : capacity;
    uint64_t base = 0;
    if (CoopScope::rank() == 0) base = reserveSlots<P>(s, ep, n);
    base = CoopScope::broadcast(base);
    for (uint32_t i = static_cast<uint32_t>(CoopScope::rank()); i < n; i += static_cast<uint32_t>(CoopScope::size())) {
      WqeDesc d = make(first + i);
      if (i == n - 1) d.signal = 1;
      writeWqe<P>(ep, base + i, d);
    }
    CoopScope::sync();
    if (CoopScope::rank() == 0) submitSlots<P>(s, ep, base, n);
    last = base + n - 1;
  }
  return last;
}

// Waits for the WQE in slot `idx` (posted with a fetch to scratch) and returns its result.
template <class P>
MORI_DEVICE_INLINE uint64_t takeResult(const GpuStates& s, const EndpointDevice& ep, uint64_t idx) {
  if (gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->completed) <= idx) waitCompleted<P>(s, ep, idx + 1);
  const uint64_t slot = idx & (ep.sqDepth - 1);
  const uint64_t v = gpu::atomicLoad<Order::Acquire, Scope::System>(&ep.atomicResults[slot]);
  gpu::atomicStore<Order::Release, Scope::Agent>(&ep.resultBusy[slot], 0u);
  gpu::atomicFetchAdd<Order::Relaxed, Scope::Agent>(&ep.state->resultsInFlight, ~0u);  // -1
  return v;
}

// Completes everything posted on `ep` so far.
template <class P>
MORI_DEVICE_INLINE void quietEndpoint(const GpuStates& s, const EndpointDevice& ep) {
  const uint64_t posted = gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->posted);
  if (gpu::atomicLoad<Order::Acquire, Scope::Agent>(&ep.state->completed) < posted) waitCompleted<P>(s, ep, posted);
}

}  // namespace mori::rdma
#endif
