#include "transport/sdma/engine_choice.hpp"

#include "transport/sdma/hsakmt_api.hpp"

namespace mori::sdma {

EngineChoice chooseEngine(const EngineInventory& inv, uint32_t peerOrdinal, uint32_t queueIndex, uint32_t queuesPerPeer,
                          bool xgmiPeer) {
  const bool useXgmi = xgmiPeer && inv.xgmiEngines > 0;
  const uint32_t pool = useXgmi ? inv.xgmiEngines : inv.pcieEngines;
  if (inv.engineById && pool > 0) {
    const uint32_t slot = (peerOrdinal * queuesPerPeer + queueIndex) % pool;
    return {kmt::kQueueSdmaByEngineId, useXgmi ? inv.pcieEngines + slot : slot};
  }
  return {useXgmi ? static_cast<uint32_t>(kmt::kQueueSdmaXgmi) : static_cast<uint32_t>(kmt::kQueueSdma), 0};
}

}  // namespace mori::sdma
