// Symmetric heap allocator properties over random request sequences: blocks never overlap and
// stay inside the heap, alignment and granule honoured, freeing everything coalesces back to
// one block, exhaustion is reported (not a wrong pointer), the same sequence gives the same
// offsets (what makes allocations symmetric).
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <vector>

#include "application/memory/heap_allocator.hpp"

using mori::memory::HeapAllocator;

namespace {

std::vector<uint64_t> runSequence(uint64_t seed, HeapAllocator& a, bool checkInvariants) {
  std::mt19937_64 rng(seed);
  std::map<uint64_t, uint64_t> live;  // offset -> requested size
  std::vector<uint64_t> offsets;
  for (int i = 0; i < 4000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      EXPECT_TRUE(a.release(it->first));
      live.erase(it);
      continue;
    }
    const uint64_t size = 1 + rng() % (rng() % 8 == 0 ? (1u << 20) : 4096);
    const uint64_t align = uint64_t{1} << (rng() % 14);
    uint64_t off = 0;
    if (!a.allocate(size, align, &off)) {
      EXPECT_LT(a.largestFreeBlock(), size + align) << "refused although a block could fit";
      offsets.push_back(~0ull);
      continue;
    }
    offsets.push_back(off);
    if (checkInvariants) {
      EXPECT_EQ(off % align, 0u);
      EXPECT_EQ(off % HeapAllocator::kGranule, 0u);
      EXPECT_LE(off + size, a.capacity());
      EXPECT_GE(a.blockSize(off), size);
      auto next = live.lower_bound(off);
      if (next != live.end()) {
        EXPECT_LE(off + size, next->first) << "overlaps the next block";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        EXPECT_LE(prev->first + a.blockSize(prev->first), off) << "overlaps the previous block";
      }
    }
    live[off] = size;
  }
  for (const auto& block : live) {
    EXPECT_TRUE(a.release(block.first));
  }
  return offsets;
}

TEST(HeapAllocator, RandomSequencesKeepInvariants) {
  for (uint64_t seed : {1ull, 2ull, 3ull, 99ull}) {
    HeapAllocator a(64ull << 20);
    runSequence(seed, a, true);
    EXPECT_EQ(a.freeBytes(), a.capacity()) << "seed " << seed;
    EXPECT_EQ(a.largestFreeBlock(), a.capacity()) << "free blocks did not coalesce, seed " << seed;
    EXPECT_EQ(a.liveBlocks(), 0u);
  }
}

TEST(HeapAllocator, SameSequenceSameOffsets) {
  HeapAllocator a(32ull << 20), b(32ull << 20);
  EXPECT_EQ(runSequence(7, a, false), runSequence(7, b, false));
}

TEST(HeapAllocator, ExhaustionAndBadRequests) {
  HeapAllocator a(1 << 20);
  uint64_t off = 0;
  EXPECT_FALSE(a.allocate(2 << 20, 256, &off));
  EXPECT_FALSE(a.allocate(0, 256, &off));
  EXPECT_FALSE(a.allocate(16, 3, &off)) << "alignment not a power of two";
  ASSERT_TRUE(a.allocate((1 << 20) - 256, 256, &off));
  EXPECT_EQ(a.freeBytes(), 256u);
  EXPECT_FALSE(a.allocate(512, 256, &off));
  EXPECT_FALSE(a.release(12345)) << "not a block start";
  EXPECT_FALSE(a.release(off + 256));
}

TEST(HeapAllocator, BestFitReusesTheTightestHole) {
  HeapAllocator a(1 << 20);
  uint64_t x, y, z, w, v;
  ASSERT_TRUE(a.allocate(4096, 256, &x));
  ASSERT_TRUE(a.allocate(1024, 256, &y));
  ASSERT_TRUE(a.allocate(4096, 256, &z));
  ASSERT_TRUE(a.allocate(256, 256, &w));
  ASSERT_TRUE(a.release(x));  // 4 KiB hole
  ASSERT_TRUE(a.release(z));  // another 4 KiB hole
  ASSERT_TRUE(a.allocate(4096, 256, &v));
  EXPECT_TRUE(v == x || v == z) << "an exact hole must be reused before the tail";
  (void)y;
  (void)w;
}

}  // namespace
