// Faults of the NIC reach the GPU as diagnosable device errors, never as hangs or silent loss
// (run through the NIC model, which injects them):
//   ErrorCompletionStopsTheKernel  MORI_NIC_MODEL_ERROR=0:0:5: PE 0's WQE 5 on QP 0 completes with
//       a remote access error. The kernel posting blocking puts stops with the PE, peer, QP,
//       opcode, syndrome and WQE index of that completion.
//   StalledQueueTimesOut  MORI_NIC_MODEL_STALL=0:0:5, MORI_SHMEM_TIMEOUT=2: PE 0's QP 0 consumes
//       5 WQEs, then nothing. quiet stops after the timeout with what it waited for.
// In both, PE 1 checks that exactly the WQEs before the fault landed. PE 0's GPU context is lost
// afterwards, so ctest runs each case in its own process (--gtest_filter) and requires the
// DEVICE-ERROR-CHECK-PASSED line; nothing is finalized (finalize is collective). PEs sharing one
// GPU run outside CUDA MPS (one client's fatal fault reaches every client), time-sliced: no kernel
// here waits for another PE's kernel.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU_FAULTS(2);

namespace {

using namespace mori::test;

constexpr int kPuts = 16;
constexpr int kFaultAt = 5;
constexpr size_t kBytes = 64;
constexpr uint64_t kSeed = 4242;

__global__ void blockingPuts(char* dst, const char* src, int peer) {
  for (int i = 0; i < kPuts; ++i) mori_shmem_putmem_thread(dst + i * kBytes, src + i * kBytes, kBytes, peer);
}

__global__ void putsThenQuiet(char* dst, const char* src, int peer) {
  for (int i = 0; i < kPuts; ++i) mori_shmem_putmem_nbi_thread(dst + i * kBytes, src + i * kBytes, kBytes, peer);
  mori_shmem_quiet();
}

// How the provider reports a remote access error: CQE opcode and syndrome as the device error
// prints them (mlx5: REQ_ERR 0xd, REMOTE_ACCESS_ERR 0x13; bnxt: type REQ 0, status REM_ACC 7;
// ionic: type SEND_MSN 2, status REMOTE_ACC_ERR 9).
std::string remoteAccessText() {
  const char* p = getenv("MORI_NIC_MODEL_PROVIDER");
  const std::string provider = p && *p ? p : "mlx5";
  if (provider == "bnxt") return "opcode 0x0 syndrome 0x7";
  if (provider == "ionic") return "opcode 0x2 syndrome 0x9";
  return "opcode 0xd syndrome 0x13";
}

bool envIs(const char* name, const char* value) {
  const char* v = getenv(name);
  return v && strcmp(v, value) == 0;
}

class RdmaFaults : public ::testing::Test {
 protected:
  // Initialises, fills PE 0's source, and returns once every PE is ready.
  void setUpBuffers() {
    ASSERT_EQ(mori_shmem_init(), 0);
    me_ = mori_shmem_my_pe();
    ASSERT_EQ(mori_shmem_n_pes(), 2);
    dst_ = static_cast<char*>(mori_shmem_calloc(kPuts * kBytes, 1));
    src_ = static_cast<char*>(mori_shmem_malloc(kPuts * kBytes));
    ASSERT_TRUE(dst_ && src_);
    fill(src_, kPuts * kBytes, kSeed, me_);
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);  // host-side: posts no WQE
  }

  // PE 0: the kernel must have stopped with a recorded device error; returns its text.
  std::string expectStopped(double* seconds, const std::chrono::steady_clock::time_point& t0) {
    const hipError_t e = hipDeviceSynchronize();
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(e, hipSuccess) << "the kernel should have stopped on a device error";
    char msg[512] = "";
    EXPECT_EQ(mori_shmem_device_error(msg, sizeof(msg)), 1) << "no device error recorded";
    printf("PE 0 device error after %.2f s: %s\n", *seconds, msg);
    return msg;
  }

  // PE 1: the first kFaultAt puts of PE 0 landed, the rest did not. Then the verdict of all PEs.
  void checkLandedAndReport() {
    MPI_Barrier(MPI_COMM_WORLD);  // PE 0's kernel has stopped
    if (me_ == 1) {
      std::vector<uint8_t> got(kPuts * kBytes);
      HIP_OK(hipMemcpy(got.data(), dst_, got.size(), hipMemcpyDeviceToHost));
      size_t missing = 0, extra = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        if (i < kFaultAt * kBytes)
          missing += got[i] != patternByte(kSeed, 0, i);
        else
          extra += got[i] != 0;
      }
      EXPECT_EQ(missing, 0u) << "bytes of the puts before the fault did not land";
      EXPECT_EQ(extra, 0u) << "bytes of the faulted put or later ones landed";
    }
    if (allTrue(!HasFailure()) && me_ == 0) printf("DEVICE-ERROR-CHECK-PASSED\n");
    fflush(stdout);
  }

  int me_ = 0;
  char* dst_ = nullptr;
  char* src_ = nullptr;
};

TEST_F(RdmaFaults, ErrorCompletionStopsTheKernel) {
  if (!envIs("MORI_NIC_MODEL_ERROR", "0:0:5")) GTEST_SKIP() << "run by ctest with MORI_NIC_MODEL_ERROR=0:0:5";
  setUpBuffers();
  if (HasFatalFailure()) return;
  if (me_ == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    blockingPuts<<<1, 1>>>(dst_, src_, 1);
    double seconds = 0;
    const std::string msg = expectStopped(&seconds, t0);
    EXPECT_NE(msg.find("PE 0:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("error completion from peer 1 qp 0 "), std::string::npos) << msg;
    EXPECT_NE(msg.find(remoteAccessText()), std::string::npos) << "expected " << remoteAccessText() << ": " << msg;
    EXPECT_NE(msg.find("at WQE index " + std::to_string(kFaultAt)), std::string::npos) << msg;
  }
  checkLandedAndReport();
}

TEST_F(RdmaFaults, StalledQueueTimesOut) {
  if (!envIs("MORI_NIC_MODEL_STALL", "0:0:5") || !envIs("MORI_SHMEM_TIMEOUT", "2"))
    GTEST_SKIP() << "run by ctest with MORI_NIC_MODEL_STALL=0:0:5 MORI_SHMEM_TIMEOUT=2";
  setUpBuffers();
  if (HasFatalFailure()) return;
  if (me_ == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    putsThenQuiet<<<1, 1>>>(dst_, src_, 1);
    double seconds = 0;
    const std::string msg = expectStopped(&seconds, t0);
    EXPECT_NE(msg.find("PE 0:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("timed out after"), std::string::npos) << msg;
    // kind 2 = waiting for completions (DeviceWait::Completion); 5 of the 16 posted completed.
    EXPECT_NE(msg.find("waiting (kind 2) on peer 1 qp 0 "), std::string::npos) << msg;
    EXPECT_NE(msg.find("progress " + std::to_string(kFaultAt) + ", awaited " + std::to_string(kPuts)),
              std::string::npos)
        << msg;
    EXPECT_GE(seconds, 1.5) << "stopped before the 2 s timeout";
    EXPECT_LT(seconds, 30.0) << "the timeout must bound the wait";
  }
  checkLandedAndReport();
}

}  // namespace
