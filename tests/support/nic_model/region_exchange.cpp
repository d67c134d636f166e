#include "tests/support/nic_model/region_exchange.hpp"

#include <string.h>

#include "transport/p2p/ipc_handles.hpp"

namespace mori::test::nicmodel {
namespace {

struct RegionWire {
  uint32_t exported;  // 1: `ipc` describes the range
  uint32_t seq;
  uint32_t rkey;
  int32_t pe;
  uint64_t base;
  uint64_t size;
  p2p::IpcExport ipc;
};

}  // namespace

Status exchangeRegion(const rdma::PeGroup& pes, uint32_t seq, void* ptr, size_t bytes, uint32_t rkey,
                      std::vector<RegionCopy>* out) {
  const int n = pes.size, me = pes.rank;
  RegionWire mine;
  memset(&mine, 0, sizeof(mine));
  mine.seq = seq;
  mine.rkey = rkey;
  mine.pe = me;
  mine.base = reinterpret_cast<uint64_t>(ptr);
  mine.size = bytes;
  if (ptr && bytes) mine.exported = ok(p2p::exportRange(ptr, bytes, &mine.ipc)) ? 1 : 0;
  std::vector<RegionWire> all(n);
  MORI_TRY(pes.allGather(&mine, all.data(), sizeof(RegionWire)));
  for (int pe = 0; pe < n; ++pe) {
    if (all[pe].seq != seq)
      return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                       "NIC model: PE %d registers its region number %u while PE %d registers number %u: registrations "
                       "must be collective and in the same order on every PE",
                       me, seq, pe, all[pe].seq);
    if (!all[pe].exported)
      return MORI_FAIL(Status::Remote, log::kRdma,
                       "NIC model: PE %d could not export its copy of region %u (%p, %llu bytes) for IPC (see its log)",
                       pe, seq, reinterpret_cast<void*>(all[pe].base), static_cast<unsigned long long>(all[pe].size));
  }
  std::vector<RegionCopy> copies(n);
  for (int pe = 0; pe < n; ++pe) {
    RegionCopy& c = copies[pe];
    c.pe = pe;
    c.rkey = all[pe].rkey;
    c.base = all[pe].base;
    c.size = all[pe].size;
    if (pe == me) {
      c.mapped = c.base;  // loopback: this PE's own memory
      continue;
    }
    void* mapped = nullptr;
    Status s = p2p::openRange(all[pe].ipc, pe, &mapped, &c.mapping);
    if (!ok(s)) {
      closeRegion(&copies);
      return MORI_FAIL(s, log::kRdma, "NIC model: PE %d cannot map PE %d's copy of region %u", me, pe, seq);
    }
    c.mapped = reinterpret_cast<uint64_t>(mapped);
  }
  *out = std::move(copies);
  return Status::Success;
}

void closeRegion(std::vector<RegionCopy>* copies) {
  for (RegionCopy& c : *copies) {
    if (c.mapping) p2p::closeRange(c.mapping);
    c.mapping = nullptr;
  }
}

}  // namespace mori::test::nicmodel
