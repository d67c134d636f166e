// Golden tests of the mlx5 format: WQEs built by Mlx5::encode are compared byte for byte with
// WQEs built by rdma-core's own inline helpers and structs (<infiniband/mlx5dv.h>,
// mlx5dv_set_ctrl_seg, mlx5dv_set_data_seg, struct fields with htobe*), over randomised fields,
// for every op; completion decoding is checked against CQEs written through struct mlx5_cqe64 /
// struct mlx5_err_cqe with mlx5dv_set_cqe_owner / mlx5dv_get_cqe_opcode semantics.
#include <endian.h>
#include <infiniband/mlx5dv.h>

#include "mori/transport/rdma/providers/provider.hpp"
#include "tests/host/rdma_formats/format_test_util.hpp"

namespace mori::test::formats {
namespace {

using rdma::Completion;
using rdma::Mlx5;

// 4-byte masked atomic argument segments (ConnectX PRM; the same layouts NVSHMEM's IBGDA
// defines as ibgda_atomic_32_masked_fa_seg_t / _cs_seg_t). rdma-core has no struct for them.
struct RefMaskedFa32 {
  __be32 add;
  __be32 fieldBoundary;
  uint64_t reserved;
};
struct RefMaskedCs32 {
  __be32 swap;
  __be32 compare;
  __be32 swapMask;
  __be32 compareMask;
};
constexpr uint8_t kRefExtAtomicOpmod4 = 0x08;  // PRM: extended atomic, log2(4) - 2 = 0

// Reference WQE for `d`, built with rdma-core's helpers into `buf` (64 bytes).
void referenceWqe(uint8_t* buf, uint32_t qpn, uint32_t slotIndex, const WqeDesc& d) {
  uint8_t opcode = MLX5_OPCODE_NOP, opmod = 0, ds = 2;
  auto* raddr = reinterpret_cast<mlx5_wqe_raddr_seg*>(buf + sizeof(mlx5_wqe_ctrl_seg));
  uint8_t* seg2 = buf + sizeof(mlx5_wqe_ctrl_seg) + sizeof(mlx5_wqe_raddr_seg);
  auto setRaddr = [&] {
    raddr->raddr = htobe64(d.remoteAddr);
    raddr->rkey = htobe32(d.rkey);
    raddr->reserved = 0;
  };
  switch (d.op) {
    case WqeOp::Write:
    case WqeOp::Read:
      opcode = d.op == WqeOp::Write ? MLX5_OPCODE_RDMA_WRITE : MLX5_OPCODE_RDMA_READ;
      setRaddr();
      if (d.bytes) {
        mlx5dv_set_data_seg(reinterpret_cast<mlx5_wqe_data_seg*>(seg2), d.bytes, d.lkey, d.localAddr);
        ds = 3;
      }
      break;
    case WqeOp::WriteInline: {
      opcode = MLX5_OPCODE_RDMA_WRITE;
      setRaddr();
      if (d.bytes) {
        auto* inl = reinterpret_cast<mlx5_wqe_inl_data_seg*>(seg2);
        inl->byte_count = htobe32(d.bytes | MLX5_INLINE_SEG);
        const uint32_t inlBytes = sizeof(*inl) + d.bytes;
        const uint32_t padded = (inlBytes + 15) / 16 * 16;
        memcpy(seg2 + sizeof(*inl), d.inlineData, d.bytes);
        memset(seg2 + inlBytes, 0, padded - inlBytes);
        ds = static_cast<uint8_t>(2 + padded / 16);
      }
      break;
    }
    case WqeOp::AtomicFetchAdd:
    case WqeOp::AtomicCompareSwap: {
      const bool fa = d.op == WqeOp::AtomicFetchAdd;
      setRaddr();
      if (d.atomicBytes == 8) {
        opcode = fa ? MLX5_OPCODE_ATOMIC_FA : MLX5_OPCODE_ATOMIC_CS;
        auto* a = reinterpret_cast<mlx5_wqe_atomic_seg*>(seg2);
        a->swap_add = htobe64(d.operand);
        a->compare = fa ? 0 : htobe64(d.compare);
      } else {
        opmod = kRefExtAtomicOpmod4;
        if (fa) {
          opcode = MLX5_OPCODE_ATOMIC_MASKED_FA;
          RefMaskedFa32 a{htobe32(static_cast<uint32_t>(d.operand)), 0, 0};
          memcpy(seg2, &a, sizeof(a));
        } else {
          opcode = MLX5_OPCODE_ATOMIC_MASKED_CS;
          RefMaskedCs32 a{htobe32(static_cast<uint32_t>(d.operand)), htobe32(static_cast<uint32_t>(d.compare)),
                          0xffffffffu, 0xffffffffu};
          memcpy(seg2, &a, sizeof(a));
        }
      }
      mlx5dv_set_data_seg(reinterpret_cast<mlx5_wqe_data_seg*>(seg2 + 16), d.atomicBytes, d.lkey, d.localAddr);
      ds = 4;
      break;
    }
    case WqeOp::Nop: ds = 1; break;
  }
  // rdma-core maps IBV_SEND_SIGNALED to MLX5_WQE_CTRL_CQ_UPDATE and IBV_SEND_FENCE to
  // MLX5_WQE_CTRL_FENCE (providers/mlx5/qp.c).
  const uint8_t fmCeSe = (d.signal ? MLX5_WQE_CTRL_CQ_UPDATE : 0) | (d.fence ? MLX5_WQE_CTRL_FENCE : 0);
  auto* ctrl = reinterpret_cast<mlx5_wqe_ctrl_seg*>(buf);
  mlx5dv_set_ctrl_seg(ctrl, static_cast<uint16_t>(slotIndex), opcode, opmod, qpn, fmCeSe, ds, 0, 0);
  ctrl->dci_stream_channel_id = 0;
}

TEST(RdmaFormatsMlx5, EncodeMatchesRdmaCoreForEveryOp) {
  DescGen gen(testSeed("RdmaFormatsMlx5.EncodeMatchesRdmaCoreForEveryOp"));
  HostEndpoint h(Provider::Mlx5, 256, Mlx5::kSlotBytes, 256, Mlx5::kCqeBytes);
  int checked4 = 0, checked8 = 0;
  for (int it = 0; it < kIterations; ++it) {
    for (WqeOp op : kAllOps) {
      h.ep.qpn = gen.u32() & 0xffffff;
      const WqeDesc d = gen.make(op, Mlx5::kMaxInline, Mlx5::kMaxMessageBytes, Mlx5::kHasAtomic32);
      const uint32_t slotIndex = gen.u32();
      alignas(64) uint8_t ours[Mlx5::kSlotBytes], ref[Mlx5::kSlotBytes];
      memset(ours, 0xa5, sizeof(ours));
      memset(ref, 0xa5, sizeof(ref));
      Mlx5::encode(h.ep, ours, slotIndex, d);
      referenceWqe(ref, h.ep.qpn, slotIndex, d);
      if (d.atomicBytes == 4) ++checked4;
      if (d.atomicBytes == 8) ++checked8;
      for (uint32_t i = 0; i < Mlx5::kSlotBytes; ++i) {
        ASSERT_EQ(ours[i], ref[i]) << "byte " << i << " of " << opName(op) << " bytes=" << d.bytes
                                   << " atomicBytes=" << int(d.atomicBytes) << " signal=" << int(d.signal)
                                   << " fence=" << int(d.fence) << " iteration " << it;
      }
    }
  }
  EXPECT_GT(checked4, 100);
  EXPECT_GT(checked8, 100);
}

TEST(RdmaFormatsMlx5, InlineSizesAtSegmentBoundaries) {
  HostEndpoint h(Provider::Mlx5, 64, Mlx5::kSlotBytes, 64, Mlx5::kCqeBytes);
  h.ep.qpn = 0x1234;
  uint8_t payload[Mlx5::kMaxInline];
  for (uint32_t i = 0; i < sizeof(payload); ++i) payload[i] = static_cast<uint8_t>(0x40 + i);
  for (uint32_t n = 0; n <= Mlx5::kMaxInline; ++n) {
    WqeDesc d{};
    d.op = WqeOp::WriteInline;
    d.bytes = n;
    d.inlineData = payload;
    d.remoteAddr = 0x1122334455667788ull;
    d.rkey = 0xabcdef01;
    alignas(64) uint8_t ours[64], ref[64];
    memset(ours, 0xa5, 64);
    memset(ref, 0xa5, 64);
    Mlx5::encode(h.ep, ours, n, d);
    referenceWqe(ref, h.ep.qpn, n, d);
    ASSERT_EQ(0, memcmp(ours, ref, 64)) << "inline length " << n;
    // ds: 2 without data, 3 up to 12 bytes (4 + 12 = 16), 4 up to 28.
    const uint32_t ds = be32toh(reinterpret_cast<mlx5_wqe_ctrl_seg*>(ours)->qpn_ds) & 0x3f;
    EXPECT_EQ(ds, n == 0 ? 2u : n <= 12 ? 3u : 4u) << n;
  }
  static_assert(Mlx5::kMaxInline == 28, "one 64-byte basic block");
}

TEST(RdmaFormatsMlx5, DoorbellRecordValues) {
  for (uint64_t v : {0ull, 1ull, 0xffffull, 0x10000ull, 0x123456789ull}) {
    EXPECT_EQ(Mlx5::sqDbrecValue(v), htobe32(static_cast<uint32_t>(v & 0xffff))) << v;
    EXPECT_EQ(Mlx5::cqDbrecValue(v), htobe32(static_cast<uint32_t>(v & 0xffffff))) << v;
  }
}

// A NIC writing CQE number k (monotonic) through rdma-core's structs.
void nicWriteCqe(uint8_t* cq, uint32_t depth, uint64_t k, uint16_t wqeCounter, uint32_t qpn, bool error,
                 uint8_t syndrome, uint8_t vendor) {
  auto* cqe = reinterpret_cast<mlx5_cqe64*>(cq + (k & (depth - 1)) * sizeof(mlx5_cqe64));
  memset(cqe, 0, sizeof(*cqe));
  if (error) {
    auto* err = reinterpret_cast<mlx5_err_cqe*>(cqe);
    err->syndrome = syndrome;
    err->vendor_err_synd = vendor;
    err->s_wqe_opcode_qpn = htobe32(MLX5_OPCODE_RDMA_WRITE << 24 | qpn);
    err->wqe_counter = htobe16(wqeCounter);
    err->op_own = MLX5_CQE_REQ_ERR << 4;
  } else {
    cqe->sop_drop_qpn = htobe32(qpn);
    cqe->wqe_counter = htobe16(wqeCounter);
    cqe->op_own = MLX5_CQE_REQ << 4;
  }
  mlx5dv_set_cqe_owner(cqe, static_cast<uint8_t>((k / depth) & 1));
}

TEST(RdmaFormatsMlx5, CompletionOwnershipAcrossWrapsAndErrors) {
  DescGen gen(testSeed("RdmaFormatsMlx5.CompletionOwnershipAcrossWrapsAndErrors"));
  for (uint32_t depth : {1u, 2u, 8u, 64u}) {
    HostEndpoint h(Provider::Mlx5, 1024, Mlx5::kSlotBytes, depth, Mlx5::kCqeBytes);
    Mlx5::initCompletionQueue(h.ep.cq, depth);
    for (uint32_t i = 0; i < depth; ++i) {
      const auto* cqe = reinterpret_cast<mlx5_cqe64*>(h.ep.cq + i * 64);
      EXPECT_EQ(mlx5dv_get_cqe_opcode(const_cast<mlx5_cqe64*>(cqe)), MLX5_CQE_INVALID);
      EXPECT_EQ(mlx5dv_get_cqe_owner(const_cast<mlx5_cqe64*>(cqe)), 1);
    }
    // Fresh CQ: nothing valid in pass 0 nor in pass 1.
    for (uint64_t k = 0; k < 2 * depth; ++k) EXPECT_FALSE(Mlx5::readCompletion(h.ep, k).valid) << k;
    for (uint64_t k = 0; k < 6 * depth + 3; ++k) {
      ASSERT_FALSE(Mlx5::readCompletion(h.ep, k).valid) << "entry " << k << " valid before the NIC wrote it";
      const uint16_t counter = static_cast<uint16_t>(gen.u32());
      const uint32_t qpn = gen.u32() & 0xffffff;
      const bool error = gen.below(4) == 0;
      const uint8_t synd = static_cast<uint8_t>(gen.u32()), vendor = static_cast<uint8_t>(gen.u32());
      nicWriteCqe(h.ep.cq, depth, k, counter, qpn, error, synd, vendor);
      const Completion c = Mlx5::readCompletion(h.ep, k);
      ASSERT_TRUE(c.valid) << k;
      EXPECT_EQ(c.error, error ? 1 : 0);
      EXPECT_EQ(c.opcode, error ? MLX5_CQE_REQ_ERR : MLX5_CQE_REQ);
      EXPECT_EQ(c.wqeIndex, counter & (h.ep.sqDepth - 1u));
      EXPECT_EQ(c.qpn, qpn);
      EXPECT_EQ(c.syndrome, error ? synd : 0);
      EXPECT_EQ(c.vendorSyndrome, error ? vendor : 0);
      // The same ring position one pass later is not valid yet.
      EXPECT_FALSE(Mlx5::readCompletion(h.ep, k + depth).valid) << k;
    }
  }
}

TEST(RdmaFormatsMlx5, ResponderErrorAndInvalidOpcode) {
  HostEndpoint h(Provider::Mlx5, 64, Mlx5::kSlotBytes, 4, Mlx5::kCqeBytes);
  Mlx5::initCompletionQueue(h.ep.cq, 4);
  auto* err = reinterpret_cast<mlx5_err_cqe*>(h.ep.cq);
  err->syndrome = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
  err->vendor_err_synd = 0x88;
  err->wqe_counter = htobe16(7);
  err->op_own = MLX5_CQE_RESP_ERR << 4;  // owner 0 = pass 0
  Completion c = Mlx5::readCompletion(h.ep, 0);
  EXPECT_TRUE(c.valid);
  EXPECT_TRUE(c.error);
  EXPECT_EQ(c.opcode, MLX5_CQE_RESP_ERR);
  EXPECT_EQ(c.syndrome, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
  EXPECT_EQ(c.vendorSyndrome, 0x88);
  EXPECT_EQ(c.wqeIndex, 7u);
  // INVALID is never valid, whatever the owner bit.
  err->op_own = MLX5_CQE_INVALID << 4;
  EXPECT_FALSE(Mlx5::readCompletion(h.ep, 0).valid);
  err->op_own = MLX5_CQE_INVALID << 4 | 1;
  EXPECT_FALSE(Mlx5::readCompletion(h.ep, 4).valid);
}

}  // namespace
}  // namespace mori::test::formats
