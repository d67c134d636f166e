// What the host fills and the GPU reads for one RDMA reliable-connection endpoint (one peer x
// one QP), and the provider-neutral description of a work request. Shared by the host setup
// (transport/rdma), the device mechanism (mori/transport/rdma/post.hpp) and the provider
// formats (mori/transport/rdma/providers/<name>/).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::rdma {

// NIC families with a GPU-initiated path. Chosen per endpoint at run time.
enum class Provider : uint8_t {
  None = 0,
  Mlx5 = 1,   // NVIDIA/Mellanox ConnectX (mlx5, DevX)
  Bnxt = 2,   // Broadcom NetXtreme-E (bnxt_re)
  Ionic = 3,  // AMD Pensando Pollara/PSD (ionic)
};

// What a WQE asks the NIC to do.
enum class WqeOp : uint8_t {
  Write = 0,              // RDMA WRITE from (localAddr,lkey) to (remoteAddr,rkey), `bytes` long
  WriteInline = 1,        // RDMA WRITE of `bytes` (<= provider kMaxInline) taken from inlineData
  Read = 2,               // RDMA READ from (remoteAddr,rkey) into (localAddr,lkey)
  AtomicFetchAdd = 3,     // *remote += operand; old value to (localAddr,lkey)
  AtomicCompareSwap = 4,  // if *remote == compare: *remote = operand; old value to (localAddr,lkey)
  Nop = 5,                // no data movement; used to request a completion
};

// A provider-neutral work request, host endianness. Encoders turn it into the provider's WQE.
struct WqeDesc {
  WqeOp op;
  uint8_t signal;       // request a completion entry for this WQE
  uint8_t fence;        // execute only after earlier READ/ATOMIC on this QP completed
  uint8_t atomicBytes;  // 4 or 8 (atomics only)
  uint32_t bytes;       // length for Write/WriteInline/Read
  uint64_t localAddr;   // source of Write, destination of Read and of atomic results; 0 for an atomic
                        // or Read means "this slot's word in EndpointDevice::atomicResults"
  uint64_t remoteAddr;  // target address in the peer's address space
  uint32_t lkey;
  uint32_t rkey;
  uint64_t operand;        // atomic add value or swap value
  uint64_t compare;        // compare value of AtomicCompareSwap
  const void* inlineData;  // WriteInline payload (bytes long)
};

// A decoded completion entry.
struct Completion {
  uint8_t valid;     // the entry is owned by software (new)
  uint8_t error;     // the work request failed; fields below say how
  uint8_t opcode;    // provider's CQE opcode
  uint8_t syndrome;  // provider's error syndrome (0 on success)
  uint8_t vendorSyndrome;
  uint32_t wqeIndex;  // SQ index (provider's low bits) of the WQE this entry completes
  uint32_t qpn;
};

// Mutable per-endpoint counters, in GPU memory, zeroed at creation. All indices are monotonic
// 64-bit slot counts; providers use their low bits.
struct alignas(64) EndpointState {
  uint64_t reserved;         // next slot to hand out (atomicAdd by posting threads)
  uint64_t posted;           // slots whose WQEs are written and announced by doorbell, in order
  uint64_t completed;        // slots known completed (from completion entries)
  uint64_t cqConsumer;       // completion entries consumed
  uint32_t pollLock;         // one poller at a time per CQ
  uint32_t errorSeen;        // set once an error completion was reported
  uint32_t resultsInFlight;  // fetched results (atomics, scalar reads) not yet read by their thread
  uint32_t reserved0;
  uint64_t pad[2];
};
static_assert(sizeof(EndpointState) == 64, "EndpointState is one cache line");

// Read-only view of one endpoint, produced by the host (rdma::Endpoint::deviceHandle()).
struct EndpointDevice {
  Provider provider;
  uint8_t reserved0[3];
  uint32_t qpn;
  // send queue, in GPU memory: sqDepth slots of (1 << sqSlotShift) bytes, one WQE per slot
  uint8_t* sq;
  uint32_t sqDepth;
  uint32_t sqSlotShift;
  uint32_t* sqDbrec;     // send doorbell record (mlx5), else null
  uint64_t* sqDoorbell;  // doorbell register mapped for GPU stores (or model memory)
  // completion queue, in GPU memory
  uint8_t* cq;
  uint32_t cqDepth;
  uint32_t cqn;
  uint32_t* cqDbrec;     // CQ doorbell record (mlx5), else null
  uint64_t* cqDoorbell;  // CQ consumer doorbell register (bnxt, ionic), else null
  // Fetched results (atomics, scalar reads) land in atomicResults[slot] (registered memory,
  // atomicLkey). slotState[slot] (GPU memory only) says which lap's WQE the slot holds (bits
  // 31..1: lap + 1, written after the WQE bytes, so the ringer knows it may announce the slot)
  // and whether that WQE's fetched result is still unread (bit 0: the slot is not reused before).
  uint64_t* atomicResults;
  uint32_t* slotState;
  uint32_t atomicLkey;
  uint32_t providerWord;  // provider-specific constant (e.g. doorbell queue id / epoch layout)
  EndpointState* state;
  int32_t peer;
  uint32_t qpIndex;
};

}  // namespace mori::rdma
