// Executes one parsed WQE as the NIC would, by one warp: checks the local and remote keys and
// ranges against the registered-memory table, then moves the data (WRITE, inline WRITE, READ) or
// performs the atomic on the target through its P2P mapping. Returns the fault a NIC would
// report instead; nothing is moved when it returns one. Ordering (fences, completion entries)
// is the caller's (model_kernel.cpp).
#pragma once

#include <stdint.h>

#include "mori/platform/atomic.hpp"
#include "mori/platform/wave.hpp"
#include "mori/shmem/impl/copy.hpp"
#include "tests/support/nic_model/nic_side.hpp"

#if MORI_GPU_COMPILER
namespace mori::test::nicmodel {

// What a failed check names, for the diagnostic.
struct FaultNote {
  DiagKind kind;
  uint64_t a, b, c;
};

// Where this process reaches [addr, addr + len) of `owner`'s memory registered under `key` as
// `kind`, or null when no live entry covers it. Every lane of `all` calls (same arguments); the
// lanes scan the table in parallel.
MORI_DEVICE_INLINE uint8_t* lookupKey(const ModelLaunch& p, uint16_t kind, uint32_t key, int32_t owner, uint64_t addr,
                                      uint64_t len, gpu::LaneMask all, int lane, int width) {
  for (uint32_t first = 0; first < p.numKeys; first += static_cast<uint32_t>(width)) {
    const uint32_t k = first + static_cast<uint32_t>(lane);
    bool hit = false;
    uint64_t where = 0;
    if (k < p.numKeys) {
      const KeyEntry& e = p.keys[k];
      // addr - base <= size - len, written so that nothing overflows
      hit = e.live && e.kind == kind && e.key == key && e.owner == owner && addr >= e.base && len <= e.size &&
            addr - e.base <= e.size - len;
      where = e.mapped + (addr - e.base);
    }
    const gpu::LaneMask hits = gpu::ballot(all, hit);
    if (hits) return reinterpret_cast<uint8_t*>(gpu::shfl(all, where, gpu::firstLane(hits)));
  }
  return nullptr;
}

template <class N>
MORI_DEVICE_INLINE uint64_t doAtomic(const ParsedWqe& w, uint8_t* target) {
  using gpu::Order;
  using gpu::Scope;
  if (w.atomicBytes == 8) {
    uint64_t* t = reinterpret_cast<uint64_t*>(target);
    return w.op == rdma::WqeOp::AtomicFetchAdd
               ? gpu::atomicFetchAdd<Order::Relaxed, Scope::System>(t, w.operand)
               : gpu::atomicCompareExchange<Order::Relaxed, Scope::System>(t, w.compare, w.operand);
  }
  uint32_t* t = reinterpret_cast<uint32_t*>(target);
  const uint32_t op = static_cast<uint32_t>(w.operand), cmp = static_cast<uint32_t>(w.compare);
  return w.op == rdma::WqeOp::AtomicFetchAdd ? gpu::atomicFetchAdd<Order::Relaxed, Scope::System>(t, op)
                                             : gpu::atomicCompareExchange<Order::Relaxed, Scope::System>(t, cmp, op);
}

// Executes `w`, posted on QP `q`, with the lanes of `all` (the whole warp, uniform arguments).
template <class N>
MORI_DEVICE_INLINE Fault executeWqe(const ModelLaunch& p, const ModelQp& q, const ParsedWqe& w, gpu::LaneMask all,
                                    int lane, int width, FaultNote* note) {
  const uint64_t len =
      w.op == rdma::WqeOp::AtomicFetchAdd || w.op == rdma::WqeOp::AtomicCompareSwap ? w.atomicBytes : w.bytes;
  // A zero-length transfer touches no memory, and the IB spec has the responder skip the key
  // check for a zero DMA length (bnxt and ionic NOPs are such WRITEs with rkey 0).
  if (w.op == rdma::WqeOp::Nop || len == 0) return Fault::None;
  if (len > kMaxMessageBytes) {
    *note = FaultNote{DiagKind::LocalLength, len, 0, 0};
    return Fault::LocalLength;
  }
  uint8_t* local = nullptr;
  if (w.op != rdma::WqeOp::WriteInline) {
    local = lookupKey(p, kLocalKey, w.lkey, p.myPe, w.localAddr, len, all, lane, width);
    if (!local) {
      *note = FaultNote{DiagKind::LocalProtection, w.lkey, w.localAddr, len};
      return Fault::LocalProtection;
    }
  }
  uint8_t* remote = lookupKey(p, kRemoteKey, w.rkey, q.peerPe, w.remoteAddr, len, all, lane, width);
  if (!remote) {
    *note = FaultNote{DiagKind::RemoteAccess, w.rkey, w.remoteAddr, len};
    return Fault::RemoteAccess;
  }
  switch (w.op) {
    case rdma::WqeOp::Write: shmem::impl::copyBytes(remote, local, len, lane, width); break;
    case rdma::WqeOp::Read: shmem::impl::copyBytes(local, remote, len, lane, width); break;
    case rdma::WqeOp::WriteInline:
      if (lane == 0)
        for (uint32_t i = 0; i < w.bytes; ++i) remote[i] = w.inlineData[i];
      break;
    default:  // atomics: naturally aligned targets only, as on every NIC
      if (w.remoteAddr & (len - 1)) {
        *note = FaultNote{DiagKind::RemoteInvalid, w.remoteAddr, len, 0};
        return Fault::RemoteInvalid;
      }
      if (lane == 0) N::writeResult(local, doAtomic<N>(w, remote), w.atomicBytes);
      break;
  }
  return Fault::None;
}

}  // namespace mori::test::nicmodel
#endif
