// The NIC's view of ionic (AMD Pensando) formats, for the NIC model: parse a send WQE, decode
// doorbells, write a completion entry. Offsets from rdma-core providers/ionic/ionic_fw_types.h
// (struct ionic_v1_wqe / ionic_v1_base_hdr / ionic_v1_common_bdy / ionic_v1_atomic_bdy /
// ionic_v2_atomic_bdy / ionic_sge / ionic_v1_cqe, enum ionic_v1_op / ionic_v2_op /
// ionic_v1_cqe_qtf_bits) and ionic_queue.h, commit 691953d8d502 (v64.0-61).
// Big-endian fields except base.wqe_idx and the CQE's npg_wqe_idx_timestamp.
#pragma once

#include <stdint.h>

#include "tests/support/nic_model_formats/nic_wqe.hpp"

namespace mori::test::nic::ionic {

constexpr uint32_t kWqeStride = 64;
constexpr uint32_t kCqeBytes = 32;
// base.flags (BE16) bits
constexpr uint32_t kFence = 1u << 0, kSolicited = 1u << 1, kInline = 1u << 2, kSignal = 1u << 3, kColor = 1u << 4;

// Parses the WQE in `slot` for a context of firmware RDMA `version` (1: v1 opcodes and atomic
// body with an SGE; 2: v2 opcodes and atomic body with lkey + local_va).
MORI_HOST_DEVICE_INLINE bool parseWqe(const void* slot, uint32_t version, ParsedWqe* out) {
  clearParsed(out);
  out->wireBytes = kWqeStride;
  out->wqeIndex = static_cast<uint32_t>(bytes::le(slot, 0, 8));
  const uint32_t op = bytes::u8(slot, 8), nsge = bytes::u8(slot, 9);
  const uint32_t flags = static_cast<uint32_t>(bytes::be(slot, 10, 2));
  out->signal = (flags & kSignal) != 0;
  out->fence = (flags & kFence) != 0;
  out->color = (flags & kColor) ? 1 : 0;
  const bool v1 = version < 2;
  const uint32_t opWrite = v1 ? 4 : 0x21, opRead = v1 ? 3 : 0x02, opCs = v1 ? 6 : 0x04, opFa = v1 ? 7 : 0x05;
  // remote_va_high, remote_va_low, remote_rkey at 16, 20, 24 for RDMA and atomic bodies alike
  out->remoteAddr = bytes::be(slot, 16, 4) << 32 | bytes::be(slot, 20, 4);
  out->rkey = static_cast<uint32_t>(bytes::be(slot, 24, 4));
  if (op == opWrite || op == opRead) {
    out->bytes = static_cast<uint32_t>(bytes::be(slot, 28, 4));  // common.length
    if (flags & kInline) {
      if (op != opWrite || nsge != 0 || out->bytes > 32) return false;
      out->op = WqeOp::WriteInline;
      bytes::copy(out->inlineData, static_cast<const uint8_t*>(slot) + 32, out->bytes);
      return true;
    }
    out->op = op == opWrite ? WqeOp::Write : WqeOp::Read;
    if (nsge == 0) {
      if (out->bytes != 0) return false;
      if (op == opWrite && out->rkey == 0 && out->remoteAddr == 0) out->op = WqeOp::Nop;
      return true;
    }
    if (nsge != 1) return false;
    out->localAddr = bytes::be(slot, 32, 8);  // pld.sgl[0].va
    out->lkey = static_cast<uint32_t>(bytes::be(slot, 44, 4));
    return bytes::be(slot, 40, 4) == out->bytes;
  }
  if (op == opFa || op == opCs) {
    out->op = op == opFa ? WqeOp::AtomicFetchAdd : WqeOp::AtomicCompareSwap;
    out->atomicBytes = 8;
    out->operand = bytes::be(slot, 28, 4) << 32 | bytes::be(slot, 32, 4);  // swap_add_high/low
    out->compare = bytes::be(slot, 36, 4) << 32 | bytes::be(slot, 40, 4);  // compare_high/low
    if (v1) {                                                              // sge at 48: va, len, lkey
      out->localAddr = bytes::be(slot, 48, 8);
      out->lkey = static_cast<uint32_t>(bytes::be(slot, 60, 4));
      if (bytes::be(slot, 56, 4) != 8) return false;
    } else {  // lkey at 44, local_va at 48
      out->lkey = static_cast<uint32_t>(bytes::be(slot, 44, 4));
      out->localAddr = bytes::be(slot, 48, 8);
    }
    return nsge == 1;
  }
  return false;
}

// Stores the old value an 8-byte atomic fetched at the WQE's local address (host order).
MORI_HOST_DEVICE_INLINE void writeAtomicResult(void* dst, uint64_t oldValue) { bytes::putLe(dst, 0, oldValue, 8); }

// Doorbell value: qid << 24 | ring index (16 bits; bit 16 = arm, bit 17 = solicited-only arm).
struct Doorbell {
  uint32_t qid;
  uint32_t index;
  uint32_t armBits;
};
MORI_HOST_DEVICE_INLINE Doorbell decodeDoorbell(uint64_t v) {
  return Doorbell{static_cast<uint32_t>(v >> 24) & 0xffffff, static_cast<uint32_t>(v) & 0xffff,
                  static_cast<uint32_t>(v >> 16) & 3};
}

// Writes completion entry number cqIndex of a CQ of cqDepth 32-byte entries as a SEND_MSN
// completion: msg_msn = number of messages completed (last WQE + 1), status_length = status on
// error, qid_type_flags = qid << 8 | type 2 << 5 | error << 1 | color (1 in pass 0).
MORI_HOST_DEVICE_INLINE void writeCompletion(void* cq, uint32_t cqDepth, uint64_t cqIndex, const CompletionSpec& s) {
  uint8_t* e = static_cast<uint8_t*>(cq) + (cqIndex & (cqDepth - 1)) * kCqeBytes;
  bytes::zero(e, 28);
  bytes::putBe(e, 4, (s.lastWqe + 1) & 0xffffff, 4);
  if (s.error) bytes::putBe(e, 24, s.status, 4);
  const uint32_t color = (cqIndex & cqDepth) ? 0u : 1u;
  const uint32_t qtf = (s.qpn & 0xffffff) << 8 | 2u << 5 | (s.error ? 1u : 0u) << 1 | color;
  uint8_t w[4];
  bytes::putBe(w, 0, qtf, 4);
  bytes::publishWord(e, 28, static_cast<uint32_t>(bytes::le(w, 0, 4)));
}

}  // namespace mori::test::nic::ionic
