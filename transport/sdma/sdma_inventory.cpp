#include "transport/sdma/sdma_inventory.hpp"

#include <stdio.h>

#include <memory>

#include "mori/platform/gpu_runtime.hpp"
#include "transport/sdma/sdma_plugin.hpp"

namespace mori::sdma {

std::string inventoryReport(const InventoryPlan& plan) {
  const SdmaQueuesConfig ring;
  char line[512];
  snprintf(line, sizeof(line),
           "SDMA: %u queues per SDMA peer, rings of %u slots x %u B (or the engine's limit); puts and gets of "
           "%llu B and more to the engines%s\n",
           plan.queuesPerPeer, ring.ringSlots, kSlotBytes, static_cast<unsigned long long>(plan.minBytes),
           plan.minBytes == 0 ? " (auto never picks SDMA: MORI_SHMEM_SDMA_MIN_BYTES=0)" : "");
  std::string s = line;
  if (MORI_PLATFORM_NVIDIA && plan.plugin.empty())
    return s + "  engines: none (SDMA engines are on AMD GPUs; in tests the DMA-engine model plays them)\n";
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess || n == 0) return s + "  engines: no GPU visible\n";
  for (int d = 0; d < n; ++d) {
    std::unique_ptr<QueueEngine> engine;
    if (openQueueEngine(0, d, plan.plugin, &engine) != Status::Success) {
      snprintf(line, sizeof(line), "  GPU %d: SDMA unavailable (see the log line above)\n", d);
      s += line;
      continue;
    }
    const EngineInventory inv = engine->inventory();
    snprintf(line, sizeof(line), "  GPU %d: %s: %u PCIe + %u XGMI engines, queues %s\n", d, inv.driver.c_str(),
             inv.pcieEngines, inv.xgmiEngines,
             inv.engineById ? "pinned to engines by id" : "placed by the driver (libhsakmt without engine ids)");
    s += line;
  }
  return s;
}

std::string queuesReport(const SdmaQueues* q) {
  if (q == nullptr) return "no SDMA peers\n";
  std::string s;
  for (const std::string& line : q->describe()) s += line + "\n";
  return s.empty() ? "no SDMA peers\n" : s;
}

}  // namespace mori::sdma
