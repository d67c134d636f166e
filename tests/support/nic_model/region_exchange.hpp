// The collective half of the NIC model's memory registration: every PE publishes the range it
// registers now (owner, rkey, address, size, IPC handle of the containing allocation) by
// Allgather, and maps every peer's range into this process once, so the model kernel can reach
// it the way a NIC reaches a remote PE's memory (here: through the GPUs' P2P mapping).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "src/common/status.hpp"
#include "transport/rdma/core/rdma_device.hpp"

namespace mori::test::nicmodel {

// One PE's copy of a registered region, as this process reaches it.
struct RegionCopy {
  int pe = -1;
  uint32_t rkey = 0;
  uint64_t base = 0;  // in the owner's address space
  uint64_t size = 0;
  uint64_t mapped = 0;      // where this process reaches `base`
  void* mapping = nullptr;  // IPC mapping to close (null for this PE's own copy)
};

// Collective: every PE calls with its copy of registration number `seq` (the same on every PE,
// or InvalidUsage). Every PE takes part even when its own range cannot be exported, so the
// collectives stay matched; then all report the failure. On success *out has one entry per PE.
Status exchangeRegion(const rdma::PeGroup& pes, uint32_t seq, void* ptr, size_t bytes, uint32_t rkey,
                      std::vector<RegionCopy>* out);

// Closes the IPC mappings of `copies`.
void closeRegion(std::vector<RegionCopy>* copies);

}  // namespace mori::test::nicmodel
