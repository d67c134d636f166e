// The SDMA queues of one PE: per SDMA peer, `queuesPerPeer` queues, each with a ring in GPU
// memory, producer counters and a completion word, created through a QueueEngine (the KFD, or
// the DMA-engine model in tests); and the device view (SdmaPeerDevice per PE) the GPU posts
// through. Owns everything it made; the destructor stops the queues before freeing their memory.
#pragma once

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "mori/transport/sdma/device_host/sdma_queue.hpp"
#include "transport/sdma/queue_engine.hpp"

namespace mori::sdma {

struct SdmaPeerSpec {
  int pe = 0;
  bool xgmi = false;  // reached over XGMI (else PCIe)
};

struct SdmaQueuesConfig {
  int myPe = 0;
  int nPes = 0;
  uint32_t queuesPerPeer = 2;  // MORI_SHMEM_SDMA_QUEUES
  uint32_t ringSlots = 2048;   // per queue, a power of two >= 4 (x kSlotBytes: 256 KiB)
  uint64_t timeoutTicks = 0;   // device waits' limit (MORI_SHMEM_TIMEOUT); 0: none
  // Slot count every queue starts at (all below it complete): 0, except in tests on the DMA-engine
  // model, which start near 2^32 so that the 32-bit completion words wrap (QueueRequest::firstOffset).
  uint64_t firstSlot = 0;
};

class SdmaQueues {
 public:
  // Creates every queue; on failure destroys what it made and fails naming PE, peer and queue.
  static Status create(const SdmaQueuesConfig& cfg, const std::vector<SdmaPeerSpec>& peers,
                       std::unique_ptr<QueueEngine> engine, std::unique_ptr<SdmaQueues>* out);
  ~SdmaQueues();
  SdmaQueues(const SdmaQueues&) = delete;
  SdmaQueues& operator=(const SdmaQueues&) = delete;

  // One entry per PE (count 0 for PEs not reached over SDMA), pointing at GPU memory; borrowed:
  // valid while this object lives. Copy it into the device state.
  const std::vector<SdmaPeerDevice>& devicePeers() const { return devicePeers_; }
  // GPU memory holding devicePeers() (nPes entries), for a kernel argument or the device state.
  const SdmaPeerDevice* devicePeersOnGpu() const { return peersGpu_; }

  // For mori-shmem-info and logs: one line per queue (peer, queue, engine, ring).
  std::vector<std::string> describe() const;
  const EngineInventory& inventory() const { return inventory_; }

 private:
  SdmaQueues() = default;
  Status build(const SdmaQueuesConfig& cfg, const std::vector<SdmaPeerSpec>& peers);
  void teardown();

  struct Queue {
    QueueRequest request;
    QueueHandles handles;
    bool created = false;
  };
  SdmaQueuesConfig cfg_;
  std::unique_ptr<QueueEngine> engine_;
  EngineInventory inventory_;
  std::vector<Queue> queues_;
  void* rings_ = nullptr;     // all rings, GPU memory
  void* counters_ = nullptr;  // SdmaQueueState + completion per queue, GPU memory
  SdmaQueueDevice* queuesGpu_ = nullptr;
  SdmaPeerDevice* peersGpu_ = nullptr;
  std::vector<SdmaPeerDevice> devicePeers_;
};

}  // namespace mori::sdma
