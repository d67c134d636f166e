// Symmetric address resolution: which region holds a local symmetric address, and where that
// object lives on another PE. The heap is checked inline; registered regions are scanned (in the
// device library) only on a miss. In the inline fast paths, argument checks (PE range) cost
// nothing unless the user builds with MORI_SHMEM_CHECKS=1; the device library, which every other
// case reaches, always checks, and an address in no region at all is always reported.
#pragma once

#include "mori/device/error.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/shmem/device_host/gpu_states.hpp"
#include "mori/shmem/impl/device_library.hpp"

#ifndef MORI_SHMEM_CHECKS
#define MORI_SHMEM_CHECKS 0
#endif

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

using device::ErrorSite;

MORI_DEVICE_INLINE void checkPe(const GpuStates& s, int pe) {
  if constexpr (MORI_SHMEM_CHECKS) {
    if (MORI_UNLIKELY(pe < 0 || pe >= s.nPes)) mori_shmemi_fail_pe(pe);
  }
}

// Registered regions (index >= 1); null if none holds `addr`.
MORI_DEVICE_INLINE const Region* findRegisteredRegion(uint64_t addr) { return mori_shmemi_find_region(addr); }

// Region of the symmetric object [addr, addr + bytes) that is about to be accessed on `peer`.
MORI_DEVICE_INLINE const Region& regionOf(const GpuStates& s, const void* p, size_t bytes, int peer) {
  const uint64_t addr = reinterpret_cast<uint64_t>(p);
  const Region* r = &s.heap;
  if (MORI_UNLIKELY(addr - s.heap.base >= s.heap.size)) {
    r = findRegisteredRegion(addr);
    if (!r) MORI_DEVICE_FAIL(s, DeviceErrorCode::NotSymmetric, (ErrorSite{peer, -1, 0}), addr, bytes, 0, 0);
  }
  if constexpr (MORI_SHMEM_CHECKS) {
    if (MORI_UNLIKELY(bytes > r->size - (addr - r->base)))
      MORI_DEVICE_FAIL(s, DeviceErrorCode::NotSymmetric, (ErrorSite{peer, -1, 0}), addr, bytes, 0, 0);
  }
  return *r;
}

// Region of a local buffer used as an RDMA source/sink, or null if it is not registered.
MORI_DEVICE_INLINE const Region* localRegion(const GpuStates& s, const void* p) {
  const uint64_t addr = reinterpret_cast<uint64_t>(p);
  if (addr - s.heap.base < s.heap.size) return &s.heap;
  return findRegisteredRegion(addr);
}

MORI_DEVICE_INLINE Transport transportTo(const GpuStates& s, int pe) {
  if (pe < kInlinePes) return static_cast<Transport>(s.inlineTransport[pe]);
  return static_cast<Transport>(gpu::loadReadOnly(s.transport + pe));
}

// `p` (a local symmetric address in `r`, a region of `s`) on `pe`, addressable by load/store
// from this PE.
// The heap's fields are read through `s` on the fast path: through `r` the compiler cannot tell
// constant from global memory and emits generic loads, which miss after a fence like any other.
// The fast path repeats regionOf's heap test instead of comparing &r with &s.heap: the compiler
// reuses the test and its offset, where the comparison needed the generic address of `s` and
// kept the heap base live (8-byte get 0.243 -> 0.218 us, signal ping-pong -0.1 us on the H200s).
template <typename T>
MORI_DEVICE_INLINE T* p2pAddress(const GpuStates& s, const Region& r, int pe, T* p) {
  const uint64_t addr = reinterpret_cast<uint64_t>(p);
  const uint64_t heapOffset = addr - s.heap.base;
  if (heapOffset < s.heap.size && pe < kInlinePes) return reinterpret_cast<T*>(s.inlineHeapP2pBase[pe] + heapOffset);
  return reinterpret_cast<T*>(gpu::loadReadOnly(&r.peers[pe].p2pBase) + (addr - r.base));
}
// The heap window on `pe` at `heapOffset` if the object lies in the heap (`inHeap`) and `pe` is a
// P2P PE with an inline window (the operations' inline fast path); 0 otherwise, and for an object
// that runs past the heap's end (the general path reports it in checked builds).
MORI_DEVICE_INLINE uint64_t heapP2pWindow(const GpuStates& s, uint64_t heapOffset, bool inHeap, int pe) {
  checkPe(s, pe);
  // Both inline entries are read whatever the tests say (the slot is kept in bounds), so the two
  // constant loads issue together instead of the base's waiting for the transport byte.
  const unsigned slot = static_cast<unsigned>(pe) % kInlinePes;
  const uint64_t base = s.inlineHeapP2pBase[slot];
  const bool p2p = s.inlineTransport[slot] == static_cast<uint8_t>(Transport::P2P);
#if MORI_PLATFORM_AMD
  return inHeap && static_cast<unsigned>(pe) < kInlinePes && p2p ? base + heapOffset : 0;
#else
  // Not &&: clang (the Triton bitcode) turned the && chain into branches and moved both loads
  // under them, so a loop of puts re-read them every iteration where nvcc reads them once before
  // it. nvcc's code is the same either way; HIP keeps && (its code changes, not measured).
  return (inHeap & (static_cast<unsigned>(pe) < kInlinePes) & p2p) ? base + heapOffset : 0;
#endif
}
// One element: any element fits in the heap, so its range test is one comparison.
template <typename T>
MORI_DEVICE_INLINE T* heapP2pAddress(const GpuStates& s, T* p, int pe) {
  const uint64_t heapOffset = reinterpret_cast<uint64_t>(p) - s.heap.base;
  return reinterpret_cast<T*>(heapP2pWindow(s, heapOffset, heapOffset <= s.heap.size - sizeof(T), pe));
}
// `bytes` from p (put and get).
template <typename T>
MORI_DEVICE_INLINE T* heapP2pRange(const GpuStates& s, T* p, size_t bytes, int pe) {
  const uint64_t heapOffset = reinterpret_cast<uint64_t>(p) - s.heap.base;
  return reinterpret_cast<T*>(
      heapP2pWindow(s, heapOffset, heapOffset < s.heap.size && bytes <= s.heap.size - heapOffset, pe));
}
// `p` on `pe` as the peer's own virtual address (RDMA remote address).
MORI_DEVICE_INLINE uint64_t remoteAddress(const Region& r, int pe, const void* p) {
  return gpu::loadReadOnly(&r.peers[pe].remoteBase) + (reinterpret_cast<uint64_t>(p) - r.base);
}

}  // namespace mori::shmem::impl
#endif
