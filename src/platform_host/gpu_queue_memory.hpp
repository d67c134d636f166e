// Device memory for NIC queues: memory the NIC writes (completion entries, doorbell records)
// and GPU threads poll, or GPU threads write and the NIC reads (send queues). On AMD it is
// allocated uncached (fine-grained where the runtime predates uncached allocations) so polling
// loads observe the NIC's writes; on NVIDIA ordinary device memory is coherent with PCIe writes.
#pragma once

#include <stddef.h>

#include "src/common/status.hpp"

namespace mori::platform {

// Allocates `bytes` of zeroed queue memory on the current device.
Status allocQueueMemory(size_t bytes, void** out);
// Frees memory from allocQueueMemory (null is ignored). Logs, never fails the caller.
void freeQueueMemory(void* ptr);

}  // namespace mori::platform
