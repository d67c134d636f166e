// Helpers every test binary shares (see test_main.cpp).
#pragma once

#include <gtest/gtest.h>
#include <stdio.h>

#include <string>

namespace mori::test {

struct Requirement {
  bool gpu = false;
  int minGpus = 0;
  int minPes = 1;
  int maxPesPerGpu = 0;  // 0: no limit
};

int worldRank();
int worldSize();
bool gpuAvailable(std::string* why);
int gpuCount();

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
#define MORI_TEST_REQUIRES_GPU(minGpus_, minPes_, maxPesPerGpu_) \
  mori::test::Requirement mori_test_requirement() {              \
    mori::test::Requirement r;                                   \
    r.gpu = true;                                                \
    r.minGpus = (minGpus_);                                      \
    r.minPes = (minPes_);                                        \
    r.maxPesPerGpu = (maxPesPerGpu_);                            \
    return r;                                                    \
  }
#define MORI_TEST_REQUIRES_PES(minPes_)             \
  mori::test::Requirement mori_test_requirement() { \
    mori::test::Requirement r;                      \
    r.minPes = (minPes_);                           \
    return r;                                       \
  }
