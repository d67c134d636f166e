// Point-to-point synchronisation on local symmetric variables and the PE-wide barrier.
// Waits read with system-scope acquire loads (the writer is another GPU, the NIC or the host)
// and go through Spinner, so MORI_SHMEM_TIMEOUT bounds them.
#pragma once

#include "mori/device/spin.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/shmem/impl/operations.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

using device::Spinner;

// 16-bit variables (the platforms' atomics are 4- and 8-byte): the acquire load of the aligned
// 4-byte word that holds *p, p's half of it kept (little-endian; the word never leaves p's page).
template <typename T>
MORI_DEVICE_INLINE T loadAcquire(const T* p) {
  if constexpr (sizeof(T) == 2) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const uint32_t word =
        gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(reinterpret_cast<const uint32_t*>(a & ~uintptr_t{3}));
    return static_cast<T>(static_cast<uint16_t>(word >> ((a & 2) * 8)));
  } else {
    return gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(p);
  }
}

template <typename T>
MORI_DEVICE_INLINE T waitUntil(const GpuStates& s, const T* ivar, Cmp cmp, T value) {
  T v = loadAcquire(ivar);
  if (compare(v, cmp, value)) return v;
  Spinner spin(s);
  while (!compare(v = loadAcquire(ivar), cmp, value)) {
    if (spin.expired())
      mori_shmemi_fail_wait(static_cast<uint32_t>(DeviceWait::WaitUntil), spin.elapsedNs(), static_cast<uint64_t>(v),
                            static_cast<uint64_t>(value));
  }
  return v;
}

// Entries whose status is non-zero are excluded (OpenSHMEM); status may be null.
MORI_DEVICE_INLINE bool excluded(const int* status, size_t i) { return status && status[i] != 0; }

// The comparand of entry i: one value for every entry (V = T), or one per entry (V = const T*,
// the _vector forms).
template <typename T>
MORI_DEVICE_INLINE T comparand(T value, size_t) {
  return value;
}
template <typename T>
MORI_DEVICE_INLINE T comparand(const T* values, size_t i) {
  return values[i];
}

template <typename T, typename V>
MORI_DEVICE_INLINE void waitUntilAll(const GpuStates& s, const T* ivars, size_t n, const int* status, Cmp cmp,
                                     V value) {
  for (size_t i = 0; i < n; ++i)
    if (!excluded(status, i)) waitUntil<T>(s, ivars + i, cmp, comparand<T>(value, i));
}

// Fills indices (when not null) with every satisfied entry; returns how many. Never waits.
template <typename T, typename V>
MORI_DEVICE_INLINE size_t testSome(const T* ivars, size_t n, size_t* indices, const int* status, Cmp cmp, V value) {
  size_t found = 0;
  for (size_t i = 0; i < n; ++i)
    if (!excluded(status, i) && compare(loadAcquire(ivars + i), cmp, comparand<T>(value, i))) {
      if (indices) indices[found] = i;
      ++found;
    }
  return found;
}

// Index of one satisfied entry; n if every entry is excluded.
template <typename T, typename V>
MORI_DEVICE_INLINE size_t waitUntilAny(const GpuStates& s, const T* ivars, size_t n, const int* status, Cmp cmp,
                                       V value) {
  bool any = false;
  for (size_t i = 0; i < n; ++i) any |= !excluded(status, i);
  if (!any) return n;
  Spinner spin(s);
  for (;;) {
    for (size_t i = 0; i < n; ++i)
      if (!excluded(status, i) && compare(loadAcquire(ivars + i), cmp, comparand<T>(value, i))) return i;
    if (spin.expired())
      mori_shmemi_fail_wait(static_cast<uint32_t>(DeviceWait::WaitUntil), spin.elapsedNs(), n,
                            static_cast<uint64_t>(comparand<T>(value, 0)));
  }
}

// Fills indices with every satisfied entry once at least one is; returns how many.
template <typename T, typename V>
MORI_DEVICE_INLINE size_t waitUntilSome(const GpuStates& s, const T* ivars, size_t n, size_t* indices,
                                        const int* status, Cmp cmp, V value) {
  bool any = false;
  for (size_t i = 0; i < n; ++i) any |= !excluded(status, i);
  if (!any) return 0;
  Spinner spin(s);
  for (;;) {
    if (const size_t found = testSome<T>(ivars, n, indices, status, cmp, value)) return found;
    if (spin.expired())
      mori_shmemi_fail_wait(static_cast<uint32_t>(DeviceWait::WaitUntil), spin.elapsedNs(), n,
                            static_cast<uint64_t>(comparand<T>(value, 0)));
  }
}

template <typename T, typename V>
MORI_DEVICE_INLINE bool testAll(const T* ivars, size_t n, const int* status, Cmp cmp, V value) {
  for (size_t i = 0; i < n; ++i)
    if (!excluded(status, i) && !compare(loadAcquire(ivars + i), cmp, comparand<T>(value, i))) return false;
  return true;
}

template <typename T, typename V>
MORI_DEVICE_INLINE size_t testAny(const T* ivars, size_t n, const int* status, Cmp cmp, V value) {
  for (size_t i = 0; i < n; ++i)
    if (!excluded(status, i) && compare(loadAcquire(ivars + i), cmp, comparand<T>(value, i))) return i;
  return n;
}

// The barrier's arrival part: one thread per PE runs the device library's rounds
// (mori_shmemi_sync_all_rounds: a dissemination barrier). One caller (thread or block) per PE at
// a time.
template <class S>
MORI_DEVICE_INLINE void syncAll(const GpuStates&) {
  S::sync();
  if (S::rank() == 0) mori_shmemi_sync_all_rounds();
  S::sync();
}

template <class S>
MORI_DEVICE_INLINE void barrierAll(const GpuStates& s) {
  quiet<S>(s);
  syncAll<S>(s);
}

}  // namespace mori::shmem::impl
#endif
