// main() of every test binary: MPI-aware GoogleTest. Each PE runs the tests; the verdict is the
// minimum over PEs (a test fails if any PE fails) and is printed by PE 0. GPU suites that find no
// usable GPU exit with 77 so that ctest reports them skipped, with the reason printed.
#include "tests/support/test_env.hpp"

mori::test::Requirement mori_test_requirement();

#include <gtest/gtest.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mori/platform/device.hpp"
#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"

namespace mori::test {

// MORI_TEST_NO_MPI=1: a suite that starts its PEs itself (test_peer_failure) runs each process as
// a world of one without MPI (a singleton MPI_Init needs an rsh agent, which GPU machines lack).
bool withoutMpi() {
  static const bool no = [] {
    const char* v = getenv("MORI_TEST_NO_MPI");
    return v && v[0] == '1';
  }();
  return no;
}

int worldRank() {
  int r = 0;
  if (!withoutMpi()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int worldSize() {
  int n = 1;
  if (!withoutMpi()) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

GpuAccess gpuAccessFor(int error, int devices, bool driverPresent) {
  if (error == hipSuccess) return devices > 0 ? GpuAccess::Usable : GpuAccess::Absent;
#if MORI_PLATFORM_NVIDIA
  if (driverPresent && error >= cudaErrorMpsConnectionFailed && error <= cudaErrorMpsClientTerminated)
    return GpuAccess::Refused;
#endif
  (void)driverPresent;
  return GpuAccess::Absent;
}

GpuAccess gpuAccess(std::string* why) {
  int n = 0;
  const hipError_t e = hipGetDeviceCount(&n);
  int driver = 0;
  const bool driverPresent = hipDriverGetVersion(&driver) == hipSuccess && driver != 0;
  const GpuAccess a = gpuAccessFor(static_cast<int>(e), n, driverPresent);
  if (e == hipSuccess) {
    if (a != GpuAccess::Usable) *why = "no GPU device is visible";
  } else if (!driverPresent && (e == hipErrorInsufficientDriver || e == hipErrorNoDevice)) {
    *why = std::string("no GPU driver (") + hipGetErrorName(e) + ")";
  } else {
    *why = std::string("GPU runtime reports ") + hipGetErrorName(e) + ": " + hipGetErrorString(e);
    if (a == GpuAccess::Refused)
      *why +=
          " (the CUDA MPS server refuses clients for a while after processes ended with kernels running: "
          "wait, or restart the daemon; docs/MULTIPLE_PES_PER_GPU.md)";
  }
  return a;
}

int gpuCount() {
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess ? n : 0;
}

namespace {
int gPesOnMyGpu = 1;

// Counts the PEs of this host that land on this PE's GPU (local rank modulo the GPU count) and
// makes that GPU current, as mori_shmem_init would choose it.
int countPesOnMyGpu(int gpus) {
  int localRank = 0, localSize = 1;
  if (!withoutMpi()) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &localRank);
    MPI_Comm_size(node, &localSize);
    MPI_Comm_free(&node);
  }
  if (gpus <= 0) return localSize;
  const int mine = localRank % gpus;
  (void)hipSetDevice(mine);
  int count = 0;
  for (int r = 0; r < localSize; ++r) count += r % gpus == mine;
  return count;
}

// Whether this process is a CUDA MPS client on device `dev` (never on AMD).
bool underMps(int dev) {
#if MORI_PLATFORM_NVIDIA
  int mps = 0;
  return cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, dev) == cudaSuccess && mps != 0;
#else
  (void)dev;
  return false;
#endif
}

// Whether this suite can run with `pes` PEs on this PE's GPU; why not, or how, in *why.
bool gpuShareAllowed(const Requirement& req, int pes, std::string* why) {
  int dev = 0;
  (void)hipGetDevice(&dev);
  if (req.faultsStopContext && pes > 1 && underMps(dev)) {
    *why = std::to_string(pes) + " PEs share GPU " + std::to_string(dev) +
           " through CUDA MPS, which delivers one PE's fatal device fault to every PE of the GPU; this suite "
           "faults on purpose: run it outside MPS (its ctest entry sets CUDA_MPS_PIPE_DIRECTORY to an empty "
           "directory)";
    return false;
  }
  if (req.maxPesPerGpu <= 0 || pes <= req.maxPesPerGpu) return true;
  char how[256] = "";
  const int c = mori_shmem_gpu_sharing_concurrent(dev, pes, how, sizeof(how));
  if (c == 1) {
    *why = std::to_string(pes) + " PEs share GPU " + std::to_string(dev) + ": " + how;
    return true;
  }
  *why = std::to_string(pes) + " PEs share GPU " + std::to_string(dev) + " and this suite's PEs wait for each other " +
         "inside kernels, which needs their kernels to run at the same time: " + how +
         " (start CUDA MPS; tools/gpu_suite.sh does)";
  return false;
}
}  // namespace

int pesOnMyGpu() { return gPesOnMyGpu; }

int gridShare(int wanted) {
  if (gPesOnMyGpu <= 1) return wanted;
  int dev = 0, sms = 0;
  (void)hipGetDevice(&dev);
  if (hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev) != hipSuccess || sms <= 0) return 1;
  const int share = sms / gPesOnMyGpu - 1;
  return share < 1 ? 1 : (share < wanted ? share : wanted);
}

bool engineModelServesThisProcess() {
  return getenv("MORI_NIC_MODEL_PROVIDER") != nullptr || getenv("MORI_SHMEM_SDMA_PLUGIN") != nullptr;
}

}  // namespace mori::test

// Weak default: host suites need no GPU. GPU suites define kRequirement in their sources via
// MORI_TEST_REQUIRES_GPU(minPes, maxPesPerGpu).
__attribute__((weak)) mori::test::Requirement mori_test_requirement() { return {}; }

int main(int argc, char** argv) {
  const bool mpi = !mori::test::withoutMpi();
  if (mpi) MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = mori::test::worldRank(), size = mori::test::worldSize();
  mori::test::Requirement req = mori_test_requirement();
  std::string why;
  bool runnable = true, refused = false;
  if (req.gpu) {
    const mori::test::GpuAccess access = mori::test::gpuAccess(&why);
    if (access != mori::test::GpuAccess::Usable) {
      runnable = false;
      refused = access == mori::test::GpuAccess::Refused;
    } else {
      mori::test::gPesOnMyGpu = mori::test::countPesOnMyGpu(mori::test::gpuCount());
      runnable = mori::test::gpuShareAllowed(req, mori::test::gPesOnMyGpu, &why);
      if (runnable && !why.empty() && rank == 0) printf("note: %s\n", why.c_str());
    }
  }
  if (size < req.minPes) {
    why = "needs at least " + std::to_string(req.minPes) + " PEs, launched with " + std::to_string(size);
    runnable = false;
  }
  // [0]: every PE can run (min); [1]: some PE's GPU refused it (max, as -[1] under MIN).
  int mine[2] = {runnable ? 1 : 0, refused ? -1 : 0}, all[2] = {mine[0], mine[1]};
  if (mpi) MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all[0]) {
    const bool anyRefused = all[1] < 0;
    if (rank == 0 || !runnable)
      printf("%s (PE %d): %s\n", anyRefused ? "FAILED" : "SKIPPED", rank,
             runnable ? (anyRefused ? "another PE's GPU refused it" : "another PE cannot run") : why.c_str());
    fflush(stdout);
    if (mpi) MPI_Finalize();
    return anyRefused ? 1 : 77;
  }
  if (rank != 0) {
    // Only PE 0 prints progress; every PE prints its own failures.
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new mori::test::FailurePrinter(rank));
  }
  int result = RUN_ALL_TESTS();
  int mineOk = result == 0 ? 1 : 0, allOk = 0;
  allOk = mineOk;
  if (mpi) MPI_Allreduce(&mineOk, &allOk, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("mori-test verdict over %d PE(s): %s\n", size, allOk ? "PASSED" : "FAILED");
  fflush(stdout);
  if (mpi) MPI_Finalize();
  return allOk ? 0 : 1;
}
