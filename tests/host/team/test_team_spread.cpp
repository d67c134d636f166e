// How host stream collectives spread over blocks (shmem/team_spread.hpp): small calls stay one
// block, large ones grow with the data up to the GPU's multiprocessors, collectives that cannot
// be split never are, and the slices of a piece cover every byte exactly once on 16-byte
// boundaries, for random sizes and block counts.
#include <gtest/gtest.h>

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
