// One family of scoped atomics for device code. Order and scope are explicit template arguments
// on every call and are mapped for real on both vendors: Scope::System reaches other GPUs, the
// host and the NIC; Scope::Agent reaches this GPU only. Types: 4- and 8-byte integers.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

#if MORI_GPU_COMPILER && MORI_PLATFORM_NVIDIA
#include <cuda/atomic>
#endif

namespace mori::gpu {

enum class Order { Relaxed, Acquire, Release, AcqRel, SeqCst };
enum class Scope { Agent, System };

#if MORI_GPU_COMPILER
namespace detail {

template <typename T>
constexpr bool kAtomicSize = sizeof(T) == 4 || sizeof(T) == 8;

#if MORI_PLATFORM_AMD
template <Order O>
constexpr int hipOrder() {
  return O == Order::Relaxed   ? __ATOMIC_RELAXED
         : O == Order::Acquire ? __ATOMIC_ACQUIRE
         : O == Order::Release ? __ATOMIC_RELEASE
         : O == Order::AcqRel  ? __ATOMIC_ACQ_REL
                               : __ATOMIC_SEQ_CST;
}
template <Scope S>
constexpr int hipScope() {
  return S == Scope::System ? __HIP_MEMORY_SCOPE_SYSTEM : __HIP_MEMORY_SCOPE_AGENT;
}
// Failure order of a CAS may not be release-flavoured.
template <Order O>
constexpr int hipFailOrder() {
  return O == Order::Release ? __ATOMIC_RELAXED : O == Order::AcqRel ? __ATOMIC_ACQUIRE : hipOrder<O>();
}
#else
template <Order O>
MORI_HOST_DEVICE constexpr cuda::std::memory_order cudaOrder() {
  return O == Order::Relaxed   ? cuda::std::memory_order_relaxed
         : O == Order::Acquire ? cuda::std::memory_order_acquire
         : O == Order::Release ? cuda::std::memory_order_release
         : O == Order::AcqRel  ? cuda::std::memory_order_acq_rel
                               : cuda::std::memory_order_seq_cst;
}
template <Scope S>
MORI_HOST_DEVICE constexpr cuda::thread_scope cudaScope() {
  return S == Scope::System ? cuda::thread_scope_system : cuda::thread_scope_device;
}
template <Scope S, typename T>
using Ref = cuda::atomic_ref<T, cudaScope<S>()>;
template <Order O>
MORI_HOST_DEVICE constexpr cuda::std::memory_order cudaFailOrder() {
  return O == Order::Release  ? cuda::std::memory_order_relaxed
         : O == Order::AcqRel ? cuda::std::memory_order_acquire
                              : cudaOrder<O>();
}
#endif
}  // namespace detail

#if MORI_PLATFORM_AMD
#define MORI_ATOMIC_RMW(NAME, BUILTIN)                                  \
  template <Order O, Scope S, typename T>                               \
  MORI_DEVICE_INLINE T NAME(T* p, T v) {                                \
    static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only"); \
    return BUILTIN(p, v, detail::hipOrder<O>(), detail::hipScope<S>()); \
  }
MORI_ATOMIC_RMW(atomicFetchAdd, __hip_atomic_fetch_add)
MORI_ATOMIC_RMW(atomicFetchAnd, __hip_atomic_fetch_and)
MORI_ATOMIC_RMW(atomicFetchOr, __hip_atomic_fetch_or)
MORI_ATOMIC_RMW(atomicFetchXor, __hip_atomic_fetch_xor)
MORI_ATOMIC_RMW(atomicFetchMax, __hip_atomic_fetch_max)
MORI_ATOMIC_RMW(atomicFetchMin, __hip_atomic_fetch_min)
MORI_ATOMIC_RMW(atomicExchange, __hip_atomic_exchange)
#undef MORI_ATOMIC_RMW

template <Order O, Scope S, typename T>
MORI_DEVICE_INLINE T atomicLoad(const T* p) {
  static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only");
  return __hip_atomic_load(p, detail::hipOrder<O>(), detail::hipScope<S>());
}
template <Order O, Scope S, typename T>
MORI_DEVICE_INLINE void atomicStore(T* p, T v) {
  static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only");
  __hip_atomic_store(p, v, detail::hipOrder<O>(), detail::hipScope<S>());
}
// Returns the value found at p; the swap happened iff it equals `expected`.
template <Order O, Scope S, typename T>
MORI_DEVICE_INLINE T atomicCompareExchange(T* p, T expected, T desired) {
  static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only");
  __hip_atomic_compare_exchange_strong(p, &expected, desired, detail::hipOrder<O>(), detail::hipFailOrder<O>(),
                                       detail::hipScope<S>());
  return expected;
}
// Relaxed add whose result is not needed: lets the compiler emit the no-return atomic.
template <Scope S, typename T>
MORI_DEVICE_INLINE void atomicAddNoReturn(T* p, T v) {
  (void)__hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, detail::hipScope<S>());
}
// clang-15 needs literal arguments for __builtin_amdgcn_fence (it crashes on a constexpr call).
#define MORI_AMD_FENCE(ORDER)               \
  if constexpr (S == Scope::System) {       \
    __builtin_amdgcn_fence(ORDER, "");      \
  } else {                                  \
    __builtin_amdgcn_fence(ORDER, "agent"); \
  }
template <Order O, Scope S>
MORI_DEVICE_INLINE void atomicFence() {
  static_assert(O != Order::Relaxed, "a relaxed fence orders nothing");
  if constexpr (O == Order::Acquire) {
    MORI_AMD_FENCE(__ATOMIC_ACQUIRE)
  } else if constexpr (O == Order::Release) {
    MORI_AMD_FENCE(__ATOMIC_RELEASE)
  } else if constexpr (O == Order::AcqRel) {
    MORI_AMD_FENCE(__ATOMIC_ACQ_REL)
  } else {
    MORI_AMD_FENCE(__ATOMIC_SEQ_CST)
  }
}
#undef MORI_AMD_FENCE
#else  // NVIDIA
#define MORI_ATOMIC_RMW(NAME, METHOD)                                   \
  template <Order O, Scope S, typename T>                               \
  MORI_DEVICE_INLINE T NAME(T* p, T v) {                                \
    static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only"); \
    return detail::Ref<S, T>(*p).METHOD(v, detail::cudaOrder<O>());     \
  }
MORI_ATOMIC_RMW(atomicFetchAdd, fetch_add)
MORI_ATOMIC_RMW(atomicFetchAnd, fetch_and)
MORI_ATOMIC_RMW(atomicFetchOr, fetch_or)
MORI_ATOMIC_RMW(atomicFetchXor, fetch_xor)
MORI_ATOMIC_RMW(atomicFetchMax, fetch_max)
MORI_ATOMIC_RMW(atomicFetchMin, fetch_min)
MORI_ATOMIC_RMW(atomicExchange, exchange)
#undef MORI_ATOMIC_RMW

template <Order O, Scope S, typename T>
MORI_DEVICE_INLINE T atomicLoad(const T* p) {
  static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only");
  return detail::Ref<S, T>(*const_cast<T*>(p)).load(detail::cudaOrder<O>());
}
template <Order O, Scope S, typename T>
MORI_DEVICE_INLINE void atomicStore(T* p, T v) {
  static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only");
  detail::Ref<S, T>(*p).store(v, detail::cudaOrder<O>());
}
template <Order O, Scope S, typename T>
MORI_DEVICE_INLINE T atomicCompareExchange(T* p, T expected, T desired) {
  static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only");
  detail::Ref<S, T>(*p).compare_exchange_strong(expected, desired, detail::cudaOrder<O>(), detail::cudaFailOrder<O>());
  return expected;
}
// Relaxed add whose result is not needed: `red`, which does not wait for the old value.
template <Scope S, typename T>
MORI_DEVICE_INLINE void atomicAddNoReturn(T* p, T v) {
  static_assert(detail::kAtomicSize<T>, "4- or 8-byte atomics only");
  if constexpr (sizeof(T) == 8) {
    if constexpr (S == Scope::System) {
      asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"((unsigned long long)v) : "memory");
    } else {
      asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"((unsigned long long)v) : "memory");
    }
  } else {
    if constexpr (S == Scope::System) {
      asm volatile("red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"((unsigned)v) : "memory");
    } else {
      asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"((unsigned)v) : "memory");
    }
  }
}
// A release fence is fence.release where PTX has it (ISA 8.6, CUDA 12.8, sm_90): libcu++ emits
// fence.acq_rel for it, whose acquire half invalidates L1 (CCTL.IVALL), so that every later load
// of the thread (the next put's source, a spilled loop counter, a table entry) goes to L2.
// clang compiling CUDA (the device library's bitcode for Triton) defines no __CUDACC_VER_*; its
// CUDA_VERSION is the toolkit's, whose ptxas the bitcode's JIT writes PTX for (its fence.acq_rel put a
// CCTL.IVALL in every Triton quiet: put + quiet 0.835 us against the C++ API's 0.636).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 &&                                            \
    ((__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8)) || \
     (defined(__clang__) && defined(__CUDA__) && !defined(__NVCC__) && CUDA_VERSION >= 12080))
#define MORI_PTX_RELEASE_FENCE 1
#else
#define MORI_PTX_RELEASE_FENCE 0
#endif
template <Order O, Scope S>
MORI_DEVICE_INLINE void atomicFence() {
  if constexpr (O == Order::Release && MORI_PTX_RELEASE_FENCE) {
    if constexpr (S == Scope::System)
      asm volatile("fence.release.sys;" ::: "memory");
    else
      asm volatile("fence.release.gpu;" ::: "memory");
  } else {
    cuda::atomic_thread_fence(detail::cudaOrder<O>(), detail::cudaScope<S>());
  }
}
#undef MORI_PTX_RELEASE_FENCE
#endif

// A load of data that no one changes while kernels run (runtime tables): through the read-only
// data path on NVIDIA, which acquires and full fences do not invalidate (after a signal wait
// every table lookup of the next operation would otherwise go to L2).
template <typename T>
MORI_DEVICE_INLINE T loadReadOnly(const T* p) {
#if MORI_PLATFORM_NVIDIA
  return __ldg(p);
#else
  return *p;
#endif
}

// The fence every "make my earlier stores visible to peers, the host and the NIC" needs.
MORI_DEVICE_INLINE void fenceSystem() { atomicFence<Order::SeqCst, Scope::System>(); }
// A system-scope release: this thread's earlier loads and stores are ordered before its later
// stores for every observer (what quiet, fence and put-with-signal promise: an acquirer that sees
// a later store sees the earlier ones). Unlike fenceSystem it keeps the thread's L1 valid.
MORI_DEVICE_INLINE void releaseSystem() { atomicFence<Order::Release, Scope::System>(); }
MORI_DEVICE_INLINE void fenceAgent() { atomicFence<Order::SeqCst, Scope::Agent>(); }
// A release for this GPU's own memory: this thread's earlier accesses to memory of this GPU are
// ordered before any access to it by a peer GPU or NIC that saw a later store of the thread.
// NVIDIA: GPU scope, since the L2 is where every requester's accesses to this GPU's memory meet
// (NVLink and PCIe peers included); AMD: system scope.
MORI_DEVICE_INLINE void releaseOwnMemory() {
#if MORI_PLATFORM_NVIDIA
  atomicFence<Order::Release, Scope::Agent>();
#else
  releaseSystem();
#endif
}

#endif  // MORI_GPU_COMPILER

}  // namespace mori::gpu
