// bnxt_re provider: WQE encoding, doorbells, retransmission-table upkeep and completion decoding
// for Broadcom RC QPs whose SQ and CQ live in GPU memory (the contract is in ../provider.hpp).
//
// Configuration this format assumes (the host creates the QP and CQ accordingly):
//   - Static WQE mode: fixed 128-byte WQEs (8 hardware slots), so one of our slots is one WQE
//     and doorbell / completion indices count WQEs. (Variable mode sizes each WQE exactly, which
//     a fixed power-of-two stride cannot express without padding SGEs.)
//   - SQ ring of sqDepth WQEs, immediately followed by the retransmission search table of sqDepth
//     entries (format and path MTU in providerWord, see bnxt_defs.hpp), seeded by initPsnTable().
//   - QP created with qp_handle = its QPN (the CQE reports qp_handle); CQ of 32-byte CQEs, depth
//     cqDepth; ep.sqDoorbell / ep.cqDoorbell point at the doorbell page's 64-bit register.
//   - No 4-byte atomics (the NIC has none): kHasAtomic32 = false.
#pragma once

#include <stdint.h>
#include <string.h>

#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "mori/transport/rdma/providers/bnxt/bnxt_defs.hpp"
#include "mori/transport/rdma/providers/format_common.hpp"

namespace mori::rdma {

struct Bnxt {
  static constexpr Provider kProvider = Provider::Bnxt;
  static constexpr uint32_t kSlotBytes = bnxt::kWqeBytes;
  static constexpr uint32_t kMaxInline = bnxt::kMaxInlineBytes;
  static constexpr uint32_t kMaxMessageBytes = 1u << 30;  // same limit on every provider
  static constexpr uint32_t kCqeBytes = bnxt::kCqeBytes;
  static constexpr bool kHasAtomic32 = false;
  // bnxt_re_req_cqe.con_indx has 16 valid bits (bnxt_re-abi.h), and the NIC counts it modulo
  // the SQ size (rdma-core and the kernel driver reduce it "% max_swr").
  static constexpr uint32_t kIndexBits = 16;
  // The doorbell index is the ring position: a full ring would read as empty.
  static constexpr uint32_t kSqHeadroom = 1;
  static constexpr bool kIndexedDoorbells = true;  // the registers carry the ring index

  // Writes the WQE for `d` into `slot`: the ws * 16 bytes the NIC reads. Any thread.
  static MORI_HOST_DEVICE_INLINE void encode(const EndpointDevice& ep, void* slot, uint32_t slotIndex,
                                             const WqeDesc& d) {
    (void)ep;
    (void)slotIndex;  // static mode: the ring position alone identifies the WQE
    alignas(16) unsigned char w[kSlotBytes] = {};
    uint32_t type = bnxt::kOpRdmaWrite;
    uint32_t flags = (d.signal ? bnxt::kFlagSignaled : 0u) | (d.fence ? bnxt::kFlagUcFence : 0u);
    uint32_t ws = 2;  // bsqe + rdma / atomic extension
    bnxt::Bsqe hdr{};
    switch (d.op) {
      case WqeOp::Write:
      case WqeOp::Read:
        if (d.bytes > kMaxMessageBytes)
          detail::contractViolation("bnxt", "message longer than kMaxMessageBytes", d.bytes);
        type = d.op == WqeOp::Write ? bnxt::kOpRdmaWrite : bnxt::kOpRdmaRead;
        hdr.lhdr = detail::toLe64(d.bytes);
        detail::putAt(w, 16, bnxt::Rdma{detail::toLe64(d.remoteAddr), detail::toLe32(d.rkey), 0});
        if (d.bytes != 0) {  // zero-byte ops carry no SGE (num_sge = 0 in rdma-core)
          detail::putAt(w, 32, bnxt::Sge{detail::toLe64(d.localAddr), detail::toLe32(d.lkey), detail::toLe32(d.bytes)});
          ws = 3;
        }
        break;
      case WqeOp::WriteInline:
        if (d.bytes > kMaxInline) detail::contractViolation("bnxt", "inline data longer than kMaxInline", d.bytes);
        flags |= bnxt::kFlagInline;
        hdr.lhdr = detail::toLe64(d.bytes);
        detail::putAt(w, 16, bnxt::Rdma{detail::toLe64(d.remoteAddr), detail::toLe32(d.rkey), 0});
        if (d.bytes != 0) memcpy(w + 32, d.inlineData, d.bytes);
        ws += (d.bytes + bnxt::kHwSlotBytes - 1) / bnxt::kHwSlotBytes;  // data padded to 16 bytes
        break;
      case WqeOp::AtomicFetchAdd:
      case WqeOp::AtomicCompareSwap: {
        if (d.atomicBytes != 8)
          detail::contractViolation("bnxt", "only 8-byte atomics (kHasAtomic32 = false)", d.atomicBytes);
        const bool fa = d.op == WqeOp::AtomicFetchAdd;
        type = fa ? bnxt::kOpAtomicFa : bnxt::kOpAtomicCs;
        hdr.keyImmd = detail::toLe32(d.rkey);
        hdr.lhdr = detail::toLe64(d.remoteAddr);
        detail::putAt(w, 16, bnxt::Atomic{detail::toLe64(d.operand), fa ? 0 : detail::toLe64(d.compare)});
        detail::putAt(w, 32, bnxt::Sge{detail::toLe64(d.localAddr), detail::toLe32(d.lkey), detail::toLe32(8)});
        ws = 3;
        break;
      }
      case WqeOp::Nop:
        // No NOP work request exists: a zero-length RDMA WRITE moves nothing and, as the IB spec
        // allows for a zero DMA length, its (zero) rkey is not checked by the responder.
        break;
      default: detail::contractViolation("bnxt", "unknown WqeOp", static_cast<unsigned>(d.op));
    }
    hdr.rsvWsFlWt = detail::toLe32(type | flags << bnxt::kHdrFlagsShift | ws << bnxt::kHdrWsShift);
    detail::putAt(w, 0, hdr);
    detail::copyChunks(slot, w, ws);
  }

  // Old value an atomic fetched, from its 8-byte result word as loaded: host order (8-byte
  // atomics only).
  static MORI_HOST_DEVICE_INLINE uint64_t fetchedValue(uint64_t raw, uint32_t atomicBytes) {
    (void)atomicBytes;
    return raw;
  }

  // ---- retransmission search table (written when WQEs are announced, before the doorbell)

  static MORI_HOST_DEVICE_INLINE bool psnSearchExt(uint32_t providerWord) {
    return (providerWord & bnxt::kWordPsnSearchExt) != 0;
  }
  static MORI_HOST_DEVICE_INLINE uint32_t psnEntryBytes(uint32_t providerWord) {
    return psnSearchExt(providerWord) ? sizeof(bnxt::PsnSearchExt) : bnxt::kMsnEntryBytes;
  }
  // providerWord for a path MTU of `pathMtuBytes` (256..4096) and the given table format.
  static constexpr uint32_t makeProviderWord(uint32_t pathMtuBytes, bool psnSearchExtFormat) {
    uint32_t shift = 0;
    while ((2u << shift) <= pathMtuBytes) ++shift;
    return shift | (psnSearchExtFormat ? bnxt::kWordPsnSearchExt : 0u);
  }
  static MORI_HOST_DEVICE_INLINE unsigned char* psnTable(const EndpointDevice& ep) {
    return ep.sq + static_cast<size_t>(ep.sqDepth) * kSlotBytes;
  }
  static size_t psnTableBytes(uint32_t sqDepth, uint32_t providerWord) {
    return static_cast<size_t>(sqDepth) * psnEntryBytes(providerWord);
  }

  // Packets (PSNs) the WQE in `wqe` uses: one per path-MTU of payload, at least one; an atomic
  // uses one (kernel qplib bnxt_qplib_post_send: pkt_num = ceil(len / mtu) or 1).
  static MORI_HOST_DEVICE_INLINE uint32_t packetsOf(const void* wqe, uint32_t mtuShift) {
    const uint32_t type = detail::getAt<uint32_t>(wqe, 0) & 0xff;
    if (type == bnxt::kOpAtomicFa || type == bnxt::kOpAtomicCs) return 1;
    const uint32_t len = detail::getAt<uint32_t>(wqe, 8);
    const uint32_t n = static_cast<uint32_t>((static_cast<uint64_t>(len) + (1u << mtuShift) - 1) >> mtuShift);
    return n ? n : 1;
  }

  static MORI_HOST_DEVICE_INLINE uint32_t nextPsnAt(const unsigned char* table, uint32_t entry, bool ext) {
    if (ext) return detail::getAt<uint32_t>(table, entry * sizeof(bnxt::PsnSearchExt) + 4) & bnxt::kPsnMask;
    return static_cast<uint32_t>(detail::getAt<uint64_t>(table, entry * bnxt::kMsnEntryBytes) >>
                                 bnxt::kMsnNextPsnShift) &
           bnxt::kPsnMask;
  }

  // Fills the table entries of WQEs [from, to), whose WQEs are written. The first one starts at
  // the PSN the entry of WQE from - 1 ends at (initPsnTable seeds the entry before WQE 0).
  // Calls for one endpoint must be serialised and in order (the doorbell order guarantees it).
  static MORI_HOST_DEVICE_INLINE void recordPsns(const EndpointDevice& ep, uint64_t from, uint64_t to) {
    const uint32_t mask = ep.sqDepth - 1;
    const bool ext = psnSearchExt(ep.providerWord);
    const uint32_t mtuShift = ep.providerWord & bnxt::kWordMtuShiftMask;
    unsigned char* table = psnTable(ep);
    uint32_t psn = nextPsnAt(table, static_cast<uint32_t>(from - 1) & mask, ext);
    for (uint64_t i = from; i < to; ++i) {
      const uint32_t pos = static_cast<uint32_t>(i) & mask;
      const unsigned char* wqe = ep.sq + static_cast<size_t>(pos) * kSlotBytes;
      const uint32_t next = (psn + packetsOf(wqe, mtuShift)) & bnxt::kPsnMask;
      // start index = the WQE's position in doorbell units, i.e. its WQE index in static mode
      // (verbs.c passes *sq->dbtail = jsqq->start_idx).
      // The PSN-search opcode is the WQE type, as the kernel driver writes it (qplib_fp.c
      // bnxt_qplib_fill_psn_search); rdma-core's bnxt_re_fill_psns passes the ibv opcode instead.
      if (ext) {
        const uint32_t type = detail::getAt<uint32_t>(wqe, 0) & 0xff;
        const bnxt::PsnSearchExt e{detail::toLe32(type << bnxt::kPsnsOpcodeShift | psn), detail::toLe32(next),
                                   detail::toLe16(static_cast<uint16_t>(pos)), 0, 0};
        detail::putAt(table, pos * sizeof(bnxt::PsnSearchExt), e);
      } else {
        const uint64_t e = static_cast<uint64_t>(pos & 0xffff) << bnxt::kMsnStartIdxShift |
                           static_cast<uint64_t>(next) << bnxt::kMsnNextPsnShift |
                           static_cast<uint64_t>(psn) << bnxt::kMsnStartPsnShift;
        detail::putAt(table, pos * bnxt::kMsnEntryBytes, detail::toLe64(e));
      }
      psn = next;
    }
  }

  // Bytes the search table holds before first use: zeros, and next PSN = the QP's initial send
  // PSN (attr.sq_psn at RTR->RTS) in the entry of WQE sqDepth - 1, the one before WQE 0.
  static void initPsnTable(void* tableHostImage, uint32_t sqDepth, uint32_t providerWord, uint32_t initialPsn) {
    unsigned char* t = static_cast<unsigned char*>(tableHostImage);
    memset(t, 0, psnTableBytes(sqDepth, providerWord));
    const uint32_t last = sqDepth - 1;
    if (psnSearchExt(providerWord))
      detail::putAt(t, last * sizeof(bnxt::PsnSearchExt) + 4, detail::toLe32(initialPsn & bnxt::kPsnMask));
    else
      detail::putAt(t, last * bnxt::kMsnEntryBytes,
                    detail::toLe64(static_cast<uint64_t>(initialPsn & bnxt::kPsnMask) << bnxt::kMsnNextPsnShift));
  }

  // ---- doorbells

  // 64-bit doorbell for queue `qid` of type `type` once `count` entries are produced (SQ) or
  // consumed (CQ) on a ring of `depth`: index = count mod depth, epoch = wrap parity.
  static MORI_HOST_DEVICE_INLINE uint64_t doorbellValue(uint32_t qid, uint32_t type, uint64_t count, uint32_t depth) {
    const uint32_t index = (static_cast<uint32_t>(count) & (depth - 1) & bnxt::kDbIndexMask) |
                           detail::oddPass(count, depth) << bnxt::kDbEpochShift;
    const uint32_t typeQid = (qid & bnxt::kDbQidMask) | 1u << bnxt::kDbValidShift | type << bnxt::kDbTypeShift;
    return static_cast<uint64_t>(typeQid) << 32 | index;
  }
  static MORI_HOST_DEVICE_INLINE uint64_t sqDoorbellValue(const EndpointDevice& ep, uint64_t postedSlots) {
    return doorbellValue(ep.qpn, bnxt::kDbTypeSq, postedSlots, ep.sqDepth);
  }
  static MORI_HOST_DEVICE_INLINE uint64_t cqDoorbellValue(const EndpointDevice& ep, uint64_t consumer) {
    return doorbellValue(ep.cqn, bnxt::kDbTypeCq, consumer, ep.cqDepth);
  }

#if MORI_GPU_COMPILER
  // Announces WQEs [0, postedSlots): fills their search-table entries, starting after the ones
  // already announced (EndpointState::posted, which the caller advances after this call), then
  // fences and writes the doorbell. One thread; calls for one endpoint serialised, in order.
  static MORI_DEVICE_INLINE void ringDoorbell(const EndpointDevice& ep, uint64_t postedSlots, const void* lastSlot) {
    (void)lastSlot;
    recordPsns(ep, gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::Agent>(&ep.state->posted), postedSlots);
    gpu::fenceSystem();  // table entries visible before the NIC hears of their WQEs
    gpu::mmioStore64(ep.sqDoorbell, sqDoorbellValue(ep, postedSlots));
  }

  // Gives entries [0, newConsumer) back to the NIC through the CQ doorbell.
  static MORI_DEVICE_INLINE void releaseCompletions(const EndpointDevice& ep, uint64_t newConsumer) {
    gpu::atomicFence<gpu::Order::Release, gpu::Scope::System>();  // our reads of the entries first
    gpu::mmioStore64(ep.cqDoorbell, cqDoorbellValue(ep, newConsumer));
  }
#endif

  // Decodes the entry at monotonic consumer index cqIndex. Valid when its phase bit equals the
  // expected phase: 1 in pass 0, flipping every wrap. A requester CQE's con_indx is the SQ index
  // after the last WQE it completes (rdma-core bnxt_re_poll_success_scqe walks up to it; the
  // kernel likewise, also for error CQEs in static mode). Any type but REQ, or a non-zero
  // status, is an error.
  static MORI_HOST_DEVICE_INLINE Completion readCompletion(const EndpointDevice& ep, uint64_t cqIndex) {
    const unsigned char* e = ep.cq + (cqIndex & (ep.cqDepth - 1)) * bnxt::kCqeBytes;
    const uint32_t flg = detail::loadOwnerWord(e + bnxt::kCqeFlagsOffset);
    Completion c{};
    if ((flg & bnxt::kCqePhaseMask) != (bnxt::kCqStartPhase ^ detail::oddPass(cqIndex, ep.cqDepth))) return c;
    c.valid = 1;
    c.opcode = static_cast<uint8_t>((flg >> bnxt::kCqeTypeShift) & bnxt::kCqeTypeMask);
    c.syndrome = static_cast<uint8_t>((flg >> bnxt::kCqeStatusShift) & bnxt::kCqeStatusMask);
    c.error = c.opcode != bnxt::kCqeTypeReq || c.syndrome != bnxt::kReqStatusOk;
    const uint32_t con = detail::getAt<uint16_t>(e, bnxt::kCqeConIndexOffset);
    c.wqeIndex = (con - 1) & (ep.sqDepth - 1);
    c.qpn = static_cast<uint32_t>(detail::getAt<uint64_t>(e, bnxt::kCqeQpHandleOffset));
    return c;
  }

  // Bytes the CQ holds before first use: zeros (phase 0, while pass 0 expects phase 1).
  static void initCompletionQueue(void* cqHostImage, uint32_t cqDepth) {
    memset(cqHostImage, 0, static_cast<size_t>(cqDepth) * bnxt::kCqeBytes);
  }
};

}  // namespace mori::rdma
