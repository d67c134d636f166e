/*
 * mori-shmem device API: called from user HIP/CUDA kernels after mori_shmem_init().
 *
 * Every operation takes an optional trailing qpId (default 0): RDMA peers use queue pair
 * qpId % MORI_SHMEM_NUM_QP_PER_PE, P2P peers ignore it. Operations on different QPs to one PE
 * are independent channels; use quiet (or fence) to order across them.
 *
 * Scopes: `_thread` calls are made by any thread on its own; `_warp` calls by every lane of the
 * wave (32 on NVIDIA, 64 on CDNA) with identical arguments; `_block` calls by every thread of
 * the block with identical arguments. Scope-cooperative calls divide the work among the threads.
 *
 * Addresses: `dest` of puts, `source` of gets, the targets of atomics and signals, and wait
 * variables are symmetric: inside the symmetric heap (mori_shmem_malloc) or a region registered
 * with mori_shmem_register. The local side of a put/get may be any device memory for P2P
 * peers; for RDMA peers it must be symmetric/registered too (puts of up to the NIC's inline
 * limit excepted). Build with -DMORI_SHMEM_CHECKS=1 to trap on out-of-range PEs and objects
 * that overrun their region (costs nothing when off). An address in no region always traps.
 *
 * Completion: _nbi calls return once issued; the data is delivered after mori_shmem_quiet().
 * Blocking puts return when the source may be reused; blocking gets when the data arrived.
 * quiet and fence complete and order this PE's own operations (a system-scope release); they do
 * not make other PEs' writes visible: read what others put after a wait (wait_until, test,
 * signal_wait_until) or a barrier, which acquire.
 * Every device-side error stops the kernel with a message (also readable on the host through
 * mori_shmem_device_error()).
 *
 * Building: mori/shmem.h includes this header when a GPU compiler compiles the file. The device
 * API is relocatable device code: compile with -rdc=true (nvcc) / -fgpu-rdc (hipcc) and link the
 * device library, libmori_shmem_device.a; CMake's mori::shmem target does both
 * (docs/DEVICE_API_FOOTPRINT.md has the command lines without CMake).
 */

#ifndef MORI_SHMEM_DEVICE_H
#define MORI_SHMEM_DEVICE_H

#include "mori/platform/device.hpp"

#if !MORI_GPU_COMPILER
#error "mori/shmem_device.h is device code: compile with hipcc or nvcc (host code needs only mori/shmem.h)"
#endif

#include "mori/platform/gpu_runtime.hpp"  // the HIP runtime API (on NVIDIA, over CUDA)
#include "mori/platform/half.hpp"
#include "mori/shmem.h"
#include "mori/shmem/impl/device_library.hpp"
#include "mori/shmem/impl/operations.hpp"
#include "mori/shmem/impl/sync.hpp"
#if MORI_SHMEM_WITH_DEVICE_API  // else mori/shmem.h declared my_pe, n_pes, ptr and global_exit host-only
#include "mori/shmem/impl/global_exit.hpp"
#include "mori/shmem/impl/pe_queries.hpp"
#endif

#define MORI_SHMEM_DEVICE static __device__ __forceinline__
#define MORI_SHMEMI_NS ::mori::shmem::impl
#define MORI_SHMEMI_S MORI_SHMEMI_NS::states()

// Scope name -> scope type.
#define MORI_SHMEMI_SCOPES(X) X(thread, ThreadScope) X(warp, WarpScope) X(block, BlockScope)

/* ---- contiguous RMA, bytes ---------------------------------------------------------------
 * putmem_nbi_<scope>(dest, src, bytes, pe [, qpId]) / putmem_<scope>: copy bytes to pe's dest.
 * getmem_nbi_<scope>(dest, src, bytes, pe [, qpId]) / getmem_<scope>: copy pe's src to dest.
 * putmem_signal[_nbi]_<scope>(dest, src, bytes, sig_addr, signal, sig_op, pe [, qpId]): put,
 * then update pe's sig_addr (MORI_SHMEM_SIGNAL_SET/ADD) after the data is delivered. */
#define MORI_SHMEMI_RMA_BYTES(SC, S)                                                                                   \
  MORI_SHMEM_DEVICE void mori_shmem_putmem_nbi_##SC(void* dest, const void* src, size_t bytes, int pe, int qpId = 0) { \
    MORI_SHMEMI_NS::put<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, bytes, pe, qpId, false);                          \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_putmem_##SC(void* dest, const void* src, size_t bytes, int pe, int qpId = 0) {     \
    MORI_SHMEMI_NS::put<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, bytes, pe, qpId, true);                           \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_getmem_nbi_##SC(void* dest, const void* src, size_t bytes, int pe, int qpId = 0) { \
    MORI_SHMEMI_NS::get<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, bytes, pe, qpId, false);                          \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_getmem_##SC(void* dest, const void* src, size_t bytes, int pe, int qpId = 0) {     \
    MORI_SHMEMI_NS::get<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, bytes, pe, qpId, true);                           \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_putmem_signal_nbi_##SC(void* dest, const void* src, size_t bytes,                  \
                                                           uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,    \
                                                           int qpId = 0) {                                             \
    MORI_SHMEMI_NS::putSignal<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, bytes, sig_addr, signal,                    \
                                                 static_cast<MORI_SHMEMI_NS::SignalOp>(sig_op), pe, qpId, false);      \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_putmem_signal_##SC(void* dest, const void* src, size_t bytes, uint64_t* sig_addr,  \
                                                       uint64_t signal, int sig_op, int pe, int qpId = 0) {            \
    MORI_SHMEMI_NS::putSignal<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, bytes, sig_addr, signal,                    \
                                                 static_cast<MORI_SHMEMI_NS::SignalOp>(sig_op), pe, qpId, true);       \
  }
MORI_SHMEMI_SCOPES(MORI_SHMEMI_RMA_BYTES)
#undef MORI_SHMEMI_RMA_BYTES

/* ---- typed RMA ----------------------------------------------------------------------------
 * <type>_put[_nbi]_<scope>(dest, src, nelems, pe [, qpId]), <type>_get[_nbi]_<scope>(...),
 * <type>_put_signal[_nbi]_<scope>(dest, src, nelems, sig_addr, signal, sig_op, pe [, qpId]),
 * <type>_iput_<scope>(dest, src, dst, sst, nelems, pe [, qpId]) and <type>_iget_<scope>(...):
 * strided, element i at src[i * sst] and dest[i * dst] (strides in elements), blocking, one
 * single-element operation per element (mori/shmem/impl/operations.hpp: strided),
 * <type>_p(dest, value, pe [, qpId]) (inline small-value put), <type>_g(src, pe [, qpId]).
 * The types: MORI_SHMEM_RMA_TYPES (mori/shmem.h) and MORI_SHMEM_RMA_HALF_TYPES.
 * iput128_<scope> / iget128_<scope>(dest, src, dst, sst, nelems, pe [, qpId]): strided elements
 * of 16 bytes (8-byte aligned), strides in 16-byte elements (impl: strided128). */
#define MORI_SHMEMI_RMA_TYPED_SCOPE(NAME, T, SC, S)                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_put_nbi_##SC(T* dest, const T* src, size_t nelems, int pe,                \
                                                          int qpId = 0) {                                              \
    MORI_SHMEMI_NS::put<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, nelems * sizeof(T), pe, qpId, false);             \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_put_##SC(T* dest, const T* src, size_t nelems, int pe, int qpId = 0) {    \
    MORI_SHMEMI_NS::put<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, nelems * sizeof(T), pe, qpId, true);              \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_get_nbi_##SC(T* dest, const T* src, size_t nelems, int pe,                \
                                                          int qpId = 0) {                                              \
    MORI_SHMEMI_NS::get<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, nelems * sizeof(T), pe, qpId, false);             \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_get_##SC(T* dest, const T* src, size_t nelems, int pe, int qpId = 0) {    \
    MORI_SHMEMI_NS::get<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, nelems * sizeof(T), pe, qpId, true);              \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_put_signal_nbi_##SC(                                                      \
      T* dest, const T* src, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, int qpId = 0) {   \
    MORI_SHMEMI_NS::putSignal<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, nelems * sizeof(T), sig_addr, signal,       \
                                                 static_cast<MORI_SHMEMI_NS::SignalOp>(sig_op), pe, qpId, false);      \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_put_signal_##SC(T* dest, const T* src, size_t nelems, uint64_t* sig_addr, \
                                                             uint64_t signal, int sig_op, int pe, int qpId = 0) {      \
    MORI_SHMEMI_NS::putSignal<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S, dest, src, nelems * sizeof(T), sig_addr, signal,       \
                                                 static_cast<MORI_SHMEMI_NS::SignalOp>(sig_op), pe, qpId, true);       \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_iput_##SC(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst,            \
                                                       size_t nelems, int pe, int qpId = 0) {                          \
    MORI_SHMEMI_NS::strided<MORI_SHMEMI_NS::S, true>(MORI_SHMEMI_S, dest, src, dst, sst, nelems, pe, qpId);            \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_iget_##SC(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst,            \
                                                       size_t nelems, int pe, int qpId = 0) {                          \
    MORI_SHMEMI_NS::strided<MORI_SHMEMI_NS::S, false>(MORI_SHMEMI_S, dest, src, dst, sst, nelems, pe, qpId);           \
  }
#define MORI_SHMEMI_RMA_TYPED(NAME, T)                                                   \
  MORI_SHMEMI_RMA_TYPED_SCOPE(NAME, T, thread, ThreadScope)                              \
  MORI_SHMEMI_RMA_TYPED_SCOPE(NAME, T, warp, WarpScope)                                  \
  MORI_SHMEMI_RMA_TYPED_SCOPE(NAME, T, block, BlockScope)                                \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_p(T* dest, T value, int pe, int qpId = 0) { \
    MORI_SHMEMI_NS::p<T>(MORI_SHMEMI_S, dest, value, pe, qpId);                          \
  }                                                                                      \
  MORI_SHMEM_DEVICE T mori_shmem_##NAME##_g(const T* src, int pe, int qpId = 0) {        \
    return MORI_SHMEMI_NS::g<T>(MORI_SHMEMI_S, src, pe, qpId);                           \
  }
MORI_SHMEM_RMA_TYPES(MORI_SHMEMI_RMA_TYPED)
MORI_SHMEM_RMA_HALF_TYPES(MORI_SHMEMI_RMA_TYPED)
#undef MORI_SHMEMI_RMA_TYPED
#define MORI_SHMEMI_STRIDED128(SC, S)                                                                           \
  MORI_SHMEM_DEVICE void mori_shmem_iput128_##SC(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,     \
                                                 size_t nelems, int pe, int qpId = 0) {                         \
    MORI_SHMEMI_NS::strided128<MORI_SHMEMI_NS::S, true>(MORI_SHMEMI_S, dest, src, dst, sst, nelems, pe, qpId);  \
  }                                                                                                             \
  MORI_SHMEM_DEVICE void mori_shmem_iget128_##SC(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,     \
                                                 size_t nelems, int pe, int qpId = 0) {                         \
    MORI_SHMEMI_NS::strided128<MORI_SHMEMI_NS::S, false>(MORI_SHMEMI_S, dest, src, dst, sst, nelems, pe, qpId); \
  }
MORI_SHMEMI_SCOPES(MORI_SHMEMI_STRIDED128)
#undef MORI_SHMEMI_STRIDED128
#undef MORI_SHMEMI_RMA_TYPED_SCOPE

/* ---- signals ---------------------------------------------------------------------------- */
// Atomically updates pe's sig_addr (SET or ADD). Like OpenSHMEM's shmem_signal_op it is not
// ordered after earlier puts: use putmem_signal, or call mori_shmem_fence() first.
MORI_SHMEM_DEVICE void mori_shmem_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, int qpId = 0) {
  MORI_SHMEMI_NS::signalOp(MORI_SHMEMI_S, sig_addr, signal, static_cast<MORI_SHMEMI_NS::SignalOp>(sig_op), pe, qpId,
                           false);
}
// Current value of the local signal word.
MORI_SHMEM_DEVICE uint64_t mori_shmem_signal_fetch(const uint64_t* sig_addr) {
  (void)MORI_SHMEMI_S;
  return MORI_SHMEMI_NS::loadAcquire(sig_addr);
}
// Waits until the local signal word satisfies cmp against cmp_value; returns its value.
MORI_SHMEM_DEVICE uint64_t mori_shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  return MORI_SHMEMI_NS::waitUntil<uint64_t>(MORI_SHMEMI_S, sig_addr, static_cast<MORI_SHMEMI_NS::Cmp>(cmp), cmp_value);
}

/* ---- atomics (32- and 64-bit) -------------------------------------------------------------
 * <type>_atomic_fetch(source, pe), _set(dest, value, pe), _swap(dest, value, pe),
 * _compare_swap(dest, cond, value, pe), _fetch_add/_add(dest, value, pe), _fetch_inc/_inc(dest,
 * pe), _fetch_and/_and, _fetch_or/_or, _fetch_xor/_xor(dest, value, pe); each [, qpId].
 * Fetching forms return the value before the operation. Atomic against other mori-shmem atomics
 * on the same object. */
/* The types: MORI_SHMEM_AMO_TYPES (mori/shmem.h). */
#define MORI_SHMEMI_AMO_OP(NAME, T, OPNAME, OP)                                                                      \
  MORI_SHMEM_DEVICE T mori_shmem_##NAME##_atomic_fetch_##OPNAME(T* dest, T value, int pe, int qpId = 0) {            \
    return MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::OP, dest, value, static_cast<T>(0), pe, qpId,  \
                                  true);                                                                             \
  }                                                                                                                  \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_atomic_##OPNAME(T* dest, T value, int pe, int qpId = 0) {               \
    MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::OP, dest, value, static_cast<T>(0), pe, qpId, false); \
  }
#define MORI_SHMEMI_AMO(NAME, T)                                                                                       \
  MORI_SHMEMI_AMO_OP(NAME, T, add, Add)                                                                                \
  MORI_SHMEMI_AMO_OP(NAME, T, and, And)                                                                                \
  MORI_SHMEMI_AMO_OP(NAME, T, or, Or)                                                                                  \
  MORI_SHMEMI_AMO_OP(NAME, T, xor, Xor)                                                                                \
  MORI_SHMEM_DEVICE T mori_shmem_##NAME##_atomic_fetch(const T* source, int pe, int qpId = 0) {                        \
    return MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::Fetch, const_cast<T*>(source),                   \
                                  static_cast<T>(0), static_cast<T>(0), pe, qpId, true);                               \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_atomic_set(T* dest, T value, int pe, int qpId = 0) {                      \
    MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::Set, dest, value, static_cast<T>(0), pe, qpId, false);  \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE T mori_shmem_##NAME##_atomic_swap(T* dest, T value, int pe, int qpId = 0) {                        \
    return MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::Swap, dest, value, static_cast<T>(0), pe, qpId,  \
                                  true);                                                                               \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE T mori_shmem_##NAME##_atomic_compare_swap(T* dest, T cond, T value, int pe, int qpId = 0) {        \
    return MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::CompareSwap, dest, value, cond, pe, qpId, true); \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE T mori_shmem_##NAME##_atomic_fetch_inc(T* dest, int pe, int qpId = 0) {                            \
    return MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::Add, dest, static_cast<T>(1), static_cast<T>(0), \
                                  pe, qpId, true);                                                                     \
  }                                                                                                                    \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_atomic_inc(T* dest, int pe, int qpId = 0) {                               \
    MORI_SHMEMI_NS::amo<T>(MORI_SHMEMI_S, MORI_SHMEMI_NS::Amo::Add, dest, static_cast<T>(1), static_cast<T>(0), pe,    \
                           qpId, false);                                                                               \
  }
MORI_SHMEM_AMO_TYPES(MORI_SHMEMI_AMO)
#undef MORI_SHMEMI_AMO
#undef MORI_SHMEMI_AMO_OP

/* ---- point-to-point synchronisation on local symmetric variables --------------------------
 * <type>_wait_until(ivar, cmp, value); _wait_until_all(ivars, n, status, cmp, value);
 * _wait_until_any(...) -> index; _wait_until_some(ivars, n, indices, status, cmp, value) -> count;
 * _test(ivar, cmp, value) -> 0/1; _test_all -> 0/1; _test_any -> index or n; _test_some(ivars, n,
 * indices, status, cmp, value) -> count (indices of the satisfied entries; never waits). The
 * _vector forms of wait_until_all / _any / _some and test_all / _any / _some compare entry i with
 * cmp_values[i]. status (may be NULL): entries with a non-zero status are skipped. cmp:
 * MORI_SHMEM_CMP_*. */
/* The types: MORI_SHMEM_SYNC_TYPES (mori/shmem.h: the atomics' and 16-bit integers). */

#define MORI_SHMEMI_CMP(c) static_cast<MORI_SHMEMI_NS::Cmp>(c)
#define MORI_SHMEMI_SYNC_VECTOR(NAME, T)                                                                            \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_wait_until_all_vector(T* ivars, size_t nelems, const int* status,      \
                                                                   int cmp, T* cmp_values) {                        \
    MORI_SHMEMI_NS::waitUntilAll<T>(MORI_SHMEMI_S, ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_values);        \
  }                                                                                                                 \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_wait_until_any_vector(T* ivars, size_t nelems, const int* status,    \
                                                                     int cmp, T* cmp_values) {                      \
    return MORI_SHMEMI_NS::waitUntilAny<T>(MORI_SHMEMI_S, ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_values); \
  }                                                                                                                 \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices,     \
                                                                      const int* status, int cmp, T* cmp_values) {  \
    return MORI_SHMEMI_NS::waitUntilSome<T>(MORI_SHMEMI_S, ivars, nelems, indices, status, MORI_SHMEMI_CMP(cmp),    \
                                            cmp_values);                                                            \
  }                                                                                                                 \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp,    \
                                                            T* cmp_values) {                                        \
    (void)MORI_SHMEMI_S;                                                                                            \
    return MORI_SHMEMI_NS::testAll<T>(ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_values) ? 1 : 0;             \
  }                                                                                                                 \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, \
                                                               T* cmp_values) {                                     \
    (void)MORI_SHMEMI_S;                                                                                            \
    return MORI_SHMEMI_NS::testAny<T>(ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_values);                     \
  }                                                                                                                 \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_test_some_vector(T* ivars, size_t nelems, size_t* indices,           \
                                                                const int* status, int cmp, T* cmp_values) {        \
    (void)MORI_SHMEMI_S;                                                                                            \
    return MORI_SHMEMI_NS::testSome<T>(ivars, nelems, indices, status, MORI_SHMEMI_CMP(cmp), cmp_values);           \
  }
#define MORI_SHMEMI_SYNC(NAME, T)                                                                                     \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value) {                              \
    MORI_SHMEMI_NS::waitUntil<T>(MORI_SHMEMI_S, ivar, MORI_SHMEMI_CMP(cmp), cmp_value);                               \
  }                                                                                                                   \
  MORI_SHMEM_DEVICE void mori_shmem_##NAME##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp,      \
                                                            T cmp_value) {                                            \
    MORI_SHMEMI_NS::waitUntilAll<T>(MORI_SHMEMI_S, ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_value);           \
  }                                                                                                                   \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp,    \
                                                              T cmp_value) {                                          \
    return MORI_SHMEMI_NS::waitUntilAny<T>(MORI_SHMEMI_S, ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_value);    \
  }                                                                                                                   \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_wait_until_some(T* ivars, size_t nelems, size_t* indices,              \
                                                               const int* status, int cmp, T cmp_value) {             \
    return MORI_SHMEMI_NS::waitUntilSome<T>(MORI_SHMEMI_S, ivars, nelems, indices, status, MORI_SHMEMI_CMP(cmp),      \
                                            cmp_value);                                                               \
  }                                                                                                                   \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_test(T* ivar, int cmp, T cmp_value) {                                     \
    (void)MORI_SHMEMI_S;                                                                                              \
    return MORI_SHMEMI_NS::compare(MORI_SHMEMI_NS::loadAcquire(ivar), MORI_SHMEMI_CMP(cmp), cmp_value) ? 1 : 0;       \
  }                                                                                                                   \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_test_all(T* ivars, size_t nelems, const int* status, int cmp,             \
                                                     T cmp_value) {                                                   \
    (void)MORI_SHMEMI_S;                                                                                              \
    return MORI_SHMEMI_NS::testAll<T>(ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_value) ? 1 : 0;                \
  }                                                                                                                   \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_test_any(T* ivars, size_t nelems, const int* status, int cmp,          \
                                                        T cmp_value) {                                                \
    (void)MORI_SHMEMI_S;                                                                                              \
    return MORI_SHMEMI_NS::testAny<T>(ivars, nelems, status, MORI_SHMEMI_CMP(cmp), cmp_value);                        \
  }                                                                                                                   \
  MORI_SHMEM_DEVICE size_t mori_shmem_##NAME##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, \
                                                         int cmp, T cmp_value) {                                      \
    (void)MORI_SHMEMI_S;                                                                                              \
    return MORI_SHMEMI_NS::testSome<T>(ivars, nelems, indices, status, MORI_SHMEMI_CMP(cmp), cmp_value);              \
  }                                                                                                                   \
  MORI_SHMEMI_SYNC_VECTOR(NAME, T)
MORI_SHMEM_SYNC_TYPES(MORI_SHMEMI_SYNC)
#undef MORI_SHMEMI_SYNC
#undef MORI_SHMEMI_SYNC_VECTOR

/* ---- ordering and collectives ------------------------------------------------------------ */
// Completes every operation this thread's PE issued (data delivered, sources reusable).
MORI_SHMEM_DEVICE void mori_shmem_quiet() { MORI_SHMEMI_NS::quiet<MORI_SHMEMI_NS::ThreadScope>(MORI_SHMEMI_S); }
// Completes operations to pe (all its QPs) / to pe on qpId.
MORI_SHMEM_DEVICE void mori_shmem_quiet(int pe) { MORI_SHMEMI_NS::quietPe(MORI_SHMEMI_S, pe, -1); }
MORI_SHMEM_DEVICE void mori_shmem_quiet(int pe, int qpId) {
  MORI_SHMEMI_NS::quietPe(MORI_SHMEMI_S, pe, qpId < 0 ? 0 : qpId);
}
// Block-cooperative quiet: the endpoints are divided among the block's threads.
MORI_SHMEM_DEVICE void mori_shmem_quiet_block() { MORI_SHMEMI_NS::quiet<MORI_SHMEMI_NS::BlockScope>(MORI_SHMEMI_S); }
// Orders earlier puts/AMOs/signals to each PE before later ones (no completion implied).
MORI_SHMEM_DEVICE void mori_shmem_fence() { MORI_SHMEMI_NS::fence(MORI_SHMEMI_S); }

// barrier_all: quiet, then wait until every PE arrived. sync_all: the arrival part only.
// One caller per PE at a time: one thread (_thread), one wave (_warp) or one block (_block).
#define MORI_SHMEMI_COLL(SC, S)                                   \
  MORI_SHMEM_DEVICE void mori_shmem_barrier_all_##SC() {          \
    MORI_SHMEMI_NS::barrierAll<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S); \
  }                                                               \
  MORI_SHMEM_DEVICE void mori_shmem_sync_all_##SC() { MORI_SHMEMI_NS::syncAll<MORI_SHMEMI_NS::S>(MORI_SHMEMI_S); }
MORI_SHMEMI_COLL(thread, ThreadScope)
MORI_SHMEMI_COLL(warp, WarpScope)
MORI_SHMEMI_COLL(block, BlockScope)
#undef MORI_SHMEMI_COLL

#include "mori/shmem/team/device_api.hpp"

#endif /* MORI_SHMEM_DEVICE_H */
