// How much GPU memory one endpoint takes and where each part lives. The same function sizes the
// allocations (Endpoint creation) and answers the footprint budget (tests): at the default depth
// of 1024 every provider stays within kEndpointBudgetBytes.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "src/common/status.hpp"

namespace mori::rdma {

constexpr uint32_t kMinQpDepth = 64;
constexpr uint32_t kMaxQpDepth = 32768;
constexpr size_t kEndpointBudgetBytes = 256 * 1024;  // per endpoint at depth 1024
constexpr size_t kNicPageBytes = 4096;               // adapter page: queue buffers start on one

// MORI_SHMEM_QP_DEPTH (or an EndpointConfig::sqDepth): a power of two in [64, 32768], else
// InvalidUsage naming `what` and the value.
Status validateQpDepth(int64_t depth, const char* what = "MORI_SHMEM_QP_DEPTH");

// Byte offsets inside the endpoint's one device allocation (or, where queuesFromProvider, the
// sizes the provider library will ask its allocator for).
struct EndpointLayout {
  Provider provider = Provider::None;
  uint32_t sqDepth = 0;      // WQE slots
  uint32_t sqSlotShift = 0;  // log2 bytes per slot
  uint32_t cqDepth = 0;      // completion entries (= sqDepth)
  uint32_t cqeBytes = 0;
  uint32_t sqHwSlots = 0;            // bnxt: 16-byte hardware slots in the SQ ring
  uint32_t psnEntries = 0;           // bnxt: retransmission search-table entries after the SQ ring
  bool queuesFromProvider = false;   // ionic: the provider allocates SQ/CQ through our allocator
  size_t sqOffset = 0, sqBytes = 0;  // bnxt: ring + search table
  size_t rqOffset = 0, rqBytes = 0;  // bnxt: the receive queue its API requires (unused)
  size_t cqOffset = 0, cqBytes = 0;
  size_t dbrecOffset = 0, dbrecBytes = 0;    // mlx5: QP record (RQ, SQ counters) then CQ record
  size_t stateOffset = 0;                    // EndpointState
  size_t slotStateOffset = 0;                // EndpointDevice::slotState, 4 bytes per SQ slot
  size_t atomicOffset = 0, atomicBytes = 0;  // 8 bytes per SQ slot + 1 discard word, own pages (an MR)
  size_t allocBytes = 0;                     // the endpoint's own device allocation
  size_t totalBytes = 0;                     // allocBytes plus provider-allocated queues
};

// `pageBytes`: alignment of NIC-visible regions (the host page size at run time, >= 4096).
Status endpointLayout(Provider provider, uint32_t sqDepth, size_t pageBytes, EndpointLayout* out);

}  // namespace mori::rdma
