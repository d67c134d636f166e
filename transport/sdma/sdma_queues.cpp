#include "transport/sdma/sdma_queues.hpp"

#include <string.h>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/sdma/sdma_flow.hpp"
#include "src/common/log.hpp"
#include "src/platform_host/gpu_queue_memory.hpp"
#include "transport/sdma/engine_choice.hpp"

namespace mori::sdma {
namespace {

// Per queue in counters_: the producers' state, then the engine's completion word and its mirror
// (sdma_flow.hpp), in their own 64-byte line.
constexpr size_t kCountersBytes = 64;
constexpr size_t kCompletionOffset = sizeof(SdmaQueueState);

}  // namespace

Status SdmaQueues::create(const SdmaQueuesConfig& cfg, const std::vector<SdmaPeerSpec>& peers,
                          std::unique_ptr<QueueEngine> engine, std::unique_ptr<SdmaQueues>* out) {
  if (cfg.queuesPerPeer < 1 || cfg.queuesPerPeer > 64)
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: SDMA queues per peer must be 1..64, not %u", cfg.myPe,
                     cfg.queuesPerPeer);
  if (cfg.ringSlots < 4 || (cfg.ringSlots & (cfg.ringSlots - 1)) != 0 || cfg.ringSlots > (1u << 20))
    return MORI_FAIL(Status::InvalidUsage, log::kInit,
                     "PE %d: SDMA ring slots must be a power of two in 4..2^20, not %u", cfg.myPe, cfg.ringSlots);
  for (const SdmaPeerSpec& p : peers)
    if (p.pe < 0 || p.pe >= cfg.nPes || p.pe == cfg.myPe)
      return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: SDMA peer %d is not another PE of 0..%d", cfg.myPe,
                       p.pe, cfg.nPes - 1);
  if (!engine) return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: SDMA queues need an engine", cfg.myPe);
  if (cfg.firstSlot >= (uint64_t{1} << 48))
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: SDMA queues cannot start at slot %llu (2^48 or more)",
                     cfg.myPe, static_cast<unsigned long long>(cfg.firstSlot));
  std::unique_ptr<SdmaQueues> q(new SdmaQueues());
  q->cfg_ = cfg;
  q->engine_ = std::move(engine);
  q->inventory_ = q->engine_->inventory();
  if (q->inventory_.maxRingSlots != 0 && q->inventory_.maxRingSlots < q->cfg_.ringSlots) {
    if (q->inventory_.maxRingSlots < 4 || (q->inventory_.maxRingSlots & (q->inventory_.maxRingSlots - 1)) != 0)
      return MORI_FAIL(Status::Internal, log::kInit,
                       "PE %d: SDMA engine (%s) limits rings to %u slots: not a power of two >= 4", cfg.myPe,
                       q->inventory_.driver.c_str(), q->inventory_.maxRingSlots);
    q->cfg_.ringSlots = q->inventory_.maxRingSlots;
  }
  const Status s = q->build(q->cfg_, peers);
  if (s != Status::Success) return s;  // q's destructor tears down what was made
  *out = std::move(q);
  return Status::Success;
}

Status SdmaQueues::build(const SdmaQueuesConfig& cfg, const std::vector<SdmaPeerSpec>& peers) {
  const uint64_t ringBytes = uint64_t{cfg.ringSlots} << kSlotShift;
  const size_t nQueues = peers.size() * cfg.queuesPerPeer;
  devicePeers_.assign(cfg.nPes, SdmaPeerDevice{nullptr, 0, 0});
  if (nQueues == 0) return Status::Success;
  MORI_TRY(platform::allocQueueMemory(ringBytes * nQueues, &rings_));
  MORI_TRY(platform::allocQueueMemory(kCountersBytes * nQueues, &counters_));
  // Counters start at firstSlot, every slot below it complete: reserved = posted = firstSlot, the
  // completion word its low 32 bits, the mirror word those plus kMirrorOffset.
  std::vector<uint8_t> counters(kCountersBytes * nQueues, 0);
  const SdmaQueueState start{cfg.firstSlot, cfg.firstSlot};
  const uint32_t completion[2] = {static_cast<uint32_t>(cfg.firstSlot),
                                  static_cast<uint32_t>(cfg.firstSlot) + kMirrorOffset};
  for (size_t n = 0; n < nQueues; ++n) {
    memcpy(counters.data() + n * kCountersBytes, &start, sizeof(start));
    memcpy(counters.data() + n * kCountersBytes + kCompletionOffset, completion, sizeof(completion));
  }
  hipError_t e = hipMemcpy(counters_, counters.data(), counters.size(), hipMemcpyHostToDevice);
  if (e != hipSuccess)
    return MORI_FAIL(Status::System, log::kInit, "PE %d: SDMA queue counters: hipMemcpy failed: %s", cfg.myPe,
                     hipGetErrorString(e));
  e = hipMalloc(reinterpret_cast<void**>(&queuesGpu_), sizeof(SdmaQueueDevice) * nQueues);
  if (e == hipSuccess) e = hipMalloc(reinterpret_cast<void**>(&peersGpu_), sizeof(SdmaPeerDevice) * cfg.nPes);
  if (e != hipSuccess)
    return MORI_FAIL(Status::OutOfMemory, log::kInit, "PE %d: SDMA queue tables: hipMalloc failed: %s", cfg.myPe,
                     hipGetErrorString(e));

  std::vector<SdmaQueueDevice> devQueues(nQueues);
  queues_.resize(nQueues);
  for (size_t k = 0; k < peers.size(); ++k) {
    for (uint32_t i = 0; i < cfg.queuesPerPeer; ++i) {
      const size_t n = k * cfg.queuesPerPeer + i;
      Queue& qu = queues_[n];
      QueueRequest& r = qu.request;
      r.myPe = cfg.myPe;
      r.peer = peers[k].pe;
      r.peerOrdinal = static_cast<uint32_t>(k);
      r.queueIndex = i;
      r.xgmi = peers[k].xgmi;
      const EngineChoice c = chooseEngine(inventory_, r.peerOrdinal, i, cfg.queuesPerPeer, r.xgmi);
      r.queueType = c.queueType;
      r.engineId = c.engineId;
      r.ring = static_cast<char*>(rings_) + n * ringBytes;
      r.ringBytes = ringBytes;
      r.firstOffset = cfg.firstSlot << kSlotShift;
      MORI_TRY(engine_->create(r, &qu.handles));
      qu.created = true;
      char* counters = static_cast<char*>(counters_) + n * kCountersBytes;
      SdmaQueueDevice& d = devQueues[n];
      memset(&d, 0, sizeof(d));
      d.ring = static_cast<uint32_t*>(r.ring);
      d.readPtr = qu.handles.readPtr;
      d.writePtr = qu.handles.writePtr;
      d.doorbell = qu.handles.doorbell;
      d.state = reinterpret_cast<SdmaQueueState*>(counters);
      d.completion = reinterpret_cast<uint32_t*>(counters + kCompletionOffset);
      d.timeoutTicks = cfg.timeoutTicks;
      d.slots = cfg.ringSlots;
      d.myPe = cfg.myPe;
      d.peer = r.peer;
      d.queueIndex = i;
      d.engine = qu.handles.engine;
    }
    devicePeers_[peers[k].pe] = SdmaPeerDevice{queuesGpu_ + k * cfg.queuesPerPeer, cfg.queuesPerPeer, 0};
  }
  e = hipMemcpy(queuesGpu_, devQueues.data(), sizeof(SdmaQueueDevice) * nQueues, hipMemcpyHostToDevice);
  if (e == hipSuccess)
    e = hipMemcpy(peersGpu_, devicePeers_.data(), sizeof(SdmaPeerDevice) * cfg.nPes, hipMemcpyHostToDevice);
  if (e != hipSuccess)
    return MORI_FAIL(Status::System, log::kInit, "PE %d: SDMA queue tables: hipMemcpy failed: %s", cfg.myPe,
                     hipGetErrorString(e));
  return Status::Success;
}

std::vector<std::string> SdmaQueues::describe() const {
  std::vector<std::string> lines;
  for (const Queue& q : queues_) {
    const QueueRequest& r = q.request;
    char line[256];
    const char* type = r.queueType == 6 ? "by engine id" : r.queueType == 5 ? "SDMA_XGMI" : "SDMA";
    snprintf(line, sizeof(line), "PE %d -> PE %d queue %u: %s, engine %s, ring %llu KiB (%u slots of %u B)", r.myPe,
             r.peer, r.queueIndex, type,
             q.handles.engine == ~0u ? "chosen by the driver" : std::to_string(q.handles.engine).c_str(),
             static_cast<unsigned long long>(r.ringBytes >> 10), cfg_.ringSlots, kSlotBytes);
    lines.push_back(line);
  }
  return lines;
}

void SdmaQueues::teardown() {
  // Queues first (the engine stops reading the rings), then their memory.
  for (Queue& q : queues_)
    if (q.created) {
      (void)engine_->destroy(q.request, q.handles);
      q.created = false;
    }
  if (peersGpu_) (void)hipFree(peersGpu_);
  if (queuesGpu_) (void)hipFree(queuesGpu_);
  if (counters_) platform::freeQueueMemory(counters_);
  if (rings_) platform::freeQueueMemory(rings_);
  peersGpu_ = nullptr;
  queuesGpu_ = nullptr;
  counters_ = rings_ = nullptr;
}

SdmaQueues::~SdmaQueues() { teardown(); }

}  // namespace mori::sdma
