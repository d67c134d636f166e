#include "transport/rdma/core/endpoint_layout.hpp"

#include "mori/transport/rdma/providers/provider.hpp"

namespace mori::rdma {
namespace {

// Slot and entry sizes come from the provider formats (include/mori/transport/rdma/providers/):
//   mlx5:  one 64-byte basic block per WQE, 64-byte CQEs; a 64-byte doorbell-record line
//          (QP record: RQ and SQ counters; CQ record: consumer index and arm).
//   bnxt:  static-mode 128-byte WQEs; the retransmission search table (one entry per WQE, 8 or
//          16 bytes by firmware format: sized for 16) right after the ring; 32-byte CQEs; a
//          receive queue the direct-verbs QP call requires although nothing is received.
//   ionic: 64-byte WQEs, 32-byte CQEs, rings allocated by libionic through our allocator.
constexpr size_t kDbrecBytes = 64;
constexpr size_t kBnxtPsnEntryMaxBytes = sizeof(bnxt::PsnSearchExt);

uint32_t log2Exact(uint32_t v) {
  uint32_t l = 0;
  while ((1u << l) < v) ++l;
  return l;
}

size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

}  // namespace

Status validateQpDepth(int64_t depth, const char* what) {
  if (depth < kMinQpDepth || depth > kMaxQpDepth || (depth & (depth - 1)) != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "%s=%lld is not valid: expected a power of two between %u and %u", what,
                     static_cast<long long>(depth), kMinQpDepth, kMaxQpDepth);
  return Status::Success;
}

Status endpointLayout(Provider provider, uint32_t sqDepth, size_t pageBytes, EndpointLayout* out) {
  MORI_TRY(validateQpDepth(sqDepth, "endpoint SQ depth"));
  if (pageBytes < kNicPageBytes || (pageBytes & (pageBytes - 1)) != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "page size %zu is not a power of two >= %zu", pageBytes,
                     kNicPageBytes);
  EndpointLayout l;
  l.provider = provider;
  l.sqDepth = sqDepth;
  l.cqDepth = sqDepth;
  size_t off = 0;
  switch (provider) {
    case Provider::Mlx5:
      l.sqSlotShift = log2Exact(Mlx5::kSlotBytes);
      l.cqeBytes = Mlx5::kCqeBytes;
      l.sqBytes = size_t{sqDepth} << l.sqSlotShift;
      l.cqBytes = size_t{l.cqDepth} * l.cqeBytes;
      l.dbrecBytes = kDbrecBytes;
      break;
    case Provider::Bnxt:
      l.sqSlotShift = log2Exact(Bnxt::kSlotBytes);
      l.cqeBytes = Bnxt::kCqeBytes;
      l.sqHwSlots = (sqDepth << l.sqSlotShift) / bnxt::kHwSlotBytes;
      l.psnEntries = sqDepth;
      l.sqBytes = (size_t{sqDepth} << l.sqSlotShift) + size_t{l.psnEntries} * kBnxtPsnEntryMaxBytes;
      l.rqBytes = pageBytes;
      l.cqBytes = size_t{l.cqDepth} * l.cqeBytes;
      break;
    case Provider::Ionic:
      l.sqSlotShift = log2Exact(Ionic::kSlotBytes);
      l.cqeBytes = Ionic::kCqeBytes;
      l.queuesFromProvider = true;
      l.sqBytes = alignUp(size_t{sqDepth} << l.sqSlotShift, pageBytes);
      l.cqBytes = alignUp(size_t{l.cqDepth} * l.cqeBytes, pageBytes);
      break;
    case Provider::None: return MORI_FAIL(Status::InvalidUsage, log::kRdma, "endpointLayout: no provider");
  }
  if (!l.queuesFromProvider) {
    l.sqOffset = off;
    off = alignUp(off + l.sqBytes, pageBytes);
    if (l.rqBytes) {
      l.rqOffset = off;
      off = alignUp(off + l.rqBytes, pageBytes);
    }
    l.cqOffset = off;
    off = alignUp(off + l.cqBytes, pageBytes);
  }
  if (l.dbrecBytes) {
    l.dbrecOffset = off;
    off += l.dbrecBytes;
  }
  l.stateOffset = off;
  off += sizeof(EndpointState);
  // Result-busy flags (GPU only, never registered): one word per SQ slot.
  l.slotStateOffset = off;
  off = alignUp(off + size_t{sqDepth} * sizeof(uint32_t), pageBytes);
  // Fetched results, one word per SQ slot, plus the discard word non-fetching atomics target.
  l.atomicOffset = off;
  l.atomicBytes = (size_t{sqDepth} + 1) * sizeof(uint64_t);
  off = alignUp(off + l.atomicBytes, pageBytes);
  l.allocBytes = off;
  l.totalBytes = off + (l.queuesFromProvider ? l.sqBytes + l.cqBytes : 0);
  *out = l;
  return Status::Success;
}

}  // namespace mori::rdma
