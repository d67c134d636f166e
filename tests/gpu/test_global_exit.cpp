// mori_shmem_global_exit on a GPU, launcher-environment (socket) bootstrap. The test starts three
// PEs, copies of this binary with RANK=0..2 (not under mpirun, whose launcher would end the job
// on its own), and judges them by their exit statuses. After a barrier, one PE calls
// mori_shmem_global_exit(status) from host code while the others' kernels wait for a flag nobody
// sets and their host threads wait for the GPU (hipDeviceSynchronize): every PE must exit with the
// status within seconds, the peer monitor's thread ending each process around its waiting kernel.
// Or a kernel calls it (64 threads at once: the first one's status counts, the runtime's monitor
// reads the request from the error record) while the others wait on the host. The MPI
// bootstrap's path (MPI_Abort) and the protocol are tested on the CPU
// (tests/host/bootstrap/test_bootstrap_global_exit.cpp, bootstrap_mpi_global_exit.cpp).
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"
#include "tests/support/free_port.hpp"
#include "tests/support/spawn_self.hpp"

MORI_TEST_REQUIRES_GPU(1, 0);

namespace {

constexpr int kPes = 3;
constexpr int kReturned = 101;  // a PE's wait for the GPU returned: the exit did not reach it

__global__ void waitForFlag(uint64_t* flag) { mori_shmem_uint64_wait_until(flag, MORI_SHMEM_CMP_EQ, 1); }

__global__ void exitFromDevice(int status) { mori_shmem_global_exit(status + static_cast<int>(threadIdx.x)); }

// "<rank> <asker> <status> <from device>" in a PE started by the test; nothing in the test itself.
bool role(int* rank, int* asker, int* status, int* fromDevice) {
  const char* r = getenv("MORI_TEST_GLOBAL_EXIT_ROLE");
  return r && sscanf(r, "%d %d %d %d", rank, asker, status, fromDevice) == 4;
}
bool isPe() {
  int r, a, s, d;
  return role(&r, &a, &s, &d);
}

// Starts kPes copies of this binary as one job in which PE `asker` calls for a global exit with
// `status` (from a kernel if `fromDevice`); returns each PE's exit status (-signal if killed, -1000 if still running
// after 30 s, then killed) and sets *seconds to the time until the last one ended.
std::vector<int> runJob(int asker, int status, bool fromDevice, double* seconds) {
  const int port = mori::test::freeLoopbackPort();
  EXPECT_GT(port, 0) << "no free loopback port below the ephemeral range";
  std::vector<pid_t> pids;
  for (int r = 0; r < kPes; ++r) {
    const pid_t pid = mori::test::spawnSelf(
        "GlobalExit.Pe", {"MASTER_ADDR=127.0.0.1", "MORI_SHMEM_BOOTSTRAP=env", "MORI_SHMEM_TIMEOUT=60",
                          "WORLD_SIZE=" + std::to_string(kPes), "RANK=" + std::to_string(r),
                          "LOCAL_RANK=" + std::to_string(r), "MASTER_PORT=" + std::to_string(port),
                          "MORI_TEST_GLOBAL_EXIT_ROLE=" + std::to_string(r) + " " + std::to_string(asker) + " " +
                              std::to_string(status) + " " + (fromDevice ? "1" : "0")});
    EXPECT_GT(pid, 0) << "PE " << r << " did not start";
    pids.push_back(pid);
  }
  std::vector<int> out(kPes, -1000);
  int left = kPes;
  for (int r = 0; r < kPes; ++r)
    if (pids[r] <= 0) {
      out[r] = -2000;  // never started: nothing to wait for or kill
      --left;
    }
  const auto t0 = std::chrono::steady_clock::now();
  while (left && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) {
    for (int r = 0; r < kPes; ++r) {
      int ws = 0;
      if (out[r] != -1000 || waitpid(pids[r], &ws, WNOHANG) != pids[r]) continue;
      out[r] = WIFEXITED(ws) ? WEXITSTATUS(ws) : -WTERMSIG(ws);
      --left;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int r = 0; r < kPes; ++r)
    if (out[r] == -1000) {
      kill(pids[r], SIGKILL);
      waitpid(pids[r], nullptr, 0);
    }
  return out;
}

void expectAll(const std::vector<int>& got, int status, double seconds) {
  for (int r = 0; r < kPes; ++r)
    EXPECT_EQ(got[r], status) << "PE " << r
                              << " (77: it skipped, see its SKIPPED line; 101: its GPU wait returned; -1000: still "
                                 "running, killed; -2000: did not start)";
  // Start-up (three inits sharing one GPU) included; the exit itself takes well under a second.
  EXPECT_LT(seconds, 25.0);
}

}  // namespace

TEST(GlobalExit, NonRootPeEndsPesWaitingOnTheGpu) {
  if (isPe()) GTEST_SKIP() << "a PE of GlobalExit.Pe";
  double seconds = 0;
  const std::vector<int> got = runJob(1, 5, false, &seconds);
  expectAll(got, 5, seconds);
}

TEST(GlobalExit, RootEndsPesWaitingOnTheGpu) {
  if (isPe()) GTEST_SKIP() << "a PE of GlobalExit.Pe";
  double seconds = 0;
  const std::vector<int> got = runJob(0, 9, false, &seconds);
  expectAll(got, 9, seconds);
}

// 64 threads of PE 2's kernel call it with statuses 130..193: one of them (the first) decides.
// (The range leaves out 77, a PE that skipped, and 101-103.) The others wait on the host here, so
// that PE 2's kernel runs at once whether or not the GPU runs their kernels beside it (the ctest
// entry runs outside MPS, time-sliced).
TEST(GlobalExit, KernelEndsTheJob) {
  if (isPe()) GTEST_SKIP() << "a PE of GlobalExit.Pe";
  double seconds = 0;
  const std::vector<int> got = runJob(2, 130, true, &seconds);
  ASSERT_GE(got[0], 130) << "PE 0 exited with " << got[0] << " (77: it skipped; see its SKIPPED line)";
  ASSERT_LT(got[0], 194) << "PE 0 exited with " << got[0];
  expectAll(got, got[0], seconds);
}

// One PE of the jobs above.
TEST(GlobalExit, Pe) {
  int rank = -1, asker = -1, status = 0, fromDevice = 0;
  if (!role(&rank, &asker, &status, &fromDevice)) GTEST_SKIP() << "run by the other GlobalExit tests as their PEs";
  ASSERT_EQ(mori_shmem_init(), 0);
  auto* flag = static_cast<uint64_t*>(mori_shmem_calloc(1, sizeof(uint64_t)));
  ASSERT_NE(flag, nullptr);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  if (rank == asker) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the others are in their waits
    if (!fromDevice) mori_shmem_global_exit(status);
    exitFromDevice<<<1, 64>>>(status);
    HIP_OK(hipGetLastError());
    (void)hipDeviceSynchronize();
    fflush(stdout);
    _exit(kReturned);
  }
  if (fromDevice) {
    std::this_thread::sleep_for(std::chrono::seconds(30));
    _exit(kReturned);
  }
  waitForFlag<<<1, 1>>>(flag);
  HIP_OK(hipGetLastError());
  (void)hipDeviceSynchronize();
  fflush(stdout);
  _exit(kReturned);
}
