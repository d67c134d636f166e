// Round trips between the device-side provider formats and the NIC model's independent view of
// them (tests/support/nic_model_formats): encode -> NIC parse gives back the desc; NIC-side
// doorbell decode reads what ringDoorbell would write; NIC-side completion write ->
// readCompletion decodes it, across ring wraps, for every provider.
#include "mori/transport/rdma/providers/provider.hpp"
#include "tests/host/rdma_formats/format_test_util.hpp"
#include "tests/support/nic_model_formats/nic_formats.hpp"

namespace mori::test::formats {
namespace {

using rdma::Bnxt;
using rdma::Completion;
using rdma::Ionic;
using rdma::Mlx5;
namespace nic = mori::test::nic;

template <class P>
bool nicParse(const HostEndpoint& h, const void* slot, nic::ParsedWqe* out) {
  if constexpr (P::kProvider == Provider::Mlx5) return nic::mlx5::parseWqe(slot, out);
  if constexpr (P::kProvider == Provider::Bnxt) return nic::bnxt::parseWqe(slot, out);
  if constexpr (P::kProvider == Provider::Ionic) return nic::ionic::parseWqe(slot, h.ep.providerWord, out);
  return false;
}

template <class P>
void nicComplete(const HostEndpoint& h, uint64_t k, const nic::CompletionSpec& s) {
  if constexpr (P::kProvider == Provider::Mlx5) nic::mlx5::writeCompletion(h.ep.cq, h.ep.cqDepth, k, s);
  if constexpr (P::kProvider == Provider::Bnxt) nic::bnxt::writeCompletion(h.ep.cq, h.ep.cqDepth, k, s);
  if constexpr (P::kProvider == Provider::Ionic) nic::ionic::writeCompletion(h.ep.cq, h.ep.cqDepth, k, s);
}

template <class P>
void checkEncodeParse(const char* name, uint32_t providerWord) {
  DescGen gen(testSeed(name));
  const uint32_t depth = 64;
  HostEndpoint h(P::kProvider, depth, P::kSlotBytes, 64, P::kCqeBytes);
  h.ep.providerWord = providerWord;
  for (int it = 0; it < kIterations; ++it) {
    for (WqeOp op : kAllOps) {
      h.ep.qpn = gen.u32() & 0xffffff;
      const WqeDesc d = gen.make(op, P::kMaxInline, P::kMaxMessageBytes, P::kHasAtomic32);
      const uint64_t idx = gen.u64() >> 20;
      void* slot = h.slot(idx);
      P::encode(h.ep, slot, static_cast<uint32_t>(idx), d);
      nic::ParsedWqe w;
      ASSERT_TRUE(nicParse<P>(h, slot, &w)) << opName(op) << " bytes " << d.bytes << " iteration " << it;
      // mlx5 carries no inline segment for zero bytes (as rdma-core): a zero-length WRITE.
      const bool emptyInline = P::kProvider == Provider::Mlx5 && op == WqeOp::WriteInline && d.bytes == 0;
      ASSERT_EQ(static_cast<int>(w.op), static_cast<int>(emptyInline ? WqeOp::Write : d.op)) << opName(op);
      EXPECT_EQ(w.signal, d.signal ? 1 : 0);
      EXPECT_EQ(w.fence, d.fence ? 1 : 0);
      EXPECT_LE(w.wireBytes, P::kSlotBytes);
      if (op != WqeOp::Nop) {
        EXPECT_EQ(w.remoteAddr, d.remoteAddr);
        EXPECT_EQ(w.rkey, d.rkey);
      }
      switch (op) {
        case WqeOp::Write:
        case WqeOp::Read:
          EXPECT_EQ(w.bytes, d.bytes);
          if (d.bytes) {
            EXPECT_EQ(w.localAddr, d.localAddr);
            EXPECT_EQ(w.lkey, d.lkey);
          }
          break;
        case WqeOp::WriteInline:
          EXPECT_EQ(w.bytes, d.bytes);
          EXPECT_EQ(0, memcmp(w.inlineData, d.inlineData, d.bytes));
          break;
        case WqeOp::AtomicFetchAdd:
        case WqeOp::AtomicCompareSwap:
          EXPECT_EQ(w.atomicBytes, d.atomicBytes);
          EXPECT_EQ(w.operand, d.operand);
          if (op == WqeOp::AtomicCompareSwap) {
            EXPECT_EQ(w.compare, d.compare);
          }
          EXPECT_EQ(w.localAddr, d.localAddr);
          EXPECT_EQ(w.lkey, d.lkey);
          break;
        case WqeOp::Nop: break;
      }
      if constexpr (P::kProvider == Provider::Mlx5) {
        EXPECT_EQ(w.wqeIndex, idx & 0xffff);
        EXPECT_EQ(w.qpn, h.ep.qpn);
      }
      if constexpr (P::kProvider == Provider::Ionic) {
        EXPECT_EQ(w.wqeIndex, idx & (depth - 1));
        EXPECT_EQ(w.color, ((idx / depth) & 1) ? 0 : 1);
      }
    }
  }
}

TEST(RdmaFormatsRoundTrip, Mlx5EncodeThenNicParse) { checkEncodeParse<Mlx5>("RdmaFormatsRoundTrip.Mlx5", 0); }
TEST(RdmaFormatsRoundTrip, BnxtEncodeThenNicParse) {
  checkEncodeParse<Bnxt>("RdmaFormatsRoundTrip.Bnxt", Bnxt::makeProviderWord(4096, false));
}
TEST(RdmaFormatsRoundTrip, IonicV1EncodeThenNicParse) { checkEncodeParse<Ionic>("RdmaFormatsRoundTrip.IonicV1", 1); }
TEST(RdmaFormatsRoundTrip, IonicV2EncodeThenNicParse) { checkEncodeParse<Ionic>("RdmaFormatsRoundTrip.IonicV2", 2); }

template <class P>
void checkNicCompletion(const char* name, uint32_t providerWord) {
  DescGen gen(testSeed(name));
  for (uint32_t cqDepth : {2u, 32u, 256u}) {
    const uint32_t sqDepth = 128;
    HostEndpoint h(P::kProvider, sqDepth, P::kSlotBytes, cqDepth, P::kCqeBytes);
    h.ep.providerWord = providerWord;
    P::initCompletionQueue(h.ep.cq, cqDepth);
    uint64_t lastWqe = gen.u32();
    uint64_t done = lastWqe + 1;
    for (uint64_t k = 0; k < 4 * cqDepth + 5; ++k) {
      ASSERT_FALSE(P::readCompletion(h.ep, k).valid) << "entry " << k << " cq depth " << cqDepth;
      lastWqe += 1 + gen.below(sqDepth - 1);  // fewer than sqDepth outstanding (kSqHeadroom)
      nic::CompletionSpec s{};
      s.lastWqe = lastWqe;
      s.sqDepth = sqDepth;
      s.qpn = gen.u32() & 0xfffff;
      s.error = gen.below(5) == 0;
      s.status = static_cast<uint8_t>(1 + gen.below(10));
      s.vendorStatus = static_cast<uint8_t>(gen.u32());
      s.wqeOpcode = 0x08;
      nicComplete<P>(h, k, s);
      const Completion c = P::readCompletion(h.ep, k);
      ASSERT_TRUE(c.valid) << k;
      EXPECT_EQ(c.error, s.error);
      if (s.error) {
        EXPECT_EQ(c.syndrome, s.status);
      }
      EXPECT_EQ(c.qpn, s.qpn);
      EXPECT_EQ(c.wqeIndex, lastWqe & (sqDepth - 1));
      done = rdma::completedThrough(h.ep, done, c.wqeIndex);
      EXPECT_EQ(done, lastWqe + 1) << "completed count after entry " << k;
    }
  }
}

TEST(RdmaFormatsRoundTrip, Mlx5NicCompletionThenRead) { checkNicCompletion<Mlx5>("RdmaFormatsRoundTrip.Mlx5Cqe", 0); }
TEST(RdmaFormatsRoundTrip, BnxtNicCompletionThenRead) {
  checkNicCompletion<Bnxt>("RdmaFormatsRoundTrip.BnxtCqe", Bnxt::makeProviderWord(1024, true));
}
TEST(RdmaFormatsRoundTrip, IonicNicCompletionThenRead) {
  checkNicCompletion<Ionic>("RdmaFormatsRoundTrip.IonicCqe", 2);
}

TEST(RdmaFormatsRoundTrip, DoorbellsDecodeOnTheNicSide) {
  {  // mlx5: record and register
    HostEndpoint h(Provider::Mlx5, 256, Mlx5::kSlotBytes, 64, Mlx5::kCqeBytes);
    h.ep.qpn = 0x00beef;
    for (uint64_t posted : {1ull, 255ull, 256ull, 65535ull, 65536ull, 70000ull}) {
      const uint32_t rec = Mlx5::sqDbrecValue(posted);
      EXPECT_EQ(nic::mlx5::sqProducer(&rec), posted & 0xffff);
      const uint32_t cqRec = Mlx5::cqDbrecValue(posted);
      EXPECT_EQ(nic::mlx5::cqConsumer(&cqRec), posted & 0xffffff);
      WqeDesc d{};
      d.op = WqeOp::Nop;
      Mlx5::encode(h.ep, h.slot(posted - 1), static_cast<uint32_t>(posted - 1), d);
      uint64_t reg;
      memcpy(&reg, h.slot(posted - 1), 8);  // what ringDoorbell stores to the register
      EXPECT_EQ(nic::mlx5::doorbellWqeIndex(reg), (posted - 1) & 0xffff);
      EXPECT_EQ(nic::mlx5::doorbellQpn(reg), 0x00beefu);
    }
  }
  {  // bnxt
    HostEndpoint h(Provider::Bnxt, 64, Bnxt::kSlotBytes, 128, Bnxt::kCqeBytes);
    h.ep.qpn = 0x777;
    h.ep.cqn = 0x99;
    for (uint64_t n : {1ull, 63ull, 64ull, 65ull, 128ull, 129ull, 1000ull}) {
      const nic::bnxt::Doorbell sq = nic::bnxt::decodeDoorbell(Bnxt::sqDoorbellValue(h.ep, n));
      EXPECT_EQ(sq.index, n % 64);
      EXPECT_EQ(sq.epoch, (n / 64) & 1);
      EXPECT_EQ(sq.qid, 0x777u);
      EXPECT_EQ(sq.valid, 1u);
      EXPECT_EQ(sq.type, 0u);
      EXPECT_EQ(sq.toggle, 0u);
      const nic::bnxt::Doorbell cq = nic::bnxt::decodeDoorbell(Bnxt::cqDoorbellValue(h.ep, n));
      EXPECT_EQ(cq.index, n % 128);
      EXPECT_EQ(cq.epoch, (n / 128) & 1);
      EXPECT_EQ(cq.qid, 0x99u);
      EXPECT_EQ(cq.type, 4u);
    }
  }
  {  // ionic
    HostEndpoint h(Provider::Ionic, 64, Ionic::kSlotBytes, 128, Ionic::kCqeBytes);
    h.ep.qpn = 0x123456;
    h.ep.cqn = 0x654321;
    for (uint64_t n : {1ull, 63ull, 64ull, 200ull}) {
      const nic::ionic::Doorbell sq = nic::ionic::decodeDoorbell(Ionic::sqDoorbellValue(h.ep, n));
      EXPECT_EQ(sq.qid, 0x123456u);
      EXPECT_EQ(sq.index, n % 64);
      EXPECT_EQ(sq.armBits, 0u);
      const nic::ionic::Doorbell cq = nic::ionic::decodeDoorbell(Ionic::cqDoorbellValue(h.ep, n));
      EXPECT_EQ(cq.qid, 0x654321u);
      EXPECT_EQ(cq.index, n % 128);
    }
  }
}

// An atomic's old value written by the NIC model reads back through the provider's fetchedValue.
TEST(RdmaFormatsRoundTrip, AtomicResultsReadBack) {
  DescGen gen(testSeed("RdmaFormatsRoundTrip.AtomicResults"));
  for (int it = 0; it < 1000; ++it) {
    const uint64_t old = gen.u64();
    const uint64_t stale = gen.u64();  // what the result word held before
    uint64_t word = stale;
    nic::mlx5::writeAtomicResult(&word, old, 4);
    EXPECT_EQ(Mlx5::fetchedValue(word, 4), old & 0xffffffffu);
    EXPECT_EQ(word >> 32, stale >> 32) << "a 4-byte result must not touch the upper half";
    nic::mlx5::writeAtomicResult(&word, old, 8);
    EXPECT_EQ(Mlx5::fetchedValue(word, 8), old);
    nic::bnxt::writeAtomicResult(&word, old);
    EXPECT_EQ(Bnxt::fetchedValue(word, 8), old);
    nic::ionic::writeAtomicResult(&word, old);
    EXPECT_EQ(Ionic::fetchedValue(word, 8), old);
  }
  // mlx5 4-byte results arrive big-endian: bytes 12 34 56 78 mean 0x12345678.
  const uint64_t raw = 0xa5a5a5a578563412ull;
  EXPECT_EQ(Mlx5::fetchedValue(raw, 4), 0x12345678u);
}

// The bnxt retransmission table as the NIC model reads it matches what recordPsns wrote.
TEST(RdmaFormatsRoundTrip, BnxtPsnTableOnTheNicSide) {
  DescGen gen(testSeed("RdmaFormatsRoundTrip.BnxtPsnTable"));
  for (bool ext : {false, true}) {
    const uint32_t depth = 16, mtu = 1024, word = Bnxt::makeProviderWord(mtu, ext);
    HostEndpoint h(Provider::Bnxt, depth, Bnxt::kSlotBytes, 16, Bnxt::kCqeBytes, Bnxt::psnTableBytes(depth, word));
    h.ep.providerWord = word;
    Bnxt::initPsnTable(Bnxt::psnTable(h.ep), depth, word, 100);
    uint32_t psn = 100;
    for (uint64_t i = 0; i < 3 * depth; ++i) {
      const WqeDesc d = gen.make(WqeOp::Write, 0, 10 * mtu, false);
      Bnxt::encode(h.ep, h.slot(i), static_cast<uint32_t>(i), d);
      Bnxt::recordPsns(h.ep, i, i + 1);
      const nic::bnxt::PsnEntry e = nic::bnxt::readPsnEntry(Bnxt::psnTable(h.ep), i % depth, ext);
      const uint32_t pkts = d.bytes == 0 ? 1 : (d.bytes + mtu - 1) / mtu;
      EXPECT_EQ(e.startPsn, psn);
      EXPECT_EQ(e.nextPsn, psn + pkts);
      EXPECT_EQ(e.startIdx, i % depth);
      psn += pkts;
    }
  }
}

}  // namespace
}  // namespace mori::test::formats
