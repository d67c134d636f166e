// main() of every test binary: MPI-aware GoogleTest. Each PE runs the tests; the verdict is the
// minimum over PEs (a test fails if any PE fails) and is printed by PE 0. GPU suites that find no
// usable GPU exit with 77 so that ctest reports them skipped, with the reason printed.
#include "tests/support/test_env.hpp"

mori::test::Requirement mori_test_requirement();

#include <gtest/gtest.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mori/platform/gpu_runtime.hpp"

namespace mori::test {

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int worldSize() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

bool gpuAvailable(std::string* why) {
  int n = 0;
  hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess) {
    *why = std::string("GPU runtime reports ") + hipGetErrorName(e) + ": " + hipGetErrorString(e);
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

}  // namespace mori::test

// Weak default: host suites need no GPU. GPU suites define kRequirement in their sources via
// MORI_TEST_REQUIRES_GPU(minGpus, minPes, maxPesPerGpu).
__attribute__((weak)) mori::test::Requirement mori_test_requirement() { return {}; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = mori::test::worldRank(), size = mori::test::worldSize();
  mori::test::Requirement req = mori_test_requirement();
  std::string why;
  bool runnable = true;
  if (req.gpu) {
    if (!mori::test::gpuAvailable(&why)) {
      runnable = false;
    } else if (mori::test::gpuCount() < req.minGpus) {
      why = "needs " + std::to_string(req.minGpus) + " GPUs, " + std::to_string(mori::test::gpuCount()) + " visible";
      runnable = false;
    } else if (req.maxPesPerGpu > 0 && size > req.maxPesPerGpu * mori::test::gpuCount()) {
      why = "runs at most " + std::to_string(req.maxPesPerGpu) +
            " PE(s) per GPU (spin-waits across processes "
            "sharing a GPU deadlock); " +
            std::to_string(size) + " PEs on " + std::to_string(mori::test::gpuCount()) + " GPU(s)";
      runnable = false;
    }
  }
  if (size < req.minPes) {
    why = "needs at least " + std::to_string(req.minPes) + " PEs, launched with " + std::to_string(size);
    runnable = false;
  }
  int allRunnable = 0, mine = runnable ? 1 : 0;
  MPI_Allreduce(&mine, &allRunnable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!allRunnable) {
    if (rank == 0 || !runnable) printf("SKIPPED (PE %d): %s\n", rank, runnable ? "another PE cannot run" : why.c_str());
    fflush(stdout);
    MPI_Finalize();
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
  MPI_Allreduce(&mineOk, &allOk, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("mori-test verdict over %d PE(s): %s\n", size, allOk ? "PASSED" : "FAILED");
  fflush(stdout);
  MPI_Finalize();
  return allOk ? 0 : 1;
}
