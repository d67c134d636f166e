// Golden tests of the ionic format. Debian's rdma-core 44 ships no ionic headers, so the expected
// field positions are written here as constants, each taken from rdma-core providers/ionic at
// commit 691953d8d502f54088f776c5ba2aeed0a5ac945d (v64.0-61): encoded WQEs (firmware RDMA
// versions 1 and 2), doorbells and completion entries are checked against them.
#include "mori/transport/rdma/providers/provider.hpp"
#include "tests/host/rdma_formats/format_test_util.hpp"

namespace mori::test::formats {
namespace {

using rdma::Completion;
using rdma::Ionic;

// ---- expected layout (rdma-core 691953d8d502, providers/ionic/ionic_fw_types.h)
// struct ionic_v1_base_hdr: wqe_idx @0 (le64), op @8, num_sge_key @9, flags @10 (be16),
// imm_data_key @12 (be32)
constexpr uint32_t kWqeIdxOff = 0, kOpOff = 8, kNumSgeOff = 9, kFlagsOff = 10, kImmOff = 12;
// struct ionic_v1_common_bdy (rdma): remote_va_high @16, remote_va_low @20, remote_rkey @24,
// length @28 (be32); pld.sgl[0] @32: va (be64) @32, len (be32) @40, lkey (be32) @44;
// pld.data (inline) @32
constexpr uint32_t kVaHiOff = 16, kVaLoOff = 20, kRkeyOff = 24, kLenOff = 28, kSgeVaOff = 32, kSgeLenOff = 40,
                   kSgeLkeyOff = 44, kInlineOff = 32;
// struct ionic_v1_atomic_bdy: swap_add_high @28, swap_add_low @32, compare_high @36,
// compare_low @40, sge @48 (va @48, len @56, lkey @60)
constexpr uint32_t kSwapHiOff = 28, kSwapLoOff = 32, kCmpHiOff = 36, kCmpLoOff = 40, kV1SgeVaOff = 48,
                   kV1SgeLenOff = 56, kV1SgeLkeyOff = 60;
// struct ionic_v2_atomic_bdy: lkey @44, local_va @48
constexpr uint32_t kV2LkeyOff = 44, kV2LocalVaOff = 48;
// enum ionic_v1_op: RDMA_READ 3, RDMA_WRITE 4, ATOMIC_CS 6, ATOMIC_FA 7;
// flags FENCE 1 << 0, INL 1 << 2, SIG 1 << 3, COLOR 1 << 4
constexpr uint32_t kV1Read = 3, kV1Write = 4, kV1Cs = 6, kV1Fa = 7;
constexpr uint32_t kFence = 1u << 0, kInl = 1u << 2, kSig = 1u << 3, kColor = 1u << 4;
// enum ionic_v2_op: RDMA_WRITE 0x1 | OPSL_OUT 0x20, RDMA_READ 0x2, ATOMIC_CS 0x4, ATOMIC_FA 0x5
constexpr uint32_t kV2Read = 0x2, kV2Write = 0x21, kV2Cs = 0x4, kV2Fa = 0x5;
// ionic_queue.h: IONIC_DBELL_QID_SHIFT 24, IONIC_QID_MASK (1 << 24) - 1; value = dbell | prod
constexpr uint32_t kDbQidShift = 24;
// struct ionic_v1_cqe (32 B): send.msg_msn @4 (be32), send.npg_wqe_idx_timestamp @16 (le64),
// status_length @24 (be32), qid_type_flags @28 (be32): COLOR 1 << 0, ERROR 1 << 1, type 7:5,
// qid 31:8; IONIC_V1_CQE_TYPE_SEND_MSN 2, SEND_NPG 3; enum ionic_status REMOTE_ACC_ERR 9,
// WQE_FLUSHED_ERR 4
constexpr uint32_t kCqeBytes = 32, kMsnOff = 4, kNpgOff = 16, kStatusOff = 24, kQtfOff = 28;
constexpr uint32_t kTypeSendMsn = 2, kTypeSendNpg = 3, kStsRemoteAcc = 9, kStsFlushed = 4;

uint64_t be(const uint8_t* p, uint32_t off, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < n; ++i) v = v << 8 | p[off + i];
  return v;
}
uint64_t le(const uint8_t* p, uint32_t off, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t i = n; i-- > 0;) v = v << 8 | p[off + i];
  return v;
}
void putBe(uint8_t* p, uint32_t off, uint64_t v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) p[off + i] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
}

TEST(RdmaFormatsIonic, ConfigurationConstants) {
  EXPECT_EQ(Ionic::kSlotBytes, 64u);  // sizeof(struct ionic_v1_wqe)
  EXPECT_EQ(Ionic::kMaxInline, 32u);  // ionic_v1_send_wqe_max_data(6, false) = 64 - 32
  EXPECT_EQ(Ionic::kCqeBytes, kCqeBytes);
  EXPECT_FALSE(Ionic::kHasAtomic32);
}

TEST(RdmaFormatsIonic, EncodeFieldsAtPublishedOffsets) {
  DescGen gen(testSeed("RdmaFormatsIonic.EncodeFieldsAtPublishedOffsets"));
  for (uint32_t version : {1u, 2u}) {
    HostEndpoint h(Provider::Ionic, 128, Ionic::kSlotBytes, 64, Ionic::kCqeBytes);
    h.ep.providerWord = version;
    const bool v1 = version == 1;
    for (int it = 0; it < kIterations; ++it) {
      for (WqeOp op : kAllOps) {
        const WqeDesc d = gen.make(op, Ionic::kMaxInline, Ionic::kMaxMessageBytes, Ionic::kHasAtomic32);
        const uint32_t slotIndex = gen.u32();
        alignas(64) uint8_t w[64];
        memset(w, 0xa5, sizeof(w));
        Ionic::encode(h.ep, w, slotIndex, d);
        EXPECT_EQ(le(w, kWqeIdxOff, 8), slotIndex & 127u);  // ionic_v1_prep_base: wqe_idx = queue.prod
        const uint32_t flags = static_cast<uint32_t>(be(w, kFlagsOff, 2));
        // color: set in pass 0 over the ring, flipped at every wrap (ionic_color_wrap)
        uint32_t want = (d.signal ? kSig : 0) | (d.fence ? kFence : 0) | (((slotIndex >> 7) & 1) ? 0 : kColor);
        EXPECT_EQ(be(w, kImmOff, 4), 0u);
        if (op == WqeOp::AtomicFetchAdd || op == WqeOp::AtomicCompareSwap) {
          // ionic_v1_prep_atomic
          EXPECT_EQ(w[kOpOff], op == WqeOp::AtomicFetchAdd ? (v1 ? kV1Fa : kV2Fa) : (v1 ? kV1Cs : kV2Cs));
          EXPECT_EQ(w[kNumSgeOff], 1);
          EXPECT_EQ(be(w, kVaHiOff, 4) << 32 | be(w, kVaLoOff, 4), d.remoteAddr);
          EXPECT_EQ(be(w, kRkeyOff, 4), d.rkey);
          EXPECT_EQ(be(w, kSwapHiOff, 4) << 32 | be(w, kSwapLoOff, 4), d.operand);
          EXPECT_EQ(be(w, kCmpHiOff, 4) << 32 | be(w, kCmpLoOff, 4), op == WqeOp::AtomicCompareSwap ? d.compare : 0);
          if (v1) {
            EXPECT_EQ(be(w, kV1SgeVaOff, 8), d.localAddr);
            EXPECT_EQ(be(w, kV1SgeLenOff, 4), 8u);
            EXPECT_EQ(be(w, kV1SgeLkeyOff, 4), d.lkey);
          } else {
            EXPECT_EQ(be(w, kV2LkeyOff, 4), d.lkey);
            EXPECT_EQ(be(w, kV2LocalVaOff, 8), d.localAddr);
            EXPECT_EQ(be(w, 56, 8), 0u);  // rsvd_expdb
          }
        } else {
          const bool read = op == WqeOp::Read;
          EXPECT_EQ(w[kOpOff], read ? (v1 ? kV1Read : kV2Read) : (v1 ? kV1Write : kV2Write)) << opName(op);
          const uint64_t raddr = op == WqeOp::Nop ? 0 : d.remoteAddr;
          EXPECT_EQ(be(w, kVaHiOff, 4) << 32 | be(w, kVaLoOff, 4), raddr);
          EXPECT_EQ(be(w, kRkeyOff, 4), op == WqeOp::Nop ? 0u : d.rkey);
          EXPECT_EQ(be(w, kLenOff, 4), op == WqeOp::Nop ? 0u : d.bytes);
          if (op == WqeOp::WriteInline) {
            want |= kInl;
            EXPECT_EQ(w[kNumSgeOff], 0);
            EXPECT_EQ(0, memcmp(w + kInlineOff, d.inlineData, d.bytes));
            for (uint32_t i = kInlineOff + d.bytes; i < 64; ++i) EXPECT_EQ(w[i], 0);
          } else if (op == WqeOp::Nop || d.bytes == 0) {
            EXPECT_EQ(w[kNumSgeOff], 0);
            for (uint32_t i = 32; i < 64; ++i) EXPECT_EQ(w[i], 0);
          } else {
            EXPECT_EQ(w[kNumSgeOff], 1);
            EXPECT_EQ(be(w, kSgeVaOff, 8), d.localAddr);
            EXPECT_EQ(be(w, kSgeLenOff, 4), d.bytes);
            EXPECT_EQ(be(w, kSgeLkeyOff, 4), d.lkey);
            for (uint32_t i = 48; i < 64; ++i) EXPECT_EQ(w[i], 0);
          }
        }
        ASSERT_EQ(flags, want) << opName(op) << " iteration " << it;
      }
    }
  }
}

TEST(RdmaFormatsIonic, DoorbellValues) {
  HostEndpoint h(Provider::Ionic, 256, Ionic::kSlotBytes, 1024, Ionic::kCqeBytes);
  h.ep.qpn = 0xabcdef;
  h.ep.cqn = 0x000123;
  for (uint64_t n : {0ull, 1ull, 255ull, 256ull, 1023ull, 1024ull, 0x123456789ull}) {
    EXPECT_EQ(Ionic::sqDoorbellValue(h.ep, n), uint64_t{0xabcdef} << kDbQidShift | (n % 256)) << n;
    EXPECT_EQ(Ionic::cqDoorbellValue(h.ep, n), uint64_t{0x123} << kDbQidShift | (n % 1024)) << n;
  }
}

void nicWriteCqe(uint8_t* cq, uint32_t depth, uint64_t k, uint32_t type, uint32_t msn, uint64_t npgIdx, bool error,
                 uint32_t status, uint32_t qid) {
  uint8_t* e = cq + (k & (depth - 1)) * kCqeBytes;
  memset(e, 0, kCqeBytes);
  putBe(e, kMsnOff, msn, 4);
  for (uint32_t i = 0; i < 8; ++i) e[kNpgOff + i] = static_cast<uint8_t>(npgIdx >> (8 * i));
  putBe(e, kStatusOff, error ? status : 0x1000, 4);
  const uint32_t color = ((k / depth) & 1) ? 0 : 1;  // cq->color starts true
  putBe(e, kQtfOff, qid << 8 | type << 5 | (error ? 2u : 0u) | color, 4);
}

TEST(RdmaFormatsIonic, CompletionColorAcrossWrapsAndErrors) {
  DescGen gen(testSeed("RdmaFormatsIonic.CompletionColorAcrossWrapsAndErrors"));
  for (uint32_t depth : {2u, 16u, 256u}) {
    HostEndpoint h(Provider::Ionic, 512, Ionic::kSlotBytes, depth, Ionic::kCqeBytes);
    h.ep.providerWord = 2;
    Ionic::initCompletionQueue(h.ep.cq, depth);
    for (uint64_t k = 0; k < depth; ++k) EXPECT_FALSE(Ionic::readCompletion(h.ep, k).valid);
    for (uint64_t k = 0; k < 5 * depth + 1; ++k) {
      ASSERT_FALSE(Ionic::readCompletion(h.ep, k).valid) << k;
      const uint32_t wqe = gen.u32();
      const bool npg = gen.below(5) == 0;
      const bool error = gen.below(4) == 0;
      const uint32_t status = gen.below(2) ? kStsRemoteAcc : kStsFlushed;
      const uint32_t qid = gen.u32() & 0xffffff;
      // SEND_MSN: msg_msn = messages completed = last WQE + 1 (ionic_comp_msn); SEND_NPG: wqe idx
      nicWriteCqe(h.ep.cq, depth, k, npg ? kTypeSendNpg : kTypeSendMsn, (wqe + 1) & 0xffffff,
                  (gen.u64() << 16) | (wqe & 511), error, status, qid);
      const Completion c = Ionic::readCompletion(h.ep, k);
      ASSERT_TRUE(c.valid) << k;
      EXPECT_EQ(c.wqeIndex, wqe & 511u);
      EXPECT_EQ(c.opcode, npg ? kTypeSendNpg : kTypeSendMsn);
      EXPECT_EQ(c.error, error ? 1 : 0);
      EXPECT_EQ(c.syndrome, error ? status : 0);
      EXPECT_EQ(c.qpn, qid);
      EXPECT_FALSE(Ionic::readCompletion(h.ep, k + depth).valid) << k;
    }
  }
}

}  // namespace
}  // namespace mori::test::formats
