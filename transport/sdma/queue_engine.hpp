// Where SDMA queues come from: the contract between the transport's queue set (sdma_queues)
// and what runs the packets. The KFD engine (kfd_engine) creates hardware queues through
// libhsakmt; the test-only DMA-engine model (tests/support/dma_model) implements the same
// contract on any GPU. Both get a ring the transport allocated in GPU memory and hand back the
// three words the device path needs.
#pragma once

#include <stdint.h>

#include <string>

#include "src/common/status.hpp"

namespace mori::sdma {

// What the engine side offers on this GPU.
struct EngineInventory {
  uint32_t pcieEngines = 0;   // SDMA engines for PCIe / any peer (0: unknown)
  uint32_t xgmiEngines = 0;   // engines optimised for XGMI peers (0: none or unknown)
  bool engineById = false;    // queues can be pinned to an engine id
  uint32_t maxRingSlots = 0;  // largest ring (slots of kSlotBytes) the engine takes; 0: no limit
  std::string driver;         // e.g. "KFD via libhsakmt.so.1", "DMA-engine model"
};

// One queue to create: for peer `peer` (the peerOrdinal-th SDMA peer of myPe), queue queueIndex.
struct QueueRequest {
  int myPe = 0;
  int peer = 0;
  uint32_t peerOrdinal = 0;
  uint32_t queueIndex = 0;
  bool xgmi = false;       // the peer's GPU is reached over XGMI
  uint32_t queueType = 0;  // kmt::QueueType chosen by chooseEngine
  uint32_t engineId = 0;   // with kQueueSdmaByEngineId
  void* ring = nullptr;    // GPU memory, ringBytes, 256-byte aligned, zeroed
  uint64_t ringBytes = 0;  // a power of two
  // Ring byte offset the queue starts at (read pointer, write pointer, doorbell): 0, except in
  // tests on the DMA-engine model that start near 2^32 slots to cross the completion words' wrap.
  // An engine that cannot start elsewhere refuses nonzero.
  uint64_t firstOffset = 0;
};

// What the engine gives back: GPU-visible addresses of the engine-written read pointer, the
// write-pointer shadow and the 64-bit doorbell, and an id for destroy.
struct QueueHandles {
  uint64_t* readPtr = nullptr;
  uint64_t* writePtr = nullptr;
  uint64_t* doorbell = nullptr;
  uint64_t id = 0;
  uint32_t engine = ~0u;  // engine the queue runs on (~0u: the driver chose, unknown)
};

class QueueEngine {
 public:
  virtual ~QueueEngine() = default;
  virtual EngineInventory inventory() const = 0;
  // Creates one queue; on failure the message names r.myPe, r.peer and r.queueIndex.
  virtual Status create(const QueueRequest& r, QueueHandles* out) = 0;
  // Destroys a queue create() made (the engine stops reading its ring first).
  virtual Status destroy(const QueueRequest& r, const QueueHandles& h) = 0;
};

}  // namespace mori::sdma
