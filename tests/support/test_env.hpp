// Helpers every test binary shares (see test_main.cpp).
#pragma once

#include <gtest/gtest.h>
#include <stdio.h>

#include <string>

namespace mori::test {

struct Requirement {
  bool gpu = false;
  int minPes = 1;
  // PEs that may share one GPU whose kernels of different processes cannot run at the same time
  // (0: any number). Suites whose PEs wait for each other inside kernels say 1: they run with
  // several PEs per GPU only where the GPU runs them concurrently (CUDA MPS, AMD's HWS).
  int maxPesPerGpu = 0;
  // The suite stops a PE's GPU context on purpose (a device trap) and checks the others: PEs that
  // share a GPU must then not share it through CUDA MPS, which delivers one client's fatal fault
  // to every client of the GPU. Such suites run their PEs outside MPS, time-sliced.
  bool faultsStopContext = false;
};

int worldRank();
int worldSize();

// Whether a GPU suite can use this process's GPU. Absent (no driver, no device): the suite is
// skipped, as on CI. Refused: a GPU is there but its runtime will not serve this process (NVIDIA:
// the CUDA MPS errors, e.g. a server not ready after a job ended with kernels running): the suite
// fails, since a skip would hide on a GPU machine that nothing ran.
enum class GpuAccess { Usable, Absent, Refused };
// The verdict for hipGetDeviceCount's result `error` (a hipError_t) with `devices` found;
// `driverPresent`: whether a GPU driver answered. Pure.
GpuAccess gpuAccessFor(int error, int devices, bool driverPresent);
GpuAccess gpuAccess(std::string* why);
int gpuCount();
// PEs of this host that use this PE's GPU, this one included (test main: local rank modulo the
// visible GPUs, as mori_shmem_init chooses).
int pesOnMyGpu();
// Blocks for a grid that would take `wanted` (e.g. one per SM) if it had the GPU to itself: with
// PEs sharing the GPU, this PE's share of its SMs less one, so that kernels on other streams (the
// NIC model's) still find room beside every PE's grid. At least 1.
int gridShare(int wanted);
// Whether one of the test-only engine models (the NIC model, the DMA-engine model) serves this
// process: their engines' work runs as kernels that this process launches while its own kernels
// wait for it, so a stream must not hold a kernel queued behind such a wait (a stream aliased onto
// the same hardware queue cannot start the model's kernel past it: docs/MULTIPLE_PES_PER_GPU.md).
// A NIC or SDMA engine on the hardware has no such limit.
bool engineModelServesThisProcess();

// Prints failures (only) of non-zero PEs, tagged with the PE.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int pe) : pe_(pe) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      printf("[PE %d] FAILURE %s:%d\n%s\n", pe_, r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int pe_;
};

}  // namespace mori::test

// A GPU suite declares what it needs once, at namespace scope in one of its sources.
#define MORI_TEST_REQUIRES_GPU(minPes_, maxPesPerGpu_) \
  mori::test::Requirement mori_test_requirement() {    \
    mori::test::Requirement r;                         \
    r.gpu = true;                                      \
    r.minPes = (minPes_);                              \
    r.maxPesPerGpu = (maxPesPerGpu_);                  \
    return r;                                          \
  }
// A GPU suite whose PEs poison their own GPU context on purpose (see faultsStopContext).
#define MORI_TEST_REQUIRES_GPU_FAULTS(minPes_)      \
  mori::test::Requirement mori_test_requirement() { \
    mori::test::Requirement r;                      \
    r.gpu = true;                                   \
    r.minPes = (minPes_);                           \
    r.faultsStopContext = true;                     \
    return r;                                       \
  }
#define MORI_TEST_REQUIRES_PES(minPes_)             \
  mori::test::Requirement mori_test_requirement() { \
    mori::test::Requirement r;                      \
    r.minPes = (minPes_);                           \
    return r;                                       \
  }
