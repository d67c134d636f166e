// What only the MPI bootstrap (plugin libmori_shmem_bootstrap_mpi.so) does: the plugin loads,
// sub-communicators, messages split beyond the plugin's limit, auto under mpirun, a timed-out
// communicator duplicate. The contract every bootstrap keeps is test_bootstrap_typed.cpp.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>

#include <chrono>
#include <thread>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/mpi_bootstrap_loader.hpp"
#include "tests/host/bootstrap/bootstrap_test_util.hpp"
#include "tests/support/test_env.hpp"

using namespace mori;
using mori::test::PeSync;

namespace {

std::unique_ptr<bootstrap::Bootstrap> makeWorld(double timeoutS) {
  env::Config cfg = test::bootstrapConfig(timeoutS);
  std::unique_ptr<bootstrap::Bootstrap> b;
  MPI_Comm world = MPI_COMM_WORLD;
  EXPECT_EQ(bootstrap::createMpi(&world, cfg, &b), Status::Success);
  return b;
}

}  // namespace

TEST(BootstrapMpi, PluginLoads) {
  PeSync sync;
  std::string why;
  ASSERT_TRUE(bootstrap::loadMpiPlugin(&why)) << why;
  EXPECT_NE(bootstrap::mpiPluginPath().find("libmori_shmem_bootstrap_mpi.so"), std::string::npos);
}

TEST(BootstrapMpi, SplitMessagesBeyondTheLimit) {
  PeSync sync;
  // 1000-byte messages: the > INT_MAX paths (chunked broadcasts, pairwise all-to-all) with
  // payloads that fit in a test.
  bootstrap::setMpiMessageLimitForTesting(1000);
  auto b = makeWorld(30);
  bootstrap::setMpiMessageLimitForTesting(0);
  ASSERT_TRUE(b);
  test::checkCollectives(*b, 0x5eed0002);
}

TEST(BootstrapMpi, SubCommunicator) {
  PeSync sync;
  const int me = test::worldRank();
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  int hr = -1, hs = 0;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  {
    env::Config cfg = test::bootstrapConfig(30);
    std::unique_ptr<bootstrap::Bootstrap> b;
    ASSERT_EQ(bootstrap::createMpi(&half, cfg, &b), Status::Success);
    EXPECT_EQ(b->rank(), hr);
    EXPECT_EQ(b->size(), hs);
    test::checkCollectives(*b, 0x5eed0003 + me % 2);
    test::checkLocalRanks(*b, half);
  }
  MPI_Comm_free(&half);
}

TEST(BootstrapMpi, DefaultAutoPicksMpiUnderMpirun) {
  PeSync sync;
  ASSERT_TRUE(bootstrap::launchedByMpiLauncher()) << "ctest runs this suite under mpirun";
  test::ScopedEnv mode("MORI_SHMEM_BOOTSTRAP", "auto");
  env::Config cfg = test::bootstrapConfig(30);
  std::unique_ptr<bootstrap::Bootstrap> b;
  ASSERT_EQ(bootstrap::createDefault(cfg, &b), Status::Success);
  EXPECT_STREQ(b->name(), "mpi");
  EXPECT_EQ(b->size(), test::worldSize());
  int mine = b->rank() * 7 + 1;
  std::vector<int> all(b->size());
  ASSERT_EQ(b->allGather(&mine, all.data(), sizeof(int)), Status::Success);
  for (int r = 0; r < b->size(); ++r) EXPECT_EQ(all[r], r * 7 + 1);
}

// Regression (issue 20): when duplicating the communicator timed out, MPI later completed the
// duplicate into a stack slot of the returned function (SIGSEGV at exit under mpirun). The PE
// that was late now joins the duplicate; the others' abandoned request completes into memory
// that stays valid, and everything after works.
TEST(BootstrapMpi, TimedOutDuplicateLeavesNoDanglingWrite) {
  PeSync sync;
  const int me = test::worldRank(), late = test::worldSize() - 1;
  if (me != late) {
    env::Config cfg = test::bootstrapConfig(0.5);
    std::unique_ptr<bootstrap::Bootstrap> b;
    testing::internal::CaptureStderr();
    EXPECT_EQ(bootstrap::createMpi(nullptr, cfg, &b), Status::Timeout);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("duplicating MPI_COMM_WORLD did not complete within 0.5 s"), std::string::npos) << err;
    EXPECT_FALSE(b);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    MPI_Comm dup = MPI_COMM_NULL;  // matches the others' abandoned MPI_Comm_idup
    ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    MPI_Comm_free(&dup);
  }
  // Deep stack use over the slot the old code left behind, then a working bootstrap.
  volatile char scratch[64 * 1024];
  for (size_t i = 0; i < sizeof(scratch); i += 512) scratch[i] = static_cast<char>(i);
  MPI_Barrier(MPI_COMM_WORLD);
  auto b = makeWorld(30);
  ASSERT_TRUE(b);
  test::checkCollectives(*b, 0x5eed0009);
}
