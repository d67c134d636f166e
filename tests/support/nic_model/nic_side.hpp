// How the NIC model plays each provider, on top of the NIC-side byte formats in
// tests/support/nic_model_formats (written independently of the encoders in
// include/mori/transport/rdma/providers, so that an encoder bug is caught, not mirrored):
//   - where the producer index a doorbell announces comes from, and its modulus
//   - where the consumer index the GPU releases on the completion queue comes from
//   - what a NIC checks in a WQE beyond its layout (QPN, WQE index, colour, PSN table)
//   - status codes of failed work requests, completion entries and atomic results
// NicMlx5, NicBnxt and NicIonic share one shape; the model kernel is a template over it.
#pragma once

#include <stdint.h>

#include "mori/platform/atomic.hpp"
#include "tests/support/nic_model/model_state.hpp"
#include "tests/support/nic_model_formats/nic_formats.hpp"

namespace mori::test::nicmodel {

using nic::CompletionSpec;
using nic::ParsedWqe;

// Why a work request failed, provider-neutral; each NicSide maps it to its own status code.
enum class Fault : uint8_t { None = 0, LocalLength, LocalQpOp, LocalProtection, RemoteInvalid, RemoteAccess, Flushed };

// Outcome of the checks a NIC makes on a WQE beyond its byte layout.
struct WqeCheck {
  DiagKind kind;
  uint64_t a, b, c;
};
MORI_HOST_DEVICE_INLINE WqeCheck checkOk() { return WqeCheck{DiagKind::None, 0, 0, 0}; }
MORI_HOST_DEVICE_INLINE WqeCheck checkFail(DiagKind k, uint64_t a, uint64_t b, uint64_t c = 0) {
  return WqeCheck{k, a, b, c};
}

// Consumer index (monotonic) from the position `pos` a CQ doorbell carries modulo `modulus`, given
// the entries produced: the consumer can be at most `produced`, and at most one ring behind.
MORI_HOST_DEVICE_INLINE uint64_t consumerFrom(uint64_t produced, uint32_t pos, uint32_t modulus) {
  return produced - ((static_cast<uint32_t>(produced) - pos) & (modulus - 1));
}

#if MORI_GPU_COMPILER
// The GPU stores doorbells with 64-bit MMIO stores; the model reads them like the NIC would see
// them arrive, after which everything the GPU wrote before (WQEs, tables) must be visible.
MORI_DEVICE_INLINE uint64_t loadRegister(const uint64_t* reg) {
  return gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(reg);
}
MORI_DEVICE_INLINE uint32_t loadRecord(const uint32_t* rec) {
  return gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(rec);
}
#endif

// ---- mlx5 (ConnectX)

struct NicMlx5 {
  static constexpr rdma::Provider kProvider = rdma::Provider::Mlx5;
  static constexpr uint32_t kSlotBytes = 64;
  static constexpr const char* kName = "mlx5";

  // rdma-core mlx5dv.h enum MLX5_CQE_SYNDROME_*.
  static MORI_HOST_DEVICE_INLINE uint8_t status(Fault f) {
    switch (f) {
      case Fault::LocalLength: return 0x01;      // LOCAL_LENGTH_ERR
      case Fault::LocalQpOp: return 0x02;        // LOCAL_QP_OP_ERR
      case Fault::LocalProtection: return 0x04;  // LOCAL_PROT_ERR
      case Fault::Flushed: return 0x05;          // WR_FLUSH_ERR
      case Fault::RemoteInvalid: return 0x12;    // REMOTE_INVAL_REQ_ERR
      case Fault::RemoteAccess: return 0x13;     // REMOTE_ACCESS_ERR
      default: return 0;
    }
  }

  // The send counter of the doorbell record is 16 bits.
  static MORI_HOST_DEVICE_INLINE uint32_t sqModulus(uint32_t) { return 1u << 16; }

  // Host: the producer position a doorbell-register write announces (the register receives the
  // first 8 bytes of the last WQE's control segment). False: never rung, or not this QP's.
  static bool registerPosition(uint64_t reg, const ModelQp& q, uint32_t* pos) {
    if (reg == 0 || nic::mlx5::doorbellQpn(reg) != q.ep.qpn) return false;
    *pos = (nic::mlx5::doorbellWqeIndex(reg) + 1) & 0xffff;
    return true;
  }

#if MORI_GPU_COMPILER
  // Device: the NIC executes up to the doorbell record's send counter, which the GPU writes after
  // its WQEs are visible and before the register write (Mlx5::ringDoorbell).
  static MORI_DEVICE_INLINE bool announcedPosition(const ModelQp& q, uint32_t* pos) {
    const uint32_t rec = loadRecord(q.ep.sqDbrec);
    *pos = nic::mlx5::sqProducer(&rec);
    return true;
  }
  // Consumer index from the CQ doorbell record (24 bits).
  static MORI_DEVICE_INLINE uint64_t cqConsumer(const ModelQp& q, uint64_t produced) {
    const uint32_t rec = loadRecord(q.ep.cqDbrec);
    return consumerFrom(produced, nic::mlx5::cqConsumer(&rec), 1u << 24);
  }
#endif

  // The NIC executes a WQE whose control segment names this QP and this WQE's index.
  static MORI_HOST_DEVICE_INLINE WqeCheck parse(const void* slot, const ModelQp& q, uint64_t idx, ParsedWqe* w) {
    if (!nic::mlx5::parseWqe(slot, w))
      return checkFail(DiagKind::MalformedWqe, nic::bytes::be(slot, 0, 8), nic::bytes::be(slot, 8, 8));
    if (w->qpn != q.ep.qpn) return checkFail(DiagKind::WrongQpn, w->qpn, q.ep.qpn);
    if (w->wqeIndex != (idx & 0xffff)) return checkFail(DiagKind::WrongWqeIndex, w->wqeIndex, idx & 0xffff);
    return checkOk();
  }
  // No PSN bookkeeping in the WQE ring.
  static MORI_HOST_DEVICE_INLINE WqeCheck sequence(const ModelQp&, uint32_t, uint64_t, const void*, const ParsedWqe&,
                                                   uint32_t* nextPsn) {
    *nextPsn = 0;
    return checkOk();
  }

  // Opcode of the failed WQE for mlx5_err_cqe.s_wqe_opcode (MLX5_OPCODE_*).
  static MORI_HOST_DEVICE_INLINE uint8_t wqeOpcode(const ParsedWqe& w) {
    switch (w.op) {
      case rdma::WqeOp::Write:
      case rdma::WqeOp::WriteInline: return nic::mlx5::kOpWrite;
      case rdma::WqeOp::Read: return nic::mlx5::kOpRead;
      case rdma::WqeOp::AtomicFetchAdd: return w.atomicBytes == 4 ? nic::mlx5::kOpMaskedFa : nic::mlx5::kOpFa;
      case rdma::WqeOp::AtomicCompareSwap: return w.atomicBytes == 4 ? nic::mlx5::kOpMaskedCs : nic::mlx5::kOpCs;
      default: return nic::mlx5::kOpNop;
    }
  }
  static MORI_HOST_DEVICE_INLINE void writeCompletion(const ModelQp& q, uint64_t cqIndex, const CompletionSpec& s) {
    nic::mlx5::writeCompletion(q.ep.cq, q.ep.cqDepth, cqIndex, s);
  }
  static MORI_HOST_DEVICE_INLINE void writeResult(void* dst, uint64_t old, uint32_t atomicBytes) {
    nic::mlx5::writeAtomicResult(dst, old, atomicBytes);
  }
};

// ---- bnxt_re (Broadcom), static WQE mode

struct NicBnxt {
  static constexpr rdma::Provider kProvider = rdma::Provider::Bnxt;
  static constexpr uint32_t kSlotBytes = nic::bnxt::kWqeStride;
  static constexpr const char* kName = "bnxt";
  static constexpr uint32_t kDbTypeSq = 0x0, kDbTypeCq = 0x4;  // enum bnxt_re_db_que_type
  static constexpr uint32_t kPsnMask = 0xffffff;

  // rdma-core bnxt_re-abi.h enum bnxt_re_req_wc_status.
  static MORI_HOST_DEVICE_INLINE uint8_t status(Fault f) {
    switch (f) {
      case Fault::LocalLength: return 0x02;      // LOC_LEN
      case Fault::LocalQpOp: return 0x03;        // LOC_QP_OP
      case Fault::LocalProtection: return 0x04;  // PROT
      case Fault::RemoteInvalid: return 0x06;    // REM_INVAL
      case Fault::RemoteAccess: return 0x07;     // REM_ACC
      case Fault::Flushed: return 0x0b;          // WR_FLUSH
      default: return 0;
    }
  }

  // The doorbell index is the ring position and its epoch bit the wrap parity: modulo 2 * depth.
  static MORI_HOST_DEVICE_INLINE uint32_t sqModulus(uint32_t sqDepth) { return 2 * sqDepth; }

  static MORI_HOST_DEVICE_INLINE bool decode(uint64_t reg, uint32_t qid, uint32_t type, uint32_t depth, uint32_t* pos) {
    const nic::bnxt::Doorbell d = nic::bnxt::decodeDoorbell(reg);
    if (!d.valid || d.type != type || d.qid != (qid & 0xfffff) || d.index >= depth) return false;
    *pos = d.index + d.epoch * depth;
    return true;
  }
  static bool registerPosition(uint64_t reg, const ModelQp& q, uint32_t* pos) {
    return decode(reg, q.ep.qpn, kDbTypeSq, q.ep.sqDepth, pos);
  }

#if MORI_GPU_COMPILER
  static MORI_DEVICE_INLINE bool announcedPosition(const ModelQp& q, uint32_t* pos) {
    return decode(loadRegister(q.ep.sqDoorbell), q.ep.qpn, kDbTypeSq, q.ep.sqDepth, pos);
  }
  static MORI_DEVICE_INLINE uint64_t cqConsumer(const ModelQp& q, uint64_t produced) {
    uint32_t pos = 0;  // never rung: nothing consumed
    (void)decode(loadRegister(q.ep.cqDoorbell), q.ep.cqn, kDbTypeCq, q.ep.cqDepth, &pos);
    return consumerFrom(produced, pos, 2 * q.ep.cqDepth);
  }
#endif

  static MORI_HOST_DEVICE_INLINE WqeCheck parse(const void* slot, const ModelQp&, uint64_t, ParsedWqe* w) {
    if (!nic::bnxt::parseWqe(slot, w))
      return checkFail(DiagKind::MalformedWqe, nic::bytes::le(slot, 0, 8), nic::bytes::le(slot, 8, 8));
    return checkOk();
  }

  // Packets (PSNs) a WQE takes on the wire: one per path MTU of payload, at least one; an atomic
  // takes one (IB spec; the bnxt driver counts the same way).
  static MORI_HOST_DEVICE_INLINE uint32_t packets(const ParsedWqe& w, uint32_t mtuShift) {
    if (w.op == rdma::WqeOp::AtomicFetchAdd || w.op == rdma::WqeOp::AtomicCompareSwap) return 1;
    const uint64_t n = (static_cast<uint64_t>(w.bytes) + (1u << mtuShift) - 1) >> mtuShift;
    return n ? static_cast<uint32_t>(n) : 1u;
  }

  // The retransmission search table entry the GPU wrote for WQE idx before its doorbell: the NIC
  // retransmits from it, so it must start where the previous WQE ended and span this WQE's
  // packets. *nextPsn receives where the next WQE starts.
  static MORI_HOST_DEVICE_INLINE WqeCheck sequence(const ModelQp& q, uint32_t expectedPsn, uint64_t idx,
                                                   const void* slot, const ParsedWqe& w, uint32_t* nextPsn) {
    const uint32_t pos = static_cast<uint32_t>(idx) & (q.ep.sqDepth - 1);
    const uint8_t* table = q.ep.sq + static_cast<uint64_t>(q.ep.sqDepth) * kSlotBytes;
    const nic::bnxt::PsnEntry e = nic::bnxt::readPsnEntry(table, pos, q.psnSearchExt != 0);
    const uint32_t next = (expectedPsn + packets(w, q.mtuShift)) & kPsnMask;
    *nextPsn = next;
    if (e.startPsn != expectedPsn || e.nextPsn != next)
      return checkFail(DiagKind::PsnMismatch, e.startPsn | static_cast<uint64_t>(e.nextPsn) << 24, expectedPsn, next);
    if (e.startIdx != (pos & 0xffff)) return checkFail(DiagKind::PsnIndex, e.startIdx, pos & 0xffff);
    if (q.psnSearchExt && e.opcode != (nic::bytes::le(slot, 0, 4) & 0xff))
      return checkFail(DiagKind::PsnMismatch, e.opcode, nic::bytes::le(slot, 0, 4) & 0xff, next);
    return checkOk();
  }

  static MORI_HOST_DEVICE_INLINE uint8_t wqeOpcode(const ParsedWqe&) { return 0; }
  static MORI_HOST_DEVICE_INLINE void writeCompletion(const ModelQp& q, uint64_t cqIndex, const CompletionSpec& s) {
    nic::bnxt::writeCompletion(q.ep.cq, q.ep.cqDepth, cqIndex, s);
  }
  static MORI_HOST_DEVICE_INLINE void writeResult(void* dst, uint64_t old, uint32_t) {
    nic::bnxt::writeAtomicResult(dst, old);
  }
};

// ---- ionic (AMD Pensando)

struct NicIonic {
  static constexpr rdma::Provider kProvider = rdma::Provider::Ionic;
  static constexpr uint32_t kSlotBytes = nic::ionic::kWqeStride;
  static constexpr const char* kName = "ionic";

  // rdma-core providers/ionic/ionic_fw.h enum ionic_status.
  static MORI_HOST_DEVICE_INLINE uint8_t status(Fault f) {
    switch (f) {
      case Fault::LocalLength: return 1;      // IONIC_STS_LOCAL_LEN_ERR
      case Fault::LocalQpOp: return 2;        // IONIC_STS_LOCAL_QP_OPER_ERR
      case Fault::LocalProtection: return 3;  // IONIC_STS_LOCAL_PROT_ERR
      case Fault::Flushed: return 4;          // IONIC_STS_WQE_FLUSHED_ERR
      case Fault::RemoteInvalid: return 8;    // IONIC_STS_REMOTE_INV_REQ_ERR
      case Fault::RemoteAccess: return 9;     // IONIC_STS_REMOTE_ACC_ERR
      default: return 0;
    }
  }

  // The doorbell carries the ring position only.
  static MORI_HOST_DEVICE_INLINE uint32_t sqModulus(uint32_t sqDepth) { return sqDepth; }

  static MORI_HOST_DEVICE_INLINE bool decode(uint64_t reg, uint32_t qid, uint32_t depth, uint32_t* pos) {
    const nic::ionic::Doorbell d = nic::ionic::decodeDoorbell(reg);
    if (d.qid != (qid & 0xffffff) || d.armBits != 0 || d.index >= depth) return false;
    *pos = d.index;
    return true;
  }
  static bool registerPosition(uint64_t reg, const ModelQp& q, uint32_t* pos) {
    return reg != 0 && decode(reg, q.ep.qpn, q.ep.sqDepth, pos);
  }

#if MORI_GPU_COMPILER
  static MORI_DEVICE_INLINE bool announcedPosition(const ModelQp& q, uint32_t* pos) {
    const uint64_t reg = loadRegister(q.ep.sqDoorbell);
    return reg != 0 && decode(reg, q.ep.qpn, q.ep.sqDepth, pos);
  }
  static MORI_DEVICE_INLINE uint64_t cqConsumer(const ModelQp& q, uint64_t produced) {
    uint32_t pos = 0;
    (void)decode(loadRegister(q.ep.cqDoorbell), q.ep.cqn, q.ep.cqDepth, &pos);
    return consumerFrom(produced, pos, q.ep.cqDepth);
  }
#endif

  // The NIC checks the WQE's index and its colour (set in pass 0 over the ring, clear in pass 1).
  static MORI_HOST_DEVICE_INLINE WqeCheck parse(const void* slot, const ModelQp& q, uint64_t idx, ParsedWqe* w) {
    if (!nic::ionic::parseWqe(slot, q.firmware, w))
      return checkFail(DiagKind::MalformedWqe, nic::bytes::le(slot, 0, 8), nic::bytes::be(slot, 8, 8));
    const uint32_t pos = static_cast<uint32_t>(idx) & (q.ep.sqDepth - 1);
    if (w->wqeIndex != pos) return checkFail(DiagKind::WrongWqeIndex, w->wqeIndex, pos);
    const uint32_t color = (idx & q.ep.sqDepth) ? 0u : 1u;
    if (w->color != color) return checkFail(DiagKind::WrongColor, w->color, color);
    return checkOk();
  }
  static MORI_HOST_DEVICE_INLINE WqeCheck sequence(const ModelQp&, uint32_t, uint64_t, const void*, const ParsedWqe&,
                                                   uint32_t* nextPsn) {
    *nextPsn = 0;
    return checkOk();
  }

  static MORI_HOST_DEVICE_INLINE uint8_t wqeOpcode(const ParsedWqe&) { return 0; }
  static MORI_HOST_DEVICE_INLINE void writeCompletion(const ModelQp& q, uint64_t cqIndex, const CompletionSpec& s) {
    nic::ionic::writeCompletion(q.ep.cq, q.ep.cqDepth, cqIndex, s);
  }
  static MORI_HOST_DEVICE_INLINE void writeResult(void* dst, uint64_t old, uint32_t) {
    nic::ionic::writeAtomicResult(dst, old);
  }
};

}  // namespace mori::test::nicmodel
