// The same-host shared-memory bootstrap (application/bootstrap/shm_bootstrap.hpp) over the
// unique-ID socket bootstrap: the full collective contract byte for byte (payloads past the
// segment go through the wrapped bootstrap), a PE that calls another collective or none fails
// every PE with the PEs named and never hangs, a PE that gave up stops the others' wait, a dead
// PE is named through the wrapped bootstrap's connections, the
// symmetric check of malloc/free through it catches a PE allocating out of order, and the
// latency of a 40-byte allGather (the symmetric check) over TCP and through the segment is
// printed. The ID is shared with MPI, as an application would.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdio.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/shm_bootstrap.hpp"
#include "application/memory/heap_allocator.hpp"
#include "application/memory/symmetric_check.hpp"
#include "tests/host/bootstrap/bootstrap_test_util.hpp"
#include "tests/support/test_env.hpp"

MORI_TEST_REQUIRES_PES(2);

using namespace mori;
using mori::test::PeSync;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::unique_ptr<bootstrap::Bootstrap> makeTcp(double timeoutS) {
  env::Config cfg = test::bootstrapConfig(timeoutS);
  mori_shmem_uniqueid_t uid = test::sharedUid(cfg);
  std::unique_ptr<bootstrap::Bootstrap> b;
  EXPECT_EQ(bootstrap::createUniqueId(test::worldRank(), test::worldSize(), uid, cfg, &b), Status::Success);
  return b;
}

// The test runs every PE on this host (mpirun on one machine), so the segment is always used.
std::unique_ptr<bootstrap::Bootstrap> makeShm(double timeoutS) {
  std::unique_ptr<bootstrap::Bootstrap> b = makeTcp(timeoutS);
  if (!b) return b;
  EXPECT_EQ(bootstrap::attachSharedMemory(timeoutS, &b), Status::Success);
  EXPECT_NE(std::string(b->name()).find("+shm"), std::string::npos) << b->name();
  return b;
}

TEST(ShmBootstrap, KeepsTheCollectiveContract) {
  auto b = makeShm(30);
  PeSync sync;  // before b goes: a PE that is done first must not read as failed to the others
  ASSERT_TRUE(b);
  EXPECT_EQ(b->rank(), test::worldRank());
  EXPECT_EQ(b->size(), test::worldSize());
  test::checkLocalRanks(*b, MPI_COMM_WORLD);
  test::checkCollectives(*b, 0x5eed5001);
  // Sizes around the segment's limit: the largest in-segment payload and the first delegated one.
  for (size_t bytes : {bootstrap::kSlotPayload, bootstrap::kSlotPayload + 1}) {
    std::vector<uint8_t> in(bytes), out(bytes * b->size());
    test::fillPayload(in.data(), bytes, 77, b->rank(), bytes);
    ASSERT_EQ(b->allGather(in.data(), out.data(), bytes), Status::Success);
    for (int pe = 0; pe < b->size(); ++pe)
      EXPECT_EQ(test::firstMismatch(out.data() + pe * bytes, bytes, 77, pe, bytes), -1) << "from PE " << pe;
  }
  EXPECT_EQ(b->failedPe(), -1);
}

TEST(ShmBootstrap, MismatchFailsEveryPeNamingBothCalls) {
  PeSync sync;
  auto b = makeShm(30);
  ASSERT_TRUE(b);
  testing::internal::CaptureStderr();
  const auto t0 = Clock::now();
  uint64_t word = 1;
  std::vector<uint64_t> all(b->size());
  const Status s = b->rank() == 0 ? b->barrier() : b->allGather(&word, all.data(), sizeof(word));
  const double took = secondsSince(t0);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s, Status::InvalidUsage);
  EXPECT_LT(took, 5.0) << "a mismatch is seen when the headers meet, not at the 30 s timeout";
  EXPECT_NE(err.find("collective mismatch"), std::string::npos) << err;
  EXPECT_NE(err.find("barrier #"), std::string::npos) << err;
  EXPECT_NE(err.find("allGather #"), std::string::npos) << err;
  // A failed bootstrap refuses every later collective.
  testing::internal::CaptureStderr();
  EXPECT_EQ(b->barrier(), Status::InvalidUsage);
  const std::string later = testing::internal::GetCapturedStderr();
  EXPECT_NE(later.find("failed earlier"), std::string::npos) << later;
}

TEST(ShmBootstrap, MissingPeTimesOutNamingItAndReleasesTheOthers) {
  const int last = test::worldSize() - 1;
  // PE 0 has a short timeout; the others a long one: they must be released by PE 0's giving up
  // (its slot's failed mark), not by their own timeout.
  const double timeoutS = test::worldRank() == 0 ? 1.0 : 60.0;
  auto b = makeShm(timeoutS);
  PeSync sync;  // before b goes: the missing PE's connection stays open (else it reads as a crash)
  ASSERT_TRUE(b);
  if (b->rank() == last) return;  // never arrives
  testing::internal::CaptureStderr();
  const auto t0 = Clock::now();
  const Status s = b->barrier();
  const double took = secondsSince(t0);
  const std::string err = testing::internal::GetCapturedStderr();
  if (b->rank() == 0) {
    EXPECT_EQ(s, Status::Timeout);
    EXPECT_NE(err.find("PE " + std::to_string(last) + " did not arrive"), std::string::npos) << err;
  } else {
    EXPECT_EQ(s, Status::Remote);
    // PE 0 first; with more PEs, others that saw it give up may be named too.
    EXPECT_TRUE(err.find("PE 0 gave up") != std::string::npos || err.find("PEs 0, ") != std::string::npos) << err;
  }
  EXPECT_LT(took, 20.0);
}

TEST(ShmBootstrap, DeadPeIsNamedThroughTheWrappedBootstrap) {
  const int last = test::worldSize() - 1;
  auto b = makeShm(60);
  PeSync sync;
  ASSERT_TRUE(b);
  if (b->rank() == last) {
    b.reset();  // as a crash would: its sockets close, its slot never fills
    return;
  }
  testing::internal::CaptureStderr();
  const auto t0 = Clock::now();
  EXPECT_EQ(b->barrier(), Status::Remote);
  const double took = secondsSince(t0);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_LT(took, 10.0) << "found through the connection, not the 60 s timeout";
  EXPECT_NE(err.find("PE " + std::to_string(last)), std::string::npos) << err;
}

// The symmetric check every mori_shmem_malloc/free makes, through the segment: a PE allocating
// out of order fails every PE with both requests named; matching calls pass.
TEST(ShmBootstrap, SymmetricCheckCatchesOutOfOrderAllocation) {
  PeSync sync;
  auto b = makeShm(30);
  ASSERT_TRUE(b);
  memory::HeapAllocator heap(1 << 20);
  memory::SymmetricCallChecker c(*b);
  uint64_t off = 0;
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(c.allocate("malloc", memory::SymmetricOp::Malloc, heap, 4096, 256, true, &off), Status::Success);
    ASSERT_EQ(c.check("free", memory::SymmetricOp::Free, off, 0), Status::Success);
    heap.release(off);
  }
  // The last PE allocates 8192 first where the others allocate 4096.
  const uint64_t size = b->rank() == b->size() - 1 ? 8192 : 4096;
  testing::internal::CaptureStderr();
  const auto t0 = Clock::now();
  EXPECT_EQ(c.allocate("malloc", memory::SymmetricOp::Malloc, heap, size, 256, true, &off), Status::Remote);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_LT(secondsSince(t0), 5.0);
  EXPECT_NE(err.find("differs between PEs"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(4096, 256)"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(8192, 256)"), std::string::npos) << err;
  EXPECT_EQ(heap.freeBytes(), heap.capacity()) << "a failed allocation leaves the heap as it was";
}

// Latency of the symmetric check's allGather (40 bytes) over TCP and through the segment; printed
// for the record, not asserted (CI's CPUs are shared).
TEST(ShmBootstrap, AllGatherLatency) {
  PeSync sync;
  auto tcp = makeTcp(30);
  auto shm = makeShm(30);
  ASSERT_TRUE(tcp && shm);
  const int iters = 500;
  uint8_t in[40] = {};
  std::vector<uint8_t> out(40 * tcp->size());
  double us[2] = {0, 0};
  bootstrap::Bootstrap* boots[2] = {tcp.get(), shm.get()};
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(boots[k]->barrier(), Status::Success);
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) ASSERT_EQ(boots[k]->allGather(in, out.data(), sizeof(in)), Status::Success);
    us[k] = secondsSince(t0) / iters * 1e6;
  }
  if (test::worldRank() == 0)
    printf("[ latency  ] 40-byte allGather, %d PEs: %.1f us over TCP (%s), %.1f us through shared memory\n",
           tcp->size(), us[0], tcp->name(), us[1]);
}

}  // namespace
