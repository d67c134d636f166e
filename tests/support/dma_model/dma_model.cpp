#include "tests/support/dma_model/dma_model.hpp"

#include <stdio.h>
#include <string.h>

#include <chrono>

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/log.hpp"
#include "tests/support/dma_model/model_kernel.hpp"

namespace mori::test::dma {

// The engine-side words of one queue, in one pinned, mapped block: [0] read pointer, [8] write
// pointer, [16] doorbell, [32] ModelError.
struct DmaModelEngine::Queue {
  sdma::QueueRequest request;
  void* host = nullptr;
  void* device = nullptr;
  uint64_t consumed = 0;
  bool failed = false;
  // Queues run concurrently, as engines do (a POLL_REGMEM in one queue may wait for another's
  // completion word): each has its own stream, and at most one model kernel in flight on it,
  // consuming up to busyTo.
  hipStream_t stream = nullptr;
  bool busy = false;
  uint64_t busyTo = 0;
  volatile uint64_t* doorbellHost() const {
    return reinterpret_cast<volatile uint64_t*>(static_cast<char*>(host) + 16);
  }
  volatile ModelError* errorHost() const {
    return reinterpret_cast<volatile ModelError*>(static_cast<char*>(host) + 32);
  }
  char* dev(size_t off) const { return static_cast<char*>(device) + off; }
};

DmaModelEngine::DmaModelEngine(ModelOptions o) : opts_(o) {
  (void)hipGetDevice(&device_);
  thread_ = std::thread([this] { run(); });
}

// Waits for the queue's model kernel (a stopped engine finishes what it fetched), then frees.
void DmaModelEngine::release(Queue& q) {
  if (q.stream) {
    (void)hipStreamSynchronize(q.stream);
    (void)hipStreamDestroy(q.stream);
  }
  if (q.host) (void)hipHostFree(q.host);
  q.stream = nullptr;
  q.host = nullptr;
}

DmaModelEngine::~DmaModelEngine() {
  stop_.store(true);
  thread_.join();
  for (auto& q : queues_)
    if (q) release(*q);
}

sdma::EngineInventory DmaModelEngine::inventory() const {
  sdma::EngineInventory inv;
  inv.pcieEngines = opts_.pcieEngines;
  inv.xgmiEngines = opts_.xgmiEngines;
  inv.engineById = opts_.engineById;
  inv.maxRingSlots = opts_.maxRingSlots;
  inv.driver = "DMA-engine model (tests/support/dma_model)";
  return inv;
}

Status DmaModelEngine::create(const sdma::QueueRequest& r, sdma::QueueHandles* out) {
  auto q = std::make_unique<Queue>();
  q->request = r;
  hipError_t e = hipStreamCreateWithFlags(&q->stream, hipStreamNonBlocking);
  if (e != hipSuccess)
    return MORI_FAIL(Status::System, log::kInit, "PE %d: DMA model: queue %u to PE %d: no stream: %s", r.myPe,
                     r.queueIndex, r.peer, hipGetErrorString(e));
  e = hipHostMalloc(&q->host, 64, hipHostMallocMapped);
  if (e == hipSuccess) e = hipHostGetDevicePointer(&q->device, q->host, 0);
  if (e != hipSuccess) {
    const char* why = hipGetErrorString(e);
    release(*q);
    return MORI_FAIL(Status::OutOfMemory, log::kInit, "PE %d: DMA model: queue %u to PE %d: mapped host words: %s",
                     r.myPe, r.queueIndex, r.peer, why);
  }
  memset(q->host, 0, 64);
  out->readPtr = reinterpret_cast<uint64_t*>(q->dev(0));
  out->writePtr = reinterpret_cast<uint64_t*>(q->dev(8));
  out->doorbell = reinterpret_cast<uint64_t*>(q->dev(16));
  out->engine = r.queueType == 6 ? r.engineId : ~0u;
  std::lock_guard<std::mutex> lock(mu_);
  out->id = queues_.size();
  queues_.push_back(std::move(q));
  return Status::Success;
}

Status DmaModelEngine::destroy(const sdma::QueueRequest& r, const sdma::QueueHandles& h) {
  std::lock_guard<std::mutex> lock(mu_);
  if (h.id >= queues_.size() || !queues_[h.id])
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: DMA model: queue %u to PE %d: unknown id %llu", r.myPe,
                     r.queueIndex, r.peer, static_cast<unsigned long long>(h.id));
  release(*queues_[h.id]);
  queues_[h.id].reset();  // the thread skips it from now on (it holds mu_ while it looks at queues)
  return Status::Success;
}

std::vector<std::string> DmaModelEngine::errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return errors_;
}

// A queue the model cannot go on with: recorded, printed, and never consumed again. mu_ held.
void DmaModelEngine::stopQueue(Queue& q, const char* msg) {
  errors_.push_back(msg);
  fprintf(stderr, "DMA model: %s\n", msg);
  q.failed = true;
}

void DmaModelEngine::run() {
  (void)hipSetDevice(device_);
  while (!stop_.load()) {
    bool worked = false;
    if (!paused_.load()) {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& qp : queues_) {
        if (!qp || qp->failed) continue;
        Queue& q = *qp;
        const sdma::QueueRequest& r = q.request;
        char msg[256];
        if (q.busy) {
          hipError_t e = hipStreamQuery(q.stream);
          if (e == hipErrorNotReady) continue;
          q.busy = false;
          worked = true;
          if (e != hipSuccess) {
            snprintf(msg, sizeof(msg), "queue %u to PE %d: model kernel failed: %s", r.queueIndex, r.peer,
                     hipGetErrorString(e));
            stopQueue(q, msg);
            continue;
          }
          const ModelError err{q.errorHost()->code, q.errorHost()->header, q.errorHost()->position};
          if (err.code != 0) {
            snprintf(msg, sizeof(msg), "queue %u to PE %d: %s (header 0x%08x) at ring byte %llu; queue stopped",
                     r.queueIndex, r.peer, modelErrorName(err.code), err.header,
                     static_cast<unsigned long long>(err.position));
            stopQueue(q, msg);
            continue;
          }
          consumed_.fetch_add(q.busyTo - q.consumed);
          q.consumed = q.busyTo;
        }
        const uint64_t announced = *q.doorbellHost();
        if (announced == q.consumed) continue;
        if (announced < q.consumed || announced - q.consumed > r.ringBytes || (announced & 3) != 0) {
          snprintf(msg, sizeof(msg),
                   "queue %u to PE %d: doorbell %llu after %llu consumed (ring %llu bytes): not a valid write pointer",
                   r.queueIndex, r.peer, static_cast<unsigned long long>(announced),
                   static_cast<unsigned long long>(q.consumed), static_cast<unsigned long long>(r.ringBytes));
          stopQueue(q, msg);
          continue;
        }
        const hipError_t e = launchConsume(static_cast<const uint32_t*>(r.ring), r.ringBytes, q.consumed, announced,
                                           reinterpret_cast<uint64_t*>(q.dev(0)),
                                           reinterpret_cast<ModelError*>(q.dev(32)), opts_.pollTimeoutNs, q.stream);
        launches_.fetch_add(1);
        worked = true;
        if (e != hipSuccess) {
          snprintf(msg, sizeof(msg), "queue %u to PE %d: model kernel launch failed: %s", r.queueIndex, r.peer,
                   hipGetErrorString(e));
          stopQueue(q, msg);
          continue;
        }
        q.busy = true;
        q.busyTo = announced;
      }
    }
    if (!worked) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

}  // namespace mori::test::dma
