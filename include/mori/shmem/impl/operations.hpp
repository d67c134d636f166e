// One template per SHMEM operation. Each resolves the symmetric address and takes its inline fast
// path when the target is a heap object on a P2P PE with an inline window (loads/stores through
// the peer mapping); everything else (registered regions, PEs past kInlinePes, RDMA, errors) is
// one call into the device library (device_library.hpp). Scopes (thread/warp/block) differ only
// in the Scope type argument.
//
// The general path is a call, not inlined code, because ptxas allocates a kernel's registers
// together with the code it inlines: with the RDMA path inline a 1024-thread kernel calling
// putmem_nbi_block needed 82 registers and did not launch. A call into relocatable code keeps
// the caller's registers its own (bench/results/2026-12-01T1500Z_cpu2_device_library.json).
#pragma once

#include <string.h>

#include <type_traits>

#include "mori/platform/atomic.hpp"
#include "mori/shmem/impl/address.hpp"
#include "mori/shmem/impl/copy.hpp"
#include "mori/shmem/impl/device_library.hpp"
#include "mori/shmem/impl/op_types.hpp"
#include "mori/shmem/impl/scope.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

using gpu::Order;
using SysScope = gpu::Scope;

// ---- put / get -------------------------------------------------------------------------------
// One thread's copy is shaped for latency (copyThread), a wave's or a block's for bandwidth
// (copyBytes).

template <class S>
MORI_DEVICE_INLINE void scopeCopy(void* dst, const void* src, size_t bytes) {
  if constexpr (S::kSingleThread) {
    copyThread(dst, src, bytes);
  } else {
    copyBytes<S::kOneWave>(dst, src, bytes, S::rank(), S::size());
  }
}

// The device library's RDMA put / get for scope S.
template <class S>
MORI_DEVICE_INLINE void putGeneral(void* dest, const void* src, size_t bytes, int pe, int qp, bool blocking) {
  if constexpr (S::kSingleThread) {
    mori_shmemi_put_thread(dest, src, bytes, pe, qp, blocking);
  } else if constexpr (S::kOneWave) {
    mori_shmemi_put_warp(dest, src, bytes, pe, qp, blocking);
  } else {
    mori_shmemi_put_block(dest, src, bytes, pe, qp, blocking);
  }
}
template <class S>
MORI_DEVICE_INLINE void getGeneral(void* dest, const void* src, size_t bytes, int pe, int qp, bool blocking) {
  if constexpr (S::kSingleThread) {
    mori_shmemi_get_thread(dest, src, bytes, pe, qp, blocking);
  } else if constexpr (S::kOneWave) {
    mori_shmemi_get_warp(dest, src, bytes, pe, qp, blocking);
  } else {
    mori_shmemi_get_block(dest, src, bytes, pe, qp, blocking);
  }
}

template <class S>
MORI_DEVICE_INLINE void put(const GpuStates& s, void* dest, const void* src, size_t bytes, int pe, int qp,
                            bool blocking) {
  void* remote = heapP2pRange(s, dest, bytes, pe);
  if (MORI_UNLIKELY(!remote)) {
    remote = mori_shmemi_p2p_window(dest, bytes, pe);
    if (!remote) return putGeneral<S>(dest, src, bytes, pe, qp, blocking);
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
    remote = mori_shmemi_p2p_window(src, bytes, pe);
    if (!remote) return getGeneral<S>(dest, src, bytes, pe, qp, blocking);
  }
  scopeCopy<S>(dest, remote, bytes);
  if (blocking) S::sync();  // the whole destination is filled when the scope returns
}

// ---- single-element operations (p, g, atomics, signals) --------------------------------------
// The P2P access itself is one helper per operation, used by the fast path here and by the
// general path in the device library.

// A value as the low sizeof(T) bytes of a word, and back.
template <typename T>
MORI_DEVICE_INLINE uint64_t toBits(T v) {
  static_assert(sizeof(T) <= 8, "single elements are at most 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T>
MORI_DEVICE_INLINE T fromBits(uint64_t bits) {
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}

template <typename T>
MORI_DEVICE_INLINE void p2pP(T* remote, T value) {
  *remote = value;
}

template <typename T>
MORI_DEVICE_INLINE void p(const GpuStates& s, T* dest, T value, int pe, int qp) {
  if (T* remote = heapP2pAddress(s, dest, pe)) return p2pP(remote, value);
  mori_shmemi_p(dest, toBits(value), sizeof(T), pe, qp);
}

// A volatile load; a class type (half, bfloat16: no volatile copy) as the integer of its size.
template <typename T>
MORI_DEVICE_INLINE T p2pG(const T* remote) {
  if constexpr (std::is_arithmetic_v<T>) {
    return *reinterpret_cast<const volatile T*>(remote);
  } else {
    static_assert(sizeof(T) == 2, "the class types of the typed API are 16-bit");
    return fromBits<T>(*reinterpret_cast<const volatile uint16_t*>(remote));
  }
}

template <typename T>
MORI_DEVICE_INLINE T g(const GpuStates& s, const T* src, int pe, int qp) {
  if (const T* remote = heapP2pAddress(s, src, pe)) return p2pG(remote);
  return fromBits<T>(mori_shmemi_g(src, sizeof(T), pe, qp));
}

// ---- strided put / get -------------------------------------------------------------------------
// Element i of src (stride sst elements) to element i of dest (stride dst), i < n, strides of any
// sign; kPut: dest is pe's (iput), else src is (iget). The scope's threads take elements rank,
// rank + size, ...: one p or g each (on a P2P peer a store or load; otherwise the device
// library's inline write or read), so every transport and every address check is the
// single-element path's. Blocking: the source may be reused (iput) and dest holds every element
// (iget) when the scope returns.
template <class S, bool kPut, typename T>
MORI_DEVICE_INLINE void strided(const GpuStates& s, T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                int pe, int qp) {
  for (size_t i = static_cast<size_t>(S::rank()); i < n; i += static_cast<size_t>(S::size())) {
    T* to = dest + static_cast<ptrdiff_t>(i) * dst;
    const T* from = src + static_cast<ptrdiff_t>(i) * sst;
    if constexpr (kPut)
      p<T>(s, to, *from, pe, qp);
    else
      *to = g<T>(s, from, pe, qp);
  }
  S::sync();
}

// 16-byte elements (iput128 / iget128): each is two 8-byte words, moved as two strided calls over
// the words, so the elements need 8-byte alignment only (OpenSHMEM's 128-bit strided calls are
// not atomic per element either). Strides in 16-byte elements.
template <class S, bool kPut>
MORI_DEVICE_INLINE void strided128(const GpuStates& s, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,
                                   size_t n, int pe, int qp) {
  auto* d = static_cast<uint64_t*>(dest);
  auto* from = static_cast<const uint64_t*>(src);
  const ptrdiff_t wd = n > 1 ? 2 * dst : 0, ws = n > 1 ? 2 * sst : 0;  // one element: strides unused
  for (int w = 0; w < 2; ++w) strided<S, kPut>(s, d + w, from + w, wd, ws, n, pe, qp);
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

MORI_DEVICE_INLINE void signalOp(const GpuStates& s, uint64_t* sig, uint64_t value, SignalOp op, int pe, int qp,
                                 bool ordered) {
  if (uint64_t* remote = heapP2pAddress(s, sig, pe)) return p2pSignal(remote, value, op, ordered);
  mori_shmemi_signal(sig, value, static_cast<int>(op), pe, qp, ordered);
}

template <class S>
MORI_DEVICE_INLINE void putSignal(const GpuStates& s, void* dest, const void* src, size_t bytes, uint64_t* sig,
                                  uint64_t value, SignalOp op, int pe, int qp, bool blocking) {
  put<S>(s, dest, src, bytes, pe, qp, false);
  S::sync();  // every thread's part of the data is issued before the signal
  if (S::rank() == 0) signalOp(s, sig, value, op, pe, qp, true);
  // Blocking over RDMA or SDMA (every transport but P2P): every thread waits itself (its data,
  // and rank 0 its signal too): a warp sync after one lane's wait is not relied on (see
  // rdma::postFromThreads).
  if (blocking && transportTo(s, pe) != Transport::P2P) mori_shmemi_quiet_pe_rdma(pe, qp < 0 ? 0 : qp);
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
MORI_DEVICE_INLINE T amo(const GpuStates& s, Amo op, T* dest, T value, T cond, int pe, int qp, bool fetch) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics are 4 or 8 bytes");
  if (T* remote = heapP2pAddress(s, dest, pe)) return p2pAmo(op, remote, value, cond, fetch);
  return fromBits<T>(
      mori_shmemi_amo(static_cast<uint32_t>(op), dest, toBits(value), toBits(cond), sizeof(T), pe, qp, fetch));
}

// ---- ordering ----------------------------------------------------------------------------------

// Completes every operation this PE issued (block scope: cooperative over the RDMA endpoints; a
// wave's lane 0 completes them alone). A scope first syncs, so that every thread's operations are
// issued before any endpoint is completed and its stores are ordered before rank 0's release,
// which makes them visible to every observer (fences are cumulative); rank 0 releases alone, as
// NVSHMEM's block barrier does.
template <class S>
MORI_DEVICE_INLINE void quiet(const GpuStates& s) {
  S::sync();
  if (S::rank() == 0) gpu::releaseSystem();
  if (s.numQpPerPe != 0 || s.sdmaPeers != nullptr) {
    if constexpr (S::kSingleThread || S::kOneWave) {
      if (S::rank() == 0) mori_shmemi_quiet_rdma_thread();
    } else {
      mori_shmemi_quiet_rdma_block();
    }
  }
  S::sync();
}

// Completes operations to `pe` (on QP `qp`, or all of its QPs when qp < 0).
MORI_DEVICE_INLINE void quietPe(const GpuStates& s, int pe, int qp) {
  checkPe(s, pe);
  gpu::releaseSystem();
  const Transport t = transportTo(s, pe);
  if (t == Transport::Rdma || t == Transport::Sdma) mori_shmemi_quiet_pe_rdma(pe, qp);
}

// Orders this PE's earlier puts, AMOs and signals to each PE before its later ones. One QP
// executes in order; with several QPs per PE ordering across them needs their completion, and so
// do SDMA queues (they run concurrently, and single elements to an SDMA peer are P2P stores).
MORI_DEVICE_INLINE void fence(const GpuStates& s) {
  if (s.numQpPerPe > 1 || s.sdmaPeers != nullptr) {
    quiet<ThreadScope>(s);
  } else {
    gpu::releaseSystem();
  }
}

}  // namespace mori::shmem::impl
#endif
