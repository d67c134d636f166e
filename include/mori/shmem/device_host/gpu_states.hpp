// GpuStates: everything the device API reads, built by the host at init (shmem/runtime.cpp) and
// copied into the one state symbol, mori_shmem_device_states, of every GPU module that links the
// device library (shmem/device/device_states.cpp).
// Immutable while kernels run, except what sits behind pointers (region count, error record).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/device/error.hpp"
#include "mori/shmem/team/team_types.hpp"
#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "mori/transport/sdma/device_host/sdma_queue.hpp"

namespace mori::shmem {

// How this PE reaches another PE. One byte per PE in GpuStates::transport.
enum class Transport : uint8_t {
  None = 0,  // unreachable (never in a running table: init fails instead)
  P2P = 1,   // load/store through a peer mapping (xGMI / NVLink / PCIe), and this PE itself
  Rdma = 2,  // GPU-initiated RDMA (IBGDA) through rdma::EndpointDevice
  Sdma = 3,  // AMD SDMA engines (AMD only)
};

constexpr uint32_t kGpuStatesMagic = 0x4d4f5249u;  // "MORI"
// GpuStates::collectiveFlags. CallerEntry: MORI_SHMEM_COLLECTIVE_ENTRY=caller, the caller makes
// every member's dest ready before any member calls, so a push (fcollect, alltoall) skips its
// entry wait (mori/shmem/team/collectives.hpp: pushEntry).
constexpr uint32_t kCollectiveCallerEntry = 1u;
// Bumped whenever GpuStates or anything it points to changes layout; a module compiled against
// another version is refused at registration.
constexpr uint32_t kDeviceAbiVersion = 7;

// One PE's copy of a symmetric region, as seen from this PE.
struct PeerWindow {
  uint64_t p2pBase;     // where this PE loads/stores the peer's copy; 0: not mapped (RDMA peer)
  uint64_t remoteBase;  // the peer's own virtual address of its copy (RDMA remote address base)
  uint32_t rkey;        // the peer's remote key for its copy (RDMA)
  uint32_t reserved;
};
static_assert(sizeof(PeerWindow) == 24, "PeerWindow layout");

// A symmetric region: the heap (always region 0) or a registered user buffer.
struct Region {
  uint64_t base;  // this PE's address
  uint64_t size;
  uint32_t lkey;            // this PE's local key (RDMA), 0 without RDMA
  uint32_t live;            // 0 once deregistered
  const PeerWindow* peers;  // [nPes]
};
static_assert(sizeof(Region) == 32, "Region layout");

constexpr uint32_t kMaxRegions = 64;

// PEs below this number have their transport and heap window inline in GpuStates (see there).
constexpr int kInlinePes = 8;

// The device error vocabulary is the device layers' common one (mori/device/error.hpp).
using device::DeviceErrorCode;
using device::DeviceErrorRecord;
using device::DeviceWait;

// The Diag base (myPe, nPes, errorRecord, timeoutTicks) is what the layers below SHMEM read.
struct GpuStates : device::Diag {
  uint32_t magic;            // kGpuStatesMagic once bound
  uint32_t abiVersion;       // kDeviceAbiVersion
  const uint8_t* transport;  // [nPes] Transport

  Region heap;  // region 0, kept inline for the common case
  // transport[pe] and heap.peers[pe].p2pBase of the first kInlinePes PEs, inline: GpuStates is
  // constant memory, which an acquire (a signal wait, a full fence) leaves cached, whereas it
  // invalidates L1: a lookup in global memory after one cost an L2 round trip twice per put
  // (put + quiet 1.82 us against 1.15-1.19 us raw on the H200s).
  uint8_t inlineTransport[kInlinePes];
  uint64_t inlineHeapP2pBase[kInlinePes];
  const Region* regions;       // [kMaxRegions] in GPU memory; regions[0] mirrors `heap`
  const uint32_t* numRegions;  // number of slots in use (GPU memory; grows on register)

  // RDMA: endpoints[pe * numQpPerPe + qp], meaningful where transport[pe] == Rdma.
  const rdma::EndpointDevice* endpoints;
  uint32_t numQpPerPe;
  uint32_t collectiveFlags;  // kCollective* bits (set at init, the same on every PE)

  // Synchronisation: barrier flags live at syncOffset inside the heap (symmetric); the epoch
  // counter is this PE's own (GPU memory).
  uint64_t syncOffset;
  uint64_t* barrierEpoch;

  // Teams: this PE's team table, team::kMaxTeams entries in GPU memory indexed by handle (entries
  // of teams this PE is no member of have size 0). Bound with the rest of the state, so every
  // module that is bound for the device API has its teams (mori/shmem/team/team_lookup.hpp).
  const team::TeamDevice* teams;

  // SDMA: sdmaPeers[pe] for every PE (GPU memory; count 0 where transport[pe] != Sdma), null when
  // no peer is reached over SDMA. Puts and gets of fewer than sdmaMinBytes to an SDMA peer, and
  // its single elements, are P2P loads/stores through the mapping the engines use.
  const sdma::SdmaPeerDevice* sdmaPeers;
  uint64_t sdmaMinBytes;
};

}  // namespace mori::shmem
