// How host stream collectives spread over blocks (shmem/team_spread.hpp): small calls stay one
// block, large ones grow with the data up to the GPU's multiprocessors, collectives that cannot
// be split never are, the slices of a piece cover every byte exactly once on 16-byte
// boundaries, for random sizes and block counts, and the exit's arrivals complete a call only
// once every block of a member has added, whatever that member's grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "shmem/team_spread.hpp"

namespace mori::shmem::team {
namespace {

TEST(TeamSpread, SmallCallsStayOneBlock) {
  for (size_t b : {size_t{0}, size_t{1}, size_t{4096}, kSpreadFromBytes - 1}) {
    EXPECT_EQ(spreadBlocks(b, true, 132), 1) << b;
  }
  EXPECT_GT(spreadBlocks(kSpreadFromBytes, true, 132), 1);
}

TEST(TeamSpread, GrowsWithDataUpToTheLimit) {
  EXPECT_EQ(spreadBlocks(size_t{1} << 20, true, 132), 16);
  EXPECT_EQ(spreadBlocks(size_t{4} << 20, true, 132), 64);
  EXPECT_EQ(spreadBlocks(size_t{16} << 20, true, 132), 132);
  EXPECT_EQ(spreadBlocks(size_t{1} << 30, true, 132), 132);
  EXPECT_EQ(spreadBlocks(size_t{1} << 30, true, 304), 304);
  int last = 0;
  for (size_t b = kSpreadFromBytes; b < (size_t{64} << 20); b += b / 3 + 1) {
    const int n = spreadBlocks(b, true, 132);
    EXPECT_GE(n, last) << b;
    EXPECT_LE(n, 132) << b;
    last = n;
  }
}

TEST(TeamSpread, IndivisibleOrOneBlockGpuNeverSpreads) {
  EXPECT_EQ(spreadBlocks(size_t{1} << 30, false, 132), 1);
  EXPECT_EQ(spreadBlocks(size_t{1} << 30, true, 1), 1);
  EXPECT_EQ(spreadBlocks(size_t{1} << 30, true, 0), 1);
}

// Members of one team with different grids (GPUs of different sizes) add to one word each, their
// blocks in any order, over many calls: the word reaches the call's count exactly when the last
// block of that call has added, and never before.
TEST(TeamSpread, ArrivalsCompleteACallOnlyWithEveryBlock) {
  std::mt19937 rng(20261205);
  uint64_t word = 0;
  for (uint64_t call = 1; call <= 200; ++call) {
    const int blocks = 1 + static_cast<int>(rng() % 304);
    std::vector<int> order(static_cast<size_t>(blocks));
    for (int b = 0; b < blocks; ++b) order[static_cast<size_t>(b)] = b;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i = 0; i < order.size(); ++i) {
      EXPECT_LT(word, call * kSpreadArrivalUnit) << "call " << call << ", " << i << " of " << blocks << " added";
      word += spreadArrival(order[i], blocks);
    }
    ASSERT_EQ(word, call * kSpreadArrivalUnit) << "call " << call << ", " << blocks << " blocks";
  }
}

TEST(TeamSpread, GridStaysBelowTheArrivalUnit) {
  EXPECT_EQ(static_cast<uint64_t>(spreadBlocks(size_t{1} << 62, true, 1 << 30)), kSpreadArrivalUnit - 1);
}

void expectCover(size_t bytes, int blocks) {
  std::vector<int> seen(bytes, 0);
  size_t prevHi = 0;
  for (int b = 0; b < blocks; ++b) {
    size_t lo = 0, hi = 0;
    spreadSlice(bytes, blocks, b, &lo, &hi);
    ASSERT_LE(lo, hi) << bytes << " bytes, block " << b << " of " << blocks;
    ASSERT_LE(hi, bytes) << bytes << " bytes, block " << b << " of " << blocks;
    EXPECT_EQ(lo, prevHi) << "slices are contiguous: " << bytes << " bytes, block " << b << " of " << blocks;
    if (lo < bytes) {
      EXPECT_EQ(lo % 16, 0u) << bytes << " bytes, block " << b << " of " << blocks;
    }
    for (size_t i = lo; i < hi; ++i) ++seen[i];
    prevHi = hi;
  }
  for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(seen[i], 1) << "byte " << i << " of " << bytes << ", " << blocks;
}

TEST(TeamSpread, SlicesCoverEveryByteOnce) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{1000}, size_t{65536}})
    for (int blocks : {1, 2, 3, 7, 64, 132}) expectCover(bytes, blocks);
  std::mt19937_64 rng(0x5eed);
  for (int k = 0; k < 200; ++k) {
    const size_t bytes = rng() % (1 << 18);
    const int blocks = 1 + static_cast<int>(rng() % 300);
    expectCover(bytes, blocks);
  }
}

}  // namespace
}  // namespace mori::shmem::team
