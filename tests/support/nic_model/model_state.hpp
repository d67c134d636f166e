// What the NIC model's host side (model_device.cpp) and its GPU kernel (model_kernel.cpp) share:
// the per-QP configuration the host uploads, the per-QP progress only the kernel touches, the
// host-mapped words the two exchange (doorbell registers, consumed counts, diagnostics) and the
// memory-key table. Test-only (tests/support): never installed.
//
// Who writes what:
//   ModelQp            host (uploaded while no model kernel runs), kernel reads
//   ModelQpProgress    kernel only (one warp per QP); the host seeds it when the QP is created
//   ModelQpStatus      kernel writes, host reads (host-mapped): how far the NIC consumed
//   ModelControl       host writes generation/stop, kernel writes diagnostics (host-mapped)
//   KeyEntry           host (uploaded while no model kernel runs), kernel reads
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"
#include "mori/transport/rdma/device_host/endpoint.hpp"

namespace mori::test::nicmodel {

// Largest WQE slot of any provider (bnxt static mode: 128 bytes).
constexpr uint32_t kMaxSlotBytes = 128;
// Model kernel blocks: small, so that the kernel finds room beside a test's kernels.
constexpr uint32_t kBlockThreads = 128;
// At most this many warps serve the QPs (each warp serves QPs i, i + warps, ...).
constexpr uint32_t kMaxWarps = 1024;
// The model kernel's first warp stores its pass count every this many passes (ModelControl::beat).
constexpr uint32_t kBeatRounds = 256;
// Diagnostics recorded per Device (later ones are counted, not kept).
constexpr uint32_t kDiagSlots = 16;
constexpr uint64_t kNever = ~0ull;
// Largest message one WQE may carry (every provider's kMaxMessageBytes).
constexpr uint32_t kMaxMessageBytes = 1u << 30;

// ModelQpStatus::flags
constexpr uint32_t kQpError = 1u << 0;    // the QP is in the error state (later WQEs flush)
constexpr uint32_t kQpStalled = 1u << 1;  // MORI_NIC_MODEL_STALL reached: no more WQEs consumed

// KeyEntry::kind
constexpr uint16_t kLocalKey = 1;   // lkey: this PE's memory, as the local side of a WQE
constexpr uint16_t kRemoteKey = 2;  // rkey: `owner`'s memory, as the target of a WQE

// One registered range under one key: [base, base + size) in `owner`'s address space, reached
// from this process at `mapped` (an IPC mapping of a peer's memory, or base itself).
struct KeyEntry {
  uint32_t key;
  uint16_t kind;
  uint16_t live;
  int32_t owner;
  uint32_t reserved;
  uint64_t base;
  uint64_t size;
  uint64_t mapped;
};
static_assert(sizeof(KeyEntry) == 40, "KeyEntry layout");

// Host-mapped per QP: how far the model consumed the send queue (monotonic WQE count) and why it
// may have stopped. The kernel stores, the host loads once the kernel has finished.
struct alignas(64) ModelQpStatus {
  uint64_t consumed;
  uint32_t flags;
  uint32_t reserved;
};

// One QP as the NIC knows it. `ep` is the GPU's own view (same queues, same device pointers);
// for bnxt and ionic ep.sqDoorbell / ep.cqDoorbell are the host-mapped "registers".
struct ModelQp {
  rdma::EndpointDevice ep;
  ModelQpStatus* status;  // device pointer of the host-mapped status
  int32_t peerPe;         // the PE whose rkeys this QP's WQEs may use
  uint32_t peerQpn;
  uint32_t live;          // connected and not destroyed: doorbells are served
  uint32_t mtuShift;      // bnxt: path MTU the NIC was configured with (PSN accounting)
  uint32_t psnSearchExt;  // bnxt: retransmission table format the NIC was configured with
  uint32_t firmware;      // ionic: firmware RDMA version the NIC runs (opcode set)
  uint32_t initialPsn;    // bnxt: send PSN of the first WQE
  uint32_t reserved;
  uint64_t errorAt;     // fault injection: this WQE (monotonic index) completes in error
  uint64_t stallAfter;  // fault injection: consume at most this many WQEs
};

// Kernel-owned progress of one QP (device memory).
struct ModelQpProgress {
  uint64_t sqConsumed;  // WQEs consumed (monotonic)
  uint64_t cqProduced;  // completion entries written (monotonic)
  uint64_t cqConsumer;  // last consumer index the GPU released, as far as we know (monotonic)
  uint32_t nextPsn;     // bnxt: PSN the next WQE starts at
  uint32_t qpError;     // 0: RTS; else the error state
  uint32_t stalled;
  uint32_t badDoorbell;  // a BadDoorbell diagnostic was reported
};

// What the model saw go wrong, for the host's log (the GPU learns of errors from error CQEs).
enum class DiagKind : uint32_t {
  None = 0,
  InjectedError,    // MORI_NIC_MODEL_ERROR: a = fault
  MalformedWqe,     // a, b = first 16 bytes of the slot
  WrongQpn,         // a = QPN in the WQE, b = the QP's
  WrongWqeIndex,    // a = index in the WQE, b = expected
  WrongColor,       // ionic: a = color in the WQE, b = expected
  PsnMismatch,      // bnxt: a = table entry (start | next << 24), b = expected start, c = expected next
  PsnIndex,         // bnxt: a = start index in the table, b = expected
  LocalProtection,  // a = lkey, b = local address, c = length
  RemoteAccess,     // a = rkey, b = remote address, c = length
  RemoteInvalid,    // misaligned atomic: a = remote address, b = operand bytes
  LocalLength,      // a = length
  CqOverrun,        // a = entries written, b = consumer released
  BadDoorbell,      // a = announced position, b = consumed count
  Stalled,          // MORI_NIC_MODEL_STALL reached: a = WQEs consumed
};

struct ModelDiag {
  uint32_t ready;  // written last (release): the fields below are complete
  uint32_t kind;   // DiagKind
  uint32_t qp;     // QP slot
  uint32_t reserved;
  uint64_t wqe;  // monotonic WQE index
  uint64_t a, b, c;
};

// Host-mapped control block of one Device.
struct ModelControl {
  uint32_t generation;  // bumped by the host before it changes a table: running kernels return
  uint32_t stop;        // Device shutting down: running kernels return
  // Kernel to host, for the watchdog: the launch (ModelLaunch::launchSeq) that began running, and
  // a pass counter of its first warp, stored every kBeatRounds passes. A launch that never starts
  // (no room on the GPU) and one that runs but consumes nothing read differently.
  uint32_t startedLaunch;
  uint32_t reserved0;
  uint64_t beat;
  uint32_t reserved[10];
  ModelDiag diag[kDiagSlots];
};

// Device memory the warps of a launch share.
struct ModelShared {
  uint64_t activity;   // wall clock of the last work done by any warp
  uint32_t busyWarps;  // warps consuming WQEs right now: nobody leaves while one is
  uint32_t diagCount;  // diagnostics claimed so far (ModelControl::diag)
};

// Everything one model kernel launch needs (passed by value).
struct ModelLaunch {
  const ModelQp* qps;         // [numQps]
  ModelQpProgress* progress;  // [numQps]
  const KeyEntry* keys;       // [numKeys]
  ModelControl* control;      // device pointer of the host-mapped block
  ModelShared* shared;
  // WQE staging, kMaxWaveSize * kMaxSlotBytes bytes per QP warp, in device memory: a kernel that
  // needs shared memory cannot join SMs whose carveout the application's kernels already set
  // (seen on the H200s: with one application block on every SM the model never ran).
  uint8_t* staging;
  uint32_t numQps;
  uint32_t numKeys;
  uint32_t generation;  // ModelControl::generation at launch
  int32_t myPe;
  uint32_t sink;         // MORI_NIC_MODEL_SINK: complete WQEs without moving data
  uint32_t launchSeq;    // 1, 2, ... per Device (ModelControl::startedLaunch)
  uint64_t idleTicks;    // return after this long without work (wall-clock ticks)
  uint64_t cqWaitTicks;  // how long to wait for completion-queue room before overrun
};

}  // namespace mori::test::nicmodel
