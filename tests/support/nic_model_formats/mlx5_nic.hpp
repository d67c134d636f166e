// The NIC's view of mlx5 (ConnectX) formats, for the NIC model: parse a send WQE, read the
// doorbell record and register, write a completion entry. Offsets from rdma-core's
// <infiniband/mlx5dv.h> (v44: struct mlx5_wqe_ctrl_seg, mlx5_wqe_raddr_seg, mlx5_wqe_data_seg,
// mlx5_wqe_atomic_seg, mlx5_wqe_inl_data_seg, mlx5_cqe64, mlx5_err_cqe, MLX5_OPCODE_*,
// MLX5_CQE_*, MLX5_WQE_CTRL_*, MLX5_INLINE_SEG) and the ConnectX PRM's masked-atomic segments.
// Byte-offset parsing only, so the same code runs on the device.
#pragma once

#include <stdint.h>

#include "tests/support/nic_model_formats/nic_wqe.hpp"

namespace mori::test::nic::mlx5 {

// ctrl segment (16 B): [0..3] opmod(8) | wqe_index(16) | opcode(8), BE; [4..7] qpn(24) | ds(6);
// [8] signature; [9..10] dci stream; [11] fm_ce_se; [12..15] imm.
constexpr uint32_t kOpNop = 0x00, kOpWrite = 0x08, kOpRead = 0x10, kOpCs = 0x11, kOpFa = 0x12, kOpMaskedCs = 0x14,
                   kOpMaskedFa = 0x15;
constexpr uint32_t kCeCqUpdate = 0x08;  // fm_ce_se bits 3:2 = 2
constexpr uint32_t kFmMask = 0xe0;      // fm_ce_se bits 7:5, fence mode
constexpr uint32_t kInlineFlag = 0x80000000u;
constexpr uint32_t kCqeBytes = 64;

// Parses the WQE in `slot`. Returns false (with out->op unchanged meaning) when the bytes are not
// a WQE our model executes.
MORI_HOST_DEVICE_INLINE bool parseWqe(const void* slot, ParsedWqe* out) {
  clearParsed(out);
  const uint32_t opcode = bytes::u8(slot, 3);
  const uint32_t opmod = bytes::u8(slot, 0);
  const uint32_t ds = bytes::u8(slot, 7) & 0x3f;
  out->wqeIndex = static_cast<uint32_t>(bytes::be(slot, 1, 2));
  out->qpn = static_cast<uint32_t>(bytes::be(slot, 4, 3));
  out->signal = (bytes::u8(slot, 11) & 0x0c) == kCeCqUpdate;
  out->fence = (bytes::u8(slot, 11) & kFmMask) != 0;
  out->wireBytes = ds * 16;
  if (ds == 0 || ds > 4) return false;
  if (opcode == kOpNop) {
    out->op = WqeOp::Nop;
    return ds == 1;
  }
  if (ds < 2) return false;
  // raddr segment at 16: raddr BE64, rkey BE32
  out->remoteAddr = bytes::be(slot, 16, 8);
  out->rkey = static_cast<uint32_t>(bytes::be(slot, 24, 4));
  if (opcode == kOpWrite || opcode == kOpRead) {
    if (ds == 2) {  // zero-length
      out->op = opcode == kOpWrite ? WqeOp::Write : WqeOp::Read;
      return true;
    }
    const uint32_t bc = static_cast<uint32_t>(bytes::be(slot, 32, 4));
    if (bc & kInlineFlag) {
      if (opcode != kOpWrite) return false;
      out->op = WqeOp::WriteInline;
      out->bytes = bc & ~kInlineFlag;
      if (4 + out->bytes > 32 || (32 + 4 + out->bytes + 15) / 16 != ds) return false;
      bytes::copy(out->inlineData, static_cast<const uint8_t*>(slot) + 36, out->bytes);
      return true;
    }
    if (ds != 3 || bc == 0) return false;
    out->op = opcode == kOpWrite ? WqeOp::Write : WqeOp::Read;
    out->bytes = bc;
    out->lkey = static_cast<uint32_t>(bytes::be(slot, 36, 4));
    out->localAddr = bytes::be(slot, 40, 8);
    return true;
  }
  if (ds != 4) return false;
  // atomic argument segment at 32, data segment (result) at 48
  const uint32_t resultBytes = static_cast<uint32_t>(bytes::be(slot, 48, 4));
  out->lkey = static_cast<uint32_t>(bytes::be(slot, 52, 4));
  out->localAddr = bytes::be(slot, 56, 8);
  if (opcode == kOpFa || opcode == kOpCs) {
    if (opmod != 0) return false;
    out->op = opcode == kOpFa ? WqeOp::AtomicFetchAdd : WqeOp::AtomicCompareSwap;
    out->atomicBytes = 8;
    out->operand = bytes::be(slot, 32, 8);  // swap_add
    out->compare = opcode == kOpCs ? bytes::be(slot, 40, 8) : 0;
  } else if (opcode == kOpMaskedFa || opcode == kOpMaskedCs) {
    if (opmod != 0x08) return false;  // extended atomic, 4-byte operands only
    out->atomicBytes = 4;
    if (opcode == kOpMaskedFa) {
      // add_data, field_boundary (must be 0: one 32-bit field)
      out->op = WqeOp::AtomicFetchAdd;
      out->operand = bytes::be(slot, 32, 4);
      if (bytes::be(slot, 36, 4) != 0) return false;
    } else {
      // swap_data, compare_data, swap_mask, compare_mask (masks all ones for a plain CAS)
      out->op = WqeOp::AtomicCompareSwap;
      out->operand = bytes::be(slot, 32, 4);
      out->compare = bytes::be(slot, 36, 4);
      if (bytes::be(slot, 40, 4) != 0xffffffffu || bytes::be(slot, 44, 4) != 0xffffffffu) return false;
    }
  } else {
    return false;
  }
  return resultBytes == out->atomicBytes;
}

// Stores the old value an atomic fetched at the WQE's local address, as the NIC does: the
// 4-byte extended atomics big-endian (NVSHMEM ibgda_device.cuh swaps 4-byte results back),
// 8-byte atomics in host (little-endian) order.
MORI_HOST_DEVICE_INLINE void writeAtomicResult(void* dst, uint64_t oldValue, uint32_t atomicBytes) {
  if (atomicBytes == 4)
    bytes::putBe(dst, 0, oldValue & 0xffffffffu, 4);
  else
    bytes::putLe(dst, 0, oldValue, 8);
}

// Producer count announced by the send doorbell record word (BE, low 16 bits).
MORI_HOST_DEVICE_INLINE uint32_t sqProducer(const void* dbrecWord) {
  return static_cast<uint32_t>(bytes::be(dbrecWord, 0, 4)) & 0xffff;
}
// Consumer index from the CQ doorbell record word (BE, low 24 bits).
MORI_HOST_DEVICE_INLINE uint32_t cqConsumer(const void* dbrecWord) {
  return static_cast<uint32_t>(bytes::be(dbrecWord, 0, 4)) & 0xffffff;
}
// WQE index and QPN in the 8 bytes written to the doorbell register (the ctrl segment's first 8).
MORI_HOST_DEVICE_INLINE uint32_t doorbellWqeIndex(uint64_t regValue) {
  uint8_t b[8];
  bytes::putLe(b, 0, regValue, 8);  // the register receives the bytes in memory order
  return static_cast<uint32_t>(bytes::be(b, 1, 2));
}
MORI_HOST_DEVICE_INLINE uint32_t doorbellQpn(uint64_t regValue) {
  uint8_t b[8];
  bytes::putLe(b, 0, regValue, 8);
  return static_cast<uint32_t>(bytes::be(b, 4, 3));
}

// Writes completion entry number cqIndex (monotonic) of a CQ of cqDepth entries at `cq`:
// owner bit = pass parity, opcode REQ (0) or REQ_ERR (0xd) in op_own bits 7:4.
MORI_HOST_DEVICE_INLINE void writeCompletion(void* cq, uint32_t cqDepth, uint64_t cqIndex, const CompletionSpec& s) {
  uint8_t* e = static_cast<uint8_t*>(cq) + (cqIndex & (cqDepth - 1)) * kCqeBytes;
  bytes::zero(e, 60);
  if (s.error) {
    e[54] = s.vendorStatus;  // mlx5_err_cqe.vendor_err_synd
    e[55] = s.status;        // mlx5_err_cqe.syndrome
    bytes::putBe(e, 56, static_cast<uint64_t>(s.wqeOpcode) << 24 | (s.qpn & 0xffffff), 4);  // s_wqe_opcode_qpn
  } else {
    bytes::putBe(e, 56, s.qpn & 0xffffff, 4);  // sop_drop_qpn
  }
  // Last word: wqe_counter (BE16), signature, op_own.
  uint8_t tail[4];
  bytes::putBe(tail, 0, s.lastWqe & 0xffff, 2);
  tail[2] = 0;
  tail[3] = static_cast<uint8_t>((s.error ? 0xd : 0x0) << 4 | ((cqIndex & cqDepth) ? 1 : 0));
  bytes::publishWord(e, 60, static_cast<uint32_t>(bytes::le(tail, 0, 4)));
}

}  // namespace mori::test::nic::mlx5
