// A stalled engine never hangs the kernel: with the DMA model paused, each bounded device wait
// (completion in quiet, ring space in a put) stops the kernel after the queue's timeout and
// prints the queue's counters; with the abort word set (a dead peer) it stops at once, naming the
// failed PE. Each case poisons the GPU context, so ctest runs each in its own
// process and requires the device's message and this test's verdict line in the output.
#include <gtest/gtest.h>

#include <stdio.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"
#include "tests/gpu/sdma/sdma_test_scopes.hpp"
#include "tests/support/dma_model/dma_model.hpp"
#include "tests/support/test_env.hpp"
#include "transport/sdma/sdma_queues.hpp"

MORI_TEST_REQUIRES_GPU_FAULTS(1);

namespace mori::test::dma {
namespace {

// `puts` thread-scope puts of 64 bytes, then quiet; every wait reads `abort` (null: none).
__global__ void putsThenQuiet(sdma::SdmaPeerDevice peer, uint8_t* dst, const uint8_t* src, int puts,
                              const device::DeviceErrorRecord* abort) {
  for (int i = 0; i < puts; ++i) sdma::put<ThreadG>(peer, dst + 64 * i, src + 64 * i, 64, abort);
  sdma::quiet<ThreadG>(peer, abort);
}

// A kernel waits on a paused engine. Without the abort word its queue timeout (0.5 s) stops it;
// with it, the queue timeout is 60 s and the abort word, set after 300 ms as the host's peer
// monitor sets it for a dead peer (issue 20), must stop it within seconds, naming the PE (the
// device prints "wait for <what> stopped: PE 1 failed"; ctest requires it).
void expectStops(int puts, uint32_t slots, bool abortWord) {
  auto engine = std::make_unique<DmaModelEngine>();
  engine->pause(true);
  sdma::SdmaQueuesConfig cfg;
  cfg.myPe = 0;
  cfg.nPes = 2;
  cfg.queuesPerPeer = 1;
  cfg.ringSlots = slots;
  cfg.timeoutTicks = gpu::nsToWallTicks(abortWord ? 60'000'000'000ull : 500'000'000ull);
  std::unique_ptr<sdma::SdmaQueues> queues;
  ASSERT_EQ(sdma::SdmaQueues::create(cfg, {{1, true}}, std::move(engine), &queues), Status::Success);
  void* recHost = nullptr;
  void* recDev = nullptr;
  if (abortWord) {
    ASSERT_EQ(hipHostMalloc(&recHost, sizeof(device::DeviceErrorRecord), hipHostMallocMapped), hipSuccess);
    ASSERT_EQ(hipHostGetDevicePointer(&recDev, recHost, 0), hipSuccess);
    memset(recHost, 0, sizeof(device::DeviceErrorRecord));
  }
  uint8_t* buf = nullptr;
  ASSERT_EQ(hipMalloc(&buf, 2 * 64 * puts), hipSuccess);
  const auto t0 = std::chrono::steady_clock::now();
  putsThenQuiet<<<1, 1>>>(queues->devicePeers()[1], buf, buf + 64 * puts, puts,
                          static_cast<const device::DeviceErrorRecord*>(recDev));
  ASSERT_EQ(hipGetLastError(), hipSuccess) << "kernel launch";
  if (abortWord) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(hipStreamQuery(nullptr), hipErrorNotReady) << "the kernel must still be waiting on the paused engine";
    // What the peer monitor writes (shmem/runtime.cpp markPeerFailed): the fields, the code.
    auto* rec = static_cast<device::DeviceErrorRecord*>(recHost);
    rec->pe = 0;
    rec->peer = 1;
    rec->a = 1;
    snprintf(rec->where, sizeof(rec->where), "peer monitor");
    std::atomic_thread_fence(std::memory_order_seq_cst);
    reinterpret_cast<volatile uint32_t*>(&rec->code)[0] = static_cast<uint32_t>(device::DeviceErrorCode::PeerFailed);
  }
  const hipError_t e = hipDeviceSynchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(e, hipSuccess) << "the kernel should have stopped " << (abortWord ? "on the abort word" : "at the timeout");
  EXPECT_LT(s, abortWord ? 20.0 : 30.0) << "stopped only after " << s << " s";
  if (!::testing::Test::HasFailure()) printf("SDMA-TIMEOUT-CHECK-PASSED\n");
  fflush(stdout);
  // The context is gone: leak the queues rather than tear down through it.
  (void)queues.release();
}

TEST(SdmaTimeout, QuietOnAStalledEngine) { expectStops(1, 64, false); }
TEST(SdmaTimeout, RingFullOnAStalledEngine) { expectStops(40, 8, false); }
TEST(SdmaTimeout, AbortWordEndsQuiet) { expectStops(1, 64, true); }
TEST(SdmaTimeout, AbortWordEndsRingFull) { expectStops(40, 8, true); }

}  // namespace
}  // namespace mori::test::dma
