// What mori-shmem-info prints about SDMA: per visible GPU, the engines the driver (or the SDMA
// plugin) reports and how queues are laid out (queues per SDMA peer, ring size, size threshold),
// or why SDMA is unavailable here; once initialised, this PE's queues.
#pragma once

#include <stdint.h>

#include <string>

#include "transport/sdma/sdma_queues.hpp"

namespace mori::sdma {

struct InventoryPlan {
  uint32_t queuesPerPeer = 2;  // MORI_SHMEM_SDMA_QUEUES
  uint64_t minBytes = 0;       // MORI_SHMEM_SDMA_MIN_BYTES
  std::string plugin;          // MORI_SHMEM_SDMA_PLUGIN
};

std::string inventoryReport(const InventoryPlan& plan);

// One line per queue of `q` (null: "no SDMA peers").
std::string queuesReport(const SdmaQueues* q);

}  // namespace mori::sdma
