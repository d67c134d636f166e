// The NIC model's rdma::Device: plays one NIC per PE for the provider MORI_NIC_MODEL_PROVIDER
// names, so that the real device RDMA path (post.hpp, the provider encoders) runs end to end on
// real GPUs with no NIC present. Test-only: built with the tests, loaded through
// MORI_SHMEM_RDMA_PLUGIN, never installed.
//
// Shape:
//   - Endpoints (model_endpoint.cpp) lay out their GPU memory exactly as the real providers do
//     (endpointLayout()); only the doorbell registers are different: host-mapped words.
//   - A host "NIC thread" per Device (nic_thread.cpp) watches those words. When one announces
//     WQEs the model has not consumed, it launches the model kernel (model_kernel.cpp) on the
//     Device's own non-blocking stream; the kernel serves every QP with work and lingers until
//     idle. One kernel in flight at a time.
//   - Why not a persistent kernel: the runtime and every test call hipDeviceSynchronize(), which
//     would never return while one runs. The lingering kernel serves bursts without a launch per
//     WQE and lets device synchronisation complete.
//   - Tables the kernel reads (QPs, memory keys) change only while no model kernel runs: the
//     host bumps ModelControl::generation (a running kernel returns), waits for the kernel to
//     finish, then uploads on the model's stream (quiescent()).
//   - Memory registration is collective (region_exchange.cpp): every PE maps every peer's
//     registered copies by IPC; the key table maps rkeys to those mappings.
#pragma once

#include <stdint.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "tests/support/nic_model/host_mapped.hpp"
#include "tests/support/nic_model/model_config.hpp"
#include "tests/support/nic_model/model_state.hpp"
#include "tests/support/nic_model/region_exchange.hpp"
#include "transport/rdma/core/rdma_device.hpp"

namespace mori::test::nicmodel {

// Host pointers of one QP's host-mapped words.
struct QpHostWords {
  const volatile uint64_t* sqDoorbell = nullptr;
  const volatile ModelQpStatus* status = nullptr;
};

class ModelDevice final : public rdma::Device {
 public:
  static Status open(const rdma::PeGroup& pes, const ModelConfig& cfg, std::unique_ptr<ModelDevice>* out);
  ~ModelDevice() override;

  const char* name() const override { return name_; }
  rdma::Provider provider() const override { return cfg_.provider; }
  Status registerMemory(void* ptr, size_t bytes, rdma::MemoryRegistration* out) override;
  Status deregisterMemory(const rdma::MemoryRegistration& reg) override;
  Status createEndpoint(const rdma::EndpointConfig& cfg, std::unique_ptr<rdma::Endpoint>* out) override;

  // ---- for ModelEndpoint
  const ModelConfig& config() const { return cfg_; }
  int myPe() const { return myPe_; }
  uint32_t allocQpn() { return kFirstQpn + nextQp_++; }
  uint32_t allocCqn() { return kFirstCqn + nextCq_++; }
  // Adds a QP (not served until connectQp); *slot identifies it.
  Status addQp(const ModelQp& qp, const QpHostWords& words, uint32_t* slot);
  Status connectQp(uint32_t slot, int peerPe, uint32_t peerQpn);
  void removeQp(uint32_t slot);
  // Registers [base, base + bytes) of this PE's memory for local access only (an endpoint's
  // atomic results); *key is its lkey, *entry what removeLocalKey takes.
  Status addLocalKey(void* base, size_t bytes, uint32_t* key, uint32_t* entry);
  void removeLocalKey(uint32_t entry);

  // Stops the NIC thread (Device destruction, process exit).
  void stopThread();

 private:
  static constexpr uint32_t kFirstQpn = 0x400;  // < 2^20: fits every provider's queue id field
  static constexpr uint32_t kFirstCqn = 0x800;

  struct Registration {
    std::vector<uint32_t> entries;
    std::vector<RegionCopy> copies;
  };
  // Host-side watch state of one QP slot.
  struct QpWatch {
    bool used = false;
    QpHostWords words;
    uint64_t launchedReg = 0;  // doorbell value that made the last launch
    uint64_t launchedConsumed = 0;
    bool expecting = false;   // the last launch was for this QP
    uint32_t fruitless = 0;   // launches in a row that consumed nothing of an announcement
    uint64_t ignoredReg = 0;  // an announcement the model cannot act on (logged once)
    uint64_t badReg = 0;      // last malformed doorbell value logged
    // Watchdog: the consumed count last seen, since when it has not moved while work was
    // announced, and whether that stall was logged.
    uint64_t watchConsumed = 0;
    std::chrono::steady_clock::time_point stuckSince{};
    bool stuckLogged = false;
  };

  ModelDevice(const rdma::PeGroup& pes, const ModelConfig& cfg) : pes_(pes), cfg_(cfg) {}
  Status init();
  // Runs `change` (which uploads what it changed) while no model kernel runs.
  template <class F>
  Status quiescent(F&& change);
  Status uploadKeysLocked();
  Status uploadQpLocked(uint32_t slot);
  Status addKeyLocked(const KeyEntry& e, uint32_t* entry);

  // nic_thread.cpp
  void run();
  bool workPendingLocked();
  void launchLocked();
  void kernelFinishedLocked();
  void logDiagnosticsLocked();
  void watchdogLocked(std::chrono::steady_clock::time_point now);
  void failLocked(hipError_t e, const char* what);
  bool sqPosition(uint64_t reg, const ModelQp& q, uint32_t* pos) const;
  uint32_t sqModulus(uint32_t sqDepth) const;

  rdma::PeGroup pes_;  // the runtime's (rdma_plugin.h host table)
  ModelConfig cfg_;
  char name_[32] = "nic_model";
  int myPe_ = 0, nPes_ = 1, gpu_ = 0;
  uint32_t waveSize_ = 32;
  uint32_t nextQp_ = 0, nextCq_ = 0, regSeq_ = 0, localKeySeq_ = 0;

  hipStream_t stream_ = nullptr;
  hipEvent_t done_ = nullptr;
  HostMapped control_;  // ModelControl
  ModelControl* controlHost_ = nullptr;
  ModelQp* qpsDev_ = nullptr;
  ModelQpProgress* progressDev_ = nullptr;
  KeyEntry* keysDev_ = nullptr;
  ModelShared* sharedDev_ = nullptr;
  uint8_t* stagingDev_ = nullptr;
  uint32_t qpCapacity_ = 0, keyCapacity_ = 0;

  // Guarded by mu_.
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<ModelQp> qps_;    // host mirror of qpsDev_ (high-water mark of slots)
  std::vector<QpWatch> watch_;  // per slot
  std::vector<KeyEntry> keys_;  // host mirror of keysDev_
  std::map<uint32_t, Registration> regs_;
  uint32_t generation_ = 0;
  uint32_t updaters_ = 0;
  bool inFlight_ = false;
  bool broken_ = false;  // the GPU context failed: nothing more is launched or waited for
  uint32_t loggedDiags_ = 0;
  uint64_t launches_ = 0;
  uint64_t beatSeen_ = 0;                               // ModelControl::beat at the last watchdog scan
  std::chrono::steady_clock::time_point launchedAt_{};  // of the kernel in flight

  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace mori::test::nicmodel
