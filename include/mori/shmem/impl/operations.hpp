// One template per SHMEM operation. Each resolves the symmetric address, then dispatches on the
// transport to the peer: P2P inline first (loads/stores through the peer mapping), RDMA after
// (rdma_ops.hpp). Scopes (thread/warp/block) differ only in the Scope type argument.
#pragma once

#include "mori/platform/atomic.hpp"
#include "mori/shmem/impl/address.hpp"
#include "mori/shmem/impl/copy.hpp"
#include "mori/shmem/impl/op_types.hpp"
#include "mori/shmem/impl/rdma_ops.hpp"
#include "mori/shmem/impl/scope.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

using gpu::Order;
using SysScope = gpu::Scope;

[[noreturn]] inline MORI_DEVICE_NOINLINE void failTransport(const GpuStates& s, int pe, const char* where) {
  reportError(s, DeviceErrorCode::Unsupported, ErrorSite{pe, -1, 0}, static_cast<uint64_t>(transportTo(s, pe)), 0, 0, 0,
              __LINE__, where);
}

// ---- put / get -------------------------------------------------------------------------------
//
// Like the single-element operations below, a put or get tests the common target inline (a heap
// object on a P2P PE with an inline window) and resolves everything else in its general branch;
// both end in the one copy. One thread's copy is shaped for latency (copyThread), a wave's or a
// block's for bandwidth (copyBytes). A one-thread get of 8 / 64 bytes that hits in L1 cost 0.187 /
// 0.234 us through the region test, the transport switch and copyBytes, against 0.044 / 0.058 for
// the bare accesses (bench/results/2026-11-30g_probes/get_path_probe2.cpp).

template <class S>
MORI_DEVICE_INLINE void scopeCopy(void* dst, const void* src, size_t bytes) {
  if constexpr (S::kSingleThread) {
    copyThread(dst, src, bytes);
  } else {
    copyBytes<S::kOneWave>(dst, src, bytes, S::rank(), S::size());
  }
}

template <class S>
MORI_DEVICE_INLINE void put(const GpuStates& s, void* dest, const void* src, size_t bytes, int pe, int qp,
                            bool blocking) {
  void* remote = heapP2pRange(s, dest, bytes, pe);
  if (MORI_UNLIKELY(!remote)) {  // registered regions, PEs past kInlinePes, RDMA, errors
    const Region& r = regionOf(s, dest, bytes, pe);
    switch (transportTo(s, pe)) {
      case Transport::P2P: remote = p2pAddress(s, r, pe, dest); break;
      case Transport::Rdma: rdmaPut<S>(s, r, dest, src, bytes, pe, qp, blocking); return;
      default: failTransport(s, pe, "put");
    }
  }
  scopeCopy<S>(remote, src, bytes);
  // Blocking: no thread of the scope may reuse the source before all have read their part.
  if (blocking) S::sync();
}

template <class S>
MORI_DEVICE_INLINE void get(const GpuStates& s, void* dest, const void* src, size_t bytes, int pe, int qp,
                            bool blocking) {
  const void* remote = heapP2pRange(s, src, bytes, pe);
  if (MORI_UNLIKELY(!remote)) {
    const Region& r = regionOf(s, src, bytes, pe);
    switch (transportTo(s, pe)) {
      case Transport::P2P: remote = p2pAddress(s, r, pe, src); break;
      case Transport::Rdma: rdmaGet<S>(s, r, dest, src, bytes, pe, qp, blocking); return;
      default: failTransport(s, pe, "get");
    }
  }
  scopeCopy<S>(dest, remote, bytes);
  if (blocking) S::sync();  // the whole destination is filled when the scope returns
}

// ---- single-element operations (p, g, atomics, signals) --------------------------------------
//
// Each has an inline fast path for the common target, a heap object on a P2P PE with an inline
// window (heapP2pAddress), and one out-of-line general path for everything else (registered
// regions, PEs past kInlinePes, RDMA, errors). The P2P access itself is one helper per operation,
// used by both paths. The fast path is one heap test, one transport byte and one base, all in
// constant memory; a loop of these operations then carries one call, not three.
// In a kernel capped at 64 registers that call leaves a loop of p's only the registers its call
// tree does not use: ptxas keeps the loop's state in local memory and reloads the hoisted window
// base and transport byte every iteration (shmem_p_bw at 8 MiB about 1% under NVSHMEM and under
// a raw store; with a trap in place of the call, level). With -DMORI_SHMEM_STANDARD_CALLS=1
// (NVIDIA) p's and g's general paths keep the standard calling convention and the loop keeps its
// state in registers: 46.08-46.24 G msg/s over NVLink in one set of rounds (NVSHMEM
// 46.02-46.18), and a loop of p's into the local heap 250 -> 453 G msg/s
// (bench/results/2026-11-30T1630Z_*, 2026-11-30T1148Z_*; T1724Z_* for a result that disagrees).
// It is off by default for its compile time (see rdma_ops.hpp). An earlier try, a call through
// a hidden pointer, also compiled slowly and recovered less
// (bench/results/2026-11-30T0925Z_h200x2_element_general_path.json).

template <typename T>
MORI_DEVICE_INLINE void p2pP(T* remote, T value) {
  *remote = value;
}

template <typename T>
MORI_SHMEM_OUT_OF_LINE void pGeneral(const GpuStates& s, T* dest, T value, int pe, int qp) {
  MORI_SHMEM_STANDARD_CALL(pGeneral<T>);
  checkPe(s, pe);
  const Region& r = regionOf(s, dest, sizeof(T), pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P: p2pP(p2pAddress(s, r, pe, dest), value); return;
    case Transport::Rdma: rdmaP(s, r, dest, value, pe, qp); return;
    default: failTransport(s, pe, "p");
  }
}

template <typename T>
MORI_DEVICE_INLINE void p(const GpuStates& s, T* dest, T value, int pe, int qp) {
  if (T* remote = heapP2pAddress(s, dest, pe)) return p2pP(remote, value);
  pGeneral(s, dest, value, pe, qp);
}

template <typename T>
MORI_DEVICE_INLINE T p2pG(const T* remote) {
  return *reinterpret_cast<const volatile T*>(remote);
}

template <typename T>
MORI_SHMEM_OUT_OF_LINE T gGeneral(const GpuStates& s, const T* src, int pe, int qp) {
  MORI_SHMEM_STANDARD_CALL(gGeneral<T>);
  checkPe(s, pe);
  const Region& r = regionOf(s, src, sizeof(T), pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P: return p2pG(p2pAddress(s, r, pe, src));
    case Transport::Rdma: return rdmaG(s, r, src, pe, qp);
    default: failTransport(s, pe, "g");
  }
}

template <typename T>
MORI_DEVICE_INLINE T g(const GpuStates& s, const T* src, int pe, int qp) {
  if (const T* remote = heapP2pAddress(s, src, pe)) return p2pG(remote);
  return gGeneral(s, src, pe, qp);
}

// ---- signals -----------------------------------------------------------------------------------

// Atomic update of pe's signal word. `ordered` (put-with-signal, the barrier): the signal must
// not overtake this thread's (and, after the scope's sync, its scope's) earlier stores to the
// peer, so P2P pays a system release first (~0.9 us on the H200s); one RDMA QP delivers in
// order anyway. The public signal_op is unordered, as in OpenSHMEM and NVSHMEM: callers that
// need the order call fence() first, and a second fence would only double the cost.
MORI_DEVICE_INLINE void p2pSignal(uint64_t* remote, uint64_t value, SignalOp op, bool ordered) {
  if (ordered) gpu::releaseSystem();
  if (op == SignalOp::Set)
    gpu::atomicStore<Order::Relaxed, SysScope::System>(remote, value);
  else
    gpu::atomicAddNoReturn<SysScope::System>(remote, value);
}

MORI_SHMEM_OUT_OF_LINE void signalOpGeneral(const GpuStates& s, uint64_t* sig, uint64_t value, SignalOp op, int pe,
                                            int qp, bool ordered) {
  checkPe(s, pe);
  const Region& r = regionOf(s, sig, sizeof(uint64_t), pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P: return p2pSignal(p2pAddress(s, r, pe, sig), value, op, ordered);
    case Transport::Rdma: rdmaSignal(s, r, sig, value, op, pe, qp); return;
    default: failTransport(s, pe, "signal_op");
  }
}

MORI_DEVICE_INLINE void signalOp(const GpuStates& s, uint64_t* sig, uint64_t value, SignalOp op, int pe, int qp,
                                 bool ordered) {
  if (uint64_t* remote = heapP2pAddress(s, sig, pe)) return p2pSignal(remote, value, op, ordered);
  signalOpGeneral(s, sig, value, op, pe, qp, ordered);
}

template <class S>
MORI_DEVICE_INLINE void putSignal(const GpuStates& s, void* dest, const void* src, size_t bytes, uint64_t* sig,
                                  uint64_t value, SignalOp op, int pe, int qp, bool blocking) {
  put<S>(s, dest, src, bytes, pe, qp, false);
  S::sync();  // every thread's part of the data is issued before the signal
  if (S::rank() == 0) signalOp(s, sig, value, op, pe, qp, true);
  // Blocking over RDMA: every thread waits itself (its data, and rank 0 its signal too): a warp
  // sync after one lane's wait is not relied on (see rdma::postFromThreads).
  if (blocking && transportTo(s, pe) == Transport::Rdma) rdmaQuietEndpoint(s, endpointFor(s, pe, qp));
  S::sync();
}

// ---- atomics -----------------------------------------------------------------------------------

// Fetching form (`fetch`) returns the old value; Set returns nothing meaningful and is never
// fetching. A non-fetching add is a fire-and-forget reduction on the peer.
template <typename T>
MORI_DEVICE_INLINE T p2pAmo(Amo op, T* remote, T value, T cond, bool fetch) {
  using SS = SysScope;
  switch (op) {
    case Amo::Fetch: return gpu::atomicLoad<Order::Relaxed, SS::System>(remote);
    case Amo::Set: gpu::atomicStore<Order::Relaxed, SS::System>(remote, value); return T{};
    case Amo::Swap: return gpu::atomicExchange<Order::Relaxed, SS::System>(remote, value);
    case Amo::CompareSwap: return gpu::atomicCompareExchange<Order::Relaxed, SS::System>(remote, cond, value);
    case Amo::Add:
      if (!fetch) {
        gpu::atomicAddNoReturn<SS::System>(remote, value);
        return T{};
      }
      return gpu::atomicFetchAdd<Order::Relaxed, SS::System>(remote, value);
    case Amo::And: return gpu::atomicFetchAnd<Order::Relaxed, SS::System>(remote, value);
    case Amo::Or: return gpu::atomicFetchOr<Order::Relaxed, SS::System>(remote, value);
    default: return gpu::atomicFetchXor<Order::Relaxed, SS::System>(remote, value);
  }
}

template <typename T>
MORI_SHMEM_OUT_OF_LINE T amoGeneral(const GpuStates& s, Amo op, T* dest, T value, T cond, int pe, int qp, bool fetch) {
  checkPe(s, pe);
  const Region& r = regionOf(s, dest, sizeof(T), pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P: return p2pAmo(op, p2pAddress(s, r, pe, dest), value, cond, fetch);
    case Transport::Rdma: return rdmaAmo(s, r, op, dest, value, cond, pe, qp, fetch);
    default: failTransport(s, pe, "atomic");
  }
}

template <typename T>
MORI_DEVICE_INLINE T amo(const GpuStates& s, Amo op, T* dest, T value, T cond, int pe, int qp, bool fetch) {
  if (T* remote = heapP2pAddress(s, dest, pe)) return p2pAmo(op, remote, value, cond, fetch);
  return amoGeneral(s, op, dest, value, cond, pe, qp, fetch);
}

// ---- ordering ----------------------------------------------------------------------------------

// Completes every operation this PE issued (scope-cooperative over the endpoints).
template <class S>
MORI_DEVICE_INLINE void quiet(const GpuStates& s) {
  gpu::releaseSystem();
  if (s.numQpPerPe != 0) {
    const uint32_t total = static_cast<uint32_t>(s.nPes) * s.numQpPerPe;
    for (uint32_t i = static_cast<uint32_t>(S::rank()); i < total; i += static_cast<uint32_t>(S::size())) {
      if (transportTo(s, static_cast<int>(i / s.numQpPerPe)) == Transport::Rdma) rdmaQuietEndpoint(s, s.endpoints[i]);
    }
  }
  S::sync();
}

// Completes operations to `pe` (on QP `qp`, or all of its QPs when qp < 0).
MORI_DEVICE_INLINE void quietPe(const GpuStates& s, int pe, int qp) {
  checkPe(s, pe);
  gpu::releaseSystem();
  if (transportTo(s, pe) != Transport::Rdma) return;
  if (qp >= 0) {
    rdmaQuietEndpoint(s, endpointFor(s, pe, qp));
    return;
  }
  for (uint32_t q = 0; q < s.numQpPerPe; ++q)
    rdmaQuietEndpoint(s, s.endpoints[static_cast<uint32_t>(pe) * s.numQpPerPe + q]);
}

// Orders this PE's earlier puts, AMOs and signals to each PE before its later ones. One QP
// executes in order; with several QPs per PE ordering across them needs their completion.
MORI_DEVICE_INLINE void fence(const GpuStates& s) {
  if (s.numQpPerPe > 1) {
    quiet<ThreadScope>(s);
  } else {
    gpu::releaseSystem();
  }
}

}  // namespace mori::shmem::impl
#endif
