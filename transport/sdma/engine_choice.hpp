// Which queue type and engine each SDMA queue asks for: pure logic over what the driver reports,
// so every rule is tested on the host.
#pragma once

#include <stdint.h>

#include "transport/sdma/queue_engine.hpp"

namespace mori::sdma {

struct EngineChoice {
  uint32_t queueType;  // kmt::QueueType
  uint32_t engineId;   // meaningful with kQueueSdmaByEngineId
};

// Queue q (0..queuesPerPeer-1) to the peerOrdinal-th SDMA peer:
//   - where the driver pins queues to engines (engineById) and reports engines of the kind the
//     peer needs, queues spread round-robin over them by peerOrdinal * queuesPerPeer + q, so a
//     peer's queues land on distinct engines and peers share engines evenly. KFD numbers the
//     PCIe engines 0..pcie-1 and the XGMI engines after them.
//   - otherwise the queue type alone (SDMA_XGMI for an XGMI peer where XGMI engines exist, else
//     SDMA) and the driver picks the engine.
EngineChoice chooseEngine(const EngineInventory& inv, uint32_t peerOrdinal, uint32_t queueIndex, uint32_t queuesPerPeer,
                          bool xgmiPeer);

}  // namespace mori::sdma
