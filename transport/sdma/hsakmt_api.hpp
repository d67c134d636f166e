// The part of libhsakmt's C interface the SDMA transport calls, declared here from the ROCm
// Thunk's hsakmt.h / hsakmttypes.h so that the transport builds without them (libhsakmt is only
// ever loaded with dlopen, hsakmt_loader). Types whose layout the transport reads
// (HsaQueueResource, the node properties' fields) are checked against the installed
// hsakmttypes.h by tests/host/sdma_host where that header exists (Debian's libhsakmt-dev 5.2).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace mori::sdma::kmt {

using Status = int32_t;  // HSAKMT_STATUS
constexpr Status kSuccess = 0;

// HSA_QUEUE_TYPE
enum QueueType : uint32_t { kQueueSdma = 2, kQueueSdmaXgmi = 5, kQueueSdmaByEngineId = 6 };
// HSA_QUEUE_PRIORITY
enum QueuePriority : int32_t { kPriorityNormal = 0, kPriorityHigh = 2, kPriorityMaximum = 3 };

// HsaQueueResource: libhsakmt fills it; for SDMA queues it points the read and write pointers at
// words of its own (host memory the engine writes back to / reads) and maps the doorbell page
// into both the CPU's and the GPU's address space (same address).
struct QueueResource {
  uint64_t queueId;
  uint64_t* doorbell;    // Queue_DoorBell_aql: a 64-bit doorbell on SOC15 (gfx9+)
  uint64_t* writePtr;    // Queue_write_ptr_aql
  uint64_t* readPtr;     // Queue_read_ptr_aql
  int64_t* errorReason;  // ErrorReason: exception bits (left 0: no signal)
};
static_assert(sizeof(QueueResource) == 40, "HsaQueueResource layout");

// HsaSystemProperties: only NumNodes is read.
struct SystemProperties {
  uint32_t numNodes;
  uint32_t platformOem;
  uint32_t platformId;
  uint32_t platformRev;
};

// HsaNodeProperties is read as bytes at the offsets below (the struct is large and grows at its
// end between releases; these fields sit at the same place since ROCm 4).
// (hsakmttypes.h packs to 4 bytes.)
constexpr size_t kNodePropertiesBytes = 1024;   // >= sizeof(HsaNodeProperties) in every release
constexpr size_t kNodeNumFComputeOffset = 4;    // NumFComputeCores: 0 for CPU-only nodes
constexpr size_t kNodeLocationIdOffset = 76;    // LocationId: PCI bus << 8 | device << 3 | function
constexpr size_t kNodeNumSdmaOffset = 312;      // NumSdmaEngines (PCIe-optimised)
constexpr size_t kNodeNumSdmaXgmiOffset = 316;  // NumSdmaXgmiEngines
constexpr size_t kNodeDomainOffset = 324;       // Domain: PCI domain

using OpenKfdFn = Status (*)();
using CloseKfdFn = Status (*)();
using AcquireSystemPropertiesFn = Status (*)(SystemProperties*);
using ReleaseSystemPropertiesFn = Status (*)();
using GetNodePropertiesFn = Status (*)(uint32_t node, void* nodeProperties);
using CreateQueueFn = Status (*)(uint32_t node, uint32_t type, uint32_t percentage, int32_t priority, void* ring,
                                 uint64_t ringBytes, void* event, QueueResource* out);
using CreateQueueExtFn = Status (*)(uint32_t node, uint32_t type, uint32_t percentage, int32_t priority,
                                    uint32_t sdmaEngineId, void* ring, uint64_t ringBytes, void* event,
                                    QueueResource* out);
using DestroyQueueFn = Status (*)(uint64_t queueId);

// HSAKMT_STATUS as text, for messages.
const char* statusName(Status s);

}  // namespace mori::sdma::kmt
