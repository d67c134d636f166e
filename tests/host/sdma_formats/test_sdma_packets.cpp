// Golden tests of the SDMA packet encoders (include/mori/transport/sdma) against the public
// layout: amdgpu's vega10_sdma_pkt_open.h (torvalds/linux 526da243, the same fields in
// sdma_v4_4_2 and ROCr's sdma_registers.h) and the TC atomic opcodes. Every field is read back
// at its published dword, mask and shift (tests/support/dma_model/engine_packets.hpp) from
// random input, reserved bits must stay zero, and rings of encoded slots are walked packet by
// packet across the wrap the way the engine reads them.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <random>
#include <vector>

#include "mori/transport/sdma/sdma_slot.hpp"
#include "tests/support/dma_model/engine_packets.hpp"
#include "tests/support/dma_model/packet_walk.hpp"

namespace mori::test::dma {
namespace {

using namespace mori::sdma;

constexpr int kIterations = 20000;

uint64_t seedFor(const char* test) {
  const char* env = getenv("MORI_TEST_SEED");
  const uint64_t seed = env ? strtoull(env, nullptr, 0) : 0x73646d612d706b74ull;
  printf("[%s] seed 0x%llx (set MORI_TEST_SEED to replay)\n", test, static_cast<unsigned long long>(seed));
  return seed;
}

// Guard dwords around every encoding: an encoder writes exactly the dwords it returns.
constexpr uint32_t kGuard = 0xA5A5A5A5u;
struct Buf {
  uint32_t w[64];
  Buf() {
    for (auto& x : w) x = kGuard;
  }
  uint32_t* at() { return w + 8; }
  void expectUntouchedFrom(uint32_t n) const {
    for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(w[i], kGuard) << "wrote before the packet";
    for (uint32_t i = 8 + n; i < 64; ++i) EXPECT_EQ(w[i], kGuard) << "wrote past the packet at dword " << i - 8;
  }
};

// Opcodes from SDMA_OP_* and sizes from the packet definitions.
TEST(SdmaFormats, OpcodesAndSizes) {
  EXPECT_EQ(kOpNop, kNop);
  EXPECT_EQ(kOpCopy, kCopy);
  EXPECT_EQ(kOpFence, kFence);
  EXPECT_EQ(kOpTrap, kTrap);
  EXPECT_EQ(kOpPollRegmem, kPollRegmem);
  EXPECT_EQ(kOpAtomic, kAtomic);
  EXPECT_EQ(kSubOpCopyLinear, 0u);
  EXPECT_EQ(static_cast<uint32_t>(AtomicOp::Add64), kTcAdd64);
  EXPECT_EQ(static_cast<uint32_t>(AtomicOp::Swap64), kTcSwap64);
  EXPECT_EQ(static_cast<uint32_t>(AtomicOp::CmpSwap64), kTcCmpSwap64);
  EXPECT_EQ(kCopyLinearDwords, kCopyLinearDw);
  EXPECT_EQ(kAtomicDwords, kAtomicDw);
  EXPECT_EQ(kFenceDwords, kFenceDw);
  EXPECT_EQ(kPollRegmemDwords, kPollDw);
  EXPECT_EQ(kTrapDwords, kTrapDw);
  EXPECT_EQ(kMaxCopyBytes, uint64_t{kCopyCount.mask} + 1);
  EXPECT_EQ(kSlotBytes % 32, 0u) << "slots keep packets 32-byte aligned";
}

TEST(SdmaFormats, CopyLinearFieldsAtPublishedPositions) {
  std::mt19937_64 rng(seedFor("SdmaFormats.CopyLinearFieldsAtPublishedPositions"));
  for (int it = 0; it < kIterations; ++it) {
    const uint64_t dst = rng(), src = rng();
    const uint64_t bytes = it % 3 == 0   ? 1 + rng() % 64
                           : it % 3 == 1 ? kMaxCopyBytes - rng() % 16
                                         : 1 + rng() % kMaxCopyBytes;
    Buf b;
    const uint32_t n = encodeCopyLinear(b.at(), dst, src, bytes);
    ASSERT_EQ(n, kCopyLinearDw);
    b.expectUntouchedFrom(n);
    const uint32_t* p = b.at();
    ASSERT_EQ(get(p, kOp), kCopy);
    ASSERT_EQ(get(p, kSubOp), 0u);
    ASSERT_EQ(get(p, kCopyEncrypt), 0u);
    ASSERT_EQ(get(p, kCopyTmz), 0u);
    ASSERT_EQ(get(p, kCopyBroadcast), 0u);
    ASSERT_EQ(p[0] >> 16, 0u) << "header bits above sub_op must be 0";
    ASSERT_EQ(get(p, kCopyCount), static_cast<uint32_t>(bytes - 1)) << "count is bytes - 1, bytes " << bytes;
    ASSERT_EQ(p[1] & ~kCopyCount.mask, 0u) << "COUNT reserved bits";
    ASSERT_EQ(get(p, kCopyDstSw), 0u);
    ASSERT_EQ(get(p, kCopySrcSw), 0u);
    ASSERT_EQ(p[2], 0u) << "PARAMETER: no swaps, reserved bits 0";
    ASSERT_EQ(get64(p, kCopySrcLo), src);
    ASSERT_EQ(get64(p, kCopyDstLo), dst);
  }
}

TEST(SdmaFormats, AtomicFieldsAtPublishedPositions) {
  std::mt19937_64 rng(seedFor("SdmaFormats.AtomicFieldsAtPublishedPositions"));
  const AtomicOp ops[] = {AtomicOp::Add64, AtomicOp::Swap64, AtomicOp::CmpSwap64};
  for (int it = 0; it < kIterations; ++it) {
    const AtomicOp op = ops[it % 3];
    const uint64_t addr = rng() & ~uint64_t{7}, src = rng(), cmp = rng();
    Buf b;
    const uint32_t n = encodeAtomic(b.at(), op, addr, src, cmp);
    ASSERT_EQ(n, kAtomicDw);
    b.expectUntouchedFrom(n);
    const uint32_t* p = b.at();
    ASSERT_EQ(get(p, kOp), kAtomic);
    ASSERT_EQ(get(p, kAtomicLoop), 0u) << "no compare-loop";
    ASSERT_EQ(get(p, kAtomicTmz), 0u);
    ASSERT_EQ(get(p, kAtomicOp), static_cast<uint32_t>(op));
    ASSERT_EQ(p[0] & 0x01FFFF00u, 0u) << "sub_op and reserved header bits 0";
    ASSERT_EQ(get64(p, kAtomicAddrLo), addr);
    ASSERT_EQ(get64(p, kAtomicSrcLo), src);
    ASSERT_EQ(get64(p, kAtomicCmpLo), cmp);
    ASSERT_EQ(get(p, kAtomicLoopInterval), 0u);
    ASSERT_EQ(p[7], 0u);
  }
}

TEST(SdmaFormats, FenceFieldsAtPublishedPositions) {
  std::mt19937_64 rng(seedFor("SdmaFormats.FenceFieldsAtPublishedPositions"));
  for (int it = 0; it < kIterations; ++it) {
    const uint64_t addr = rng() & ~uint64_t{3};
    const uint32_t data = static_cast<uint32_t>(rng());
    Buf b;
    const uint32_t n = encodeFence(b.at(), addr, data);
    ASSERT_EQ(n, kFenceDw);
    b.expectUntouchedFrom(n);
    const uint32_t* p = b.at();
    ASSERT_EQ(get(p, kOp), kFence);
    ASSERT_EQ(get(p, kSubOp), 0u);
    ASSERT_EQ(get(p, kFenceMtype), 0u);
    ASSERT_EQ(p[0], kFence) << "cache-policy bits 0";
    ASSERT_EQ(get64(p, kFenceAddrLo), addr);
    ASSERT_EQ(p[kFenceData], data);
  }
}

TEST(SdmaFormats, PollMemoryFieldsAtPublishedPositions) {
  std::mt19937_64 rng(seedFor("SdmaFormats.PollMemoryFieldsAtPublishedPositions"));
  for (int it = 0; it < kIterations; ++it) {
    const uint64_t addr = rng() & ~uint64_t{3};
    const uint32_t value = static_cast<uint32_t>(rng()), mask = static_cast<uint32_t>(rng());
    const auto func = static_cast<PollFunc>(rng() % 7);
    const uint32_t interval = static_cast<uint32_t>(rng() & 0xFFFF), retries = static_cast<uint32_t>(rng() & 0xFFF);
    Buf b;
    const uint32_t n = encodePollMemory(b.at(), addr, value, mask, func, interval, retries);
    ASSERT_EQ(n, kPollDw);
    b.expectUntouchedFrom(n);
    const uint32_t* p = b.at();
    ASSERT_EQ(get(p, kOp), kPollRegmem);
    ASSERT_EQ(get(p, kSubOp), 0u);
    ASSERT_EQ(get(p, kPollHdpFlush), 0u);
    ASSERT_EQ(get(p, kPollFunc), static_cast<uint32_t>(func));
    ASSERT_EQ(get(p, kPollMem), 1u) << "polls memory, not a register";
    ASSERT_EQ(p[0] & 0x0BFF0000u, 0u) << "reserved header bits";
    ASSERT_EQ(get64(p, kPollAddrLo), addr);
    ASSERT_EQ(p[kPollValue], value);
    ASSERT_EQ(p[kPollMask], mask);
    ASSERT_EQ(get(p, kPollInterval), interval);
    ASSERT_EQ(get(p, kPollRetry), retries);
    ASSERT_EQ(p[5] >> 28, 0u);
  }
}

TEST(SdmaFormats, TrapAndNops) {
  Buf b;
  ASSERT_EQ(encodeTrap(b.at(), 0xF1234567u), kTrapDw);
  b.expectUntouchedFrom(kTrapDw);
  EXPECT_EQ(get(b.at(), kOp), kTrap);
  EXPECT_EQ(get(b.at(), kTrapContext), 0x01234567u) << "int_context is 28 bits";

  for (uint32_t dwords : {0u, 1u, 2u, 13u, 32u}) {
    Buf n;
    ASSERT_EQ(encodeNopPadding(n.at(), dwords), dwords);
    n.expectUntouchedFrom(dwords);
    for (uint32_t i = 0; i < dwords; ++i) {
      EXPECT_EQ(get(n.at() + i, kOp), kNop);
      EXPECT_EQ(packetDwords(n.at() + i), 1u) << "a padding dword is a whole NOP";
    }
  }
  for (uint32_t dwords : {1u, 2u, 17u, 40u}) {
    Buf n;
    ASSERT_EQ(encodeBurstNop(n.at(), dwords), dwords);
    n.expectUntouchedFrom(dwords);
    EXPECT_EQ(get(n.at(), kOp), kNop);
    EXPECT_EQ(get(n.at(), kNopCount), dwords - 1) << "burst NOP count is payload dwords";
    EXPECT_EQ(packetDwords(n.at()), dwords);
  }
}

// Bad inputs the encoders must not turn into other packets: a copy's count never spills into
// the reserved bits, an atomic's opcode never into the header's low bits.
TEST(SdmaFormats, OutOfRangeInputsStayInTheirFields) {
  Buf b;
  encodeCopyLinear(b.at(), 0, 0, kMaxCopyBytes + 5);  // callers chunk; the field must not spill
  EXPECT_EQ(b.at()[1] & ~kCopyCount.mask, 0u);
  Buf a;
  encodeAtomic(a.at(), static_cast<AtomicOp>(0xFFu), 0, 0);
  EXPECT_EQ(get(a.at(), kOp), kAtomic);
  Buf f;
  encodePollMemory(f.at(), 0, 0, 0, static_cast<PollFunc>(0xF), 0x1FFFF, 0x1FFF);
  EXPECT_EQ(get(f.at(), kOp), kPollRegmem);
  EXPECT_EQ(get(f.at(), kPollMem), 1u);
  EXPECT_EQ(f.at()[5] >> 28, 0u);
}

// A small ring filled lap after lap with random slots, written at indices that wrap: walked the
// way the engine reads it (from any slot boundary, packet by packet), every packet ends inside
// its slot, padding is NOPs, and what each slot carries decodes back.
TEST(SdmaFormats, SlotsWalkAcrossTheWrap) {
  std::mt19937_64 rng(seedFor("SdmaFormats.SlotsWalkAcrossTheWrap"));
  constexpr uint32_t kSlots = 8;
  std::vector<uint32_t> ring(kSlots * kSlotDwords, 0xDEADBEEFu);
  uint64_t slot = kSlots - 3;  // start near the end so the first lap wraps
  for (int it = 0; it < 4000; ++it, ++slot) {
    const uint64_t dst = rng(), src = rng();
    const uint64_t bytes = rng() % 3 == 0 ? 0 : 1 + rng() % kMaxCopyBytes;
    const bool withSig = bytes == 0 || rng() % 2;
    const SignalDesc sig{rng() & ~uint64_t{7}, rng(), rng() % 2 ? AtomicOp::Add64 : AtomicOp::Swap64};
    const bool fence = rng() % 2;
    const uint64_t fenceAddr = fence ? (rng() | 8) & ~uint64_t{7} : 0;
    const uint32_t fenceValue = static_cast<uint32_t>(slot + 1);
    // Waits on other queues' completion words (an ordered signal), never with a copy.
    PollDesc polls[kMaxSlotPolls];
    const uint32_t nPolls = bytes == 0 ? static_cast<uint32_t>(rng() % (kMaxSlotPolls + 1)) : 0;
    for (uint32_t i = 0; i < nPolls; ++i) polls[i] = PollDesc{rng() & ~uint64_t{3}, static_cast<uint32_t>(rng())};
    uint32_t* p = ring.data() + (slot % kSlots) * kSlotDwords;
    const uint32_t used =
        encodeSlot(p, dst, src, bytes, withSig ? &sig : nullptr, fenceAddr, fenceValue, polls, nPolls);
    ASSERT_LE(used, kSlotDwords);
    // Walk it.
    uint32_t at = 0, pollsSeen = 0, fencesSeen = 0;
    bool sawCopy = false, sawSig = false, sawFence = false;
    while (at < kSlotDwords) {
      const uint32_t* q = p + at;
      const uint32_t n = packetDwords(q);
      ASSERT_NE(n, 0u) << "unknown packet at slot " << slot << " dword " << at;
      ASSERT_LE(at + n, kSlotDwords) << "packet crosses the slot end";
      switch (get(q, kOp)) {
        case kPollRegmem:
          ASSERT_FALSE(sawCopy || sawSig || sawFence) << "waits first";
          ASSERT_LT(pollsSeen, nPolls);
          EXPECT_EQ(get64(q, kPollAddrLo), polls[pollsSeen].addr);
          EXPECT_EQ(q[kPollValue], polls[pollsSeen].value);
          EXPECT_EQ(q[kPollMask], 0xFFFFFFFFu);
          EXPECT_EQ(get(q, kPollFunc), static_cast<uint32_t>(PollFunc::GreaterEqual));
          EXPECT_EQ(get(q, kPollMem), 1u);
          ++pollsSeen;
          break;
        case kCopy:
          ASSERT_FALSE(sawCopy || sawSig || sawFence) << "copy first";
          sawCopy = true;
          EXPECT_EQ(get(q, kCopyCount) + uint64_t{1}, bytes);
          EXPECT_EQ(get64(q, kCopySrcLo), src);
          EXPECT_EQ(get64(q, kCopyDstLo), dst);
          break;
        case kAtomic:
          ASSERT_FALSE(sawSig || sawFence) << "signal after data, before completion";
          sawSig = true;
          EXPECT_EQ(get64(q, kAtomicAddrLo), sig.addr);
          EXPECT_EQ(get64(q, kAtomicSrcLo), sig.value);
          EXPECT_EQ(get(q, kAtomicOp), static_cast<uint32_t>(sig.op));
          break;
        case kFence:
          // The pair: the mirror word (+ 2^31, sdma_flow.hpp), then the completion word, last.
          ASSERT_LT(fencesSeen, 2u);
          sawFence = true;
          if (fencesSeen++ == 0) {
            EXPECT_EQ(get64(q, kFenceAddrLo), fenceAddr + 4);
            EXPECT_EQ(q[kFenceData], fenceValue + kMirrorOffset);
          } else {
            EXPECT_EQ(get64(q, kFenceAddrLo), fenceAddr);
            EXPECT_EQ(q[kFenceData], fenceValue);
            EXPECT_EQ(at + n, kSlotDwords) << "the completion FENCE ends the slot";
          }
          break;
        case kNop: EXPECT_GE(at, used) << "NOPs only after the packets"; break;
        default: FAIL() << "unexpected opcode " << get(q, kOp);
      }
      at += n;
    }
    EXPECT_EQ(pollsSeen, nPolls);
    EXPECT_EQ(sawCopy, bytes != 0);
    EXPECT_EQ(sawSig, withSig);
    EXPECT_EQ(sawFence, fence);
    EXPECT_EQ(fencesSeen, fence ? 2u : 0u);
  }
  // Whole-ring walk from the read pointer of the current lap's oldest slot across the wrap.
  uint32_t at = static_cast<uint32_t>(slot % kSlots) * kSlotDwords, walked = 0;
  while (walked < kSlots * kSlotDwords) {
    const uint32_t n = packetDwords(ring.data() + at);
    ASSERT_NE(n, 0u);
    ASSERT_LE(at % kSlotDwords + n, kSlotDwords) << "a packet straddles a slot (and so possibly the ring end)";
    walked += n;
    at = (at + n) % (kSlots * kSlotDwords);
  }
  EXPECT_EQ(walked, kSlots * kSlotDwords);
}

// The FENCE at a batch's last slot frees that slot for the next lap (sdma_flow.hpp): a producer
// may rewrite it as soon as the completion word changes. Walked with the model's reader
// (packet_walk.hpp), with the slot rewritten by a random next-lap entry the moment its FENCE
// executes: the engine must have nothing of the slot left to read. (With padding after the FENCE
// the reader took the next lap's dwords for packets: an ordered signal's ATOMIC value became an
// unknown header, or a copy slot's padding ran into a FENCE with the next lap's value.)
TEST(SdmaFormats, NothingOfASlotIsReadAfterTheFenceThatFreesIt) {
  std::mt19937_64 rng(seedFor("SdmaFormats.NothingOfASlotIsReadAfterTheFenceThatFreesIt"));
  const uint64_t completionAddr = 0x7f0000001010ull;
  auto randomEntry = [&](uint32_t* p, bool fence, uint32_t fenceValue) {
    const uint64_t bytes = rng() % 3 == 0 ? 0 : 1 + rng() % kMaxCopyBytes;
    const bool withSig = bytes == 0 || rng() % 2;
    // Signal values and poll targets small and nonzero, like the unit numbers tests signal with.
    const SignalDesc sig{(rng() | 8) & ~uint64_t{7}, 1 + rng() % 1000, rng() % 2 ? AtomicOp::Add64 : AtomicOp::Swap64};
    PollDesc polls[kMaxSlotPolls];
    const uint32_t nPolls = bytes == 0 ? static_cast<uint32_t>(rng() % (kMaxSlotPolls + 1)) : 0;
    for (uint32_t i = 0; i < nPolls; ++i)
      polls[i] = PollDesc{(rng() | 4) & ~uint64_t{3}, 1 + static_cast<uint32_t>(rng() % 1000)};
    encodeSlot(p, rng() | 1, rng() | 1, bytes, withSig ? &sig : nullptr, fence ? completionAddr : 0, fenceValue, polls,
               nPolls);
  };
  for (int it = 0; it < 4000; ++it) {
    uint32_t ring[2 * kSlotDwords];
    randomEntry(ring, true, 1);  // the batch's last slot: its FENCE frees slot 0
    randomEntry(ring + kSlotDwords, rng() % 2, 2);
    const uint64_t to = 2 * kSlotBytes;  // both announced
    const auto word = [&](uint64_t at) { return ring[(at % to) / 4]; };
    uint64_t pos = 0;
    bool freed = false;
    while (pos < to) {
      uint32_t pkt[kMaxPacketDwords], error = 0;
      const uint32_t n = readPacket(word, pos, to, pkt, &error);
      ASSERT_EQ(error, 0u) << "iteration " << it << ": the model stops at ring byte " << pos << " (header 0x"
                           << std::hex << pkt[0] << std::dec << ")" << (freed ? ", after the slot was rewritten" : "");
      if (get(pkt, kOp) == kFence && get64(pkt, kFenceAddrLo) == completionAddr && pos < kSlotBytes) {
        ASSERT_EQ(pos + uint64_t{n} * 4, uint64_t{kSlotBytes})
            << "iteration " << it << ": the FENCE that frees slot 0 ends at byte " << pos + n * 4
            << ": the engine would read the rest of the slot after a producer may have rewritten it";
        freed = true;
        randomEntry(ring, true, 3);  // the next lap's entry, as a producer whose room came writes it
      }
      pos += uint64_t{n} * 4;
    }
    EXPECT_TRUE(freed);
  }
}

}  // namespace
}  // namespace mori::test::dma
