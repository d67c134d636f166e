// The test main's verdict on the GPU runtime's answer (tests/support/test_main.cpp): no driver or
// no device skips a GPU suite, as on CI; a GPU whose runtime refuses this process fails it.
#include <gtest/gtest.h>

#include "mori/platform/config.h"
#include "mori/platform/gpu_runtime.hpp"
#include "tests/support/test_env.hpp"

using mori::test::GpuAccess;
using mori::test::gpuAccessFor;

TEST(GpuAccess, DevicesFoundAreUsable) {
  EXPECT_EQ(gpuAccessFor(hipSuccess, 1, true), GpuAccess::Usable);
  EXPECT_EQ(gpuAccessFor(hipSuccess, 8, true), GpuAccess::Usable);
  EXPECT_EQ(gpuAccessFor(hipSuccess, 0, true), GpuAccess::Absent);
}

TEST(GpuAccess, NoDriverOrNoDeviceSkips) {
  EXPECT_EQ(gpuAccessFor(hipErrorNoDevice, 0, false), GpuAccess::Absent);
  EXPECT_EQ(gpuAccessFor(hipErrorInsufficientDriver, 0, false), GpuAccess::Absent);
  EXPECT_EQ(gpuAccessFor(hipErrorNoDevice, 0, true), GpuAccess::Absent);
}

#if MORI_PLATFORM_NVIDIA
TEST(GpuAccess, CudaMpsRefusalFails) {
  for (cudaError_t e : {cudaErrorMpsConnectionFailed, cudaErrorMpsRpcFailure, cudaErrorMpsServerNotReady,
                        cudaErrorMpsMaxClientsReached, cudaErrorMpsMaxConnectionsReached, cudaErrorMpsClientTerminated})
    EXPECT_EQ(gpuAccessFor(e, 0, true), GpuAccess::Refused) << cudaGetErrorName(e);
  // Without a driver an MPS error cannot come from a GPU of this machine: skipped as absent.
  EXPECT_EQ(gpuAccessFor(cudaErrorMpsServerNotReady, 0, false), GpuAccess::Absent);
  EXPECT_EQ(gpuAccessFor(cudaErrorDevicesUnavailable, 0, true), GpuAccess::Absent);
}
#endif

// This machine's own answer is one of the three, with a reason unless usable.
TEST(GpuAccess, ThisMachineIsClassified) {
  std::string why;
  const GpuAccess a = mori::test::gpuAccess(&why);
  EXPECT_EQ(a == GpuAccess::Usable, why.empty()) << why;
}
