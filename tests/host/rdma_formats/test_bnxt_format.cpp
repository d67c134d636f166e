// Golden tests of the bnxt_re format. Debian's rdma-core 44 ships no bnxt_re headers, so the
// expected field positions are written here as constants, each taken from rdma-core
// providers/bnxt_re at commit 691953d8d502f54088f776c5ba2aeed0a5ac945d (v64.0-61): encoded WQEs,
// doorbells, the retransmission search table and completion entries are checked against them.
#include "mori/transport/rdma/providers/provider.hpp"
#include "tests/host/rdma_formats/format_test_util.hpp"

namespace mori::test::formats {
namespace {

using rdma::Bnxt;
using rdma::Completion;

// ---- expected layout (rdma-core 691953d8d502, providers/bnxt_re/...)
// bnxt_re-abi.h struct bnxt_re_bsqe: rsv_ws_fl_wt @0 (le32), key_immd @4 (le32), lhdr @8 (le64)
constexpr uint32_t kHdrOff = 0, kKeyImmdOff = 4, kLhdrOff = 8;
// bnxt_re-abi.h enum bnxt_re_hdr_offset: WT 7:0, FLAGS << 0x08, WS << 0x10
constexpr uint32_t kFlagsShift = 8, kWsShift = 16;
// bnxt_re-abi.h enum bnxt_re_wr_opcode
constexpr uint32_t kWrite = 0x04, kRead = 0x06, kCs = 0x08, kFa = 0x0B;
// bnxt_re-abi.h enum bnxt_re_wr_flags
constexpr uint32_t kSignaled = 0x01, kUcFence = 0x04, kInline = 0x10;
// struct bnxt_re_rdma (second 16 bytes): rva @16 (le64), rkey @24 (le32)
constexpr uint32_t kRvaOff = 16, kRkeyOff = 24;
// struct bnxt_re_atomic: swp_dt @16, cmp_dt @24 (le64)
constexpr uint32_t kSwpOff = 16, kCmpOff = 24;
// struct bnxt_re_sge (third 16 bytes): pa @32 (le64), lkey @40, length @44 (le32)
constexpr uint32_t kSgePaOff = 32, kSgeLkeyOff = 40, kSgeLenOff = 44;
// main.h STATIC_WQE_NUM_SLOTS 8 x sizeof(struct bnxt_re_sge) 16; BNXT_RE_MAX_INLINE_SIZE 0x60
constexpr uint32_t kStaticWqeBytes = 128, kMaxInline = 0x60;
// db.c bnxt_re_init_db_hdr + bnxt_re-abi.h enum bnxt_re_db_mask / bnxt_re_db_que_type:
// indx = index | epoch << 24; typ_qid = qid & 0xFFFFF | type << 0x1C | 1 << 0x1A; SQ 0, CQ 4
constexpr uint32_t kDbEpochBit = 24, kDbValidBit = 26, kDbTypeShift = 28, kDbQidMask = 0xFFFFF;
// bnxt_re-abi.h struct bnxt_re_req_cqe: qp_handle @0 (le64), con_indx @8 (le32, 16 bits valid);
// struct bnxt_re_bcqe @24: flg_st_typ_ph (phase 0, type 4:1, status 15:8)
constexpr uint32_t kCqeBytes = 32, kCqeHandleOff = 0, kCqeConOff = 8, kCqeFlgOff = 24;
constexpr uint32_t kReqStRemAcc = 0x07, kReqStWrFlush = 0x0B, kWcTypeTerm = 0x0E;
// bnxt_re-abi.h enum bnxt_re_msns_mask: start_psn 23:0, next_psn 47:24, start_idx 63:48;
// struct bnxt_re_psns_ext: opc_spsn @0 (opcode 31:24), flg_npsn @4, st_slot_idx @8
constexpr uint32_t kMsnBytes = 8, kPsnExtBytes = 16;

uint64_t le(const uint8_t* p, uint32_t off, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t i = n; i-- > 0;) v = v << 8 | p[off + i];
  return v;
}
void putLe(uint8_t* p, uint32_t off, uint64_t v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) p[off + i] = static_cast<uint8_t>(v >> (8 * i));
}

TEST(RdmaFormatsBnxt, ConfigurationConstants) {
  EXPECT_EQ(Bnxt::kSlotBytes, kStaticWqeBytes);
  EXPECT_EQ(Bnxt::kMaxInline, kMaxInline);
  EXPECT_EQ(Bnxt::kCqeBytes, kCqeBytes);
  EXPECT_FALSE(Bnxt::kHasAtomic32);
}

TEST(RdmaFormatsBnxt, EncodeFieldsAtPublishedOffsets) {
  DescGen gen(testSeed("RdmaFormatsBnxt.EncodeFieldsAtPublishedOffsets"));
  HostEndpoint h(Provider::Bnxt, 64, Bnxt::kSlotBytes, 64, Bnxt::kCqeBytes);
  for (int it = 0; it < kIterations; ++it) {
    for (WqeOp op : kAllOps) {
      const WqeDesc d = gen.make(op, Bnxt::kMaxInline, Bnxt::kMaxMessageBytes, Bnxt::kHasAtomic32);
      alignas(64) uint8_t w[kStaticWqeBytes];
      memset(w, 0xa5, sizeof(w));
      Bnxt::encode(h.ep, w, gen.u32(), d);
      const uint32_t hdr = static_cast<uint32_t>(le(w, kHdrOff, 4));
      const uint32_t flags = (hdr >> kFlagsShift) & 0xff, ws = (hdr >> kWsShift) & 0xff, type = hdr & 0xff;
      EXPECT_EQ(hdr >> 24, 0u);
      uint32_t wantFlags = (d.signal ? kSignaled : 0) | (d.fence ? kUcFence : 0);
      uint32_t wantWs = 3;
      switch (op) {
        case WqeOp::Write:
        case WqeOp::Read:
          EXPECT_EQ(type, op == WqeOp::Write ? kWrite : kRead);
          EXPECT_EQ(le(w, kLhdrOff, 8), d.bytes);
          EXPECT_EQ(le(w, kRvaOff, 8), d.remoteAddr);
          EXPECT_EQ(le(w, kRkeyOff, 4), d.rkey);
          if (d.bytes) {
            EXPECT_EQ(le(w, kSgePaOff, 8), d.localAddr);
            EXPECT_EQ(le(w, kSgeLkeyOff, 4), d.lkey);
            EXPECT_EQ(le(w, kSgeLenOff, 4), d.bytes);
          } else {
            wantWs = 2;
          }
          break;
        case WqeOp::WriteInline:
          EXPECT_EQ(type, kWrite);
          wantFlags |= kInline;
          wantWs = 2 + (d.bytes + 15) / 16;  // verbs.c bnxt_re_required_slots: align(ilsize, 16) + hdr
          EXPECT_EQ(le(w, kLhdrOff, 8), d.bytes);
          EXPECT_EQ(le(w, kRvaOff, 8), d.remoteAddr);
          EXPECT_EQ(le(w, kRkeyOff, 4), d.rkey);
          EXPECT_EQ(0, memcmp(w + 32, d.inlineData, d.bytes));
          for (uint32_t i = 32 + d.bytes; i < 16 * wantWs; ++i) EXPECT_EQ(w[i], 0) << "inline padding " << i;
          break;
        case WqeOp::AtomicFetchAdd:
        case WqeOp::AtomicCompareSwap:
          // verbs.c bnxt_re_build_cns_sqe / bnxt_re_build_fna_sqe
          EXPECT_EQ(type, op == WqeOp::AtomicFetchAdd ? kFa : kCs);
          EXPECT_EQ(le(w, kKeyImmdOff, 4), d.rkey);
          EXPECT_EQ(le(w, kLhdrOff, 8), d.remoteAddr);
          EXPECT_EQ(le(w, kSwpOff, 8), d.operand);
          EXPECT_EQ(le(w, kCmpOff, 8), op == WqeOp::AtomicCompareSwap ? d.compare : 0);
          EXPECT_EQ(le(w, kSgePaOff, 8), d.localAddr);
          EXPECT_EQ(le(w, kSgeLkeyOff, 4), d.lkey);
          EXPECT_EQ(le(w, kSgeLenOff, 4), 8u);
          break;
        case WqeOp::Nop:  // zero-length RDMA WRITE, no SGE
          EXPECT_EQ(type, kWrite);
          EXPECT_EQ(le(w, kLhdrOff, 8), 0u);
          EXPECT_EQ(le(w, kRvaOff, 8), 0u);
          EXPECT_EQ(le(w, kRkeyOff, 4), 0u);
          wantWs = 2;
          break;
      }
      EXPECT_EQ(flags, wantFlags) << opName(op);
      ASSERT_EQ(ws, wantWs) << opName(op) << " bytes " << d.bytes;
      for (uint32_t i = 16 * ws; i < kStaticWqeBytes; ++i) ASSERT_EQ(w[i], 0xa5) << "byte " << i << " beyond ws";
      if (op != WqeOp::AtomicFetchAdd && op != WqeOp::AtomicCompareSwap) {
        EXPECT_EQ(le(w, kKeyImmdOff, 4), 0u);
      }
    }
  }
}

TEST(RdmaFormatsBnxt, DoorbellBits) {
  HostEndpoint h(Provider::Bnxt, 256, Bnxt::kSlotBytes, 512, Bnxt::kCqeBytes);
  h.ep.qpn = 0xfedcb;
  h.ep.cqn = 0x12345;
  for (uint64_t posted : {0ull, 1ull, 255ull, 256ull, 257ull, 511ull, 512ull, 513ull, 0x100000123ull}) {
    const uint64_t v = Bnxt::sqDoorbellValue(h.ep, posted);
    const uint32_t indx = static_cast<uint32_t>(v), typQid = static_cast<uint32_t>(v >> 32);
    EXPECT_EQ(indx & 0xffffff, posted % 256) << posted;
    EXPECT_EQ((indx >> kDbEpochBit) & 1, (posted / 256) & 1) << posted;  // memory.h bnxt_re_incr_tail
    EXPECT_EQ(indx >> 25, 0u);
    EXPECT_EQ(typQid & kDbQidMask, 0xfedcbu);
    EXPECT_EQ((typQid >> kDbValidBit) & 1, 1u);
    EXPECT_EQ(typQid >> kDbTypeShift, 0u);  // BNXT_RE_QUE_TYPE_SQ
    EXPECT_EQ((typQid >> 20) & 0x3f, 0u);
    const uint64_t c = Bnxt::cqDoorbellValue(h.ep, posted);
    EXPECT_EQ(static_cast<uint32_t>(c) & 0xffffff, posted % 512);
    EXPECT_EQ((static_cast<uint32_t>(c) >> kDbEpochBit) & 1, (posted / 512) & 1);  // bnxt_re_incr_head
    EXPECT_EQ(static_cast<uint32_t>(c >> 32) & kDbQidMask, 0x12345u);
    EXPECT_EQ(static_cast<uint32_t>(c >> 32) >> kDbTypeShift, 4u);  // BNXT_RE_QUE_TYPE_CQ
  }
}

// Reference PSN bookkeeping (verbs.c bnxt_re_fill_psns_for_msntbl / kernel bnxt_qplib_post_send):
// packets = ceil(len / mtu), at least 1; atomics 1.
uint32_t refPackets(const WqeDesc& d, uint32_t mtu) {
  if (d.op == WqeOp::AtomicFetchAdd || d.op == WqeOp::AtomicCompareSwap) return 1;
  const uint32_t len = d.op == WqeOp::Nop ? 0 : d.bytes;
  return len == 0 ? 1 : (len + mtu - 1) / mtu;
}

TEST(RdmaFormatsBnxt, RetransmissionTableAcrossWraps) {
  DescGen gen(testSeed("RdmaFormatsBnxt.RetransmissionTableAcrossWraps"));
  for (bool ext : {false, true}) {
    for (uint32_t mtu : {256u, 1024u, 4096u}) {
      const uint32_t depth = 32;
      const uint32_t word = Bnxt::makeProviderWord(mtu, ext);
      HostEndpoint h(Provider::Bnxt, depth, Bnxt::kSlotBytes, 64, Bnxt::kCqeBytes, Bnxt::psnTableBytes(depth, word));
      h.ep.providerWord = word;
      uint8_t* table = Bnxt::psnTable(h.ep);
      ASSERT_EQ(table, h.ep.sq + depth * kStaticWqeBytes);  // verbs.c: que->pad = va + depth * stride
      uint32_t psn = 0xfffff0 + gen.below(16);              // near the 24-bit wrap
      Bnxt::initPsnTable(table, depth, word, psn);
      uint64_t posted = 0;
      while (posted < 5 * depth) {
        const uint32_t batch = 1 + gen.below(depth - 1);
        WqeDesc descs[32];
        for (uint32_t i = 0; i < batch; ++i) {
          descs[i] = gen.make(kAllOps[gen.below(6)], Bnxt::kMaxInline, 3 * mtu + 7, false);
          Bnxt::encode(h.ep, h.slot(posted + i), static_cast<uint32_t>(posted + i), descs[i]);
        }
        Bnxt::recordPsns(h.ep, posted, posted + batch);
        for (uint32_t i = 0; i < batch; ++i) {
          const uint32_t pos = static_cast<uint32_t>(posted + i) & (depth - 1);
          const uint32_t next = (psn + refPackets(descs[i], mtu)) & 0xffffff;
          uint32_t start, nxt, idx;
          if (ext) {
            const uint32_t opc = static_cast<uint32_t>(le(table, pos * kPsnExtBytes, 4));
            start = opc & 0xffffff;
            nxt = static_cast<uint32_t>(le(table, pos * kPsnExtBytes + 4, 4)) & 0xffffff;
            idx = static_cast<uint32_t>(le(table, pos * kPsnExtBytes + 8, 2));
            EXPECT_EQ(opc >> 24, le(h.slot(posted + i), 0, 1));  // opcode = WQE type
          } else {
            const uint64_t m = le(table, pos * kMsnBytes, 8);
            start = static_cast<uint32_t>(m & 0xffffff);
            nxt = static_cast<uint32_t>((m >> 24) & 0xffffff);
            idx = static_cast<uint32_t>(m >> 48);
          }
          ASSERT_EQ(start, psn) << "WQE " << posted + i << " mtu " << mtu << " ext " << ext;
          ASSERT_EQ(nxt, next) << "WQE " << posted + i;
          ASSERT_EQ(idx, pos) << "WQE " << posted + i;  // start index in doorbell units (WQE index)
          psn = next;
        }
        posted += batch;
      }
    }
  }
}

void nicWriteCqe(uint8_t* cq, uint32_t depth, uint64_t k, uint64_t handle, uint32_t con, uint32_t type,
                 uint32_t status) {
  uint8_t* e = cq + (k & (depth - 1)) * kCqeBytes;
  memset(e, 0, kCqeBytes);
  putLe(e, kCqeHandleOff, handle, 8);
  putLe(e, kCqeConOff, con, 4);
  const uint32_t phase = ((k / depth) & 1) ? 0 : 1;  // starts at 1 (kernel BNXT_QPLIB_QUEUE_START_PERIOD)
  putLe(e, kCqeFlgOff, phase | type << 1 | status << 8, 4);
}

TEST(RdmaFormatsBnxt, CompletionPhaseAcrossWrapsAndErrors) {
  DescGen gen(testSeed("RdmaFormatsBnxt.CompletionPhaseAcrossWrapsAndErrors"));
  for (uint32_t depth : {2u, 16u, 128u}) {
    HostEndpoint h(Provider::Bnxt, 64, Bnxt::kSlotBytes, depth, Bnxt::kCqeBytes);
    Bnxt::initCompletionQueue(h.ep.cq, depth);
    for (uint64_t k = 0; k < depth; ++k) EXPECT_FALSE(Bnxt::readCompletion(h.ep, k).valid);
    for (uint64_t k = 0; k < 5 * depth + 1; ++k) {
      ASSERT_FALSE(Bnxt::readCompletion(h.ep, k).valid) << k;
      const uint32_t wqe = gen.u32();
      const uint32_t con = (wqe + 1) & (h.ep.sqDepth - 1);  // index after the completed WQE
      const uint32_t pick = gen.below(8);
      const uint32_t status = pick == 0 ? kReqStRemAcc : pick == 1 ? kReqStWrFlush : 0;
      const uint32_t type = pick == 2 ? kWcTypeTerm : 0;
      const uint32_t qpn = gen.u32() & 0xffffff;
      nicWriteCqe(h.ep.cq, depth, k, qpn, con, type, status);
      const Completion c = Bnxt::readCompletion(h.ep, k);
      ASSERT_TRUE(c.valid) << k;
      EXPECT_EQ(c.wqeIndex, wqe & (h.ep.sqDepth - 1));
      EXPECT_EQ(c.error, status != 0 || type != 0 ? 1 : 0);
      EXPECT_EQ(c.syndrome, status);
      EXPECT_EQ(c.opcode, type);
      EXPECT_EQ(c.qpn, qpn);
      EXPECT_FALSE(Bnxt::readCompletion(h.ep, k + depth).valid) << k;
    }
  }
}

}  // namespace
}  // namespace mori::test::formats
