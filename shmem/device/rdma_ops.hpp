// SHMEM operations over RDMA (device library only): each builds WqeDescs and hands them to the one posting mechanism
// (mori/transport/rdma/post.hpp); the provider is chosen per endpoint at run time by
// rdma::withProvider. Atomics the NICs lack (set, swap, and/or/xor) are compare-and-swap loops
// over fetch-add/compare-swap; 4-byte atomics on a NIC without them operate on the containing
// aligned 8-byte word with compare-and-swap (atomic against other NIC atomics, like every NIC
// atomic; the neighbouring 4 bytes are rewritten only with the value they held).
#pragma once

#include "mori/shmem/impl/address.hpp"
#include "mori/shmem/impl/op_types.hpp"
#include "mori/shmem/impl/scope.hpp"
#include "mori/transport/rdma/post.hpp"
#include "shmem/device/general_path.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

MORI_DEVICE_INLINE const rdma::EndpointDevice& endpointFor(const GpuStates& s, int pe, int qp) {
  return s.endpoints[static_cast<uint32_t>(pe) * s.numQpPerPe + static_cast<uint32_t>(qp) % s.numQpPerPe];
}

// Posts one WQE from the scope: thread scope aggregates across the calling lanes.
template <class P, class S>
MORI_DEVICE_INLINE uint64_t postOne(const GpuStates& s, const rdma::EndpointDevice& ep, const rdma::WqeDesc& d) {
  if constexpr (S::kSingleThread) {
    return rdma::postFromThreads<P>(s, ep, d);
  } else {
    return rdma::postFromScope<P, S>(s, ep, 1, [&](uint32_t) { return d; });
  }
}

// Posts count WQEs make(0..count-1) from the scope.
template <class P, class S, class MakeFn>
MORI_DEVICE_INLINE uint64_t postMany(const GpuStates& s, const rdma::EndpointDevice& ep, uint32_t count, MakeFn make) {
  if constexpr (S::kSingleThread) {
    uint64_t last = 0;
    for (uint32_t i = 0; i < count; ++i) last = rdma::postFromThreads<P>(s, ep, make(i));
    return last;
  } else {
    return rdma::postFromScope<P, S>(s, ep, count, make);
  }
}

// Blocking forms: the scope returns once slot `last` (and so everything before it) completed.
// Every thread checks for itself: no warp sync after one lane's wait is relied on (see
// rdma::postFromThreads); the completions are polled by one thread at a time either way.
template <class P>
MORI_DEVICE_INLINE void waitSlot(const GpuStates& s, const rdma::EndpointDevice& ep, uint64_t last) {
  if (gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::Agent>(&ep.state->completed) <= last)
    rdma::waitCompleted<P>(s, ep, last + 1);
}

MORI_DEVICE_INLINE rdma::WqeDesc makeDesc(rdma::WqeOp op, uint32_t bytes, uint64_t local, uint32_t lkey,
                                          uint64_t remote, uint32_t rkey) {
  rdma::WqeDesc d{};
  d.op = op;
  d.bytes = bytes;
  d.localAddr = local;
  d.lkey = lkey;
  d.remoteAddr = remote;
  d.rkey = rkey;
  return d;
}

// RDMA WRITE of [src, src+bytes) to dest on pe (dest in region dr). The source must be in a
// registered region unless it fits inline.
template <class S>
MORI_LIB_NOINLINE void rdmaPut(const GpuStates& s, const Region& dr, void* dest, const void* src, size_t bytes, int pe,
                               int qp, bool blocking) {
  if (bytes == 0) return;
  const rdma::EndpointDevice& ep = endpointFor(s, pe, qp);
  const uint64_t raddr = remoteAddress(dr, pe, dest);
  const uint32_t rkey = dr.peers[pe].rkey;
  const Region* sr = localRegion(s, src);
  rdma::withProvider(ep.provider, [&](auto provider) {
    using P = decltype(provider);
    uint64_t last;
    if (!sr) {
      if (bytes > P::kMaxInline)
        MORI_DEVICE_FAIL(s, DeviceErrorCode::NotSymmetric, (device::ErrorSite{pe, qp, ep.qpn}),
                         reinterpret_cast<uint64_t>(src), bytes, 1, 0);
      rdma::WqeDesc d = makeDesc(rdma::WqeOp::WriteInline, static_cast<uint32_t>(bytes), 0, 0, raddr, rkey);
      d.inlineData = src;
      last = postOne<P, S>(s, ep, d);
    } else {
      const uint64_t chunk = P::kMaxMessageBytes;
      const uint32_t count = static_cast<uint32_t>((bytes + chunk - 1) / chunk);
      last = postMany<P, S>(s, ep, count, [&](uint32_t i) {
        const uint64_t off = i * chunk, len = bytes - off < chunk ? bytes - off : chunk;
        return makeDesc(rdma::WqeOp::Write, static_cast<uint32_t>(len), reinterpret_cast<uint64_t>(src) + off, sr->lkey,
                        raddr + off, rkey);
      });
    }
    if (blocking) waitSlot<P>(s, ep, last);
  });
}

// RDMA READ of src (in region sr) on pe into the local, registered buffer dest.
template <class S>
MORI_LIB_NOINLINE void rdmaGet(const GpuStates& s, const Region& sr, void* dest, const void* src, size_t bytes, int pe,
                               int qp, bool blocking) {
  if (bytes == 0) return;
  const rdma::EndpointDevice& ep = endpointFor(s, pe, qp);
  const uint64_t raddr = remoteAddress(sr, pe, src);
  const uint32_t rkey = sr.peers[pe].rkey;
  const Region* dr = localRegion(s, dest);
  if (!dr)
    MORI_DEVICE_FAIL(s, DeviceErrorCode::NotSymmetric, (device::ErrorSite{pe, qp, ep.qpn}),
                     reinterpret_cast<uint64_t>(dest), bytes, 2, 0);
  rdma::withProvider(ep.provider, [&](auto provider) {
    using P = decltype(provider);
    const uint64_t chunk = P::kMaxMessageBytes;
    const uint32_t count = static_cast<uint32_t>((bytes + chunk - 1) / chunk);
    const uint64_t last = postMany<P, S>(s, ep, count, [&](uint32_t i) {
      const uint64_t off = i * chunk, len = bytes - off < chunk ? bytes - off : chunk;
      return makeDesc(rdma::WqeOp::Read, static_cast<uint32_t>(len), reinterpret_cast<uint64_t>(dest) + off, dr->lkey,
                      raddr + off, rkey);
    });
    if (blocking) waitSlot<P>(s, ep, last);
  });
}

// Inline RDMA WRITE of one value: its low `bytes` bytes (the small-value put).
inline MORI_LIB_NOINLINE void rdmaP(const GpuStates& s, const Region& r, void* dest, uint64_t value, uint32_t bytes,
                                    int pe, int qp) {
  const rdma::EndpointDevice& ep = endpointFor(s, pe, qp);
  rdma::WqeDesc d = makeDesc(rdma::WqeOp::WriteInline, bytes, 0, 0, remoteAddress(r, pe, dest), r.peers[pe].rkey);
  d.inlineData = &value;
  rdma::withProvider(ep.provider, [&](auto provider) { rdma::postFromThreads<decltype(provider)>(s, ep, d); });
}

// Scalar RDMA READ of `bytes` (at most 8) through the endpoint's result word.
inline MORI_LIB_NOINLINE uint64_t rdmaG(const GpuStates& s, const Region& r, const void* src, uint32_t bytes, int pe,
                                        int qp) {
  const rdma::EndpointDevice& ep = endpointFor(s, pe, qp);
  const rdma::WqeDesc d = makeDesc(rdma::WqeOp::Read, bytes, 0, 0, remoteAddress(r, pe, src), r.peers[pe].rkey);
  const uint64_t bits = rdma::withProvider(ep.provider, [&](auto provider) {
    using P = decltype(provider);
    return rdma::takeResult<P>(s, ep, rdma::postFromThreads<P>(s, ep, d));
  });
  return bytes == 8 ? bits : bits & ((uint64_t{1} << (8 * bytes)) - 1);
}

// One NIC atomic of `bytes` (4 or 8) at raddr. fetch=false sends the old value to the
// endpoint's discard word and does not wait.
template <class P>
MORI_DEVICE_INLINE uint64_t nicAtomic(const GpuStates& s, const rdma::EndpointDevice& ep, rdma::WqeOp op,
                                      uint32_t bytes, uint64_t raddr, uint32_t rkey, uint64_t operand, uint64_t compare,
                                      bool fetch) {
  rdma::WqeDesc d = makeDesc(op, 0, 0, 0, raddr, rkey);
  d.atomicBytes = static_cast<uint8_t>(bytes);
  d.operand = operand;
  d.compare = compare;
  if (!fetch) {
    d.localAddr = reinterpret_cast<uint64_t>(&ep.atomicResults[ep.sqDepth]);
    d.lkey = ep.atomicLkey;
    rdma::postFromThreads<P>(s, ep, d);
    return 0;
  }
  // The result word holds the old value in the NIC's layout (mlx5 writes 4-byte results
  // big-endian): the provider decodes it.
  return P::fetchedValue(rdma::takeResult<P>(s, ep, rdma::postFromThreads<P>(s, ep, d)), bytes);
}

template <typename T>
MORI_LIB_NOINLINE T rdmaAmo(const GpuStates& s, const Region& r, Amo op, T* dest, T value, T cond, int pe, int qp,
                            bool fetch) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics are 4 or 8 bytes");
  using U = uint64_t;
  const rdma::EndpointDevice& ep = endpointFor(s, pe, qp);
  const uint64_t raddr = remoteAddress(r, pe, dest);
  const uint32_t rkey = r.peers[pe].rkey;
  return rdma::withProvider(ep.provider, [&](auto provider) -> T {
    using P = decltype(provider);
    constexpr uint32_t kBytes = sizeof(T);
    if constexpr (kBytes == 4 && !P::kHasAtomic32) {
      // Operate on the containing 8-byte word (little-endian: the upper half at raddr & 4).
      const uint64_t word = raddr & ~uint64_t{7};
      const uint32_t shift = (raddr & 4) ? 32 : 0;
      const U laneMask = U{0xffffffffu} << shift;
      U old = nicAtomic<P>(s, ep, rdma::WqeOp::AtomicFetchAdd, 8, word, rkey, 0, 0, true);
      for (;;) {
        const T cur = static_cast<T>(static_cast<uint32_t>(old >> shift));
        if (op == Amo::Fetch || (op == Amo::CompareSwap && cur != cond)) return cur;
        const T next = op == Amo::CompareSwap ? value : amoApply(op, cur, value);
        const U updated = (old & ~laneMask) | (static_cast<U>(static_cast<uint32_t>(next)) << shift);
        const U seen = nicAtomic<P>(s, ep, rdma::WqeOp::AtomicCompareSwap, 8, word, rkey, updated, old, true);
        if (seen == old) return cur;
        old = seen;
      }
    } else {
      constexpr U kMask = kBytes == 8 ? ~U{0} : U{0xffffffffu};
      auto asT = [](U v) { return static_cast<T>(v & kMask); };
      auto asU = [](T v) { return static_cast<U>(v) & kMask; };
      switch (op) {
        case Amo::Fetch: return asT(nicAtomic<P>(s, ep, rdma::WqeOp::AtomicFetchAdd, kBytes, raddr, rkey, 0, 0, true));
        case Amo::Add:
          return asT(nicAtomic<P>(s, ep, rdma::WqeOp::AtomicFetchAdd, kBytes, raddr, rkey, asU(value), 0, fetch));
        case Amo::CompareSwap:
          return asT(
              nicAtomic<P>(s, ep, rdma::WqeOp::AtomicCompareSwap, kBytes, raddr, rkey, asU(value), asU(cond), true));
        default: {
          // set, swap, and, or, xor: compare-and-swap until the word did not change under us.
          U old = nicAtomic<P>(s, ep, rdma::WqeOp::AtomicFetchAdd, kBytes, raddr, rkey, 0, 0, true) & kMask;
          for (;;) {
            const U next = asU(amoApply(op, asT(old), value));
            const U seen =
                nicAtomic<P>(s, ep, rdma::WqeOp::AtomicCompareSwap, kBytes, raddr, rkey, next, old, true) & kMask;
            if (seen == old) return asT(old);
            old = seen;
          }
        }
      }
    }
  });
}

// Signal update: SET is an inline 8-byte WRITE (ordered after earlier WRITEs on the QP), ADD a
// NIC fetch-add whose result is discarded. rdmaSignal only chooses between two calls: with the
// fetch-add's posting in its own frame, above its call of rdmaP, a kernel's deepest chain of
// frames (its scratch) held both postings' frames.
inline MORI_LIB_NOINLINE void rdmaSignalAdd(const GpuStates& s, const Region& r, uint64_t* sig, uint64_t value, int pe,
                                            int qp) {
  const rdma::EndpointDevice& ep = endpointFor(s, pe, qp);
  rdma::withProvider(ep.provider, [&](auto provider) {
    nicAtomic<decltype(provider)>(s, ep, rdma::WqeOp::AtomicFetchAdd, 8, remoteAddress(r, pe, sig), r.peers[pe].rkey,
                                  value, 0, false);
  });
}
inline MORI_LIB_NOINLINE void rdmaSignal(const GpuStates& s, const Region& r, uint64_t* sig, uint64_t value,
                                         SignalOp op, int pe, int qp) {
  if (op == SignalOp::Set) return rdmaP(s, r, sig, value, sizeof(uint64_t), pe, qp);
  rdmaSignalAdd(s, r, sig, value, pe, qp);
}

inline MORI_LIB_NOINLINE void rdmaQuietEndpoint(const GpuStates& s, const rdma::EndpointDevice& ep) {
  rdma::withProvider(ep.provider, [&](auto provider) { rdma::quietEndpoint<decltype(provider)>(s, ep); });
}

}  // namespace mori::shmem::impl
#endif
