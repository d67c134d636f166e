// ionic (AMD Pensando Pollara, "PSD") send-queue, doorbell and completion formats.
// Source of every layout and constant: rdma-core providers/ionic/ionic_fw_types.h, ionic_fw.h,
// ionic_queue.h and ionic_verbs.c at commit 691953d8d502 (v64.0-61). WQE and CQE fields are
// big-endian except base.wqe_idx and the CQE's npg_wqe_idx_timestamp (little-endian).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace mori::rdma::ionic {

// sizeof(struct ionic_v1_wqe): base header 16 + body 48; the SQ stride is 1 << stride_log2.
constexpr uint32_t kWqeBytes = 64;
// Inline data goes to common.pld.data at offset 32, up to the end of the stride
// (ionic_v1_send_wqe_max_data, without the express-doorbell tail).
constexpr uint32_t kInlineOffset = 32;
constexpr uint32_t kMaxInlineBytes = kWqeBytes - kInlineOffset;

// enum ionic_v1_op (firmware RDMA version 1) and enum ionic_v2_op (version >= 2), selected per
// context by IONIC_OP(version, name) in ionic_verbs.c.
constexpr uint8_t kV1OpRdmaRead = 3;
constexpr uint8_t kV1OpRdmaWrite = 4;
constexpr uint8_t kV1OpAtomicCs = 6;
constexpr uint8_t kV1OpAtomicFa = 7;
constexpr uint8_t kV2OpRdmaWrite = 0x1 | 0x20;  // IONIC_V2_OP_RDMA_WRITE = 0x1 | IONIC_V2_OPSL_OUT
constexpr uint8_t kV2OpRdmaRead = 0x2;
constexpr uint8_t kV2OpAtomicCs = 0x4;
constexpr uint8_t kV2OpAtomicFa = 0x5;

// base.flags bits (enum ionic_v1_op flags), a big-endian 16-bit field.
constexpr uint16_t kFlagFence = 1u << 0;
constexpr uint16_t kFlagInline = 1u << 2;
constexpr uint16_t kFlagSignal = 1u << 3;
// Set in pass 0 over the ring, clear in pass 1, ... (qp->sq.color starts true and flips when
// prod wraps: ionic_v1_prep_base, ionic_color_wrap).
constexpr uint16_t kFlagColor = 1u << 4;

// struct ionic_v1_base_hdr
struct BaseHdr {
  uint64_t wqeIdx;  // LE: SQ position (queue.prod)
  uint8_t op;
  uint8_t numSgeKey;
  uint16_t flags;       // BE
  uint32_t immDataKey;  // BE
};
static_assert(sizeof(BaseHdr) == 16 && offsetof(BaseHdr, op) == 8 && offsetof(BaseHdr, numSgeKey) == 9 &&
                  offsetof(BaseHdr, flags) == 10 && offsetof(BaseHdr, immDataKey) == 12,
              "ionic_v1_base_hdr layout");

// struct ionic_v1_common_bdy, rdma variant, up to its payload (offset 16 of the WQE).
struct RdmaBody {
  uint32_t remoteVaHigh;  // BE
  uint32_t remoteVaLow;   // BE
  uint32_t remoteRkey;    // BE
  uint32_t length;        // BE
};
static_assert(sizeof(RdmaBody) == 16 && offsetof(RdmaBody, remoteRkey) == 8 && offsetof(RdmaBody, length) == 12,
              "ionic_v1_common_bdy layout");

// struct ionic_sge (payload sgl[0] at offset 32 of the WQE)
struct Sge {
  uint64_t va;    // BE
  uint32_t len;   // BE
  uint32_t lkey;  // BE
};
static_assert(sizeof(Sge) == 16 && offsetof(Sge, len) == 8 && offsetof(Sge, lkey) == 12, "ionic_sge layout");

// struct ionic_v1_atomic_bdy (offset 16 of the WQE; 48 bytes)
struct AtomicBodyV1 {
  uint32_t remoteVaHigh;
  uint32_t remoteVaLow;
  uint32_t remoteRkey;
  uint32_t swapAddHigh;
  uint32_t swapAddLow;
  uint32_t compareHigh;
  uint32_t compareLow;
  uint8_t rsvd[4];
  Sge sge;
};
static_assert(sizeof(AtomicBodyV1) == 48 && offsetof(AtomicBodyV1, swapAddHigh) == 12 &&
                  offsetof(AtomicBodyV1, compareHigh) == 20 && offsetof(AtomicBodyV1, sge) == 32,
              "ionic_v1_atomic_bdy layout");

// struct ionic_v2_atomic_bdy (offset 16 of the WQE; 48 bytes)
struct AtomicBodyV2 {
  uint32_t remoteVaHigh;
  uint32_t remoteVaLow;
  uint32_t remoteRkey;
  uint32_t swapAddHigh;
  uint32_t swapAddLow;
  uint32_t compareHigh;
  uint32_t compareLow;
  uint32_t lkey;
  uint64_t localVa;
  uint8_t rsvdExpdb[8];
};
static_assert(sizeof(AtomicBodyV2) == 48 && offsetof(AtomicBodyV2, lkey) == 28 && offsetof(AtomicBodyV2, localVa) == 32,
              "ionic_v2_atomic_bdy layout");

// Doorbell value (ionic_queue.h): qid << IONIC_DBELL_QID_SHIFT | index, written little-endian
// to dbpage[qtype] (ionic_dbell_ring). The index is the ring position (16 bits).
constexpr uint32_t kDbQidShift = 24;
constexpr uint64_t kDbQidMask = (1ull << 24) - 1;

// struct ionic_v1_cqe (32 bytes), send variant.
constexpr uint32_t kCqeBytes = 32;
constexpr uint32_t kCqeMsnOffset = 4;            // send.msg_msn, BE
constexpr uint32_t kCqeNpgWqeIdxOffset = 16;     // send.npg_wqe_idx_timestamp, LE, wqe idx bits 15:0
constexpr uint32_t kCqeStatusLengthOffset = 24;  // status_length, BE: the ionic_status when ERROR
constexpr uint32_t kCqeQtfOffset = 28;           // qid_type_flags, BE: loaded first
// qid_type_flags bits (enum ionic_v1_cqe_qtf_bits)
constexpr uint32_t kCqeColor = 1u << 0;
constexpr uint32_t kCqeError = 1u << 1;
constexpr uint32_t kCqeTypeShift = 5;
constexpr uint32_t kCqeTypeMask = 0x7;
constexpr uint32_t kCqeQidShift = 8;
constexpr uint8_t kCqeTypeSendMsn = 2;  // completion of remote ops, by message sequence number
constexpr uint8_t kCqeTypeSendNpg = 3;  // completion of local ops, by WQE index
// enum ionic_status
constexpr uint8_t kStatusRemoteAccess = 9;
constexpr uint8_t kStatusFlushed = 4;

}  // namespace mori::rdma::ionic
