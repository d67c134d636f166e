// mlx5 provider: WQE encoding, doorbells and completion decoding for ConnectX RC QPs whose send
// queue, CQ and doorbell records live in GPU memory (the contract is in ../provider.hpp).
//
// Configuration this format assumes (the host creates the QP and CQ accordingly):
//   - SQ stride = one 64-byte basic block; every WQE we post fits one (ds <= 4).
//   - CQ of 64-byte CQEs, CQE compression off.
//   - 4-byte atomics use the extended (masked) atomics: the QP must allow them (atomic mode with
//     extended atomics enabled, as NVSHMEM's IBGDA sets up).
//   - ep.sqDbrec points at word MLX5_SND_DBR of the QP's doorbell record, ep.cqDbrec at word 0
//     (consumer index) of the CQ's record, ep.sqDoorbell at the UAR/BlueFlame doorbell register.
#pragma once

#include <stdint.h>
#include <string.h>

#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "mori/transport/rdma/providers/format_common.hpp"
#include "mori/transport/rdma/providers/mlx5/mlx5_defs.hpp"

namespace mori::rdma {

struct Mlx5 {
  static constexpr Provider kProvider = Provider::Mlx5;
  static constexpr uint32_t kSlotBytes = mlx5::kSendWqeBB;
  // ctrl (16) + raddr (16) + inline byte count (4) leave 28 data bytes in one basic block.
  static constexpr uint32_t kMaxInline = kSlotBytes - 2 * mlx5::kDsBytes - mlx5::kInlineHeaderBytes;
  // A data segment's byte_count is 31 bits (bit 31 marks inline data); 1 GiB keeps every
  // provider's limit the same and well inside it.
  static constexpr uint32_t kMaxMessageBytes = 1u << 30;
  static constexpr uint32_t kCqeBytes = mlx5::kCqeBytes;
  static constexpr bool kHasAtomic32 = true;
  // CQE wqe_counter is 16 bits; it counts basic blocks, and one WQE is one basic block.
  static constexpr uint32_t kIndexBits = 16;
  // Slots to leave unused (same on every provider): with at most sqDepth - 1 WQEs outstanding,
  // a ring position names a unique outstanding WQE.
  static constexpr uint32_t kSqHeadroom = 1;
  static constexpr bool kIndexedDoorbells = false;  // the NIC reads the doorbell records

  // Writes the WQE for `d` into `slot` (SQ position slotIndex & (sqDepth - 1)): the ds * 16 bytes
  // the NIC reads. Any thread; slots are private to their writer until the doorbell.
  static MORI_HOST_DEVICE_INLINE void encode(const EndpointDevice& ep, void* slot, uint32_t slotIndex,
                                             const WqeDesc& d) {
    alignas(16) unsigned char w[kSlotBytes] = {};
    uint8_t opcode = mlx5::kOpNop;
    uint8_t opmod = 0;
    uint32_t ds = 2;  // ctrl + raddr for every RDMA op
    const mlx5::RaddrSeg raddr{gpu::toBe64(d.remoteAddr), gpu::toBe32(d.rkey), 0};
    switch (d.op) {
      case WqeOp::Write:
      case WqeOp::Read:
        if (d.bytes > kMaxMessageBytes)
          detail::contractViolation("mlx5", "message longer than kMaxMessageBytes", d.bytes);
        opcode = d.op == WqeOp::Write ? mlx5::kOpRdmaWrite : mlx5::kOpRdmaRead;
        detail::putAt(w, 16, raddr);
        // A zero-length data segment would mean 2 GiB to the NIC: zero-byte ops carry none
        // (rdma-core's mlx5 post_send skips zero-length SGEs the same way).
        if (d.bytes != 0) {
          detail::putAt(w, 32, mlx5::DataSeg{gpu::toBe32(d.bytes), gpu::toBe32(d.lkey), gpu::toBe64(d.localAddr)});
          ds = 3;
        }
        break;
      case WqeOp::WriteInline:
        if (d.bytes > kMaxInline) detail::contractViolation("mlx5", "inline data longer than kMaxInline", d.bytes);
        opcode = mlx5::kOpRdmaWrite;
        detail::putAt(w, 16, raddr);
        if (d.bytes != 0) {
          detail::putAt(w, 32, gpu::toBe32(d.bytes | mlx5::kInlineSeg));
          memcpy(w + 32 + mlx5::kInlineHeaderBytes, d.inlineData, d.bytes);
          ds += (mlx5::kInlineHeaderBytes + d.bytes + mlx5::kDsBytes - 1) / mlx5::kDsBytes;
        }
        break;
      case WqeOp::AtomicFetchAdd:
      case WqeOp::AtomicCompareSwap: {
        const bool fa = d.op == WqeOp::AtomicFetchAdd;
        detail::putAt(w, 16, raddr);
        if (d.atomicBytes == 8) {
          opcode = fa ? mlx5::kOpAtomicFa : mlx5::kOpAtomicCs;
          detail::putAt(w, 32, mlx5::AtomicSeg{gpu::toBe64(d.operand), fa ? 0 : gpu::toBe64(d.compare)});
        } else if (d.atomicBytes == 4) {
          opmod = mlx5::kOpModExtAtomic4;
          const uint32_t op32 = gpu::toBe32(static_cast<uint32_t>(d.operand));
          if (fa) {
            opcode = mlx5::kOpAtomicMaskedFa;
            detail::putAt(w, 32, mlx5::MaskedFa32Seg{op32, 0, 0});
          } else {
            opcode = mlx5::kOpAtomicMaskedCs;
            detail::putAt(
                w, 32,
                mlx5::MaskedCs32Seg{op32, gpu::toBe32(static_cast<uint32_t>(d.compare)), 0xffffffffu, 0xffffffffu});
          }
        } else {
          detail::contractViolation("mlx5", "atomicBytes must be 4 or 8", d.atomicBytes);
        }
        // The old value lands in (localAddr, lkey).
        detail::putAt(w, 48, mlx5::DataSeg{gpu::toBe32(d.atomicBytes), gpu::toBe32(d.lkey), gpu::toBe64(d.localAddr)});
        ds = 4;
        break;
      }
      case WqeOp::Nop: ds = 1; break;
      default: detail::contractViolation("mlx5", "unknown WqeOp", static_cast<unsigned>(d.op));
    }
    mlx5::CtrlSeg ctrl{};
    ctrl.opmodIdxOpcode =
        gpu::toBe32(static_cast<uint32_t>(opmod) << 24 | (slotIndex & mlx5::kSqCounterMask) << 8 | opcode);
    ctrl.qpnDs = gpu::toBe32(ep.qpn << 8 | ds);
    ctrl.fmCeSe = static_cast<uint8_t>((d.signal ? mlx5::kCtrlCqUpdate : 0) | (d.fence ? mlx5::kCtrlFence : 0));
    detail::putAt(w, 0, ctrl);
    detail::copyChunks(slot, w, ds);
  }

  // Old value an atomic fetched, from its 8-byte result word as loaded (little-endian). The
  // 4-byte extended atomics return it big-endian in the word's first 4 bytes (NVSHMEM
  // ibgda_device.cuh byte-swaps 4-byte fetch results); 8-byte atomics return it in host order.
  static MORI_HOST_DEVICE_INLINE uint64_t fetchedValue(uint64_t raw, uint32_t atomicBytes) {
    return atomicBytes == 4 ? gpu::fromBe32(static_cast<uint32_t>(raw)) : raw;
  }

  // Value of the send doorbell record once `postedSlots` WQEs are posted.
  static MORI_HOST_DEVICE_INLINE uint32_t sqDbrecValue(uint64_t postedSlots) {
    return gpu::toBe32(static_cast<uint32_t>(postedSlots) & mlx5::kSqCounterMask);
  }
  // Value of the CQ doorbell record once `consumer` entries are consumed.
  static MORI_HOST_DEVICE_INLINE uint32_t cqDbrecValue(uint64_t consumer) {
    return gpu::toBe32(static_cast<uint32_t>(consumer) & mlx5::kCqConsumerMask);
  }

#if MORI_GPU_COMPILER
  // Announces WQEs [0, postedSlots): record first, then the first 8 bytes of the last WQE's ctrl
  // segment to the doorbell register (the NIC takes the producer from the record and checks the
  // register write against it). One thread, calls for one endpoint serialised; the caller made
  // the WQEs visible (fenceSystem) before.
  static MORI_DEVICE_INLINE void ringDoorbell(const EndpointDevice& ep, uint64_t postedSlots, const void* lastSlot) {
    gpu::atomicStore<gpu::Order::Relaxed, gpu::Scope::System>(ep.sqDbrec, sqDbrecValue(postedSlots));
    gpu::fenceSystem();  // record visible before the register write
    gpu::mmioStore64(ep.sqDoorbell, detail::getAt<uint64_t>(lastSlot, 0));
  }

  // Gives entries [0, newConsumer) back to the NIC. The release orders this poller's reads of
  // those entries before the NIC may overwrite them.
  static MORI_DEVICE_INLINE void releaseCompletions(const EndpointDevice& ep, uint64_t newConsumer) {
    gpu::atomicStore<gpu::Order::Release, gpu::Scope::System>(ep.cqDbrec, cqDbrecValue(newConsumer));
  }
#endif

  // Decodes the entry at monotonic consumer index cqIndex. Software owns it when its owner bit
  // equals the pass parity (cqIndex / cqDepth) & 1 and its opcode is not INVALID (rdma-core
  // providers/mlx5/cq.c get_sw_cqe). Requester errors (REQ_ERR / RESP_ERR) carry a syndrome.
  static MORI_HOST_DEVICE_INLINE Completion readCompletion(const EndpointDevice& ep, uint64_t cqIndex) {
    const unsigned char* e = ep.cq + (cqIndex & (ep.cqDepth - 1)) * mlx5::kCqeBytes;
    const uint32_t tail = detail::loadOwnerWord(e + mlx5::kCqeOwnerWordOffset);  // bytes 60..63
    const uint8_t opOwn = static_cast<uint8_t>(tail >> 24);
    const uint8_t opcode = opOwn >> 4;
    Completion c{};
    c.opcode = opcode;
    if (opcode == mlx5::kCqeInvalid || (opOwn & mlx5::kCqeOwnerMask) != detail::oddPass(cqIndex, ep.cqDepth)) return c;
    c.valid = 1;
    c.wqeIndex = gpu::fromBe16(static_cast<uint16_t>(tail)) & (ep.sqDepth - 1);
    c.qpn = gpu::fromBe32(detail::getAt<uint32_t>(e, mlx5::kCqeQpnOffset)) & 0xffffff;
    if (opcode != mlx5::kCqeReq) {
      c.error = 1;
      if (opcode == mlx5::kCqeReqErr || opcode == mlx5::kCqeRespErr) {
        c.syndrome = e[mlx5::kCqeSyndromeOffset];
        c.vendorSyndrome = e[mlx5::kCqeVendorErrSyndOffset];
      }
    }
    return c;
  }

  // Bytes the CQ holds before first use: every op_own = INVALID << 4 | owner 1, so no entry
  // reads as valid in pass 0 (owner 0 expected) nor before the NIC wrote it in pass 1.
  static void initCompletionQueue(void* cqHostImage, uint32_t cqDepth) {
    unsigned char* p = static_cast<unsigned char*>(cqHostImage);
    memset(p, 0, static_cast<size_t>(cqDepth) * mlx5::kCqeBytes);
    for (uint32_t i = 0; i < cqDepth; ++i)
      p[i * mlx5::kCqeBytes + mlx5::kCqeOpOwnOffset] = static_cast<unsigned char>(mlx5::kCqeInvalid << 4 | 1);
  }
};

}  // namespace mori::rdma
