// Grids whose blocks wait for other PEs (shmem/resident_grid.hpp): the largest grid of one PE that
// fits on its GPU beside the same grid of every PE sharing it, and the grid a collective launch
// runs (the largest for a grid of 0: {0, 0, 0} or dim3(0); any grid of no more blocks; nothing for
// a larger grid, another zero dimension or block counts that overflow 32 bits).
#include <gtest/gtest.h>

#include <random>

#include "shmem/resident_grid.hpp"

namespace mori::shmem {
namespace {

TEST(ResidentGrid, EveryPeOnTheGpuFitsAndOneMoreBlockDoesNot) {
  EXPECT_EQ(residentGrid(132, 2, 1), 264);  // one PE per GPU: the whole GPU
  EXPECT_EQ(residentGrid(132, 2, 2), 132);
  EXPECT_EQ(residentGrid(132, 1, 2), 66);
  EXPECT_EQ(residentGrid(132, 2, 4), 66);
  EXPECT_EQ(residentGrid(304, 1, 8), 38);
  for (int sms : {1, 7, 80, 132, 304})
    for (int perSm : {1, 2, 3, 4, 32})
      for (int pes = 1; pes <= 600; pes += pes < 16 ? 1 : 37) {
        const int grid = residentGrid(sms, perSm, pes);
        EXPECT_LE(static_cast<long>(grid) * pes, static_cast<long>(sms) * perSm) << sms << " SMs, " << pes << " PEs";
        EXPECT_GT(static_cast<long>(grid + 1) * pes, static_cast<long>(sms) * perSm)
            << sms << " SMs, " << pes << " PEs";
      }
}

TEST(ResidentGrid, NothingKnownOrNothingFitsIsZero) {
  EXPECT_EQ(residentGrid(0, 2, 1), 0);
  EXPECT_EQ(residentGrid(132, 0, 1), 0);  // the kernel does not fit a multiprocessor
  EXPECT_EQ(residentGrid(132, 2, 0), 0);
  EXPECT_EQ(residentGrid(-1, 2, 1), 0);
  EXPECT_EQ(residentGrid(132, 1, 200), 0);  // more PEs than blocks
}

TEST(CollectiveGrid, ZeroGridRunsTheLargest) {
  mori_shmem_dim3_t out{7, 7, 7};
  uint64_t blocks = 0;
  ASSERT_TRUE(collectiveGrid({0, 0, 0}, 66, &out, &blocks));
  EXPECT_EQ(out.x, 66u);
  EXPECT_EQ(out.y, 1u);
  EXPECT_EQ(out.z, 1u);
  EXPECT_EQ(blocks, 66u);
  // dim3(0) is {0, 1, 1}: the largest too, and so is {0, 1, 0}.
  for (mori_shmem_dim3_t zero : {mori_shmem_dim3_t{0, 1, 1}, mori_shmem_dim3_t{0, 1, 0}, mori_shmem_dim3_t{0, 0, 1}}) {
    out = {7, 7, 7};
    ASSERT_TRUE(collectiveGrid(zero, 66, &out, &blocks));
    EXPECT_EQ(out.x, 66u);
    EXPECT_EQ(out.y, 1u);
    EXPECT_EQ(out.z, 1u);
  }
  // Nothing fits: refused, *out untouched.
  out = {7, 7, 7};
  EXPECT_FALSE(collectiveGrid({0, 0, 0}, 0, &out, &blocks));
  EXPECT_EQ(out.x, 7u);
  EXPECT_EQ(blocks, 0u);
}

TEST(CollectiveGrid, AnyShapeUpToTheLimitRunsAsAsked) {
  std::mt19937 rng(20261204);
  for (int i = 0; i < 2000; ++i) {
    const int limit = 1 + static_cast<int>(rng() % 600);
    const auto pick = [&](unsigned int n) { return 1 + static_cast<unsigned int>(rng() % n); };
    const mori_shmem_dim3_t asked{pick(40), pick(8), pick(4)};
    const uint64_t want = static_cast<uint64_t>(asked.x) * asked.y * asked.z;
    mori_shmem_dim3_t out{0, 0, 0};
    uint64_t blocks = 0;
    const bool ok = collectiveGrid(asked, limit, &out, &blocks);
    EXPECT_EQ(blocks, want);
    EXPECT_EQ(ok, want <= static_cast<uint64_t>(limit))
        << asked.x << "x" << asked.y << "x" << asked.z << " of " << limit;
    if (ok) {
      EXPECT_EQ(out.x, asked.x);
      EXPECT_EQ(out.y, asked.y);
      EXPECT_EQ(out.z, asked.z);
    } else {
      EXPECT_EQ(out.x, 0u);  // untouched
    }
  }
}

TEST(CollectiveGrid, BadShapesAreRefused) {
  mori_shmem_dim3_t out{0, 0, 0};
  uint64_t blocks = 1;
  EXPECT_FALSE(collectiveGrid({0, 4, 1}, 264, &out, &blocks));  // x 0 with y 4: no grid of 0
  EXPECT_FALSE(collectiveGrid({0, 1, 2}, 264, &out, &blocks));
  EXPECT_EQ(blocks, 0u);
  EXPECT_FALSE(collectiveGrid({4, 1, 0}, 264, &out, &blocks));
  EXPECT_FALSE(collectiveGrid({265, 1, 1}, 264, &out, &blocks));  // one block too many
  EXPECT_EQ(blocks, 265u);
  EXPECT_TRUE(collectiveGrid({264, 1, 1}, 264, &out, &blocks));
  // 2^32 x 2^32 x 2^32 would wrap to 0 in 64 bits: saturated, refused.
  EXPECT_FALSE(collectiveGrid({0xffffffffu, 0xffffffffu, 0xffffffffu}, 264, &out, &blocks));
  EXPECT_EQ(blocks, UINT64_MAX);
  EXPECT_FALSE(collectiveGrid({65536, 65536, 1}, 264, &out, &blocks));
  EXPECT_FALSE(collectiveGrid({1, 1, 1}, 0, &out, &blocks));  // nothing fits
}

}  // namespace
}  // namespace mori::shmem
