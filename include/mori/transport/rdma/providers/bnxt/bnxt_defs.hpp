// bnxt_re (Broadcom NetXtreme-E / Thor) send-queue, doorbell and completion formats.
// Source of every layout and constant: rdma-core providers/bnxt_re/bnxt_re-abi.h, main.h, db.c,
// memory.h and verbs.c at commit 691953d8d502 (v64.0-61), cross-checked with the hardware
// structs (sq_rdma_hdr, sq_atomic_hdr, sq_msn_search, sq_psn_search_ext, cq_req) of Broadcom's
// roce_hsi.h (bnxt_re kernel driver). All fields are little-endian.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace mori::rdma::bnxt {

// The SQ is an array of 16-byte slots (bnxt_re_get_hwqe: que->va + (idx << 4)).
constexpr uint32_t kHwSlotBytes = 16;
// Static WQE mode (BNXT_RE_WQE_MODE_STATIC): every WQE takes STATIC_WQE_NUM_SLOTS = 8 hardware
// slots (main.h), whatever its size; doorbell and completion indices count WQEs (verbs.c:
// dbtail = &jsqq->start_idx in static mode; kernel: sq_size = max_wqe).
constexpr uint32_t kStaticWqeHwSlots = 8;
constexpr uint32_t kWqeBytes = kStaticWqeHwSlots * kHwSlotBytes;  // 128
// Cu+ max inline data (bnxt_re-abi.h BNXT_RE_MAX_INLINE_SIZE); header (32) + 96 = 128.
constexpr uint32_t kMaxInlineBytes = 0x60;

// bnxt_re_bsqe.rsv_ws_fl_wt: wqe type bits 7:0, flags 15:8, wqe size (16-byte units) 23:16
// (enum bnxt_re_hdr_offset).
constexpr uint32_t kHdrFlagsShift = 0x08;
constexpr uint32_t kHdrWsShift = 0x10;

// enum bnxt_re_wr_opcode
constexpr uint8_t kOpRdmaWrite = 0x04;
constexpr uint8_t kOpRdmaRead = 0x06;
constexpr uint8_t kOpAtomicCs = 0x08;
constexpr uint8_t kOpAtomicFa = 0x0B;

// enum bnxt_re_wr_flags. IBV_SEND_FENCE maps to UC_FENCE (verbs.c bnxt_re_set_hdr_flags).
constexpr uint8_t kFlagSignaled = 0x01;
constexpr uint8_t kFlagUcFence = 0x04;
constexpr uint8_t kFlagInline = 0x10;

// Doorbell: 64-bit little-endian write of struct bnxt_re_db_hdr { indx; typ_qid; } (db.c
// bnxt_re_init_db_hdr, enum bnxt_re_db_mask / bnxt_re_db_que_type).
constexpr uint32_t kDbIndexMask = 0xFFFFFF;
constexpr uint32_t kDbEpochShift = 0x18;  // epoch bit of the index word: flips each ring wrap
constexpr uint32_t kDbQidMask = 0xFFFFF;
constexpr uint32_t kDbValidShift = 0x1A;
constexpr uint32_t kDbTypeShift = 0x1C;
constexpr uint32_t kDbTypeSq = 0x00;
constexpr uint32_t kDbTypeCq = 0x04;

// CQE: struct bnxt_re_req_cqe (24 bytes) followed by struct bnxt_re_bcqe (8 bytes) =
// bnxt_re_get_cqe_sz() = 32.
constexpr uint32_t kCqeBytes = 32;
// bnxt_re_bcqe.flg_st_typ_ph: phase bit 0, type 4:1, status 15:8 (enum bnxt_re_bcqe_mask).
constexpr uint32_t kCqePhaseMask = 0x01;
constexpr uint32_t kCqeTypeShift = 0x01;
constexpr uint32_t kCqeTypeMask = 0x0F;
constexpr uint32_t kCqeStatusShift = 0x08;
constexpr uint32_t kCqeStatusMask = 0xFF;
// enum bnxt_re_wc_type / bnxt_re_req_wc_status
constexpr uint8_t kCqeTypeReq = 0x00;
constexpr uint8_t kCqeTypeTerm = 0x0E;
constexpr uint8_t kReqStatusOk = 0x00;
constexpr uint8_t kReqStatusRemoteAccess = 0x07;
constexpr uint8_t kReqStatusFlush = 0x0B;
// The CQ starts in phase 1 (kernel BNXT_QPLIB_QUEUE_START_PERIOD = 0x01, handed to rdma-core as
// resp.phase): an entry is valid when its phase bit equals the expected phase, which flips each
// time the consumer wraps (main.h bnxt_re_is_cqe_valid, bnxt_re_change_cq_phase).
constexpr uint32_t kCqStartPhase = 1;

// struct bnxt_re_bsqe: the first 16 bytes of every send WQE.
struct Bsqe {
  uint32_t rsvWsFlWt;
  uint32_t keyImmd;  // atomics: rkey
  uint64_t lhdr;     // RDMA: message length (qkey_len); atomics: remote address (rva)
};
static_assert(sizeof(Bsqe) == 16 && offsetof(Bsqe, keyImmd) == 4 && offsetof(Bsqe, lhdr) == 8, "bnxt_re_bsqe layout");

// struct bnxt_re_rdma: second 16 bytes of RDMA WRITE / READ.
struct Rdma {
  uint64_t rva;
  uint32_t rkey;
  uint32_t rsvd2;
};
static_assert(sizeof(Rdma) == 16 && offsetof(Rdma, rkey) == 8, "bnxt_re_rdma layout");

// struct bnxt_re_atomic: second 16 bytes of ATOMIC_CS / ATOMIC_FA (FA: add value in swp_dt).
struct Atomic {
  uint64_t swpDt;
  uint64_t cmpDt;
};
static_assert(sizeof(Atomic) == 16 && offsetof(Atomic, cmpDt) == 8, "bnxt_re_atomic layout");

// struct bnxt_re_sge
struct Sge {
  uint64_t pa;
  uint32_t lkey;
  uint32_t length;
};
static_assert(sizeof(Sge) == 16 && offsetof(Sge, lkey) == 8 && offsetof(Sge, length) == 12, "bnxt_re_sge layout");

// Byte offsets in the 32-byte CQE.
constexpr uint32_t kCqeQpHandleOffset = 0;  // bnxt_re_req_cqe.qp_handle
constexpr uint32_t kCqeConIndexOffset = 8;  // bnxt_re_req_cqe.con_indx (16 bits valid)
constexpr uint32_t kCqeFlagsOffset = 24;    // bnxt_re_bcqe.flg_st_typ_ph: loaded first

// Retransmission search table. The NIC looks up a WQE by PSN in a table the driver fills per
// WQE, placed right after the SQ ring (verbs.c bnxt_re_alloc_queues: que->pad = va + depth *
// stride), one entry per WQE in static mode (msn_tbl_sz = roundup_pow_of_two(nwr)). Two formats:
//   MSN table (uctx comp_mask MSN_TABLE_ENABLED, Thor2): struct bnxt_re_msns, 8 bytes,
//     start_idx 63:48 | next_psn 47:24 | start_psn 23:0 (enum bnxt_re_msns_mask).
//   PSN search (otherwise, gen P5/P7): struct bnxt_re_psns_ext, 16 bytes,
//     opc_spsn = opcode 31:24 | start_psn 23:0, flg_npsn = next_psn 23:0, st_slot_idx (16 bits).
constexpr uint32_t kMsnEntryBytes = 8;
constexpr uint32_t kMsnStartPsnShift = 0;
constexpr uint32_t kMsnNextPsnShift = 0x18;
constexpr uint32_t kMsnStartIdxShift = 0x30;
constexpr uint32_t kPsnMask = 0xFFFFFF;

struct PsnSearchExt {
  uint32_t opcSpsn;
  uint32_t flgNpsn;
  uint16_t stSlotIdx;
  uint16_t rsvd0;
  uint32_t rsvd1;
};
static_assert(sizeof(PsnSearchExt) == 16 && offsetof(PsnSearchExt, flgNpsn) == 4 &&
                  offsetof(PsnSearchExt, stSlotIdx) == 8,
              "bnxt_re_psns_ext layout");
constexpr uint32_t kPsnsOpcodeShift = 0x18;

// EndpointDevice::providerWord for bnxt: bits 3:0 = log2(path MTU bytes) (8..12),
// bit 8 = search-table format (0: MSN table, 1: PSN search ext).
constexpr uint32_t kWordMtuShiftMask = 0xF;
constexpr uint32_t kWordPsnSearchExt = 1u << 8;

}  // namespace mori::rdma::bnxt
