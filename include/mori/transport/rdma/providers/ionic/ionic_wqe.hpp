// ionic provider: WQE encoding, doorbells and completion decoding for AMD Pensando RC QPs whose
// SQ and CQ live in GPU memory (the contract is in ../provider.hpp).
//
// Configuration this format assumes (the host creates the QP and CQ accordingly):
//   - SQ stride 64 bytes (stride_log2 = 6), no SGL "spec" format, no controller-memory buffer and
//     no express doorbell (which would take the WQE's last 8 bytes).
//   - providerWord = the firmware RDMA version of the context (ionic_ctx.version: 1 or 2); it
//     selects the v1 or v2 opcodes and atomic body.
//   - CQ of 32-byte CQEs; ep.sqDoorbell = &dbpage[sq_qtype], ep.cqDoorbell = &dbpage[cq_qtype].
//   - Every WQE we post is a remote operation (a NOP is a zero-length RDMA WRITE), so message
//     sequence numbers and WQE indices advance together.
//   - No 4-byte atomics (rdma-core accepts only 8-byte atomic SGEs): kHasAtomic32 = false.
#pragma once

#include <stdint.h>
#include <string.h>

#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "mori/transport/rdma/providers/format_common.hpp"
#include "mori/transport/rdma/providers/ionic/ionic_defs.hpp"

namespace mori::rdma {

struct Ionic {
  static constexpr Provider kProvider = Provider::Ionic;
  static constexpr uint32_t kSlotBytes = ionic::kWqeBytes;
  static constexpr uint32_t kMaxInline = ionic::kMaxInlineBytes;
  static constexpr uint32_t kMaxMessageBytes = 1u << 30;  // same limit on every provider
  static constexpr uint32_t kCqeBytes = ionic::kCqeBytes;
  static constexpr bool kHasAtomic32 = false;
  // Send completions name WQEs by 24-bit MSN or 16-bit WQE index; the queue index is 16 bits
  // (ionic_queue.h prod/cons), so sqDepth <= 2^16.
  static constexpr uint32_t kIndexBits = 16;
  // ionic_queue_full(): a ring holds depth - 1 entries, prod == cons means empty.
  static constexpr uint32_t kSqHeadroom = 1;
  static constexpr bool kIndexedDoorbells = true;  // the registers carry the ring index

  // Writes the whole 64-byte WQE for `d` into `slot`. Any thread.
  static MORI_HOST_DEVICE_INLINE void encode(const EndpointDevice& ep, void* slot, uint32_t slotIndex,
                                             const WqeDesc& d) {
    alignas(16) unsigned char w[kSlotBytes] = {};
    if (ep.providerWord == 0) detail::contractViolation("ionic", "providerWord must be the firmware RDMA version", 0);
    const bool v1 = ep.providerWord < 2;
    ionic::BaseHdr hdr{};
    hdr.wqeIdx = detail::toLe64(slotIndex & (ep.sqDepth - 1));
    uint16_t flags = static_cast<uint16_t>((d.signal ? ionic::kFlagSignal : 0) | (d.fence ? ionic::kFlagFence : 0) |
                                           (detail::oddPass(slotIndex, ep.sqDepth) ? 0 : ionic::kFlagColor));
    const ionic::RdmaBody rdma{gpu::toBe32(static_cast<uint32_t>(d.remoteAddr >> 32)),
                               gpu::toBe32(static_cast<uint32_t>(d.remoteAddr)), gpu::toBe32(d.rkey),
                               gpu::toBe32(d.bytes)};
    switch (d.op) {
      case WqeOp::Write:
      case WqeOp::Read:
        if (d.bytes > kMaxMessageBytes)
          detail::contractViolation("ionic", "message longer than kMaxMessageBytes", d.bytes);
        if (d.op == WqeOp::Write)
          hdr.op = v1 ? ionic::kV1OpRdmaWrite : ionic::kV2OpRdmaWrite;
        else
          hdr.op = v1 ? ionic::kV1OpRdmaRead : ionic::kV2OpRdmaRead;
        detail::putAt(w, 16, rdma);
        if (d.bytes != 0) {  // zero-byte ops carry no SGE
          hdr.numSgeKey = 1;
          detail::putAt(w, 32, ionic::Sge{gpu::toBe64(d.localAddr), gpu::toBe32(d.bytes), gpu::toBe32(d.lkey)});
        }
        break;
      case WqeOp::WriteInline:
        if (d.bytes > kMaxInline) detail::contractViolation("ionic", "inline data longer than kMaxInline", d.bytes);
        hdr.op = v1 ? ionic::kV1OpRdmaWrite : ionic::kV2OpRdmaWrite;
        flags |= ionic::kFlagInline;
        detail::putAt(w, 16, rdma);
        if (d.bytes != 0) memcpy(w + ionic::kInlineOffset, d.inlineData, d.bytes);
        break;
      case WqeOp::AtomicFetchAdd:
      case WqeOp::AtomicCompareSwap: {
        if (d.atomicBytes != 8)
          detail::contractViolation("ionic", "only 8-byte atomics (kHasAtomic32 = false)", d.atomicBytes);
        const bool fa = d.op == WqeOp::AtomicFetchAdd;
        if (fa)
          hdr.op = v1 ? ionic::kV1OpAtomicFa : ionic::kV2OpAtomicFa;
        else
          hdr.op = v1 ? ionic::kV1OpAtomicCs : ionic::kV2OpAtomicCs;
        hdr.numSgeKey = 1;
        // Remote address, rkey, swap/add and compare sit at the same offsets in v1 and v2.
        const uint64_t cmp = fa ? 0 : d.compare;
        if (v1) {
          ionic::AtomicBodyV1 a{};
          a.remoteVaHigh = rdma.remoteVaHigh;
          a.remoteVaLow = rdma.remoteVaLow;
          a.remoteRkey = rdma.remoteRkey;
          a.swapAddHigh = gpu::toBe32(static_cast<uint32_t>(d.operand >> 32));
          a.swapAddLow = gpu::toBe32(static_cast<uint32_t>(d.operand));
          a.compareHigh = gpu::toBe32(static_cast<uint32_t>(cmp >> 32));
          a.compareLow = gpu::toBe32(static_cast<uint32_t>(cmp));
          a.sge = ionic::Sge{gpu::toBe64(d.localAddr), gpu::toBe32(8), gpu::toBe32(d.lkey)};
          detail::putAt(w, 16, a);
        } else {
          ionic::AtomicBodyV2 a{};
          a.remoteVaHigh = rdma.remoteVaHigh;
          a.remoteVaLow = rdma.remoteVaLow;
          a.remoteRkey = rdma.remoteRkey;
          a.swapAddHigh = gpu::toBe32(static_cast<uint32_t>(d.operand >> 32));
          a.swapAddLow = gpu::toBe32(static_cast<uint32_t>(d.operand));
          a.compareHigh = gpu::toBe32(static_cast<uint32_t>(cmp >> 32));
          a.compareLow = gpu::toBe32(static_cast<uint32_t>(cmp));
          a.lkey = gpu::toBe32(d.lkey);
          a.localVa = gpu::toBe64(d.localAddr);
          detail::putAt(w, 16, a);
        }
        break;
      }
      case WqeOp::Nop:
        // No NOP exists: a zero-length RDMA WRITE (no SGE, rkey 0, which a zero DMA length does
        // not check) keeps MSNs and WQE indices in step.
        hdr.op = v1 ? ionic::kV1OpRdmaWrite : ionic::kV2OpRdmaWrite;
        detail::putAt(w, 16, ionic::RdmaBody{});
        break;
      default: detail::contractViolation("ionic", "unknown WqeOp", static_cast<unsigned>(d.op));
    }
    hdr.flags = gpu::toBe16(flags);
    detail::putAt(w, 0, hdr);
    detail::copyChunks(slot, w, kSlotBytes / 16);
  }

  // Old value an atomic fetched, from its 8-byte result word as loaded: host order (8-byte
  // atomics only).
  static MORI_HOST_DEVICE_INLINE uint64_t fetchedValue(uint64_t raw, uint32_t atomicBytes) {
    (void)atomicBytes;
    return raw;
  }

  // Doorbell values: queue id << 24 | ring position (ionic_queue_dbell_val).
  static MORI_HOST_DEVICE_INLINE uint64_t doorbellValue(uint32_t qid, uint64_t count, uint32_t depth) {
    return (qid & ionic::kDbQidMask) << ionic::kDbQidShift | (count & (depth - 1));
  }
  static MORI_HOST_DEVICE_INLINE uint64_t sqDoorbellValue(const EndpointDevice& ep, uint64_t postedSlots) {
    return doorbellValue(ep.qpn, postedSlots, ep.sqDepth);
  }
  static MORI_HOST_DEVICE_INLINE uint64_t cqDoorbellValue(const EndpointDevice& ep, uint64_t consumer) {
    return doorbellValue(ep.cqn, consumer, ep.cqDepth);
  }

#if MORI_GPU_COMPILER
  // Announces WQEs [0, postedSlots). No doorbell record. One thread, calls serialised per endpoint.
  static MORI_DEVICE_INLINE void ringDoorbell(const EndpointDevice& ep, uint64_t postedSlots, const void* lastSlot) {
    (void)lastSlot;
    gpu::fenceSystem();
    gpu::mmioStore64(ep.sqDoorbell, sqDoorbellValue(ep, postedSlots));
  }

  // Gives entries [0, newConsumer) back to the NIC (ionic_reserve_sync_cq: CQ doorbell with the
  // consumer's ring position).
  static MORI_DEVICE_INLINE void releaseCompletions(const EndpointDevice& ep, uint64_t newConsumer) {
    gpu::atomicFence<gpu::Order::Release, gpu::Scope::System>();  // our reads of the entries first
    gpu::mmioStore64(ep.cqDoorbell, cqDoorbellValue(ep, newConsumer));
  }
#endif

  // Decodes the entry at monotonic consumer index cqIndex. Valid when its color bit equals the
  // expected color: 1 in pass 0, flipping every wrap (ionic_next_cqe; cq->color starts true).
  // SEND_MSN entries complete every remote WQE up to MSN - 1 (ionic_comp_msn); SEND_NPG entries
  // name a WQE index (ionic_comp_npg). The ERROR flag puts an ionic_status in status_length.
  static MORI_HOST_DEVICE_INLINE Completion readCompletion(const EndpointDevice& ep, uint64_t cqIndex) {
    const unsigned char* e = ep.cq + (cqIndex & (ep.cqDepth - 1)) * ionic::kCqeBytes;
    const uint32_t qtf = gpu::fromBe32(detail::loadOwnerWord(e + ionic::kCqeQtfOffset));
    Completion c{};
    if ((qtf & ionic::kCqeColor) != (1u ^ detail::oddPass(cqIndex, ep.cqDepth))) return c;
    c.valid = 1;
    c.opcode = static_cast<uint8_t>((qtf >> ionic::kCqeTypeShift) & ionic::kCqeTypeMask);
    c.qpn = qtf >> ionic::kCqeQidShift;
    if (c.opcode == ionic::kCqeTypeSendNpg)
      c.wqeIndex = static_cast<uint32_t>(detail::getAt<uint64_t>(e, ionic::kCqeNpgWqeIdxOffset)) & (ep.sqDepth - 1);
    else
      c.wqeIndex = (gpu::fromBe32(detail::getAt<uint32_t>(e, ionic::kCqeMsnOffset)) - 1) & (ep.sqDepth - 1);
    if (qtf & ionic::kCqeError) {
      c.error = 1;
      c.syndrome = static_cast<uint8_t>(gpu::fromBe32(detail::getAt<uint32_t>(e, ionic::kCqeStatusLengthOffset)));
    } else if (c.opcode != ionic::kCqeTypeSendMsn && c.opcode != ionic::kCqeTypeSendNpg) {
      c.error = 1;  // a receive-side entry on a send CQ
    }
    return c;
  }

  // Bytes the CQ holds before first use: zeros (color 0, while pass 0 expects 1).
  static void initCompletionQueue(void* cqHostImage, uint32_t cqDepth) {
    memset(cqHostImage, 0, static_cast<size_t>(cqDepth) * ionic::kCqeBytes);
  }
};

}  // namespace mori::rdma
