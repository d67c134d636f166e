// CPU checks of the NIC model's provider adapters (tests/support/nic_model/nic_side.hpp) against
// the device-side provider code (include/mori/transport/rdma/providers): what the GPU writes (WQEs,
// doorbell values, the bnxt PSN table, CQ releases) the model reads back as the same work at the
// same index; what the model writes (completion entries) the GPU reads back with the right index,
// validity and status. The model's kernel runs only on GPUs; every decision it makes rests on
// these functions, so they are checked here, where CI runs.
#include <gtest/gtest.h>
#include <string.h>

#include <vector>

#include "mori/transport/rdma/providers/provider.hpp"
#include "tests/support/nic_model/nic_side.hpp"

namespace mori::test::nicmodel {
namespace {

using rdma::WqeDesc;
using rdma::WqeOp;

constexpr uint32_t kDepth = 64;

// An endpoint of provider P over host memory, and the model's view of it.
template <class P>
struct Ring {
  std::vector<uint8_t> sq, cq;
  rdma::EndpointDevice ep{};
  ModelQp q{};
  explicit Ring(bool psnExt = false) {
    sq.assign(kDepth * P::kSlotBytes + kDepth * 16, 0);
    cq.assign(kDepth * P::kCqeBytes, 0);
    ep.provider = P::kProvider;
    ep.qpn = 0x401;
    ep.sq = sq.data();
    ep.sqDepth = kDepth;
    ep.sqSlotShift = __builtin_ctz(P::kSlotBytes);
    ep.cq = cq.data();
    ep.cqDepth = kDepth;
    ep.cqn = 0x801;
    q.mtuShift = 10;
    q.psnSearchExt = psnExt ? 1 : 0;
    q.firmware = 2;
    q.initialPsn = 0xfffff0;  // wraps the 24-bit PSN within the test
    if (P::kProvider == rdma::Provider::Bnxt) {
      ep.providerWord = rdma::Bnxt::makeProviderWord(1u << q.mtuShift, psnExt);
      rdma::Bnxt::initPsnTable(sq.data() + kDepth * P::kSlotBytes, kDepth, ep.providerWord, q.initialPsn);
    }
    if (P::kProvider == rdma::Provider::Ionic) ep.providerWord = 2;
    P::initCompletionQueue(cq.data(), kDepth);
    q.ep = ep;
  }
  uint8_t* slot(uint64_t idx) { return sq.data() + (idx & (kDepth - 1)) * P::kSlotBytes; }
};

// The work request number i of a sequence that cycles through every operation the provider has.
template <class P>
WqeDesc descFor(uint64_t i, const uint8_t* inlineSrc) {
  WqeDesc d{};
  d.signal = i % 3 == 0;
  d.fence = i % 5 == 0;
  d.localAddr = 0x7f0000001000ull + i * 8;
  d.remoteAddr = 0x7e0000002000ull + i * 8;
  d.lkey = 0x10000000u | static_cast<uint32_t>(i);
  d.rkey = 0x20000000u | static_cast<uint32_t>(i);
  d.operand = 0x1111222233334444ull + i;
  d.compare = 0x5555666677778888ull + i;
  switch (i % 8) {
    case 0: d.op = WqeOp::Write, d.bytes = static_cast<uint32_t>(1 + i * 97 % 5000); break;
    case 1: d.op = WqeOp::Read, d.bytes = static_cast<uint32_t>(1 + i * 31 % 3000); break;
    case 2:
      d.op = WqeOp::WriteInline, d.bytes = static_cast<uint32_t>(1 + i % P::kMaxInline), d.inlineData = inlineSrc;
      break;
    case 3: d.op = WqeOp::AtomicFetchAdd, d.atomicBytes = 8; break;
    case 4: d.op = WqeOp::AtomicCompareSwap, d.atomicBytes = 8; break;
    case 5: d.op = WqeOp::AtomicFetchAdd, d.atomicBytes = P::kHasAtomic32 ? 4 : 8; break;
    case 6: d.op = WqeOp::AtomicCompareSwap, d.atomicBytes = P::kHasAtomic32 ? 4 : 8; break;
    default: d.op = WqeOp::Nop; break;
  }
  if (d.op == WqeOp::Nop) d.localAddr = d.remoteAddr = d.lkey = d.rkey = 0;
  return d;
}

// What the GPU's ringDoorbell stores in the doorbell register once `posted` WQEs are announced.
template <class P>
uint64_t doorbellAfter(Ring<P>& r, uint64_t posted) {
  if constexpr (P::kProvider == rdma::Provider::Mlx5) {
    uint64_t v;
    memcpy(&v, r.slot(posted - 1), sizeof(v));  // the last WQE's first 8 bytes
    return v;
  } else {
    return P::sqDoorbellValue(r.ep, posted);
  }
}

template <class Pair>
class NicSideTest : public ::testing::Test {};

template <class P, class N>
struct PairOf {
  using Provider = P;
  using Nic = N;
};
using Pairs = ::testing::Types<PairOf<rdma::Mlx5, NicMlx5>, PairOf<rdma::Bnxt, NicBnxt>, PairOf<rdma::Ionic, NicIonic>>;
TYPED_TEST_SUITE(NicSideTest, Pairs);

// Three passes over the ring: each WQE the GPU encodes and announces is found where the
// doorbell says, parses back to the same work, and passes the NIC's sequence checks.
TYPED_TEST(NicSideTest, AnnouncedWqesParseBackInOrder) {
  using P = typename TypeParam::Provider;
  using N = typename TypeParam::Nic;
  for (bool psnExt : {false, true}) {
    if (psnExt && P::kProvider != rdma::Provider::Bnxt) continue;
    Ring<P> r(psnExt);
    uint8_t inlineSrc[128];
    for (int i = 0; i < 128; ++i) inlineSrc[i] = static_cast<uint8_t>(i * 7 + 1);
    uint32_t psn = r.q.initialPsn;
    for (uint64_t idx = 0; idx < 3 * kDepth + 5; ++idx) {
      const WqeDesc d = descFor<P>(idx, inlineSrc);
      P::encode(r.ep, r.slot(idx), static_cast<uint32_t>(idx), d);
      if constexpr (P::kProvider == rdma::Provider::Bnxt) rdma::Bnxt::recordPsns(r.ep, idx, idx + 1);
      uint32_t pos = ~0u;
      ASSERT_TRUE(N::registerPosition(doorbellAfter(r, idx + 1), r.q, &pos)) << "WQE " << idx;
      EXPECT_EQ(pos, (idx + 1) & (N::sqModulus(kDepth) - 1)) << "WQE " << idx;

      ParsedWqe w;
      const WqeCheck c = N::parse(r.slot(idx), r.q, idx, &w);
      ASSERT_EQ(c.kind, DiagKind::None) << "WQE " << idx << " op " << static_cast<int>(d.op);
      EXPECT_EQ(w.op, d.op) << "WQE " << idx;
      EXPECT_EQ(w.signal != 0, d.signal != 0) << "WQE " << idx;
      uint32_t next = 0;
      const WqeCheck s = N::sequence(r.q, psn, idx, r.slot(idx), w, &next);
      ASSERT_EQ(s.kind, DiagKind::None) << "WQE " << idx << ": PSN table (ext " << psnExt << ")";
      if (P::kProvider == rdma::Provider::Bnxt) {
        EXPECT_EQ(next, (psn + NicBnxt::packets(w, r.q.mtuShift)) & 0xffffff);
        psn = next;
      }
      if (d.op == WqeOp::Nop) continue;
      EXPECT_EQ(w.remoteAddr, d.remoteAddr);
      EXPECT_EQ(w.rkey, d.rkey);
      if (d.op == WqeOp::AtomicFetchAdd || d.op == WqeOp::AtomicCompareSwap) {
        EXPECT_EQ(w.atomicBytes, d.atomicBytes);
        const uint64_t mask = d.atomicBytes == 4 ? 0xffffffffull : ~0ull;
        EXPECT_EQ(w.operand & mask, d.operand & mask);
        if (d.op == WqeOp::AtomicCompareSwap) {
          EXPECT_EQ(w.compare & mask, d.compare & mask);
        }
      } else {
        EXPECT_EQ(w.bytes, d.bytes);
      }
      if (d.op == WqeOp::WriteInline) {
        EXPECT_EQ(memcmp(w.inlineData, inlineSrc, d.bytes), 0);
      } else {
        EXPECT_EQ(w.localAddr, d.localAddr);
        EXPECT_EQ(w.lkey, d.lkey);
      }
    }
  }
}

// A WQE the GPU put at the wrong index, for the wrong QP, with the wrong colour or an
// inconsistent PSN entry is refused (the model completes it with a local QP operation error).
TYPED_TEST(NicSideTest, InconsistentWqesAreRefused) {
  using P = typename TypeParam::Provider;
  using N = typename TypeParam::Nic;
  Ring<P> r;
  WqeDesc d{};
  d.op = WqeOp::Write;
  d.bytes = 64;
  d.localAddr = 0x1000;
  d.remoteAddr = 0x2000;
  d.lkey = d.rkey = 7;
  P::encode(r.ep, r.slot(3), 3, d);
  if constexpr (P::kProvider == rdma::Provider::Bnxt) rdma::Bnxt::recordPsns(r.ep, 0, 4);
  ParsedWqe w;
  if constexpr (P::kProvider == rdma::Provider::Mlx5) {
    EXPECT_EQ(N::parse(r.slot(3), r.q, 3 + 1, &w).kind, DiagKind::WrongWqeIndex);
    ModelQp other = r.q;
    other.ep.qpn = 0x402;
    EXPECT_EQ(N::parse(r.slot(3), other, 3, &w).kind, DiagKind::WrongQpn);
  } else if constexpr (P::kProvider == rdma::Provider::Ionic) {
    EXPECT_EQ(N::parse(r.slot(3), r.q, 3 + kDepth, &w).kind, DiagKind::WrongColor);
  } else {
    ASSERT_EQ(N::parse(r.slot(3), r.q, 3, &w).kind, DiagKind::None);
    uint32_t next = 0;
    EXPECT_EQ(N::sequence(r.q, r.q.initialPsn + 1, 3, r.slot(3), w, &next).kind, DiagKind::PsnMismatch);
  }
  memset(r.slot(5), 0xee, P::kSlotBytes);
  EXPECT_EQ(N::parse(r.slot(5), r.q, 5, &w).kind, DiagKind::MalformedWqe);
}

// Entries the model writes read back, through the GPU's own decoder, as valid only once written
// (ownership per pass), naming the right WQE, with the provider's status for each fault.
TYPED_TEST(NicSideTest, CompletionsReadBackThroughTheGpuDecoder) {
  using P = typename TypeParam::Provider;
  using N = typename TypeParam::Nic;
  Ring<P> r;
  const Fault faults[] = {Fault::None, Fault::RemoteAccess, Fault::LocalProtection, Fault::Flushed};
  for (uint64_t ci = 0; ci < 3 * kDepth; ++ci) {
    EXPECT_FALSE(P::readCompletion(r.ep, ci).valid) << "entry " << ci << " valid before it was written";
    const Fault f = faults[ci % 4];
    const uint64_t last = ci * 5 + 2;
    const CompletionSpec s{last, kDepth, r.ep.qpn, static_cast<uint8_t>(f != Fault::None), N::status(f), 0, 0x08};
    N::writeCompletion(r.q, ci, s);
    const rdma::Completion c = P::readCompletion(r.ep, ci);
    ASSERT_TRUE(c.valid) << "entry " << ci;
    EXPECT_EQ(c.wqeIndex, last & (kDepth - 1)) << "entry " << ci;
    EXPECT_EQ(c.qpn, r.ep.qpn);
    EXPECT_EQ(c.error != 0, f != Fault::None) << "entry " << ci;
    if (f != Fault::None) {
      EXPECT_EQ(c.syndrome, N::status(f)) << "entry " << ci;
    }
  }
}

// The consumer index the GPU releases (doorbell record or CQ doorbell) is what the model reads,
// for every distance up to a ring behind the entries written.
TYPED_TEST(NicSideTest, ReleasedConsumerIsRecovered) {
  using P = typename TypeParam::Provider;
  Ring<P> r;
  for (uint64_t produced = 0; produced < 5 * kDepth; produced += 7)
    for (uint64_t consumer = produced >= kDepth - 1 ? produced - (kDepth - 1) : 0; consumer <= produced; ++consumer) {
      uint64_t seen = 0;
      if constexpr (P::kProvider == rdma::Provider::Mlx5) {
        const uint32_t rec = rdma::Mlx5::cqDbrecValue(consumer);
        seen = consumerFrom(produced, nic::mlx5::cqConsumer(&rec), 1u << 24);
      } else if constexpr (P::kProvider == rdma::Provider::Bnxt) {
        uint32_t pos = 0;
        ASSERT_TRUE(
            NicBnxt::decode(rdma::Bnxt::cqDoorbellValue(r.ep, consumer), r.ep.cqn, NicBnxt::kDbTypeCq, kDepth, &pos));
        seen = consumerFrom(produced, pos, 2 * kDepth);
      } else {
        uint32_t pos = 0;
        ASSERT_TRUE(NicIonic::decode(rdma::Ionic::cqDoorbellValue(r.ep, consumer), r.ep.cqn, kDepth, &pos));
        seen = consumerFrom(produced, pos, kDepth);
      }
      ASSERT_EQ(seen, consumer) << "produced " << produced;
    }
}

// What test_rdma_faults expects the device error to say for an injected remote access error.
TEST(NicSideStatus, RemoteAccessReadsAsTheFaultTestExpects) {
  Ring<rdma::Mlx5> m;
  Ring<rdma::Bnxt> b;
  Ring<rdma::Ionic> i;
  const CompletionSpec s{5, kDepth, 0x401, 1, 0, 0, 0x08};
  CompletionSpec sm = s, sb = s, si = s;
  sm.status = NicMlx5::status(Fault::RemoteAccess);
  sb.status = NicBnxt::status(Fault::RemoteAccess);
  si.status = NicIonic::status(Fault::RemoteAccess);
  NicMlx5::writeCompletion(m.q, 0, sm);
  NicBnxt::writeCompletion(b.q, 0, sb);
  NicIonic::writeCompletion(i.q, 0, si);
  const rdma::Completion cm = rdma::Mlx5::readCompletion(m.ep, 0), cb = rdma::Bnxt::readCompletion(b.ep, 0),
                         ci = rdma::Ionic::readCompletion(i.ep, 0);
  EXPECT_EQ(cm.opcode, 0xd);
  EXPECT_EQ(cm.syndrome, 0x13);
  EXPECT_EQ(cb.opcode, 0x0);
  EXPECT_EQ(cb.syndrome, 0x7);
  EXPECT_EQ(ci.opcode, 0x2);
  EXPECT_EQ(ci.syndrome, 0x9);
  for (const rdma::Completion& c : {cm, cb, ci}) EXPECT_EQ(c.wqeIndex, 5u);
}

}  // namespace
}  // namespace mori::test::nicmodel
