// Completion and the barrier's rounds (device library), and the registered-region lookup.
#include "mori/device/spin.hpp"
#include "mori/shmem/impl/sync.hpp"
#include "shmem/device/general_path.hpp"
#include "shmem/device/rdma_ops.hpp"
#include "shmem/device/sdma_path.hpp"

using namespace mori::shmem;
using namespace mori::shmem::impl;

namespace mori::shmem::impl {
namespace {

// Completes the RDMA endpoints rank, rank + size, ... of every PE's.
MORI_DEVICE_INLINE void quietEndpoints(const GpuStates& s, uint32_t rank, uint32_t size) {
  const uint32_t total = static_cast<uint32_t>(s.nPes) * s.numQpPerPe;
  for (uint32_t i = rank; i < total; i += size)
    if (transportTo(s, static_cast<int>(i / s.numQpPerPe)) == Transport::Rdma) rdmaQuietEndpoint(s, s.endpoints[i]);
}

}  // namespace
}  // namespace mori::shmem::impl

// The RDMA endpoints and the SDMA queues.
extern "C" MORI_LIB_NOINLINE void mori_shmemi_quiet_rdma_thread(void) {
  const GpuStates& s = libStates();
  quietEndpoints(s, 0, 1);
  sdmaQuietAll<ThreadScope>(s);
}

extern "C" MORI_LIB_NOINLINE void mori_shmemi_quiet_rdma_block(void) {
  const GpuStates& s = libStates();
  quietEndpoints(s, static_cast<uint32_t>(BlockScope::rank()), static_cast<uint32_t>(BlockScope::size()));
  sdmaQuietAll<BlockScope>(s);
}

extern "C" MORI_LIB_NOINLINE void mori_shmemi_quiet_pe_rdma(int pe, int qp) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  if (transportTo(s, pe) == Transport::Sdma) return sdmaQuietPe(s, pe);
  if (qp >= 0) return rdmaQuietEndpoint(s, endpointFor(s, pe, qp));
  for (uint32_t q = 0; q < s.numQpPerPe; ++q)
    rdmaQuietEndpoint(s, s.endpoints[static_cast<uint32_t>(pe) * s.numQpPerPe + q]);
}

// Dissemination barrier: ceil(log2 n) rounds; in round k this PE tells PE (me + 2^k) mod n that
// it arrived and waits for PE (me - 2^k) mod n. Each flag has exactly one writer per barrier and
// holds the barrier's epoch, so a writer that runs ahead only raises it: no reset, no central
// PE, no PE limit.
extern "C" MORI_LIB_NOINLINE void mori_shmemi_sync_all_rounds(void) {
  const GpuStates& s = libStates();
  const uint64_t epoch = *s.barrierEpoch + 1;
  *s.barrierEpoch = epoch;
  uint64_t* flags = reinterpret_cast<uint64_t*>(s.heap.base + s.syncOffset);
  Spinner spin(s);
  int round = 0;
  for (int dist = 1; dist < s.nPes; dist <<= 1, ++round) {
    const int to = (s.myPe + dist) % s.nPes;
    // Ordered: the round's signal carries what this PE learned in earlier rounds (cumulativity).
    signalOp(s, flags + round, epoch, SignalOp::Set, to, 0, true);
    while (loadAcquire(flags + round) < epoch) {
      if (spin.expired())
        MORI_DEVICE_FAIL(s, DeviceErrorCode::Timeout, (ErrorSite{(s.myPe - dist + s.nPes) % s.nPes, -1, 0}),
                         static_cast<uint64_t>(DeviceWait::Barrier), spin.elapsedNs(), loadAcquire(flags + round),
                         epoch);
    }
  }
}

extern "C" MORI_LIB_NOINLINE const Region* mori_shmemi_find_region(uint64_t addr) {
  const GpuStates& s = libStates();
  const uint32_t n = mori::gpu::atomicLoad<mori::gpu::Order::Acquire, mori::gpu::Scope::Agent>(s.numRegions);
  for (uint32_t i = 1; i < n; ++i) {
    const Region& r = s.regions[i];
    if (r.live && addr - r.base < r.size) return &r;
  }
  return nullptr;
}
