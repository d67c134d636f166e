// The entry point init calls for SDMA: the queue set for every peer the transport table gives
// SDMA, on the KFD's engines (AMD) or on an engine the caller hands in (the DMA-engine model in
// tests). Without either it fails saying why (an NVIDIA build has no SDMA engines).
#pragma once

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "mori/shmem/device_host/gpu_states.hpp"
#include "transport/sdma/sdma_queues.hpp"

namespace mori::sdma {

struct SdmaOpenArgs {
  int myPe = 0;
  int nPes = 0;
  int hipDevice = 0;                    // this PE's GPU (for the KFD node)
  std::vector<shmem::Transport> table;  // this PE's row of the transport table
  std::vector<uint8_t> xgmi;            // per PE: reached over XGMI (empty: all false)
  uint32_t queuesPerPeer = 2;
  uint32_t ringSlots = 2048;
  uint64_t timeoutTicks = 0;
  std::unique_ptr<QueueEngine> engine;  // null: the KFD's (AMD builds only)
};

// Per PE: whether GPU `hipDevice` reaches the GPU at busIds[pe] over XGMI (AMD: the HSA link
// type HIP reports). False where this process cannot see that GPU (HIP_VISIBLE_DEVICES), for this
// PE's own GPU and on NVIDIA: those peers' queues go to the PCIe engines.
std::vector<uint8_t> xgmiLinks(int hipDevice, const std::vector<std::string>& busIds);

// Creates queues for every PE whose entry is Transport::Sdma (none: an empty set, Success).
Status openSdmaQueues(SdmaOpenArgs args, std::unique_ptr<SdmaQueues>* out);

}  // namespace mori::sdma
