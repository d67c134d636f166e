// SDMA queues on the hardware: KFD user-mode queues created through libhsakmt (dlopen'ed).
#pragma once

#include <memory>

#include "transport/sdma/queue_engine.hpp"

namespace mori::sdma {

// Opens the KFD for GPU `hipDevice` (its KFD node is the one at the same PCI location) and
// returns an engine that creates SDMA queues on it. Fails, naming myPe and the step, where
// libhsakmt cannot be loaded, /dev/kfd cannot be opened or no KFD node matches the GPU.
// `soname` is for tests (default libhsakmt.so.1).
Status openKfdEngine(int myPe, int hipDevice, std::unique_ptr<QueueEngine>* out, const char* soname = nullptr);

// The KFD node of the GPU at PCI `busId` ("dddd:bb:dd.f"): pure matching over each node's
// (domain, LocationId), exposed for tests. Returns -1 if none matches or busId does not parse.
struct KfdNodeLocation {
  uint32_t domain;
  uint32_t locationId;  // bus << 8 | device << 3 | function
  bool isGpu;
};
int matchKfdNode(const char* busId, const KfdNodeLocation* nodes, int nNodes);

}  // namespace mori::sdma
