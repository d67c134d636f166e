// Issue 20's symmetry rows through the public API (needs GPUs: mori_shmem_init allocates the
// heap): PEs started with different MORI_SHMEM_HEAP_SIZE, transport settings (MORI_SHMEM_NUM_QP_PER_PE
// among them) or MORI_SHMEM_COLLECTIVE_ENTRY fail init on every PE naming each;
// an allocation one PE cannot satisfy is NULL on every PE and leaves the heaps identical; calloc
// against malloc fails at the call. The collective logic is tested on the CPU in
// tests/host/memory/test_symmetric_check.cpp.
#include <stdlib.h>

#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 2);  // host logic only: PEs may share a GPU

namespace {

using mori::test::worldRank;
using mori::test::worldSize;

// Offset of p in this PE's heap, gathered from every PE: all equal for a symmetric allocation.
bool sameOffsetEverywhere(const void* p, const void* base) {
  const long long mine = static_cast<const char*>(p) - static_cast<const char*>(base);
  std::vector<long long> all(worldSize());
  MPI_Allgather(&mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  for (long long o : all)
    if (o != mine) return false;
  return true;
}

TEST(SymmetryFaults, HeapSizeMismatchFailsInitOnEveryPe) {
  setenv("MORI_SHMEM_HEAP_SIZE", worldRank() == 1 ? "256M" : "512M", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(mori_shmem_init(), MORI_SHMEM_ERROR_INVALID_USAGE);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("MORI_SHMEM_HEAP_SIZE differs between PEs (PE 0: 536870912 bytes, PE 1: 268435456 bytes"),
            std::string::npos)
      << err;
  EXPECT_EQ(mori_shmem_initialized(), 0);
  setenv("MORI_SHMEM_HEAP_SIZE", "256M", 1);
}

// Each PE builds the whole transport table from its own settings: PEs that differ fail init on
// every PE, naming both settings (the collectives rely on the table's symmetry).
TEST(SymmetryFaults, TransportSettingsMismatchFailsInitOnEveryPe) {
  setenv("MORI_SHMEM_HEAP_SIZE", "256M", 1);
  if (worldRank() == 1) setenv("MORI_SHMEM_DISABLE_P2P", "1", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(mori_shmem_init(), MORI_SHMEM_ERROR_INVALID_USAGE);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("the transport settings differ between PEs: PE 0 has MORI_SHMEM_DISABLE_P2P=0"), std::string::npos)
      << err;
  EXPECT_NE(err.find("PE 1 has MORI_SHMEM_DISABLE_P2P=1"), std::string::npos) << err;
  EXPECT_EQ(mori_shmem_initialized(), 0);
  unsetenv("MORI_SHMEM_DISABLE_P2P");
}

// Every PE connects QP q of each RDMA peer to that peer's QP q: the counts must agree, whether or
// not any pair takes RDMA (the message names the setting, not the endpoint exchange it breaks).
TEST(SymmetryFaults, QpPerPeMismatchFailsInitOnEveryPe) {
  setenv("MORI_SHMEM_HEAP_SIZE", "256M", 1);
  setenv("MORI_SHMEM_NUM_QP_PER_PE", worldRank() == worldSize() - 1 ? "4" : "2", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(mori_shmem_init(), MORI_SHMEM_ERROR_INVALID_USAGE);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("the transport settings differ between PEs: PE 0 has"), std::string::npos) << err;
  EXPECT_NE(err.find("MORI_SHMEM_NUM_QP_PER_PE=2, PE " + std::to_string(worldSize() - 1) + " has"), std::string::npos)
      << err;
  EXPECT_NE(err.find("MORI_SHMEM_NUM_QP_PER_PE=4; every PE must set them alike"), std::string::npos) << err;
  EXPECT_EQ(mori_shmem_initialized(), 0);
  unsetenv("MORI_SHMEM_NUM_QP_PER_PE");
}

// A push of a PE that waits for every member's entry would wait for ever for a PE that skips it.
TEST(SymmetryFaults, CollectiveEntryMismatchFailsInitOnEveryPe) {
  setenv("MORI_SHMEM_HEAP_SIZE", "256M", 1);
  if (worldRank() == worldSize() - 1) setenv("MORI_SHMEM_COLLECTIVE_ENTRY", "caller", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(mori_shmem_init(), MORI_SHMEM_ERROR_INVALID_USAGE);
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string says = "MORI_SHMEM_COLLECTIVE_ENTRY differs between PEs: PE 0 has wait, PE " +
                           std::to_string(worldSize() - 1) + " has caller";
  EXPECT_NE(err.find(says), std::string::npos) << err;
  EXPECT_EQ(mori_shmem_initialized(), 0);
  unsetenv("MORI_SHMEM_COLLECTIVE_ENTRY");
}

TEST(SymmetryFaults, OutOfHeapIsNullOnEveryPeAndHeapsStayIdentical) {
  setenv("MORI_SHMEM_HEAP_SIZE", "256M", 1);
  ASSERT_EQ(mori_shmem_init(), 0);
  void* first = mori_shmem_malloc(4096);
  ASSERT_NE(first, nullptr);
  testing::internal::CaptureStderr();
  void* big = mori_shmem_malloc(size_t{300} << 20);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(big, nullptr);
  EXPECT_NE(err.find("NULL on every PE"), std::string::npos) << err;
  // Allocations afterwards are symmetric: the same offset on every PE.
  for (size_t size : {size_t{1} << 20, size_t{3000}, size_t{64} << 20}) {
    void* p = mori_shmem_malloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(sameOffsetEverywhere(p, first)) << size;
  }
  EXPECT_EQ(mori_shmem_barrier_all(), 0);
  EXPECT_EQ(mori_shmem_finalize(), 0);
}

TEST(SymmetryFaults, CallocAgainstMallocFailsAtTheCall) {
  ASSERT_EQ(mori_shmem_init(), 0);
  testing::internal::CaptureStderr();
  void* p = worldRank() == 0 ? mori_shmem_calloc(1, 4096) : mori_shmem_malloc(4096);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(err.find("calloc(4096, 256)"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(4096, 256)"), std::string::npos) << err;
  EXPECT_EQ(mori_shmem_finalize(), 0);
}

}  // namespace
