// The NIC's view of bnxt_re (Broadcom) formats, static WQE mode, for the NIC model: parse a
// send WQE, decode doorbells, read the retransmission search table, write a completion entry.
// Offsets from rdma-core providers/bnxt_re/bnxt_re-abi.h (struct bnxt_re_bsqe, bnxt_re_rdma,
// bnxt_re_atomic, bnxt_re_sge, bnxt_re_db_hdr, bnxt_re_req_cqe, bnxt_re_bcqe, bnxt_re_msns,
// bnxt_re_psns_ext and their masks/shifts) and db.c / verbs.c, commit 691953d8d502 (v64.0-61).
// Little-endian fields.
#pragma once

#include <stdint.h>

#include "tests/support/nic_model_formats/nic_wqe.hpp"

namespace mori::test::nic::bnxt {

constexpr uint32_t kWqeStride = 128;  // STATIC_WQE_NUM_SLOTS (8) x 16-byte slots
constexpr uint32_t kCqeBytes = 32;
// wqe types (enum bnxt_re_wr_opcode) and header flags (enum bnxt_re_wr_flags)
constexpr uint32_t kTypeWrite = 0x04, kTypeRead = 0x06, kTypeCs = 0x08, kTypeFa = 0x0b;
constexpr uint32_t kFlagSignaled = 0x01, kFlagRdFence = 0x02, kFlagUcFence = 0x04, kFlagInline = 0x10;

// Parses the WQE in `slot` (rsv_ws_fl_wt = type 7:0 | flags 15:8 | wqe size in 16 B 23:16).
MORI_HOST_DEVICE_INLINE bool parseWqe(const void* slot, ParsedWqe* out) {
  clearParsed(out);
  const uint32_t hdr = static_cast<uint32_t>(bytes::le(slot, 0, 4));
  const uint32_t type = hdr & 0xff, flags = (hdr >> 8) & 0xff, ws = (hdr >> 16) & 0xff;
  out->signal = (flags & kFlagSignaled) != 0;
  out->fence = (flags & (kFlagUcFence | kFlagRdFence)) != 0;
  out->wireBytes = ws * 16;
  if (ws < 2 || ws > 8) return false;
  if (type == kTypeWrite || type == kTypeRead) {
    const uint64_t len = bytes::le(slot, 8, 8);  // lhdr.qkey_len
    out->remoteAddr = bytes::le(slot, 16, 8);    // bnxt_re_rdma.rva
    out->rkey = static_cast<uint32_t>(bytes::le(slot, 24, 4));
    if (len > 0xffffffffull) return false;
    out->bytes = static_cast<uint32_t>(len);
    if (flags & kFlagInline) {
      if (type != kTypeWrite || out->bytes > 96 || ws != 2 + (out->bytes + 15) / 16) return false;
      out->op = WqeOp::WriteInline;
      bytes::copy(out->inlineData, static_cast<const uint8_t*>(slot) + 32, out->bytes);
      return true;
    }
    out->op = type == kTypeWrite ? WqeOp::Write : WqeOp::Read;
    if (ws == 2) {  // no SGE
      if (out->bytes != 0) return false;
      if (type == kTypeWrite && out->rkey == 0 && out->remoteAddr == 0) out->op = WqeOp::Nop;
      return true;
    }
    if (ws != 3) return false;
    out->localAddr = bytes::le(slot, 32, 8);  // bnxt_re_sge.pa
    out->lkey = static_cast<uint32_t>(bytes::le(slot, 40, 4));
    return bytes::le(slot, 44, 4) == out->bytes;  // sge.length matches the header
  }
  if (type == kTypeFa || type == kTypeCs) {
    out->op = type == kTypeFa ? WqeOp::AtomicFetchAdd : WqeOp::AtomicCompareSwap;
    out->atomicBytes = 8;
    out->rkey = static_cast<uint32_t>(bytes::le(slot, 4, 4));  // key_immd
    out->remoteAddr = bytes::le(slot, 8, 8);                   // lhdr.rva
    out->operand = bytes::le(slot, 16, 8);                     // swp_dt (FA: add value)
    out->compare = type == kTypeCs ? bytes::le(slot, 24, 8) : 0;
    out->localAddr = bytes::le(slot, 32, 8);
    out->lkey = static_cast<uint32_t>(bytes::le(slot, 40, 4));
    return ws == 3 && bytes::le(slot, 44, 4) == 8;
  }
  return false;
}

// Stores the old value an 8-byte atomic fetched at the WQE's local address (host order).
MORI_HOST_DEVICE_INLINE void writeAtomicResult(void* dst, uint64_t oldValue) { bytes::putLe(dst, 0, oldValue, 8); }

// struct bnxt_re_db_hdr as one little-endian 64-bit write: indx (index 23:0, epoch 24,
// toggle 26:25) then typ_qid (qid 19:0, valid 26, type 31:28).
struct Doorbell {
  uint32_t index;
  uint32_t epoch;
  uint32_t toggle;
  uint32_t qid;
  uint32_t valid;
  uint32_t type;  // 0 = SQ, 4 = CQ (enum bnxt_re_db_que_type)
};
MORI_HOST_DEVICE_INLINE Doorbell decodeDoorbell(uint64_t v) {
  const uint32_t lo = static_cast<uint32_t>(v), hi = static_cast<uint32_t>(v >> 32);
  return Doorbell{lo & 0xffffff, (lo >> 24) & 1, (lo >> 25) & 3, hi & 0xfffff, (hi >> 26) & 1, hi >> 28};
}

// One retransmission search table entry.
struct PsnEntry {
  uint32_t startPsn;
  uint32_t nextPsn;
  uint32_t startIdx;
  uint32_t opcode;  // PSN-search format only
};
// MSN format: bnxt_re_msns = start_idx 63:48 | next_psn 47:24 | start_psn 23:0;
// PSN-search-ext format: opc_spsn (opcode 31:24 | start 23:0), flg_npsn (next 23:0), st_slot_idx.
MORI_HOST_DEVICE_INLINE PsnEntry readPsnEntry(const void* table, uint32_t i, bool psnSearchExt) {
  if (psnSearchExt) {
    const uint32_t a = static_cast<uint32_t>(bytes::le(table, i * 16, 4));
    return PsnEntry{a & 0xffffff, static_cast<uint32_t>(bytes::le(table, i * 16 + 4, 4)) & 0xffffff,
                    static_cast<uint32_t>(bytes::le(table, i * 16 + 8, 2)), a >> 24};
  }
  const uint64_t m = bytes::le(table, i * 8, 8);
  return PsnEntry{static_cast<uint32_t>(m & 0xffffff), static_cast<uint32_t>((m >> 24) & 0xffffff),
                  static_cast<uint32_t>(m >> 48), 0};
}

// Writes completion entry number cqIndex of a CQ of cqDepth 32-byte entries: bnxt_re_req_cqe
// {qp_handle, con_indx = SQ position after the last completed WQE} then bnxt_re_bcqe
// {flg_st_typ_ph = phase | type REQ (0) << 1 | status << 8}; phase 1 in pass 0, flipping per wrap.
MORI_HOST_DEVICE_INLINE void writeCompletion(void* cq, uint32_t cqDepth, uint64_t cqIndex, const CompletionSpec& s) {
  uint8_t* e = static_cast<uint8_t*>(cq) + (cqIndex & (cqDepth - 1)) * kCqeBytes;
  bytes::zero(e, 24);
  bytes::zero(e + 28, 4);
  bytes::putLe(e, 0, s.qpn, 8);
  bytes::putLe(e, 8, (s.lastWqe + 1) & (s.sqDepth - 1), 4);
  const uint32_t phase = (cqIndex & cqDepth) ? 0u : 1u;
  const uint32_t status = s.error ? s.status : 0u;
  bytes::publishWord(e, 24, phase | 0u << 1 | status << 8);
}

}  // namespace mori::test::nic::bnxt
