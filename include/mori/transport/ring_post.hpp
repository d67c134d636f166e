// The one posting mechanism of every ring GPU threads feed to a DMA engine (the NICs' send queues,
// mori/transport/rdma/post.hpp; the SDMA engines' rings, mori/transport/sdma/sdma_post.hpp):
//
//   reserve   one atomicAdd on the producers' `reserved` count hands out consecutive slots; it
//             never waits
//   room      the slots' previous lap has been released by the engine (provider: RDMA counts
//             consumed completions, SDMA waits for its completion word: sdma_flow.hpp)
//   write     the provider encodes each slot (WQEs; SDMA packets padded to the slot)
//   submit    the thread that announces a reservation [base, end) waits until every earlier one is
//             announced (posted == base), after a system fence that makes its slots visible to the
//             engine before it can hear of them
//   ring      the provider's doorbell for `end`; where the doorbell carries the index itself
//             (kIndexedDoorbells) a second fence keeps the next ringer's larger value from
//             overtaking it; then posted = end (release) passes the turn on
//
// reserveSlots() and announce() below are those two shared steps; a provider supplies
//   static constexpr bool kIndexedDoorbells
//   the doorbell store, passed to announce() as `ring(end)`
// and the bounded wait of its own counters (it names the queue and prints them on a timeout),
// passed as `waitTurn(base)`, which returns once posted == base.
#pragma once

#include <stdint.h>

#include "mori/platform/atomic.hpp"
#include "mori/platform/device.hpp"

#if MORI_GPU_COMPILER
namespace mori::ring {

// reserve: n consecutive slots of the ring whose producers count in `reserved`; returns the first.
MORI_DEVICE_INLINE uint64_t reserveSlots(uint64_t* reserved, uint64_t n) {
  return gpu::atomicFetchAdd<gpu::Order::Relaxed, gpu::Scope::Agent>(reserved, n);
}

// submit + ring: announces slots [base, end), already written by this thread or marked written by
// the threads that wrote them. `posted` is the ring's count of announced slots.
template <bool kIndexedDoorbells, class WaitTurn, class Ring>
MORI_DEVICE_INLINE void announce(uint64_t* posted, uint64_t base, uint64_t end, WaitTurn waitTurn, Ring ring) {
  gpu::fenceSystem();
  waitTurn(base);
  ring(end);
  if constexpr (kIndexedDoorbells) gpu::fenceSystem();
  gpu::atomicStore<gpu::Order::Release, gpu::Scope::Agent>(posted, end);
}

}  // namespace mori::ring
#endif
