#include "tests/support/dma_model/dma_model.hpp"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <chrono>
#include <initializer_list>
#include <thread>

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
  // Stall watch: the read pointer and doorbell last seen to move, and since when.
  uint64_t watchReadPtr = ~0ull, watchDoorbell = ~0ull;
  std::chrono::steady_clock::time_point watchSince{};
  bool stallReported = false;
  volatile uint64_t* wordHost(size_t off) const {
    return reinterpret_cast<volatile uint64_t*>(static_cast<char*>(host) + off);
  }
  volatile uint64_t* doorbellHost() const { return wordHost(16); }
  volatile ModelError* errorHost() const {
    return reinterpret_cast<volatile ModelError*>(static_cast<char*>(host) + 32);
  }
  char* dev(size_t off) const { return static_cast<char*>(device) + off; }
};

DmaModelEngine::DmaModelEngine(ModelOptions o) : opts_(o) {
  (void)hipGetDevice(&device_);
  if (hipStreamCreateWithFlags(&watchStream_, hipStreamNonBlocking) != hipSuccess ||
      hipHostMalloc(reinterpret_cast<void**>(&watchBuf_), (kMaxPacketDwords + 1) * sizeof(uint32_t),
                    hipHostMallocDefault) != hipSuccess) {
    (void)hipGetLastError();
    watchBuf_ = nullptr;  // stall reports then name the pointers but not the packet
  }
  thread_ = std::thread([this] { run(); });
  watchThread_ = std::thread([this] { watchHostThread(); });
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
  watchThread_.join();
  for (auto& q : queues_)
    if (q) release(*q);
  if (watchStream_) (void)hipStreamDestroy(watchStream_);
  if (watchBuf_) (void)hipHostFree(watchBuf_);
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
  // Read pointer, write-pointer shadow and doorbell start where the queue does.
  for (size_t off : {size_t{0}, size_t{8}, size_t{16}}) *q->wordHost(off) = r.firstOffset;
  q->consumed = r.firstOffset;
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

std::vector<std::string> DmaModelEngine::stalls() const {
  std::lock_guard<std::mutex> lock(stallMu_);
  return stalls_;
}

void DmaModelEngine::addStall(const std::string& line) {
  std::lock_guard<std::mutex> lock(stallMu_);
  stalls_.push_back(line);
  fprintf(stderr, "DMA model: %s\n", line.c_str());
}

static int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void DmaModelEngine::enterCall(const char* name) {
  hostCallSince_.store(steadyNs());
  hostCall_.store(name);
}

void DmaModelEngine::leaveCall() { hostCall_.store(nullptr); }

// Reports a HIP call of run() that has not returned for opts_.stallReportNs, once per call.
void DmaModelEngine::watchHostThread() {
  int64_t reportedSince = -1;
  while (!stop_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (opts_.stallReportNs == 0) continue;
    const char* call = hostCall_.load();
    const int64_t since = hostCallSince_.load();
    if (call == nullptr || since == reportedSince) continue;
    const int64_t ns = steadyNs() - since;
    if (ns < static_cast<int64_t>(opts_.stallReportNs)) continue;
    reportedSince = since;
    char msg[200];
    snprintf(msg, sizeof(msg), "the model's host thread has been in %s for %.1f s (no queue is served meanwhile)", call,
             static_cast<double>(ns) * 1e-9);
    addStall(msg);
  }
}

namespace {

// snprintf at buf + *n, advancing *n; keeps what fits.
__attribute__((format(printf, 4, 5))) void appendf(char* buf, size_t cap, int* n, const char* fmt, ...) {
  if (*n < 0 || static_cast<size_t>(*n) >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  const int k = vsnprintf(buf + *n, cap - static_cast<size_t>(*n), fmt, ap);
  va_end(ap);
  if (k > 0) *n += k;
}

const char* packetName(uint32_t op) {
  switch (op) {
    case kNop: return "NOP";
    case kCopy: return "COPY";
    case kFence: return "FENCE";
    case kTrap: return "TRAP";
    case kPollRegmem: return "POLL_REGMEM";
    case kAtomic: return "ATOMIC";
    default: return "unknown";
  }
}

}  // namespace

// Copies `bytes` from GPU-visible `src` into watchBuf_ on the watch stream, waiting at most 1 s
// (a wedged GPU must not wedge the report). False if it did not complete.
static bool watchRead(hipStream_t stream, uint32_t* buf, const void* src, size_t bytes) {
  if (buf == nullptr || hipMemcpyAsync(buf, src, bytes, hipMemcpyDefault, stream) != hipSuccess) {
    (void)hipGetLastError();
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    const hipError_t e = hipStreamQuery(stream);
    if (e == hipSuccess) return true;
    if (e != hipErrorNotReady || std::chrono::steady_clock::now() > deadline) {
      (void)hipGetLastError();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// One line on a queue that stopped making progress: its pointers, what the model is doing, and
// the packet at the read pointer (for a POLL_REGMEM, the word it polls and its value now).
std::string DmaModelEngine::describeStall(Queue& q, uint64_t readPtr, uint64_t doorbell, uint64_t writePtr) {
  const sdma::QueueRequest& r = q.request;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - q.watchSince).count();
  char buf[768];
  int n = snprintf(buf, sizeof(buf),
                   "queue %u to PE %d: no progress for %.1f s: read pointer %llu, doorbell %llu, write-pointer shadow "
                   "%llu, consumed %llu (ring %llu bytes); ",
                   r.queueIndex, r.peer, secs, static_cast<unsigned long long>(readPtr),
                   static_cast<unsigned long long>(doorbell), static_cast<unsigned long long>(writePtr),
                   static_cast<unsigned long long>(q.consumed), static_cast<unsigned long long>(r.ringBytes));
  if (q.busy)
    appendf(buf, sizeof(buf), &n, "a model kernel is over [%llu, %llu)", static_cast<unsigned long long>(q.consumed),
            static_cast<unsigned long long>(q.busyTo));
  else if (doorbell != q.consumed)
    appendf(buf, sizeof(buf), &n, "the doorbell's bytes are not taken");
  else
    appendf(
        buf, sizeof(buf), &n,
        "idle: the write-pointer shadow is past the doorbell, so the producers stored a write pointer they never rang");
  const uint64_t at = q.busy ? readPtr : q.consumed;
  if ((q.busy || doorbell != q.consumed) && at < (q.busy ? q.busyTo : doorbell)) {
    const uint64_t off = at & (r.ringBytes - 1);
    const uint64_t avail = (r.ringBytes - off) / 4;
    const size_t dwords = avail < kMaxPacketDwords ? static_cast<size_t>(avail) : kMaxPacketDwords;
    uint32_t pkt[kMaxPacketDwords] = {};
    if (watchRead(watchStream_, watchBuf_, static_cast<const char*>(r.ring) + off, dwords * 4)) {
      memcpy(pkt, watchBuf_, dwords * 4);
      appendf(buf, sizeof(buf), &n, "; packet at %llu: %s [", static_cast<unsigned long long>(at),
              packetName(get(pkt, kOp)));
      for (size_t i = 0; i < dwords; ++i) appendf(buf, sizeof(buf), &n, i ? " %08x" : "%08x", pkt[i]);
      appendf(buf, sizeof(buf), &n, "]");
      if (get(pkt, kOp) == kPollRegmem) {
        const uint64_t addr = get64(pkt, kPollAddrLo);
        appendf(buf, sizeof(buf), &n, " waits until (word at 0x%llx & 0x%08x) func %u 0x%08x",
                static_cast<unsigned long long>(addr), pkt[kPollMask], get(pkt, kPollFunc), pkt[kPollValue]);
        if (watchRead(watchStream_, watchBuf_, reinterpret_cast<const void*>(addr), 4))
          appendf(buf, sizeof(buf), &n, ": the word is 0x%08x", watchBuf_[0]);
        else
          appendf(buf, sizeof(buf), &n, ": the word is not readable");
      }
    } else {
      appendf(buf, sizeof(buf), &n, "; the packet at %llu is not readable", static_cast<unsigned long long>(at));
    }
  }
  return buf;
}

// Stall watch of one queue (mu_ held): work announced (a kernel in flight, a doorbell not taken,
// or a write pointer stored past the doorbell) while neither the read pointer nor the doorbell
// moves for opts_.stallReportNs is reported once, until something moves again.
void DmaModelEngine::watch(Queue& q) {
  if (opts_.stallReportNs == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const uint64_t readPtr = *q.wordHost(0), writePtr = *q.wordHost(8), doorbell = *q.doorbellHost();
  const bool work = q.busy || doorbell != q.consumed || writePtr > doorbell;
  if (!work || paused_.load() || readPtr != q.watchReadPtr || doorbell != q.watchDoorbell) {
    q.watchReadPtr = readPtr;
    q.watchDoorbell = doorbell;
    q.watchSince = now;
    q.stallReported = false;
    return;
  }
  if (q.stallReported || now - q.watchSince < std::chrono::nanoseconds(opts_.stallReportNs)) return;
  q.stallReported = true;
  enterCall("a stall report's reads of the ring");
  const std::string line = describeStall(q, readPtr, doorbell, writePtr);
  leaveCall();
  addStall(line);
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
    const auto passStart = std::chrono::steady_clock::now();
    if (!paused_.load()) {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& qp : queues_) {
        if (!qp || qp->failed) continue;
        Queue& q = *qp;
        watch(q);
        const sdma::QueueRequest& r = q.request;
        char msg[256];
        if (q.busy) {
          enterCall("hipStreamQuery (has the model kernel ended?)");
          hipError_t e = hipStreamQuery(q.stream);
          leaveCall();
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
        enterCall("the model kernel's launch");
        const hipError_t e = launchConsume(static_cast<const uint32_t*>(r.ring), r.ringBytes, q.consumed, announced,
                                           reinterpret_cast<uint64_t*>(q.dev(0)),
                                           reinterpret_cast<ModelError*>(q.dev(32)), opts_.pollTimeoutNs, q.stream);
        leaveCall();
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
    const double passSecs = std::chrono::duration<double>(std::chrono::steady_clock::now() - passStart).count();
    if (opts_.stallReportNs != 0 && passSecs * 1e9 > static_cast<double>(opts_.stallReportNs)) {
      char msg[160];
      snprintf(msg, sizeof(msg),
               "the model's host thread spent %.1f s in one pass over its queues (a HIP call blocked)", passSecs);
      addStall(msg);
    }
    if (!worked) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

}  // namespace mori::test::dma
