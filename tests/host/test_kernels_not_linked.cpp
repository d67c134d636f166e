// A program that links the runtime's objects without its kernels, as every host test of internals
// does (shmem/runtime_kernels.hpp): the launch functions are absent, so the program needed no
// device link, and a launch through Runtime::launch fails naming the call.
#include <gtest/gtest.h>

#include <string>

#include "shmem/runtime.hpp"
#include "shmem/stream_rma_kernels.hpp"
#include "shmem/team_kernels.hpp"

namespace shmem = mori::shmem;

TEST(KernelsNotLinked, EveryLaunchFunctionIsAbsent) {
  EXPECT_TRUE(shmem::launchQuietKernel == nullptr);
  EXPECT_TRUE(shmem::launchBarrierKernel == nullptr);
  EXPECT_TRUE(shmem::launchWarmupKernel == nullptr);
  EXPECT_TRUE(shmem::launchPutKernel == nullptr);
  EXPECT_TRUE(shmem::launchGetKernel == nullptr);
  EXPECT_TRUE(shmem::launchPutSignalKernel == nullptr);
  EXPECT_TRUE(shmem::launchSignalKernel == nullptr);
  EXPECT_TRUE(shmem::launchWaitKernel == nullptr);
  EXPECT_TRUE(shmem::team::launchCollective == nullptr);
}

TEST(KernelsNotLinked, ALaunchFailsNamingTheCall) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(shmem::kernelsNotLinked("mori_shmem_barrier_all_on_stream"), mori::Status::NotSupported);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("mori_shmem_barrier_all_on_stream: this program was linked without the runtime's kernels"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("link libmori_shmem"), std::string::npos) << err;
}
