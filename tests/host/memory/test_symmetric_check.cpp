// The collective symmetry check of malloc/free/register (CPU, over the MPI bootstrap): matching
// calls pass; a PE asking a different size fails every PE with both requests named; a PE that
// rejected the call locally fails every PE; the sequence number catches a skipped call; calloc
// and malloc differ; out-of-heap is decided collectively; heap sizes are compared at init.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "application/memory/heap_allocator.hpp"
#include "application/memory/symmetric_check.hpp"
#include "tests/support/test_env.hpp"

MORI_TEST_REQUIRES_PES(2);

using namespace mori;
using memory::SymmetricCallChecker;
using memory::SymmetricOp;

namespace {

std::unique_ptr<bootstrap::Bootstrap> makeBoot() {
  env::Config cfg;
  EXPECT_EQ(env::load(&cfg), Status::Success);
  std::unique_ptr<bootstrap::Bootstrap> b;
  EXPECT_EQ(bootstrap::createMpi(nullptr, cfg, &b), Status::Success);
  return b;
}

TEST(SymmetricCheck, MatchingCallsPass) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(c.check("malloc", SymmetricOp::Malloc, 1000 + i, 256), Status::Success);
  EXPECT_EQ(c.check("free", SymmetricOp::Free, 4096, 0), Status::Success);
  EXPECT_EQ(c.calls(), 101u);
}

TEST(SymmetricCheck, MismatchedSizeFailsEverywhereNamingBoth) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  const uint64_t mine = boot->rank() == 1 ? 2048 : 1024;
  testing::internal::CaptureStderr();
  EXPECT_EQ(c.check("malloc", SymmetricOp::Malloc, mine, 256), Status::Remote);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("differs between PEs"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(1024, 256)"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(2048, 256)"), std::string::npos) << err;
}

TEST(SymmetricCheck, DifferentOperationOrSkippedCallFails) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  testing::internal::CaptureStderr();
  const SymmetricOp op = boot->rank() == 0 ? SymmetricOp::Free : SymmetricOp::Malloc;
  EXPECT_EQ(c.check("free", op, 64, 0), Status::Remote);
  // PE 0 has made one more symmetric call than the others (it uses `c`, they a fresh checker):
  // the sequence numbers differ and every PE fails.
  SymmetricCallChecker fresh(*boot);
  SymmetricCallChecker& mine = boot->rank() == 0 ? c : fresh;
  EXPECT_EQ(mine.check("malloc", SymmetricOp::Malloc, 64, 256), Status::Remote);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("symmetric call #"), std::string::npos) << err;
}

TEST(SymmetricCheck, LocalRejectionFailsEveryPe) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  const bool ok = boot->rank() != boot->size() - 1;
  testing::internal::CaptureStderr();
  const Status s = c.check("register", SymmetricOp::Register, 4096, 0, ok);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s, ok ? Status::Remote : Status::InvalidUsage);
  if (ok) {
    EXPECT_NE(err.find("failed on PE " + std::to_string(boot->size() - 1)), std::string::npos) << err;
  }
}

// Regression: calloc on one PE and malloc of the same size on another passed the check and the
// job failed later at finalize with a misleading message.
TEST(SymmetricCheck, CallocAndMallocAreDistinct) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  memory::HeapAllocator heap(1 << 20);
  const SymmetricOp op = boot->rank() == 0 ? SymmetricOp::Calloc : SymmetricOp::Malloc;
  uint64_t off = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(c.allocate(boot->rank() == 0 ? "calloc" : "malloc", op, heap, 4096, 256, true, &off), Status::Remote);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("calloc(4096, 256)"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(4096, 256)"), std::string::npos) << err;
  EXPECT_EQ(heap.liveBlocks(), 0u) << "nothing stays allocated after a failed check";
}

// Regression: with heaps of 512M and 256M, malloc(384M) returned a pointer on PE 0 and NULL on
// PE 1, and the next allocation's offsets differed. Now: NULL on every PE, heaps unchanged, and
// the next allocations agree.
TEST(SymmetricCheck, OutOfHeapOnAnyPeIsNullOnEveryPe) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  const int small = boot->size() - 1;
  memory::HeapAllocator heap(boot->rank() == small ? (256u << 20) : (512u << 20));
  uint64_t first = 0;
  ASSERT_EQ(c.allocate("malloc", SymmetricOp::Malloc, heap, 4096, 256, true, &first), Status::Success);
  const uint64_t freeBefore = heap.freeBytes();
  uint64_t off = 12345;
  testing::internal::CaptureStderr();
  EXPECT_EQ(c.allocate("malloc", SymmetricOp::Malloc, heap, 384u << 20, 256, true, &off), Status::OutOfMemory);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(off, 0u);
  EXPECT_EQ(heap.freeBytes(), freeBefore) << "the PEs that could allocate gave the block back";
  EXPECT_EQ(heap.liveBlocks(), 1u);
  EXPECT_NE(err.find("PE " + std::to_string(small) + " could not satisfy it"), std::string::npos) << err;
  EXPECT_NE(err.find("NULL on every PE"), std::string::npos) << err;
  // Random sizes afterwards: the same offsets everywhere (allocate() checks them).
  std::vector<uint64_t> live;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 64; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t size = 1 + (seed >> 40) % (1 << 20);
    uint64_t o = 0;
    ASSERT_EQ(c.allocate("malloc", SymmetricOp::Malloc, heap, size, 256, true, &o), Status::Success) << i;
    live.push_back(o);
    if (i % 3 == 2) {
      ASSERT_EQ(c.check("free", SymmetricOp::Free, live.front(), 0), Status::Success);
      ASSERT_TRUE(heap.release(live.front()));
      live.erase(live.begin());
    }
  }
  std::vector<uint64_t> all(static_cast<size_t>(boot->size()) * live.size());
  ASSERT_EQ(boot->allGather(live.data(), all.data(), live.size() * sizeof(uint64_t)), Status::Success);
  for (int pe = 0; pe < boot->size(); ++pe)
    for (size_t i = 0; i < live.size(); ++i) EXPECT_EQ(all[pe * live.size() + i], live[i]) << "PE " << pe << " #" << i;
}

TEST(SymmetricCheck, ZeroSizeAndBadAlignment) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  memory::HeapAllocator heap(1 << 20);
  uint64_t off = 7;
  EXPECT_EQ(c.allocate("malloc", SymmetricOp::Malloc, heap, 0, 256, true, &off), Status::Success);
  EXPECT_EQ(off, 0u);
  // One PE rejected the alignment: every PE fails, none allocates.
  const bool argsOk = boot->rank() != 0;
  testing::internal::CaptureStderr();
  const Status s = c.allocate("malloc", SymmetricOp::Malloc, heap, 4096, 256, argsOk, &off);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(s, argsOk ? Status::Remote : Status::InvalidUsage);
  EXPECT_EQ(heap.liveBlocks(), 0u);
}

// Regression: PEs started with MORI_SHMEM_HEAP_SIZE=512M and 256M were never told.
TEST(SymmetricCheck, HeapSizesAreComparedNamingEachPe) {
  auto boot = makeBoot();
  EXPECT_EQ(memory::checkSameHeapSize(*boot, 256u << 20), Status::Success);
  const uint64_t mine = boot->rank() == 1 ? (256u << 20) : (512u << 20);
  testing::internal::CaptureStderr();
  EXPECT_EQ(memory::checkSameHeapSize(*boot, mine), Status::InvalidUsage);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("MORI_SHMEM_HEAP_SIZE differs between PEs (PE 0: 536870912 bytes, PE 1: 268435456 bytes"),
            std::string::npos)
      << err;
}

}  // namespace
