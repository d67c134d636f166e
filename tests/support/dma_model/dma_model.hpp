// The DMA-engine model: a QueueEngine (transport/sdma/queue_engine.hpp) that plays the SDMA
// engines on any GPU, so the SDMA device path runs end to end without AMD hardware. Test-only;
// never installed.
//
// Per queue it allocates, in pinned host memory the GPU maps (as libhsakmt places them), the
// read-pointer write-back, the write-pointer shadow and the doorbell. One host thread watches
// every doorbell; when one moves past what was consumed and the queue is idle, it launches the
// model kernel on the queue's own stream over exactly the announced bytes [consumed, doorbell):
// queues run concurrently, as engines do; within a queue packets are executed in order, the
// read pointer advances packet by packet, and nothing past the doorbell's value is ever read (a write pointer the
// producers stored without ringing is ignored, as the engine ignores it). A packet it cannot execute stops that queue
// and is reported by name. A queue that has announced work and makes no progress for
// ModelOptions::stallReportNs is reported too (stalls()), with its pointers and the packet it is at.
#pragma once

#include <stdint.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "transport/sdma/queue_engine.hpp"

namespace mori::test::dma {

struct ModelOptions {
  uint32_t pcieEngines = 2;  // what inventory() reports
  uint32_t xgmiEngines = 8;
  bool engineById = true;
  uint64_t pollTimeoutNs = 10'000'000'000ull;  // POLL_REGMEM gives up (and reports) after this
  uint32_t maxRingSlots = 0;                   // what inventory() reports (0: no limit); small rings for wrap stress
  uint64_t stallReportNs = 5'000'000'000ull;   // a queue with work and no progress this long is reported (0: never)
};

class DmaModelEngine final : public sdma::QueueEngine {
 public:
  explicit DmaModelEngine(ModelOptions o = {});
  ~DmaModelEngine() override;

  sdma::EngineInventory inventory() const override;
  Status create(const sdma::QueueRequest& r, sdma::QueueHandles* out) override;
  Status destroy(const sdma::QueueRequest& r, const sdma::QueueHandles& h) override;

  // Errors the model met so far ("queue N to PE P: ..."); empty if none.
  std::vector<std::string> errors() const;
  // Queues that had announced work and made no progress for opts.stallReportNs (one line each:
  // queue, read pointer, doorbell, write-pointer shadow, the packet at the read pointer and, for a
  // POLL_REGMEM, the word it polls); also printed to stderr as they happen. Empty if none.
  std::vector<std::string> stalls() const;
  // Bytes consumed over all queues, and model kernels launched.
  uint64_t bytesConsumed() const { return consumed_.load(); }
  uint64_t launches() const { return launches_.load(); }
  // Stops consuming (a hung engine) until resume(): for the timeout tests.
  void pause(bool paused) { paused_.store(paused); }

 private:
  struct Queue;
  void run();
  static void release(Queue& q);
  void stopQueue(Queue& q, const char* msg);
  void watch(Queue& q);
  void addStall(const std::string& line);
  void watchHostThread();
  // A HIP call of the host thread, for the host-thread watch (names; nullptr: none).
  void enterCall(const char* name);
  void leaveCall();
  std::string describeStall(Queue& q, uint64_t readPtr, uint64_t doorbell, uint64_t writePtr);

  ModelOptions opts_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<std::string> errors_;
  std::vector<std::string> stalls_;  // stallMu_: the host-thread watch adds while run() may hold mu_
  mutable std::mutex stallMu_;
  // The HIP call run() is in and since when (steady_clock ns), read by the watch thread, which
  // makes no HIP call itself: a host thread blocked in HIP is reported while it is blocked.
  std::atomic<const char*> hostCall_{nullptr};
  std::atomic<int64_t> hostCallSince_{0};
  std::thread watchThread_;
  hipStream_t watchStream_ = nullptr;  // the stall reports' reads of rings and polled words
  uint32_t* watchBuf_ = nullptr;       // pinned, kMaxPacketDwords + 1 dwords
  std::atomic<bool> stop_{false}, paused_{false};
  std::atomic<uint64_t> consumed_{0}, launches_{0};
  std::thread thread_;
  int device_ = 0;
};

}  // namespace mori::test::dma
