// The launcher-environment socket bootstrap (torchrun / SLURM / Open MPI variables, MASTER_ADDR,
// MASTER_PORT + 1 or MORI_SHMEM_BOOTSTRAP_PORT, given or derived secret): collectives byte for
// byte, local ranks, re-creation on the same port, a PE with the wrong secret, and every bad
// environment named in its error. The port is chosen by PE 0 and shared with MPI_Bcast.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/mpi_bootstrap_loader.hpp"
#include "src/common/log.hpp"
#include "tests/host/bootstrap/bootstrap_test_util.hpp"
#include "tests/support/test_env.hpp"

using namespace mori;
using mori::test::PeSync;
using mori::test::ScopedEnv;

namespace {

// torchrun's variables for this PE; the bootstrap listens on `port` (= MASTER_PORT + 1).
struct TorchrunEnv {
  explicit TorchrunEnv(int port, const char* addr = "127.0.0.1")
      : rank_("RANK", std::to_string(test::worldRank()).c_str()),
        size_("WORLD_SIZE", std::to_string(test::worldSize()).c_str()),
        addr_("MASTER_ADDR", addr),
        port_("MASTER_PORT", std::to_string(port - 1).c_str()),
        boot_("MORI_SHMEM_BOOTSTRAP_PORT", nullptr),
        secret_("MORI_SHMEM_BOOTSTRAP_SECRET", nullptr) {}
  ScopedEnv rank_, size_, addr_, port_, boot_, secret_;
};

std::unique_ptr<bootstrap::Bootstrap> makeEnv(double timeoutS) {
  env::Config cfg = test::bootstrapConfig(timeoutS);
  std::unique_ptr<bootstrap::Bootstrap> b;
  EXPECT_EQ(bootstrap::createFromLauncherEnv(cfg, &b), Status::Success);
  return b;
}

// Runs createFromLauncherEnv locally (no peer is contacted before the check fails) and returns
// its status and log.
Status failLocally(std::string* err) {
  env::Config cfg = test::bootstrapConfig(1);
  std::unique_ptr<bootstrap::Bootstrap> b;
  testing::internal::CaptureStderr();
  Status st = bootstrap::createFromLauncherEnv(cfg, &b);
  *err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(b);
  return st;
}

// A documentation address (RFC 5737) that this host does not have, or nullptr.
const char* addressOfNoLocalInterface() {
  for (const char* candidate : {"203.0.113.77", "198.51.100.77", "192.0.2.177"}) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, candidate, &a.sin_addr);
    bool local = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    close(fd);
    if (!local) return candidate;
  }
  return nullptr;
}

}  // namespace

TEST(BootstrapEnv, TorchrunVariablesCollectives) {
  PeSync sync;
  TorchrunEnv e(test::sharedFreePort());
  auto b = makeEnv(30);
  ASSERT_TRUE(b);
  EXPECT_STREQ(b->name(), "socket-env");
  EXPECT_EQ(b->rank(), test::worldRank());
  EXPECT_EQ(b->size(), test::worldSize());
  test::checkCollectives(*b, 0x5eed2001);
  test::checkLocalRanks(*b, MPI_COMM_WORLD);
}

TEST(BootstrapEnv, ExplicitPortAndSecretThroughCreateDefault) {
  PeSync sync;
  const int port = test::sharedFreePort();
  TorchrunEnv e(port + 1000 < 65000 ? port + 1000 : port);  // MASTER_PORT must not matter
  ScopedEnv boot("MORI_SHMEM_BOOTSTRAP_PORT", std::to_string(port).c_str());
  ScopedEnv secret("MORI_SHMEM_BOOTSTRAP_SECRET", "correct horse battery staple");
  ScopedEnv mode("MORI_SHMEM_BOOTSTRAP", "env");
  env::Config cfg = test::bootstrapConfig(30);
  EXPECT_EQ(cfg.bootstrapPort, port);
  std::unique_ptr<bootstrap::Bootstrap> b;
  ASSERT_EQ(bootstrap::createDefault(cfg, &b), Status::Success);
  EXPECT_STREQ(b->name(), "socket-env");
  std::vector<int> all(b->size());
  int v = 3 * b->rank();
  ASSERT_EQ(b->allGather(&v, all.data(), sizeof(v)), Status::Success);
  for (int r = 0; r < b->size(); ++r) EXPECT_EQ(all[r], 3 * r);
}

TEST(BootstrapEnv, AutoUsesTheLauncherEnvironmentWithoutAnMpiLauncher) {
  PeSync sync;
  TorchrunEnv e(test::sharedFreePort());
  // What a torchrun process sees: no MPI launcher variables.
  ScopedEnv ompi("OMPI_COMM_WORLD_SIZE", nullptr), pmi("PMI_SIZE", nullptr), pmix("PMIX_RANK", nullptr);
  ScopedEnv mode("MORI_SHMEM_BOOTSTRAP", "auto");
  ASSERT_FALSE(bootstrap::launchedByMpiLauncher());
  env::Config cfg = test::bootstrapConfig(30);
  std::unique_ptr<bootstrap::Bootstrap> b;
  ASSERT_EQ(bootstrap::createDefault(cfg, &b), Status::Success);
  EXPECT_STREQ(b->name(), "socket-env");
  EXPECT_EQ(b->rank(), test::worldRank());
  ASSERT_EQ(b->barrier(), Status::Success);
}

TEST(BootstrapEnv, MasterAddrMayBeAHostName) {
  PeSync sync;
  TorchrunEnv e(test::sharedFreePort(), "localhost");
  auto b = makeEnv(30);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->barrier(), Status::Success);
}

TEST(BootstrapEnv, OpenMpiVariablesWhenTorchrunsAreAbsent) {
  PeSync sync;
  const int port = test::sharedFreePort();
  ScopedEnv rank("RANK", nullptr), size("WORLD_SIZE", nullptr), slurm("SLURM_PROCID", nullptr),
      slurmN("SLURM_NTASKS", nullptr), addr("MASTER_ADDR", "127.0.0.1"),
      mport("MASTER_PORT", std::to_string(port - 1).c_str());
  ASSERT_NE(getenv("OMPI_COMM_WORLD_RANK"), nullptr) << "ctest runs this suite under Open MPI's mpirun";
  auto b = makeEnv(30);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->rank(), test::worldRank());
  EXPECT_EQ(b->size(), test::worldSize());
  ASSERT_EQ(b->barrier(), Status::Success);
}

TEST(BootstrapEnv, PesWaitForARootThatStartsLate) {
  PeSync sync;
  TorchrunEnv e(test::sharedFreePort());
  // Until rank 0 listens, the others' connections are refused; they retry until the deadline.
  if (test::worldRank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto b = makeEnv(20);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->barrier(), Status::Success);
}

TEST(BootstrapEnv, DestroyAndRecreateOnTheSamePort) {
  PeSync sync;
  TorchrunEnv e(test::sharedFreePort());
  for (int round = 0; round < 4; ++round) {
    auto b = makeEnv(30);
    ASSERT_TRUE(b) << "round " << round;
    long long v = round * 1000 + b->rank();
    std::vector<long long> all(b->size());
    ASSERT_EQ(b->allGather(&v, all.data(), sizeof(v)), Status::Success);
    for (int r = 0; r < b->size(); ++r) EXPECT_EQ(all[r], round * 1000 + r);
  }
}

TEST(BootstrapEnv, DerivedSecretIsLoggedAsDerived) {
  PeSync sync;
  TorchrunEnv e(test::sharedFreePort());
  ScopedEnv run("TORCHELASTIC_RUN_ID", "test-run-42");
  ScopedEnv level("MORI_SHMEM_DEBUG", "INFO");
  log::configureFromEnv();
  testing::internal::CaptureStderr();
  auto b = makeEnv(30);
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("MORI_SHMEM_DEBUG");
  setenv("MORI_SHMEM_DEBUG", "WARN", 1);
  log::configureFromEnv();
  ASSERT_TRUE(b);
  EXPECT_NE(err.find("secret derived from TORCHELASTIC_RUN_ID"), std::string::npos) << err;
  ASSERT_EQ(b->barrier(), Status::Success);
}

TEST(BootstrapEnv, LauncherLocalRankDisagreementIsWarned) {
  PeSync sync;
  TorchrunEnv e(test::sharedFreePort());
  ScopedEnv local("LOCAL_RANK", "77");
  testing::internal::CaptureStderr();
  auto b = makeEnv(30);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(b);
  EXPECT_NE(
      err.find("LOCAL_RANK=77 but the PEs sharing this host make it local rank " + std::to_string(b->localRank())),
      std::string::npos)
      << err;
}

TEST(BootstrapEnv, PeWithAnotherSecretIsRefusedAndNamed) {
  PeSync sync;
  const int me = test::worldRank(), n = test::worldSize(), odd = n - 1;
  TorchrunEnv e(test::sharedFreePort());
  ScopedEnv secret("MORI_SHMEM_BOOTSTRAP_SECRET", me == odd ? "not the job's secret" : "the job's secret");
  env::Config cfg = test::bootstrapConfig(1.5);
  std::unique_ptr<bootstrap::Bootstrap> b;
  testing::internal::CaptureStderr();
  Status st = bootstrap::createFromLauncherEnv(cfg, &b);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(b);
  if (me == odd) {
    // Told at once why, instead of waiting out its timeout.
    EXPECT_EQ(st, Status::InvalidUsage) << err;
    EXPECT_NE(err.find("wrong secret"), std::string::npos) << err;
    EXPECT_NE(err.find("MORI_SHMEM_BOOTSTRAP_SECRET"), std::string::npos) << err;
  } else {
    EXPECT_EQ(st, Status::Timeout) << err;
    EXPECT_NE(err.find("PE " + std::to_string(odd) + " did not connect within 1.5 s"), std::string::npos) << err;
  }
  if (me == 0) {
    EXPECT_NE(err.find("WARN"), std::string::npos) << err;
    EXPECT_NE(err.find("(claims PE " + std::to_string(odd) + " of " + std::to_string(n) + "): wrong secret"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("1 stranger connection(s) refused"), std::string::npos) << err;
  }
}

TEST(BootstrapEnv, BadEnvironmentIsNamed) {
  PeSync sync;
  std::string err;
  {
    {
      // Values the table constrains are refused when the environment is read.
      ScopedEnv mode("MORI_SHMEM_BOOTSTRAP", "bogus");
      env::Config cfg;
      testing::internal::CaptureStderr();
      EXPECT_EQ(env::load(&cfg), Status::InvalidUsage);
      err = testing::internal::GetCapturedStderr();
      EXPECT_NE(err.find("MORI_SHMEM_BOOTSTRAP='bogus' is not valid: expected one of auto, mpi, env"),
                std::string::npos)
          << err;
    }
    // Set in code past the table's check, createDefault still refuses it.
    env::Config cfg = test::bootstrapConfig(1);
    cfg.bootstrap = "bogus";
    std::unique_ptr<bootstrap::Bootstrap> b;
    testing::internal::CaptureStderr();
    EXPECT_EQ(bootstrap::createDefault(cfg, &b), Status::InvalidUsage);
    err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("MORI_SHMEM_BOOTSTRAP='bogus' is not one of auto, mpi, env"), std::string::npos) << err;
  }
  TorchrunEnv e(4000);
  {
    ScopedEnv addr("MASTER_ADDR", nullptr);
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("MASTER_ADDR is not set"), std::string::npos) << err;
  }
  {
    ScopedEnv size("WORLD_SIZE", nullptr);
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("RANK is set but WORLD_SIZE is not"), std::string::npos) << err;
  }
  {
    ScopedEnv rank("RANK", "first");
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("RANK='first' is not an integer"), std::string::npos) << err;
  }
  {
    ScopedEnv rank("RANK", "9999");
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("RANK=9999 is not in 0.." + std::to_string(test::worldSize() - 1) + " (WORLD_SIZE="),
              std::string::npos)
        << err;
  }
  {
    ScopedEnv port("MASTER_PORT", nullptr);
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("neither MORI_SHMEM_BOOTSTRAP_PORT nor MASTER_PORT is set"), std::string::npos) << err;
  }
  {
    ScopedEnv port("MASTER_PORT", "65535");
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("MASTER_PORT='65535' is not a TCP port"), std::string::npos) << err;
  }
  {
    ScopedEnv port("MORI_SHMEM_BOOTSTRAP_PORT", "70000");
    env::Config cfg;
    testing::internal::CaptureStderr();
    EXPECT_EQ(env::load(&cfg), Status::InvalidUsage);
    err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("MORI_SHMEM_BOOTSTRAP_PORT=70000 is not valid: expected a TCP port"), std::string::npos) << err;
  }
  {
    ScopedEnv addr("MASTER_ADDR", "no-such-host.invalid");
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("MASTER_ADDR='no-such-host.invalid' does not resolve"), std::string::npos) << err;
  }
  if (const char* foreign = addressOfNoLocalInterface()) {
    // Rank 0 must be where MASTER_ADDR points.
    ScopedEnv rank("RANK", "0");
    ScopedEnv addr("MASTER_ADDR", foreign);
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find(std::string("rank 0 cannot listen at MASTER_ADDR=") + foreign), std::string::npos) << err;
    EXPECT_NE(err.find("not one of this host's"), std::string::npos) << err;
  }
  {
    ScopedEnv rank("RANK", nullptr), size("WORLD_SIZE", nullptr), sp("SLURM_PROCID", nullptr),
        sn("SLURM_NTASKS", nullptr), orank("OMPI_COMM_WORLD_RANK", nullptr), osize("OMPI_COMM_WORLD_SIZE", nullptr);
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("no launcher environment found: set RANK and WORLD_SIZE"), std::string::npos) << err;
  }
  {
    ScopedEnv rank("RANK", nullptr), size("WORLD_SIZE", nullptr), sp("SLURM_PROCID", "0"), sn("SLURM_NTASKS", nullptr);
    EXPECT_EQ(failLocally(&err), Status::InvalidUsage);
    EXPECT_NE(err.find("SLURM_PROCID is set but SLURM_NTASKS is not"), std::string::npos) << err;
  }
}

TEST(BootstrapEnv, SinglePeNeedsNoAddress) {
  PeSync sync;
  ScopedEnv rank("RANK", "0"), size("WORLD_SIZE", "1"), addr("MASTER_ADDR", nullptr), port("MASTER_PORT", nullptr);
  auto b = makeEnv(5);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->size(), 1);
  test::checkCollectives(*b, 0x5eed2002);
}

// A PE of another job (same port, same launcher variables except the job's identity) is refused
// with a message that says so, and the job completes.
TEST(BootstrapEnv, PeOfAnotherJobIsRefusedSayingSo) {
  PeSync sync;
  const int me = test::worldRank(), n = test::worldSize(), odd = n - 1;
  TorchrunEnv e(test::sharedFreePort());
  ScopedEnv job("SLURM_JOB_ID", "4242");
  std::string err;
  if (me == odd) {
    {
      ScopedEnv other("SLURM_JOB_ID", "4243");
      env::Config cfg = test::bootstrapConfig(5);
      std::unique_ptr<bootstrap::Bootstrap> b;
      testing::internal::CaptureStderr();
      EXPECT_EQ(bootstrap::createFromLauncherEnv(cfg, &b), Status::InvalidUsage);
      err = testing::internal::GetCapturedStderr();
      EXPECT_NE(err.find("it belongs to another job: its job identity differs from this root's (SLURM_JOB_ID=4242"),
                std::string::npos)
          << err;
    }
    {
      // A job of another world size: its rank 1 would otherwise have joined this one.
      ScopedEnv size("WORLD_SIZE", std::to_string(n + 1).c_str());
      env::Config cfg = test::bootstrapConfig(5);
      std::unique_ptr<bootstrap::Bootstrap> b;
      testing::internal::CaptureStderr();
      EXPECT_EQ(bootstrap::createFromLauncherEnv(cfg, &b), Status::InvalidUsage);
      err = testing::internal::GetCapturedStderr();
      EXPECT_NE(err.find("it belongs to a job of world size " + std::to_string(n + 1) + ", and this job has " +
                         std::to_string(n) + " PEs"),
                std::string::npos)
          << err;
    }
  }
  if (me == 0) testing::internal::CaptureStderr();
  auto b = makeEnv(20);
  if (me == 0) err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(b);
  if (me == 0) {
    EXPECT_NE(
        err.find("(claims PE " + std::to_string(odd) + " of " + std::to_string(n) + "): it belongs to another job"),
        std::string::npos)
        << err;
    EXPECT_NE(err.find("(claims PE " + std::to_string(odd) + " of " + std::to_string(n + 1) +
                       "): it belongs to a job "
                       "of world size"),
              std::string::npos)
        << err;
  }
  test::checkCollectives(*b, 0x5eed2101);
}

// Under mpirun without the MPI plugin (this test binary cannot load it: it is not next to it),
// auto says why MPI was not used, also when the launcher environment then fails.
TEST(BootstrapEnv, AutoUnderMpirunSaysWhyMpiWasNotUsed) {
  PeSync sync;
  std::string why;
  if (bootstrap::loadMpiPlugin(&why)) GTEST_SKIP() << "the MPI plugin loads here; this test needs it absent";
  ASSERT_TRUE(bootstrap::launchedByMpiLauncher()) << "ctest runs this suite under mpirun";
  ScopedEnv mode("MORI_SHMEM_BOOTSTRAP", "auto"), addr("MASTER_ADDR", nullptr), rank("RANK", nullptr),
      size("WORLD_SIZE", nullptr);
  env::Config cfg = test::bootstrapConfig(1);
  std::unique_ptr<bootstrap::Bootstrap> b;
  testing::internal::CaptureStderr();
  EXPECT_EQ(bootstrap::createDefault(cfg, &b), Status::InvalidUsage);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("an MPI launcher started this process (OMPI_COMM_WORLD_SIZE is set), but MPI is not used: the "
                     "MPI bootstrap plugin libmori_shmem_bootstrap_mpi.so could not be loaded"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("MASTER_ADDR is not set"), std::string::npos) << err;
  EXPECT_NE(err.find("MPI was not used because libmori_shmem_bootstrap_mpi.so could not be loaded"), std::string::npos)
      << err;
}
