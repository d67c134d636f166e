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

bool gpuAvailable(std::string* why) {
  int n = 0;
  hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess) {
    int driver = 0;
    const bool noDriver = (e == hipErrorInsufficientDriver || e == hipErrorNoDevice) &&
                          (hipDriverGetVersion(&driver) != hipSuccess || driver == 0);
    *why = noDriver ? std::string("no GPU driver (") + hipGetErrorName(e) + ")"
                    : std::string("GPU runtime reports ") + hipGetErrorName(e) + ": " + hipGetErrorString(e);
    return false;
  }
  if (n == 0) {
    *why = "no GPU device is visible";
    return false;
  }
  return true;
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
  bool runnable = true;
  if (req.gpu) {
    if (!mori::test::gpuAvailable(&why)) {
      runnable = false;
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
  int allRunnable = 0, mine = runnable ? 1 : 0;
  allRunnable = mine;
  if (mpi) MPI_Allreduce(&mine, &allRunnable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!allRunnable) {
    if (rank == 0 || !runnable) printf("SKIPPED (PE %d): %s\n", rank, runnable ? "another PE cannot run" : why.c_str());
    fflush(stdout);
    if (mpi) MPI_Finalize();
    return 77;
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
