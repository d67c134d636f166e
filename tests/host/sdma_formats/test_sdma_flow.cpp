// SDMA ring flow control (include/mori/transport/sdma/sdma_flow.hpp) against a simulated ring:
// posting threads reserve batches of 1..slots/2 slots, wait for room by the completion word,
// write, announce in order; an in-order engine executes announced slots and writes each batch's
// end to the completion word at its last slot. Random interleavings, counters started just below
// 2^32 so that the 32-bit completion word wraps. Checked: a slot is never rewritten before the
// engine executed its previous lap, the engine always reads the lap it expects, and the ring never
// deadlocks. Rules one slot too eager and waiting on their own batch are run too: the simulator
// must catch the overwrite and the deadlock, so a pass means something.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <deque>
#include <random>
#include <string>
#include <vector>

#include "mori/transport/sdma/sdma_flow.hpp"

namespace mori::test::dma {
namespace {

using namespace mori::sdma;

uint64_t seedFor(const char* test) {
  const char* env = getenv("MORI_TEST_SEED");
  const uint64_t seed = env ? strtoull(env, nullptr, 0) : 0x73646d61666c6f77ull;
  printf("[%s] seed 0x%llx (set MORI_TEST_SEED to replay)\n", test, static_cast<unsigned long long>(seed));
  return seed;
}

// Room rule under test: the completion value a batch [base, base + k) waits for.
enum class Rule { Runtime, OneSlotEager, OwnBatch };

uint64_t targetOf(Rule r, uint64_t base, uint32_t k, uint32_t slots) {
  switch (r) {
    case Rule::Runtime: return roomTarget(base, k, slots);
    case Rule::OneSlotEager: return roomTarget(base, k, slots) - (base + k > slots ? 1 : 0);
    case Rule::OwnBatch: return base + k;  // waits for its own completion: can never be met
  }
  return 0;
}

struct Outcome {
  std::string overwrite;  // first slot rewritten before its previous lap ran (empty: none)
  std::string wrongLap;   // first slot the engine found holding another lap (empty: none)
  bool deadlock = false;
  uint64_t executed = 0;  // slots the engine executed
};

// One ring of `slots` slots, counters starting at base0 (all earlier slots complete), up to
// `producers` reservations outstanding, until `batches` batches were executed.
Outcome simulate(Rule rule, uint32_t slots, uint64_t base0, int producers, int batches, std::mt19937_64& rng) {
  struct Batch {
    uint64_t base;
    uint32_t k;
    bool written = false;
  };
  Outcome out;
  std::vector<uint64_t> holds(slots);  // the slot index each ring position holds
  std::vector<bool> ran(slots, true);  // whether the engine executed it
  for (uint32_t p = 0; p < slots; ++p) holds[(base0 - slots + p) % slots] = base0 - slots + p;
  std::deque<Batch> open;           // reserved, not yet announced, in reservation order
  std::vector<uint64_t> batchEnds;  // announced batches' ends, in order
  uint64_t reserved = base0, announced = base0, executed = base0;
  size_t nextEnd = 0;
  uint32_t completion = static_cast<uint32_t>(base0);
  int made = 0, done = 0;
  while (done < batches) {
    bool moved = false;
    // Actions in random order; the first enabled one runs.
    int order[4] = {0, 1, 2, 3};
    std::shuffle(order, order + 4, rng);
    for (int a : order) {
      if (a == 0 && made < batches && static_cast<int>(open.size()) < producers) {
        const uint32_t k = 1 + static_cast<uint32_t>(rng() % (slots / 2));
        open.push_back(Batch{reserved, k});
        reserved += k;
        ++made;
        moved = true;
      } else if (a == 1 && !open.empty()) {
        // A random waiting batch whose room has come writes its slots.
        std::vector<size_t> ready;
        for (size_t i = 0; i < open.size(); ++i)
          if (!open[i].written && completionReached(completion, targetOf(rule, open[i].base, open[i].k, slots)))
            ready.push_back(i);
        if (ready.empty()) continue;
        Batch& b = open[ready[rng() % ready.size()]];
        for (uint64_t j = b.base; j < b.base + b.k; ++j) {
          const uint32_t p = static_cast<uint32_t>(j % slots);
          if (!ran[p] && out.overwrite.empty())
            out.overwrite = "slot " + std::to_string(j) + " over slot " + std::to_string(holds[p]) + " (not run)";
          holds[p] = j;
          ran[p] = false;
        }
        b.written = true;
        moved = true;
      } else if (a == 2 && !open.empty() && open.front().written && open.front().base == announced) {
        announced = open.front().base + open.front().k;
        batchEnds.push_back(announced);
        open.pop_front();
        moved = true;
      } else if (a == 3 && executed < announced) {
        const uint32_t p = static_cast<uint32_t>(executed % slots);
        if (holds[p] != executed && out.wrongLap.empty())
          out.wrongLap = "engine at slot " + std::to_string(executed) + " found slot " + std::to_string(holds[p]);
        ran[p] = true;
        ++executed;
        if (executed == batchEnds[nextEnd]) {
          completion = static_cast<uint32_t>(executed);  // the batch's FENCE
          ++nextEnd;
          ++done;
        }
        moved = true;
      }
      if (moved) break;
    }
    if (!moved) {
      out.deadlock = true;
      break;
    }
  }
  out.executed = executed - base0;
  return out;
}

TEST(SdmaFlow, CompletionComparesAcrossTheWrap) {
  EXPECT_TRUE(completionReached(0, 0));
  EXPECT_TRUE(completionReached(7, 7));
  EXPECT_TRUE(completionReached(8, 7));
  EXPECT_FALSE(completionReached(6, 7)) << "one short of the target";
  // The 64-bit slot count 2^32 + 3 is completion word 3.
  EXPECT_TRUE(completionReached(3, (uint64_t{1} << 32) + 3));
  EXPECT_TRUE(completionReached(5, (uint64_t{1} << 32) - 3)) << "past the target, across the wrap";
  EXPECT_FALSE(completionReached(0xFFFFFFFDu, (uint64_t{1} << 32) + 5)) << "before the target, across the wrap";
  EXPECT_FALSE(completionReached(0, uint64_t{1} << 31)) << "2^31 ahead is never reached";
}

TEST(SdmaFlow, RoomTargetIsThePreviousLap) {
  EXPECT_EQ(roomTarget(0, 1, 64), 0u);
  EXPECT_EQ(roomTarget(63, 1, 64), 0u) << "the first lap is free";
  EXPECT_EQ(roomTarget(64, 1, 64), 1u) << "slot 64 reuses slot 0's position: slot 0 must be complete";
  EXPECT_EQ(roomTarget(100, 32, 64), 68u);
  EXPECT_EQ(roomTarget((uint64_t{1} << 32) + 10, 4, 8), (uint64_t{1} << 32) + 6);
  // The target never reaches the batch itself: k <= slots / 2.
  for (uint32_t slots = 4; slots <= 1024; slots *= 2)
    for (uint32_t k = 1; k <= slots / 2; ++k) EXPECT_LE(roomTarget(1000000, k, slots), 1000000u);
}

TEST(SdmaFlow, RandomInterleavingsNeitherOverwriteNorDeadlock) {
  std::mt19937_64 rng(seedFor("RandomInterleavingsNeitherOverwriteNorDeadlock"));
  for (int it = 0; it < 300; ++it) {
    const uint32_t slots = 4u << (rng() % 7);                             // 4 .. 256
    const uint64_t base0 = (uint64_t{1} << 32) - rng() % (4ull * slots);  // the word wraps mid-run
    const int producers = 1 + static_cast<int>(rng() % 64);
    const Outcome o = simulate(Rule::Runtime, slots, base0, producers, 400, rng);
    SCOPED_TRACE("slots " + std::to_string(slots) + " producers " + std::to_string(producers) + " base0 " +
                 std::to_string(base0));
    EXPECT_FALSE(o.deadlock) << "no action possible after " << o.executed << " slots";
    EXPECT_EQ(o.overwrite, "");
    EXPECT_EQ(o.wrongLap, "");
    if (::testing::Test::HasFailure()) break;
  }
}

// An ordered signal's POLL_REGMEM (GreaterEqual, unsigned 32-bit: the engine's compare, and the
// model's pollMet) on the word pollTarget chooses, with the completion and mirror words the
// batch ends write, ends exactly when the polled queue's 64-bit completion count has reached the
// target: targets on both sides of every 2^31 step of the count, completions from a ring behind
// the target to 2^29 past it. The single-word poll (the completion word against the target) is
// checked to get it wrong there, so a pass means something.
TEST(SdmaFlow, OrderedSignalPollsStayOrderedAcrossTheWrap) {
  std::mt19937_64 rng(seedFor("OrderedSignalPollsStayOrderedAcrossTheWrap"));
  const auto engineMet = [](uint32_t word, uint32_t ref) { return word >= ref; };
  uint64_t singleWordWrong = 0;
  for (int it = 0; it < 200000; ++it) {
    // Targets near a multiple of 2^30 (where words wrap or pollTarget switches) or anywhere.
    const uint64_t step = (rng() % 9) << 30;  // up to 2^33: the 64-bit count past 2^32
    const uint64_t target =
        it % 4 == 0 ? rng() % (uint64_t{1} << 34) : step + rng() % 8192 - 4096 + (uint64_t{1} << 20);
    const int64_t ahead = it % 2 ? static_cast<int64_t>(rng() % 8192) - 4096
                                 : static_cast<int64_t>(rng() % ((uint64_t{1} << 29) + (1u << 20))) - (1 << 20);
    if (ahead < 0 && static_cast<uint64_t>(-ahead) > target) continue;
    const uint64_t count = target + ahead;  // the polled queue's completion count when the engine reads it
    const uint32_t words[2] = {static_cast<uint32_t>(count), static_cast<uint32_t>(count) + kMirrorOffset};
    const PollTarget p = pollTarget(static_cast<uint32_t>(target));
    ASSERT_LT(p.word, 2u);
    ASSERT_GE(p.value, 1u << 30);
    ASSERT_LT(p.value, 3u << 30);
    ASSERT_EQ(engineMet(words[p.word], p.value), count >= target)
        << "target " << target << ", completion count " << count << ": word " << p.word << " = " << words[p.word]
        << " against " << p.value;
    singleWordWrong += engineMet(words[0], static_cast<uint32_t>(target)) != (count >= target);
  }
  EXPECT_GT(singleWordWrong, 0u) << "the single-word poll was never wrong: the wrap is not exercised";
  // The two ways the single word fails, and the pair gets right.
  const uint32_t justBeforeWrap = 0xFFFFFFF0u;
  EXPECT_FALSE(engineMet(5u, justBeforeWrap)) << "single word: wrapped past the target, never met";
  EXPECT_TRUE(engineMet(justBeforeWrap, 5u)) << "single word: target wrapped, met before the copies";
  const PollTarget a = pollTarget(justBeforeWrap), b = pollTarget(5u);
  EXPECT_TRUE(engineMet(a.word ? 5u + kMirrorOffset : 5u, a.value));
  EXPECT_FALSE(engineMet(b.word ? justBeforeWrap + kMirrorOffset : justBeforeWrap, b.value));
}

// Bad rules: the simulator must see what they break.
TEST(SdmaFlow, SimulatorCatchesAnEagerRuleAndASelfWait) {
  std::mt19937_64 rng(seedFor("SimulatorCatchesAnEagerRuleAndASelfWait"));
  bool overwrote = false;
  for (int it = 0; it < 50 && !overwrote; ++it) {
    const Outcome o = simulate(Rule::OneSlotEager, 8, (uint64_t{1} << 32) - 5, 16, 400, rng);
    overwrote = !o.overwrite.empty() || !o.wrongLap.empty();
  }
  EXPECT_TRUE(overwrote) << "waiting one slot short of the previous lap must be caught overwriting";
  const Outcome self = simulate(Rule::OwnBatch, 8, 0, 4, 100, rng);
  EXPECT_TRUE(self.deadlock) << "a batch waiting for its own completion must be caught deadlocking";
}

}  // namespace
}  // namespace mori::test::dma
