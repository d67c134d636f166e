// Point-to-point synchronisation on local symmetric variables and the PE-wide barrier.
// Waits read with system-scope acquire loads (the writer is another GPU, the NIC or the host)
// and go through Spinner, so MORI_SHMEM_TIMEOUT bounds them.
#pragma once

#include "mori/platform/atomic.hpp"
#include "mori/shmem/impl/operations.hpp"
#include "mori/shmem/impl/spin.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

template <typename T>
MORI_DEVICE_INLINE T loadAcquire(const T* p) {
  return gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(p);
}

template <typename T>
MORI_DEVICE_INLINE T waitUntil(const GpuStates& s, const T* ivar, Cmp cmp, T value) {
  T v = loadAcquire(ivar);
  if (compare(v, cmp, value)) return v;
  Spinner spin(s.timeoutTicks);
  while (!compare(v = loadAcquire(ivar), cmp, value)) {
    if (spin.expired())
      MORI_DEVICE_FAIL(s, DeviceErrorCode::Timeout, ErrorSite{}, static_cast<uint64_t>(DeviceWait::WaitUntil),
                       spin.elapsedNs(), static_cast<uint64_t>(v), static_cast<uint64_t>(value));
  }
  return v;
}

// Entries whose status is non-zero are excluded (OpenSHMEM); status may be null.
MORI_DEVICE_INLINE bool excluded(const int* status, size_t i) { return status && status[i] != 0; }

template <typename T>
MORI_DEVICE_INLINE void waitUntilAll(const GpuStates& s, const T* ivars, size_t n, const int* status, Cmp cmp,
                                     T value) {
  for (size_t i = 0; i < n; ++i)
    if (!excluded(status, i)) waitUntil(s, ivars + i, cmp, value);
}

// Index of one satisfied entry; n if every entry is excluded.
template <typename T>
MORI_DEVICE_INLINE size_t waitUntilAny(const GpuStates& s, const T* ivars, size_t n, const int* status, Cmp cmp,
                                       T value) {
  bool any = false;
  for (size_t i = 0; i < n; ++i) any |= !excluded(status, i);
  if (!any) return n;
  Spinner spin(s.timeoutTicks);
  for (;;) {
    for (size_t i = 0; i < n; ++i)
      if (!excluded(status, i) && compare(loadAcquire(ivars + i), cmp, value)) return i;
    if (spin.expired())
      MORI_DEVICE_FAIL(s, DeviceErrorCode::Timeout, ErrorSite{}, static_cast<uint64_t>(DeviceWait::WaitUntil),
                       spin.elapsedNs(), n, static_cast<uint64_t>(value));
  }
}

// Fills indices with every satisfied entry once at least one is; returns how many.
template <typename T>
MORI_DEVICE_INLINE size_t waitUntilSome(const GpuStates& s, const T* ivars, size_t n, size_t* indices,
                                        const int* status, Cmp cmp, T value) {
  bool any = false;
  for (size_t i = 0; i < n; ++i) any |= !excluded(status, i);
  if (!any) return 0;
  Spinner spin(s.timeoutTicks);
  for (;;) {
    size_t found = 0;
    for (size_t i = 0; i < n; ++i)
      if (!excluded(status, i) && compare(loadAcquire(ivars + i), cmp, value)) indices[found++] = i;
    if (found) return found;
    if (spin.expired())
      MORI_DEVICE_FAIL(s, DeviceErrorCode::Timeout, ErrorSite{}, static_cast<uint64_t>(DeviceWait::WaitUntil),
                       spin.elapsedNs(), n, static_cast<uint64_t>(value));
  }
}

template <typename T>
MORI_DEVICE_INLINE bool testAll(const T* ivars, size_t n, const int* status, Cmp cmp, T value) {
  for (size_t i = 0; i < n; ++i)
    if (!excluded(status, i) && !compare(loadAcquire(ivars + i), cmp, value)) return false;
  return true;
}

template <typename T>
MORI_DEVICE_INLINE size_t testAny(const T* ivars, size_t n, const int* status, Cmp cmp, T value) {
  for (size_t i = 0; i < n; ++i)
    if (!excluded(status, i) && compare(loadAcquire(ivars + i), cmp, value)) return i;
  return n;
}

// Dissemination barrier: ceil(log2 n) rounds; in round k this PE tells PE (me + 2^k) mod n that
// it arrived and waits for PE (me - 2^k) mod n. Each flag has exactly one writer per barrier and
// holds the barrier's epoch, so a writer that runs ahead only raises it: no reset, no central
// PE, no PE limit. One caller (thread or block) per PE at a time.
template <class S>
MORI_DEVICE_INLINE void syncAll(const GpuStates& s) {
  S::sync();
  if (S::rank() == 0) {
    const uint64_t epoch = *s.barrierEpoch + 1;
    *s.barrierEpoch = epoch;
    uint64_t* flags = reinterpret_cast<uint64_t*>(s.heap.base + s.syncOffset);
    Spinner spin(s.timeoutTicks);
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
  S::sync();
}

template <class S>
MORI_DEVICE_INLINE void barrierAll(const GpuStates& s) {
  quiet<S>(s);
  syncAll<S>(s);
}

}  // namespace mori::shmem::impl
#endif
