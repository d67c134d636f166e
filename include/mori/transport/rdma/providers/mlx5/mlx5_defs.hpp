// mlx5 (ConnectX) send-queue and completion formats. Every layout and constant below is taken
// from rdma-core's public <infiniband/mlx5dv.h> (v44, the version Debian 12 ships; identical in
// v64); the extended-atomic opcode modifier from the ConnectX PRM as NVSHMEM's IBGDA uses it.
// Multi-byte fields are big-endian on the wire: the structs hold them already swapped.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace mori::rdma::mlx5 {

// Send WQE basic block; our WQEs never span more than one (mlx5dv.h MLX5_SEND_WQE_BB).
constexpr uint32_t kSendWqeBB = 64;
// Size unit of ctrl.qpn_ds and of every segment.
constexpr uint32_t kDsBytes = 16;

// Opcodes of ctrl.opmod_idx_opcode bits 7:0 (mlx5dv.h enum MLX5_OPCODE_*).
constexpr uint8_t kOpNop = 0x00;
constexpr uint8_t kOpRdmaWrite = 0x08;
constexpr uint8_t kOpRdmaRead = 0x10;
constexpr uint8_t kOpAtomicCs = 0x11;
constexpr uint8_t kOpAtomicFa = 0x12;
constexpr uint8_t kOpAtomicMaskedCs = 0x14;
constexpr uint8_t kOpAtomicMaskedFa = 0x15;

// Opcode modifier (ctrl bits 31:24) of the masked atomics: bit 3 selects "extended atomic",
// bits 2:0 = log2(operand bytes) - 2, so 4-byte operands are 0x08 and 8-byte ones 0x09
// (ConnectX PRM "Atomic Operations"; NVSHMEM ibgda_device.cuh IBGDA_4_BYTE_EXT_AMO_OPMOD).
constexpr uint8_t kOpModExtAtomic4 = 0x08;

// ctrl.fm_ce_se (mlx5dv.h MLX5_WQE_CTRL_*). rdma-core's mlx5 provider maps IBV_SEND_FENCE to
// MLX5_WQE_CTRL_FENCE (fence mode 4: wait for earlier RDMA READ/ATOMIC, plus initiator small fence).
constexpr uint8_t kCtrlCqUpdate = 2 << 2;
constexpr uint8_t kCtrlFence = 4 << 5;

// Inline data segment: byte_count | MLX5_INLINE_SEG (mlx5dv.h).
constexpr uint32_t kInlineSeg = 0x80000000u;

// Doorbell record words (mlx5dv.h MLX5_RCV_DBR / MLX5_SND_DBR): the send counter is word 1, the
// CQ consumer counter is word 0 of the CQ's record (rdma-core mlx5 MLX5_CQ_SET_CI = 0).
constexpr uint32_t kSndDbr = 1;
// The SQ doorbell record holds the low 16 bits of the producer counter, the CQ record 24 bits
// of the consumer index (rdma-core providers/mlx5/qp.c, cq.c).
constexpr uint32_t kSqCounterMask = 0xffff;
constexpr uint32_t kCqConsumerMask = 0xffffff;

// CQE (mlx5dv.h struct mlx5_cqe64 / struct mlx5_err_cqe, enum MLX5_CQE_*).
constexpr uint32_t kCqeBytes = 64;
constexpr uint8_t kCqeReq = 0x0;
constexpr uint8_t kCqeReqErr = 0xd;
constexpr uint8_t kCqeRespErr = 0xe;
constexpr uint8_t kCqeInvalid = 0xf;
constexpr uint8_t kCqeOwnerMask = 0x1;

// struct mlx5_wqe_ctrl_seg
struct CtrlSeg {
  uint32_t opmodIdxOpcode;  // BE: opmod << 24 | wqe_index << 8 | opcode
  uint32_t qpnDs;           // BE: qpn << 8 | ds (WQE size in 16-byte units)
  uint8_t signature;
  uint8_t dciStreamChannelId[2];
  uint8_t fmCeSe;
  uint32_t imm;
};
static_assert(sizeof(CtrlSeg) == 16 && offsetof(CtrlSeg, qpnDs) == 4 && offsetof(CtrlSeg, signature) == 8 &&
                  offsetof(CtrlSeg, fmCeSe) == 11 && offsetof(CtrlSeg, imm) == 12,
              "mlx5_wqe_ctrl_seg layout");

// struct mlx5_wqe_raddr_seg
struct RaddrSeg {
  uint64_t raddr;  // BE
  uint32_t rkey;   // BE
  uint32_t reserved;
};
static_assert(sizeof(RaddrSeg) == 16 && offsetof(RaddrSeg, rkey) == 8, "mlx5_wqe_raddr_seg layout");

// struct mlx5_wqe_data_seg
struct DataSeg {
  uint32_t byteCount;  // BE
  uint32_t lkey;       // BE
  uint64_t addr;       // BE
};
static_assert(sizeof(DataSeg) == 16 && offsetof(DataSeg, lkey) == 4 && offsetof(DataSeg, addr) == 8,
              "mlx5_wqe_data_seg layout");

// struct mlx5_wqe_atomic_seg (8-byte ATOMIC_CS / ATOMIC_FA)
struct AtomicSeg {
  uint64_t swapAdd;  // BE: swap value of CS, add value of FA
  uint64_t compare;  // BE
};
static_assert(sizeof(AtomicSeg) == 16 && offsetof(AtomicSeg, compare) == 8, "mlx5_wqe_atomic_seg layout");

// 4-byte masked fetch-add argument segment (PRM "Masked Atomic Fetch-and-Add", 32-bit operand:
// add data, field boundary (0: one 32-bit field), 8 reserved bytes).
struct MaskedFa32Seg {
  uint32_t addData;        // BE
  uint32_t fieldBoundary;  // BE
  uint64_t reserved;
};
static_assert(sizeof(MaskedFa32Seg) == 16 && offsetof(MaskedFa32Seg, fieldBoundary) == 4, "masked FA32 layout");

// 4-byte masked compare-swap argument segment (PRM "Masked Atomic Compare-and-Swap", 32-bit
// operands: swap data, compare data, swap mask, compare mask).
struct MaskedCs32Seg {
  uint32_t swapData;     // BE
  uint32_t compareData;  // BE
  uint32_t swapMask;     // BE
  uint32_t compareMask;  // BE
};
static_assert(sizeof(MaskedCs32Seg) == 16 && offsetof(MaskedCs32Seg, compareData) == 4 &&
                  offsetof(MaskedCs32Seg, swapMask) == 8 && offsetof(MaskedCs32Seg, compareMask) == 12,
              "masked CS32 layout");

// struct mlx5_wqe_inl_data_seg: the byte count, then the data itself.
constexpr uint32_t kInlineHeaderBytes = 4;

// Byte offsets inside a 64-byte CQE (struct mlx5_cqe64, struct mlx5_err_cqe of rdma-core 44).
constexpr uint32_t kCqeVendorErrSyndOffset = 54;  // mlx5_err_cqe.vendor_err_synd
constexpr uint32_t kCqeSyndromeOffset = 55;       // mlx5_err_cqe.syndrome
constexpr uint32_t kCqeQpnOffset = 56;            // sop_drop_qpn / s_wqe_opcode_qpn, BE, qpn in bits 23:0
constexpr uint32_t kCqeWqeCounterOffset = 60;     // wqe_counter, BE16
constexpr uint32_t kCqeOpOwnOffset = 63;          // op_own: opcode << 4 | ... | owner
// The 4-byte word that holds op_own (wqe_counter, signature, op_own): loaded first.
constexpr uint32_t kCqeOwnerWordOffset = 60;

}  // namespace mori::rdma::mlx5
