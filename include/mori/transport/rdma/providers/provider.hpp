// The provider contract: how a provider-neutral WqeDesc becomes NIC bytes, how the doorbell is
// rung and how a completion entry reads, for each NIC family; and the one run-time switch that
// picks the family of an endpoint.
//
// Each provider P (Mlx5, Bnxt, Ionic; namespace mori::rdma) is a stateless struct with:
//
//   kProvider          its Provider value
//   kSlotBytes         SQ stride; every WQE we post (WRITE, WRITE-inline up to kMaxInline bytes,
//                      READ, fetch-add, compare-swap, NOP) occupies exactly one slot
//   kMaxInline         largest WriteInline payload
//   kMaxMessageBytes   largest Write/Read one WQE may carry (the mechanism splits larger ones)
//   kCqeBytes          CQ entry stride
//   kHasAtomic32       4-byte atomics exist (mlx5: masked atomics). Where false, encode() traps
//                      on atomicBytes = 4: never emulate by an 8-byte atomic over a 4-byte target
//   kIndexBits         width of the WQE index the NIC reports; sqDepth <= 2^kIndexBits
//   kSqHeadroom        slots that must stay free: at most sqDepth - kSqHeadroom WQEs may be
//                      outstanding (posted and not known complete)
//   kIndexedDoorbells  the doorbell registers carry the producer / consumer index themselves (bnxt,
//                      ionic), so doorbells from different threads must reach the NIC in the order
//                      they were rung: an older index landing after a newer one would move the
//                      NIC's view backwards. False where the register only says "look" and the NIC
//                      reads a doorbell record in GPU memory (mlx5).
//
//   static void encode(const EndpointDevice& ep, void* slot, uint32_t slotIndex, const WqeDesc& d)
//       host+device. Writes every byte of `slot` the NIC reads for `d` (signal, fence and atomic
//       size honoured). slotIndex is the monotonic slot count (its low bits are the ring
//       position). Traps on a desc the provider cannot express. Any thread, no ordering.
//   static void ringDoorbell(const EndpointDevice& ep, uint64_t postedSlots, const void* lastSlot)
//       device. Announces slots [0, postedSlots); lastSlot is slot postedSlots - 1. One thread,
//       calls for one endpoint serialised in posting order, after the WQEs are written and made
//       visible (gpu::fenceSystem()). Updates the doorbell record (mlx5) or other NIC-read
//       bookkeeping (bnxt: retransmission table; reads EndpointState::posted as the count already
//       announced, so the caller advances `posted` after the call), fences, then writes the
//       doorbell register with one 64-bit MMIO store.
//   static Completion readCompletion(const EndpointDevice& ep, uint64_t cqIndex)
//       host+device. Decodes the entry at monotonic consumer index cqIndex (ring position
//       cqIndex & (cqDepth - 1)) with the provider's ownership rule. The ownership word is read
//       first with an acquire load. valid = 0: not written yet (poll again). Otherwise
//       wqeIndex = SQ ring position (mod sqDepth) of the last WQE the entry completes — on an RC
//       QP every earlier WQE is complete too — and error != 0 marks a failed work request
//       (opcode, syndrome, vendorSyndrome say how; never to be taken as "not yet").
//   static void releaseCompletions(const EndpointDevice& ep, uint64_t newConsumer)
//       device. Tells the NIC entries [0, newConsumer) are consumed. The CQ's only poller.
//   static uint64_t fetchedValue(uint64_t raw, uint32_t atomicBytes)
//       host+device. The old value an atomic returned, given its 8-byte result word as loaded
//       (mlx5's 4-byte atomics deliver it big-endian).
//   static void initCompletionQueue(void* cqHostImage, uint32_t cqDepth)
//       host. The bytes the CQ (cqDepth * kCqeBytes) must hold before first use; the host copies
//       the image to the CQ's GPU memory.
//
// Counting completions: an entry's wqeIndex advances the count of completed slots `done` by
// ((wqeIndex + 1 - done) & (sqDepth - 1)) — unambiguous because fewer than sqDepth are
// outstanding (kSqHeadroom); completedThrough() below does it.
//
// Provider-specific needs beyond the contract (the host sets them up when it builds an endpoint):
//   Bnxt   providerWord = Bnxt::makeProviderWord(path MTU, table format); retransmission table
//          after the SQ ring, seeded by Bnxt::initPsnTable(); qp_handle = QPN. See bnxt_wqe.hpp.
//   Ionic  providerWord = firmware RDMA version (1 or 2). See ionic_wqe.hpp.
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "mori/platform/device.hpp"
#include "mori/platform/mmio.hpp"
#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "mori/transport/rdma/providers/bnxt/bnxt_wqe.hpp"
#include "mori/transport/rdma/providers/ionic/ionic_wqe.hpp"
#include "mori/transport/rdma/providers/mlx5/mlx5_wqe.hpp"

namespace mori::rdma {

// Compile-time provider -> format struct.
template <Provider P>
struct ProviderFormat;
template <>
struct ProviderFormat<Provider::Mlx5> {
  using type = Mlx5;
};
template <>
struct ProviderFormat<Provider::Bnxt> {
  using type = Bnxt;
};
template <>
struct ProviderFormat<Provider::Ionic> {
  using type = Ionic;
};
template <Provider P>
using ProviderFormatT = typename ProviderFormat<P>::type;

MORI_HOST_DEVICE_INLINE constexpr bool isKnownProvider(Provider p) {
  return p == Provider::Mlx5 || p == Provider::Bnxt || p == Provider::Ionic;
}

// The one run-time switch: calls f(Mlx5{}), f(Bnxt{}) or f(Ionic{}) for the endpoint's provider
// and returns its result (every instantiation must return the same type). Inlined where the
// caller's `p` is a constant, it folds to the direct call.
// Unknown provider: on the device, prints and traps; on the host, returns a value-initialised
// result (the host checks isKnownProvider() when it builds endpoints, before anything posts).
template <typename F>
MORI_HOST_DEVICE_INLINE auto withProvider(Provider p, F&& f) -> decltype(f(Mlx5{})) {
  switch (p) {
    case Provider::Mlx5: return f(Mlx5{});
    case Provider::Bnxt: return f(Bnxt{});
    case Provider::Ionic: return f(Ionic{});
    default: break;
  }
#if MORI_DEVICE_COMPILE
  printf("mori-shmem: endpoint with unknown RDMA provider %u\n", static_cast<unsigned>(p));
  gpu::trap();
#else
  return decltype(f(Mlx5{}))();
#endif
}

// Slots known complete once an entry reporting `wqeIndex` is consumed, given `done` before it.
MORI_HOST_DEVICE_INLINE uint64_t completedThrough(const EndpointDevice& ep, uint64_t done, uint32_t wqeIndex) {
  return done + ((static_cast<uint64_t>(wqeIndex) + 1 - done) & (ep.sqDepth - 1));
}

}  // namespace mori::rdma
