// A stalled engine never hangs the kernel: with the DMA model paused, each bounded device wait
// (completion in quiet, ring space in a put) stops the kernel after the queue's timeout and
// prints the queue's counters. Each case poisons the GPU context, so ctest runs each in its own
// process and requires the device's message and this test's verdict line in the output.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"
#include "tests/gpu/sdma/sdma_test_scopes.hpp"
#include "tests/support/dma_model/dma_model.hpp"
#include "tests/support/test_env.hpp"
#include "transport/sdma/sdma_queues.hpp"

MORI_TEST_REQUIRES_GPU_FAULTS(1);

namespace mori::test::dma {
namespace {

// `puts` thread-scope puts of 64 bytes, then quiet.
__global__ void putsThenQuiet(sdma::SdmaPeerDevice peer, uint8_t* dst, const uint8_t* src, int puts) {
  for (int i = 0; i < puts; ++i) sdma::put<ThreadG>(peer, dst + 64 * i, src + 64 * i, 64);
  sdma::quiet<ThreadG>(peer);
}

void expectStopsWithin(int puts, uint32_t slots) {
  auto engine = std::make_unique<DmaModelEngine>();
  DmaModelEngine* model = engine.get();
  model->pause(true);
  sdma::SdmaQueuesConfig cfg;
  cfg.myPe = 0;
  cfg.nPes = 2;
  cfg.queuesPerPeer = 1;
  cfg.ringSlots = slots;
  cfg.timeoutTicks = gpu::nsToWallTicks(500'000'000ull);
  std::unique_ptr<sdma::SdmaQueues> queues;
  ASSERT_EQ(sdma::SdmaQueues::create(cfg, {{1, true}}, std::move(engine), &queues), Status::Success);
  uint8_t* buf = nullptr;
  ASSERT_EQ(hipMalloc(&buf, 2 * 64 * puts), hipSuccess);
  const auto t0 = std::chrono::steady_clock::now();
  putsThenQuiet<<<1, 1>>>(queues->devicePeers()[1], buf, buf + 64 * puts, puts);
  const hipError_t e = hipDeviceSynchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(e, hipSuccess) << "the kernel should have stopped at the timeout";
  EXPECT_LT(s, 30.0) << "stopped only after " << s << " s";
  if (!::testing::Test::HasFailure()) printf("SDMA-TIMEOUT-CHECK-PASSED\n");
  fflush(stdout);
  // The context is gone: leak the queues rather than tear down through it.
  (void)queues.release();
}

TEST(SdmaTimeout, QuietOnAStalledEngine) { expectStopsWithin(1, 64); }
TEST(SdmaTimeout, RingFullOnAStalledEngine) { expectStopsWithin(40, 8); }

}  // namespace
}  // namespace mori::test::dma
