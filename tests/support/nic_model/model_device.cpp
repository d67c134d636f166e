#include "tests/support/nic_model/model_device.hpp"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>

#include "mori/platform/wave.hpp"
#include "src/common/gpu_check.hpp"
#include "tests/support/nic_model/model_endpoint.hpp"
#include "tests/support/nic_model/model_kernel.hpp"

namespace mori::test::nicmodel {
namespace {

// Key layout: kind tag (bits 31:28) | sequence (27:16) | owner PE (15:0). Keys of different PEs
// differ, so a WQE that uses another PE's rkey (or an lkey as an rkey) fails as on a real NIC.
constexpr uint32_t kTagRegionLkey = 1, kTagRegionRkey = 2, kTagResultLkey = 3;
uint32_t makeKey(uint32_t tag, uint32_t seq, int pe) {
  return tag << 28 | (seq & 0xfffu) << 16 | (static_cast<uint32_t>(pe) & 0xffffu);
}

// Devices whose NIC thread must stop before the process's GPU runtime is torn down at exit (a
// test that ends on a device error never finalizes).
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}
std::vector<ModelDevice*>& registry() {
  static std::vector<ModelDevice*> r;
  return r;
}
void stopAllAtExit() {
  std::lock_guard<std::mutex> lock(registryMutex());
  for (ModelDevice* d : registry()) d->stopThread();
}

}  // namespace

Status ModelDevice::open(const rdma::PeGroup& pes, const ModelConfig& cfg, std::unique_ptr<ModelDevice>* out) {
  std::unique_ptr<ModelDevice> d(new ModelDevice(pes, cfg));
  MORI_TRY(d->init());
  *out = std::move(d);
  return Status::Success;
}

Status ModelDevice::init() {
  myPe_ = pes_.rank;
  nPes_ = pes_.size;
  snprintf(name_, sizeof(name_), "nic_model_%s", providerName(cfg_.provider));
  if (pes_.localSize != nPes_)
    return MORI_FAIL(Status::NotSupported, log::kRdma,
                     "NIC model: it reaches peers through GPU P2P mappings, so all %d PEs must share one host (%d do)",
                     nPes_, pes_.localSize);
  MORI_HIP_TRY(hipGetDevice(&gpu_), log::kRdma);
  hipDeviceProp_t prop;
  MORI_HIP_TRY(hipGetDeviceProperties(&prop, gpu_), log::kRdma);
  waveSize_ = static_cast<uint32_t>(prop.warpSize);
  MORI_HIP_TRY(preloadModelKernels(cfg_.carveout), log::kRdma);
  {
    // Registered after the GPU runtime initialised, so it runs before the runtime's own teardown.
    static std::once_flag once;
    std::call_once(once, [] { atexit(stopAllAtExit); });
  }
  MORI_HIP_TRY(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), log::kRdma);
  MORI_HIP_TRY(hipEventCreateWithFlags(&done_, hipEventDisableTiming), log::kRdma);
  MORI_TRY(control_.create(sizeof(ModelControl)));
  controlHost_ = static_cast<ModelControl*>(control_.host());

  // Room for every QP the runtime may create (MORI_SHMEM_NUM_QP_PER_PE <= 64 per peer) and the
  // keys of kMaxRegions registrations per PE plus one result key per QP.
  qpCapacity_ = static_cast<uint32_t>(nPes_) * 64;
  keyCapacity_ = static_cast<uint32_t>(nPes_ + 1) * 128 + qpCapacity_;
  MORI_HIP_TRY(hipMalloc(&qpsDev_, sizeof(ModelQp) * qpCapacity_), log::kRdma);
  // One staging area per QP warp (a launch never has more warps than QPs, rounded to blocks).
  const size_t stagingWarps = (qpCapacity_ + kBlockThreads - 1) / kBlockThreads * kBlockThreads;
  MORI_HIP_TRY(hipMalloc(&stagingDev_, stagingWarps * gpu::kMaxWaveSize * kMaxSlotBytes), log::kRdma);
  MORI_HIP_TRY(hipMalloc(&progressDev_, sizeof(ModelQpProgress) * qpCapacity_), log::kRdma);
  MORI_HIP_TRY(hipMalloc(&keysDev_, sizeof(KeyEntry) * keyCapacity_), log::kRdma);
  MORI_HIP_TRY(hipMalloc(&sharedDev_, sizeof(ModelShared)), log::kRdma);
  MORI_HIP_TRY(hipMemsetAsync(sharedDev_, 0, sizeof(ModelShared), stream_), log::kRdma);
  MORI_HIP_TRY(hipStreamSynchronize(stream_), log::kRdma);
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    registry().push_back(this);
  }
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::exception& e) {
    return MORI_FAIL(Status::System, log::kRdma, "NIC model: cannot start its thread: %s", e.what());
  }
  MORI_LOG_INFO(log::kRdma, "NIC model playing %s for PE %d on GPU %d (%s%s)", providerName(cfg_.provider), myPe_, gpu_,
                cfg_.sink ? "sink mode" : "moving data",
                cfg_.error.pe >= 0 || cfg_.stall.pe >= 0 ? ", fault injection set" : "");
  return Status::Success;
}

void ModelDevice::stopThread() {
  stopping_.store(true, std::memory_order_release);
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

ModelDevice::~ModelDevice() {
  stopThread();
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    auto& r = registry();
    r.erase(std::remove(r.begin(), r.end(), this), r.end());
  }
  if (controlHost_) {
    if (inFlight_ && !broken_) {
      // A lingering kernel returns at once on stop; it reads mappings we are about to close.
      __atomic_store_n(&controlHost_->stop, 1u, __ATOMIC_RELEASE);
      const hipError_t e = hipEventSynchronize(done_);
      if (e != hipSuccess) MORI_LOG_WARN(log::kRdma, "NIC model: waiting for its kernel: %s", hipGetErrorString(e));
    }
    std::lock_guard<std::mutex> lock(mu_);
    logDiagnosticsLocked();
  }
  for (auto& r : regs_) closeRegion(&r.second.copies);
  regs_.clear();
  if (qpsDev_) (void)hipFree(qpsDev_);
  if (stagingDev_) (void)hipFree(stagingDev_);
  if (progressDev_) (void)hipFree(progressDev_);
  if (keysDev_) (void)hipFree(keysDev_);
  if (sharedDev_) (void)hipFree(sharedDev_);
  if (done_) (void)hipEventDestroy(done_);
  if (stream_) (void)hipStreamDestroy(stream_);
  MORI_LOG_DEBUG(log::kRdma, "NIC model for PE %d: %llu kernel launches", myPe_,
                 static_cast<unsigned long long>(launches_));
}

// ---- tables, changed only while no model kernel runs

template <class F>
Status ModelDevice::quiescent(F&& change) {
  std::unique_lock<std::mutex> lock(mu_);
  ++updaters_;  // the NIC thread launches nothing meanwhile
  // A running kernel sees the new generation and returns (model_kernel.cpp).
  __atomic_store_n(&controlHost_->generation, ++generation_, __ATOMIC_RELEASE);
  while (inFlight_ && !broken_) {
    if (!stopping_.load(std::memory_order_acquire)) {
      cv_.wait(lock);
      continue;
    }
    // No NIC thread left to notice the kernel's end (process exit): wait for it here.
    const hipError_t e = hipEventSynchronize(done_);
    inFlight_ = false;
    if (e != hipSuccess) failLocked(e, "waiting for the model kernel");
  }
  Status s = broken_ ? MORI_FAIL(Status::System, log::kRdma,
                                 "NIC model: the GPU context failed earlier; cannot change the model's tables")
                     : change();
  --updaters_;
  return s;
}

Status ModelDevice::uploadKeysLocked() {
  MORI_HIP_TRY(hipMemcpyAsync(keysDev_, keys_.data(), keys_.size() * sizeof(KeyEntry), hipMemcpyHostToDevice, stream_),
               log::kRdma);
  MORI_HIP_TRY(hipStreamSynchronize(stream_), log::kRdma);
  return Status::Success;
}

Status ModelDevice::uploadQpLocked(uint32_t slot) {
  MORI_HIP_TRY(hipMemcpyAsync(qpsDev_ + slot, &qps_[slot], sizeof(ModelQp), hipMemcpyHostToDevice, stream_),
               log::kRdma);
  MORI_HIP_TRY(hipStreamSynchronize(stream_), log::kRdma);
  return Status::Success;
}

Status ModelDevice::addKeyLocked(const KeyEntry& e, uint32_t* entry) {
  for (uint32_t i = 0; i < keys_.size(); ++i)
    if (!keys_[i].live) {
      keys_[i] = e;
      *entry = i;
      return Status::Success;
    }
  if (keys_.size() >= keyCapacity_)
    return MORI_FAIL(Status::OutOfMemory, log::kRdma, "NIC model: more than %u live memory keys", keyCapacity_);
  keys_.push_back(e);
  *entry = static_cast<uint32_t>(keys_.size() - 1);
  return Status::Success;
}

// ---- memory registration

Status ModelDevice::registerMemory(void* ptr, size_t bytes, rdma::MemoryRegistration* out) {
  const uint32_t seq = regSeq_++;
  const uint32_t lkey = makeKey(kTagRegionLkey, seq, myPe_), rkey = makeKey(kTagRegionRkey, seq, myPe_);
  Registration r;
  MORI_TRY(exchangeRegion(pes_, seq, ptr, bytes, rkey, &r.copies));
  Status s = quiescent([&]() -> Status {
    std::vector<KeyEntry> add;
    add.push_back(KeyEntry{lkey, kLocalKey, 1, myPe_, 0, reinterpret_cast<uint64_t>(ptr), bytes,
                           reinterpret_cast<uint64_t>(ptr)});
    for (const RegionCopy& c : r.copies)
      add.push_back(KeyEntry{c.rkey, kRemoteKey, 1, c.pe, 0, c.base, c.size, c.mapped});
    for (const KeyEntry& e : add) {
      uint32_t entry = 0;
      Status st = addKeyLocked(e, &entry);
      if (!ok(st)) {
        for (uint32_t i : r.entries) keys_[i].live = 0;
        return st;
      }
      r.entries.push_back(entry);
    }
    return uploadKeysLocked();
  });
  if (!ok(s)) {
    closeRegion(&r.copies);
    return MORI_FAIL(s, log::kRdma, "NIC model: registering %p (%zu bytes) failed", ptr, bytes);
  }
  out->lkey = lkey;
  out->rkey = rkey;
  out->handle = reinterpret_cast<void*>(static_cast<uintptr_t>(seq) + 1);
  std::lock_guard<std::mutex> lock(mu_);
  regs_[seq + 1] = std::move(r);
  return Status::Success;
}

Status ModelDevice::deregisterMemory(const rdma::MemoryRegistration& reg) {
  const uint32_t id = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(reg.handle));
  Registration r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = regs_.find(id);
    if (it == regs_.end())
      return MORI_FAIL(Status::InvalidUsage, log::kRdma, "NIC model: deregistering unknown registration (lkey 0x%x)",
                       reg.lkey);
    r = std::move(it->second);
    regs_.erase(it);
  }
  // Local only: the peers drop their entries for their own copies in their own deregistration.
  Status s = quiescent([&]() -> Status {
    for (uint32_t i : r.entries) keys_[i].live = 0;
    return uploadKeysLocked();
  });
  // No kernel launched from now on can see the entries: the mappings can go.
  closeRegion(&r.copies);
  return s;
}

Status ModelDevice::addLocalKey(void* base, size_t bytes, uint32_t* key, uint32_t* entry) {
  return quiescent([&]() -> Status {
    *key = makeKey(kTagResultLkey, localKeySeq_++, myPe_);
    const uint64_t b = reinterpret_cast<uint64_t>(base);
    MORI_TRY(addKeyLocked(KeyEntry{*key, kLocalKey, 1, myPe_, 0, b, bytes, b}, entry));
    return uploadKeysLocked();
  });
}

void ModelDevice::removeLocalKey(uint32_t entry) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_) return;  // the context is gone: nothing will read the table again
  }
  (void)quiescent([&]() -> Status {
    keys_[entry].live = 0;
    return uploadKeysLocked();
  });
}

// ---- QPs

Status ModelDevice::createEndpoint(const rdma::EndpointConfig& cfg, std::unique_ptr<rdma::Endpoint>* out) {
  auto ep = std::make_unique<ModelEndpoint>(*this, cfg);
  MORI_TRY(ep->create());
  *out = std::move(ep);
  return Status::Success;
}

Status ModelDevice::addQp(const ModelQp& qp, const QpHostWords& words, uint32_t* slot) {
  return quiescent([&]() -> Status {
    uint32_t s = 0;
    while (s < watch_.size() && watch_[s].used) ++s;
    if (s == qpCapacity_) return MORI_FAIL(Status::OutOfMemory, log::kRdma, "NIC model: more than %u QPs", qpCapacity_);
    if (s == qps_.size()) {
      qps_.emplace_back();
      watch_.emplace_back();
    }
    qps_[s] = qp;
    qps_[s].live = 0;
    watch_[s] = QpWatch{};
    watch_[s].used = true;
    watch_[s].words = words;
    ModelQpProgress g;
    memset(&g, 0, sizeof(g));
    g.nextPsn = qp.initialPsn;
    MORI_HIP_TRY(hipMemcpyAsync(progressDev_ + s, &g, sizeof(g), hipMemcpyHostToDevice, stream_), log::kRdma);
    MORI_TRY(uploadQpLocked(s));
    *slot = s;
    return Status::Success;
  });
}

Status ModelDevice::connectQp(uint32_t slot, int peerPe, uint32_t peerQpn) {
  return quiescent([&]() -> Status {
    qps_[slot].peerPe = peerPe;
    qps_[slot].peerQpn = peerQpn;
    qps_[slot].live = 1;
    return uploadQpLocked(slot);
  });
}

void ModelDevice::removeQp(uint32_t slot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_) return;
  }
  (void)quiescent([&]() -> Status {
    qps_[slot].live = 0;
    watch_[slot] = QpWatch{};
    return uploadQpLocked(slot);
  });
}

}  // namespace mori::test::nicmodel
