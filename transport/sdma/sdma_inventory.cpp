#include "transport/sdma/sdma_inventory.hpp"

#include <stdio.h>

#include <memory>

#include "mori/platform/gpu_runtime.hpp"
#include "transport/sdma/kfd_engine.hpp"
#include "transport/sdma/sdma_queues.hpp"

namespace mori::sdma {

std::string inventoryReport() {
  const SdmaQueuesConfig plan;
  char line[512];
  snprintf(line, sizeof(line),
           "SDMA: planned %u queues per SDMA peer, rings of %u slots x %u B (init does not create SDMA queues yet; "
           "docs/SDMA.md)\n",
           plan.queuesPerPeer, plan.ringSlots, kSlotBytes);
  std::string s = line;
#if MORI_PLATFORM_NVIDIA
  s += "  engines: none (SDMA engines are on AMD GPUs; in tests the DMA-engine model plays them)\n";
#else
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess || n == 0) return s + "  engines: no GPU visible\n";
  for (int d = 0; d < n; ++d) {
    std::unique_ptr<QueueEngine> engine;
    if (openKfdEngine(0, d, &engine) != Status::Success) {
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
#endif
  return s;
}

}  // namespace mori::sdma
