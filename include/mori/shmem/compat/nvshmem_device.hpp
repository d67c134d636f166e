// The GPU-compiler half of mori/nvshmem.h: NVSHMEM's device names (thread scope unsuffixed,
// nvshmemx_*_warp / _block), and the names NVSHMEM shares between host and device, as
// host-and-device functions that call the host API or the device API depending on the pass.
// Every body is one mori-shmem call.
#pragma once

#define MORI_NVSHMEMI_DEV static __device__ __forceinline__
// Host-and-device names: MORI_NVSHMEMI_HOSTDEV and the pass's call (MORI_NVSHMEMI_DUAL,
// MORI_NVSHMEMI_HOST_OR_DEVICE) from mori/nvshmem.h.

/* ---- RMA, bytes (nvshmem_putmem / getmem [_nbi]: host-and-device, in mori/nvshmem.h) ---------- */
#define nvshmem_putmem_signal mori_shmem_putmem_signal_thread
#define nvshmem_putmem_signal_nbi mori_shmem_putmem_signal_nbi_thread
#define nvshmemx_putmem_warp mori_shmem_putmem_warp
#define nvshmemx_putmem_block mori_shmem_putmem_block
#define nvshmemx_putmem_nbi_warp mori_shmem_putmem_nbi_warp
#define nvshmemx_putmem_nbi_block mori_shmem_putmem_nbi_block
#define nvshmemx_getmem_warp mori_shmem_getmem_warp
#define nvshmemx_getmem_block mori_shmem_getmem_block
#define nvshmemx_getmem_nbi_warp mori_shmem_getmem_nbi_warp
#define nvshmemx_getmem_nbi_block mori_shmem_getmem_nbi_block
#define nvshmemx_putmem_signal_warp mori_shmem_putmem_signal_warp
#define nvshmemx_putmem_signal_block mori_shmem_putmem_signal_block
#define nvshmemx_putmem_signal_nbi_warp mori_shmem_putmem_signal_nbi_warp
#define nvshmemx_putmem_signal_nbi_block mori_shmem_putmem_signal_nbi_block

/* ---- signals, ordering, world synchronisation (signal_op, signal_fetch: mori/nvshmem.h) ----- */
#define nvshmem_signal_wait_until mori_shmem_signal_wait_until
#define nvshmemx_barrier_all_warp mori_shmem_barrier_all_warp
#define nvshmemx_barrier_all_block mori_shmem_barrier_all_block
#define nvshmemx_sync_all_warp mori_shmem_sync_all_warp
#define nvshmemx_sync_all_block mori_shmem_sync_all_block
MORI_NVSHMEMI_HOSTDEV void nvshmem_barrier_all() {
  MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_barrier_all(), mori_shmem_barrier_all_thread());
}
MORI_NVSHMEMI_HOSTDEV void nvshmem_sync_all() {
  MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_team_sync(MORI_SHMEM_TEAM_WORLD), mori_shmem_sync_all_thread());
}

/* ---- typed RMA ------------------------------------------------------------------------------- */
// NVSHMEM spells them nvshmem_<T>_put (thread) and nvshmemx_<T>_put_warp / _block. The thread
// forms of put / get [_nbi] and iput / iget are host-and-device (mori/nvshmem.h).
#define MORI_NVSHMEMI_RMA_CONTIG_SCOPE(PREFIX, NAME, T, SUFFIX, SC)                           \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_put##SUFFIX(T* d, const T* s, size_t n, int pe) {     \
    mori_shmem_##NAME##_put_##SC(d, s, n, pe);                                                \
  }                                                                                           \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_put_nbi##SUFFIX(T* d, const T* s, size_t n, int pe) { \
    mori_shmem_##NAME##_put_nbi_##SC(d, s, n, pe);                                            \
  }                                                                                           \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_get##SUFFIX(T* d, const T* s, size_t n, int pe) {     \
    mori_shmem_##NAME##_get_##SC(d, s, n, pe);                                                \
  }                                                                                           \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_get_nbi##SUFFIX(T* d, const T* s, size_t n, int pe) { \
    mori_shmem_##NAME##_get_nbi_##SC(d, s, n, pe);                                            \
  }
#define MORI_NVSHMEMI_RMA_SCOPE(PREFIX, NAME, T, SUFFIX, SC)                                                          \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_put_signal##SUFFIX(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v,     \
                                                           int op, int pe) {                                          \
    mori_shmem_##NAME##_put_signal_##SC(d, s, n, sig, v, op, pe);                                                     \
  }                                                                                                                   \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_put_signal_nbi##SUFFIX(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, \
                                                               int op, int pe) {                                      \
    mori_shmem_##NAME##_put_signal_nbi_##SC(d, s, n, sig, v, op, pe);                                                 \
  }
#define MORI_NVSHMEMI_STRIDED_TYPED_SCOPE(PREFIX, NAME, T, SUFFIX, SC)                                         \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_iput##SUFFIX(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                                     int pe) {                                                 \
    mori_shmem_##NAME##_iput_##SC(d, s, dst, sst, n, pe);                                                      \
  }                                                                                                            \
  MORI_NVSHMEMI_DEV void PREFIX##NAME##_iget##SUFFIX(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                                     int pe) {                                                 \
    mori_shmem_##NAME##_iget_##SC(d, s, dst, sst, n, pe);                                                      \
  }
#define MORI_NVSHMEMI_RMA(NAME, T)                                   \
  MORI_NVSHMEMI_RMA_SCOPE(nvshmem_, NAME, T, , thread)               \
  MORI_NVSHMEMI_RMA_SCOPE(nvshmemx_, NAME, T, _warp, warp)           \
  MORI_NVSHMEMI_RMA_SCOPE(nvshmemx_, NAME, T, _block, block)         \
  MORI_NVSHMEMI_RMA_CONTIG_SCOPE(nvshmemx_, NAME, T, _warp, warp)    \
  MORI_NVSHMEMI_RMA_CONTIG_SCOPE(nvshmemx_, NAME, T, _block, block)  \
  MORI_NVSHMEMI_STRIDED_TYPED_SCOPE(nvshmemx_, NAME, T, _warp, warp) \
  MORI_NVSHMEMI_STRIDED_TYPED_SCOPE(nvshmemx_, NAME, T, _block, block)
MORI_SHMEM_RMA_TYPES(MORI_NVSHMEMI_RMA)
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_RMA)
#undef MORI_NVSHMEMI_RMA
#undef MORI_NVSHMEMI_STRIDED_TYPED_SCOPE
#undef MORI_NVSHMEMI_RMA_SCOPE
#undef MORI_NVSHMEMI_RMA_CONTIG_SCOPE

// Sized forms: nvshmem_put<BITS>[_nbi], _get<BITS>[_nbi], _put<BITS>_signal[_nbi] (nelems of
// BITS / 8 bytes; 128 too), nvshmemx_iput<BITS> / _iget<BITS>_warp / _block (8-128) (the thread
// forms of put / get [_nbi], iput / iget: mori/nvshmem.h).
#define MORI_NVSHMEMI_SIZED_CONTIG_SCOPE(PREFIX, BITS, SUFFIX, SC)                                   \
  MORI_NVSHMEMI_DEV void PREFIX##put##BITS##SUFFIX(void* d, const void* s, size_t n, int pe) {       \
    mori_shmem_putmem_##SC(d, s, (BITS) / 8 * n, pe);                                                \
  }                                                                                                  \
  MORI_NVSHMEMI_DEV void PREFIX##put##BITS##_nbi##SUFFIX(void* d, const void* s, size_t n, int pe) { \
    mori_shmem_putmem_nbi_##SC(d, s, (BITS) / 8 * n, pe);                                            \
  }                                                                                                  \
  MORI_NVSHMEMI_DEV void PREFIX##get##BITS##SUFFIX(void* d, const void* s, size_t n, int pe) {       \
    mori_shmem_getmem_##SC(d, s, (BITS) / 8 * n, pe);                                                \
  }                                                                                                  \
  MORI_NVSHMEMI_DEV void PREFIX##get##BITS##_nbi##SUFFIX(void* d, const void* s, size_t n, int pe) { \
    mori_shmem_getmem_nbi_##SC(d, s, (BITS) / 8 * n, pe);                                            \
  }
#define MORI_NVSHMEMI_SIZED_SCOPE(PREFIX, BITS, SUFFIX, SC)                                                      \
  MORI_NVSHMEMI_DEV void PREFIX##put##BITS##_signal##SUFFIX(void* d, const void* s, size_t n, uint64_t* sig,     \
                                                            uint64_t v, int op, int pe) {                        \
    mori_shmem_putmem_signal_##SC(d, s, (BITS) / 8 * n, sig, v, op, pe);                                         \
  }                                                                                                              \
  MORI_NVSHMEMI_DEV void PREFIX##put##BITS##_signal_nbi##SUFFIX(void* d, const void* s, size_t n, uint64_t* sig, \
                                                                uint64_t v, int op, int pe) {                    \
    mori_shmem_putmem_signal_nbi_##SC(d, s, (BITS) / 8 * n, sig, v, op, pe);                                     \
  }
#define MORI_NVSHMEMI_STRIDED_SCOPE(PREFIX, BITS, SUFFIX, SC)                                                        \
  MORI_NVSHMEMI_DEV void PREFIX##iput##BITS##SUFFIX(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n,  \
                                                    int pe) {                                                        \
    mori_shmem_int##BITS##_iput_##SC(static_cast<int##BITS##_t*>(d), static_cast<const int##BITS##_t*>(s), dst, sst, \
                                     n, pe);                                                                         \
  }                                                                                                                  \
  MORI_NVSHMEMI_DEV void PREFIX##iget##BITS##SUFFIX(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n,  \
                                                    int pe) {                                                        \
    mori_shmem_int##BITS##_iget_##SC(static_cast<int##BITS##_t*>(d), static_cast<const int##BITS##_t*>(s), dst, sst, \
                                     n, pe);                                                                         \
  }
#define MORI_NVSHMEMI_SCOPES_OF(M, BITS) \
  M(nvshmem_, BITS, , thread)            \
  M(nvshmemx_, BITS, _warp, warp)        \
  M(nvshmemx_, BITS, _block, block)
#define MORI_NVSHMEMI_SIZED(BITS)                                \
  MORI_NVSHMEMI_SCOPES_OF(MORI_NVSHMEMI_SIZED_SCOPE, BITS)       \
  MORI_NVSHMEMI_SIZED_CONTIG_SCOPE(nvshmemx_, BITS, _warp, warp) \
  MORI_NVSHMEMI_SIZED_CONTIG_SCOPE(nvshmemx_, BITS, _block, block)
#define MORI_NVSHMEMI_STRIDED(BITS)                         \
  MORI_NVSHMEMI_STRIDED_SCOPE(nvshmemx_, BITS, _warp, warp) \
  MORI_NVSHMEMI_STRIDED_SCOPE(nvshmemx_, BITS, _block, block)
MORI_NVSHMEMI_SIZED(8)
MORI_NVSHMEMI_SIZED(16)
MORI_NVSHMEMI_SIZED(32)
MORI_NVSHMEMI_SIZED(64)
MORI_NVSHMEMI_SIZED(128)
MORI_NVSHMEMI_STRIDED(8)
MORI_NVSHMEMI_STRIDED(16)
MORI_NVSHMEMI_STRIDED(32)
MORI_NVSHMEMI_STRIDED(64)
#define MORI_NVSHMEMI_STRIDED128_SCOPE(SUFFIX, SC)                                                                \
  MORI_NVSHMEMI_DEV void nvshmemx_iput128##SUFFIX(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                                  int pe) {                                                       \
    mori_shmem_iput128_##SC(d, s, dst, sst, n, pe);                                                               \
  }                                                                                                               \
  MORI_NVSHMEMI_DEV void nvshmemx_iget128##SUFFIX(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                                  int pe) {                                                       \
    mori_shmem_iget128_##SC(d, s, dst, sst, n, pe);                                                               \
  }
MORI_NVSHMEMI_STRIDED128_SCOPE(_warp, warp)
MORI_NVSHMEMI_STRIDED128_SCOPE(_block, block)
#undef MORI_NVSHMEMI_STRIDED128_SCOPE
#undef MORI_NVSHMEMI_STRIDED
#undef MORI_NVSHMEMI_SIZED
#undef MORI_NVSHMEMI_SCOPES_OF
#undef MORI_NVSHMEMI_STRIDED_SCOPE
#undef MORI_NVSHMEMI_SIZED_SCOPE
#undef MORI_NVSHMEMI_SIZED_CONTIG_SCOPE

/* ---- atomics: host-and-device, in mori/nvshmem.h ------------------------------------------ */

/* ---- point-to-point synchronisation ------------------------------------------------------------ */
#define MORI_NVSHMEMI_SYNC(NAME, T)                                                                                    \
  MORI_NVSHMEMI_DEV void nvshmem_##NAME##_wait_until(T* ivar, int cmp, T v) {                                          \
    mori_shmem_##NAME##_wait_until(ivar, cmp, v);                                                                      \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV void nvshmem_##NAME##_wait_until_all(T* ivars, size_t n, const int* status, int cmp, T v) {        \
    mori_shmem_##NAME##_wait_until_all(ivars, n, status, cmp, v);                                                      \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_wait_until_any(T* ivars, size_t n, const int* status, int cmp, T v) {      \
    return mori_shmem_##NAME##_wait_until_any(ivars, n, status, cmp, v);                                               \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_wait_until_some(T* ivars, size_t n, size_t* idx, const int* status,        \
                                                            int cmp, T v) {                                            \
    return mori_shmem_##NAME##_wait_until_some(ivars, n, idx, status, cmp, v);                                         \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV int nvshmem_##NAME##_test(T* ivar, int cmp, T v) {                                                 \
    return mori_shmem_##NAME##_test(ivar, cmp, v);                                                                     \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV int nvshmem_##NAME##_test_all(T* ivars, size_t n, const int* status, int cmp, T v) {               \
    return mori_shmem_##NAME##_test_all(ivars, n, status, cmp, v);                                                     \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_test_any(T* ivars, size_t n, const int* status, int cmp, T v) {            \
    return mori_shmem_##NAME##_test_any(ivars, n, status, cmp, v);                                                     \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_test_some(T* ivars, size_t n, size_t* idx, const int* status, int cmp,     \
                                                      T v) {                                                           \
    return mori_shmem_##NAME##_test_some(ivars, n, idx, status, cmp, v);                                               \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV void nvshmem_##NAME##_wait_until_all_vector(T* ivars, size_t n, const int* status, int cmp,        \
                                                                T* vs) {                                               \
    mori_shmem_##NAME##_wait_until_all_vector(ivars, n, status, cmp, vs);                                              \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_wait_until_any_vector(T* ivars, size_t n, const int* status, int cmp,      \
                                                                  T* vs) {                                             \
    return mori_shmem_##NAME##_wait_until_any_vector(ivars, n, status, cmp, vs);                                       \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_wait_until_some_vector(T* ivars, size_t n, size_t* idx, const int* status, \
                                                                   int cmp, T* vs) {                                   \
    return mori_shmem_##NAME##_wait_until_some_vector(ivars, n, idx, status, cmp, vs);                                 \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV int nvshmem_##NAME##_test_all_vector(T* ivars, size_t n, const int* status, int cmp, T* vs) {      \
    return mori_shmem_##NAME##_test_all_vector(ivars, n, status, cmp, vs);                                             \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_test_any_vector(T* ivars, size_t n, const int* status, int cmp, T* vs) {   \
    return mori_shmem_##NAME##_test_any_vector(ivars, n, status, cmp, vs);                                             \
  }                                                                                                                    \
  MORI_NVSHMEMI_DEV size_t nvshmem_##NAME##_test_some_vector(T* ivars, size_t n, size_t* idx, const int* status,       \
                                                             int cmp, T* vs) {                                         \
    return mori_shmem_##NAME##_test_some_vector(ivars, n, idx, status, cmp, vs);                                       \
  }
MORI_SHMEM_SYNC_TYPES(MORI_NVSHMEMI_SYNC)
#undef MORI_NVSHMEMI_SYNC

/* ---- team collectives ---------------------------------------------------------------------------- */
#define nvshmemx_barrier_warp mori_shmem_barrier_warp
#define nvshmemx_barrier_block mori_shmem_barrier_block
#define nvshmemx_team_sync_warp mori_shmem_team_sync_warp
#define nvshmemx_team_sync_block mori_shmem_team_sync_block
MORI_NVSHMEMI_HOSTDEV int nvshmem_barrier(nvshmem_team_t team) {
  MORI_NVSHMEMI_DUAL(mori_shmem_barrier(team), mori_shmem_barrier_thread(team));
}
MORI_NVSHMEMI_HOSTDEV int nvshmem_team_sync(nvshmem_team_t team) {
  MORI_NVSHMEMI_DUAL(mori_shmem_team_sync(team), mori_shmem_team_sync_thread(team));
}

// Bytes: nvshmem_broadcastmem / fcollectmem / alltoallmem (host and device), nvshmemx_*mem_warp / _block.
MORI_NVSHMEMI_HOSTDEV int nvshmem_broadcastmem(nvshmem_team_t team, void* d, const void* s, size_t n, int root) {
  MORI_NVSHMEMI_DUAL(mori_shmem_broadcastmem(team, d, s, n, root), mori_shmem_broadcastmem_thread(team, d, s, n, root));
}
MORI_NVSHMEMI_HOSTDEV int nvshmem_fcollectmem(nvshmem_team_t team, void* d, const void* s, size_t n) {
  MORI_NVSHMEMI_DUAL(mori_shmem_fcollectmem(team, d, s, n), mori_shmem_fcollectmem_thread(team, d, s, n));
}
MORI_NVSHMEMI_HOSTDEV int nvshmem_alltoallmem(nvshmem_team_t team, void* d, const void* s, size_t n) {
  MORI_NVSHMEMI_DUAL(mori_shmem_alltoallmem(team, d, s, n), mori_shmem_alltoallmem_thread(team, d, s, n));
}
#define nvshmemx_broadcastmem_warp mori_shmem_broadcastmem_warp
#define nvshmemx_broadcastmem_block mori_shmem_broadcastmem_block
#define nvshmemx_fcollectmem_warp mori_shmem_fcollectmem_warp
#define nvshmemx_fcollectmem_block mori_shmem_fcollectmem_block
#define nvshmemx_alltoallmem_warp mori_shmem_alltoallmem_warp
#define nvshmemx_alltoallmem_block mori_shmem_alltoallmem_block

#define MORI_NVSHMEMI_COLL(NAME, T)                                                                                 \
  MORI_NVSHMEMI_HOSTDEV int nvshmem_##NAME##_broadcast(nvshmem_team_t team, T* d, const T* s, size_t n, int root) { \
    MORI_NVSHMEMI_DUAL(mori_shmem_##NAME##_broadcast(team, d, s, n, root),                                          \
                       mori_shmem_##NAME##_broadcast_thread(team, d, s, n, root));                                  \
  }                                                                                                                 \
  MORI_NVSHMEMI_HOSTDEV int nvshmem_##NAME##_fcollect(nvshmem_team_t team, T* d, const T* s, size_t n) {            \
    MORI_NVSHMEMI_DUAL(mori_shmem_##NAME##_fcollect(team, d, s, n),                                                 \
                       mori_shmem_##NAME##_fcollect_thread(team, d, s, n));                                         \
  }                                                                                                                 \
  MORI_NVSHMEMI_HOSTDEV int nvshmem_##NAME##_alltoall(nvshmem_team_t team, T* d, const T* s, size_t n) {            \
    MORI_NVSHMEMI_DUAL(mori_shmem_##NAME##_alltoall(team, d, s, n),                                                 \
                       mori_shmem_##NAME##_alltoall_thread(team, d, s, n));                                         \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_broadcast_warp(nvshmem_team_t t, T* d, const T* s, size_t n, int r) {     \
    return mori_shmem_##NAME##_broadcast_warp(t, d, s, n, r);                                                       \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_broadcast_block(nvshmem_team_t t, T* d, const T* s, size_t n, int r) {    \
    return mori_shmem_##NAME##_broadcast_block(t, d, s, n, r);                                                      \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_fcollect_warp(nvshmem_team_t t, T* d, const T* s, size_t n) {             \
    return mori_shmem_##NAME##_fcollect_warp(t, d, s, n);                                                           \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_fcollect_block(nvshmem_team_t t, T* d, const T* s, size_t n) {            \
    return mori_shmem_##NAME##_fcollect_block(t, d, s, n);                                                          \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_alltoall_warp(nvshmem_team_t t, T* d, const T* s, size_t n) {             \
    return mori_shmem_##NAME##_alltoall_warp(t, d, s, n);                                                           \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_alltoall_block(nvshmem_team_t t, T* d, const T* s, size_t n) {            \
    return mori_shmem_##NAME##_alltoall_block(t, d, s, n);                                                          \
  }
MORI_SHMEM_COLL_TYPES(MORI_NVSHMEMI_COLL)
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_COLL)
#undef MORI_NVSHMEMI_COLL

// KIND: reduce, or reducescatter (source: n_pes pieces of n elements).
#define MORI_NVSHMEMI_REDUCE_KIND(KIND, NAME, T, DT, OPNAME, OP)                                                    \
  MORI_NVSHMEMI_HOSTDEV int nvshmem_##NAME##_##OPNAME##_##KIND(nvshmem_team_t team, T* d, const T* s, size_t n) {   \
    MORI_NVSHMEMI_DUAL(mori_shmem_##NAME##_##OPNAME##_##KIND(team, d, s, n),                                        \
                       mori_shmem_##NAME##_##OPNAME##_##KIND##_thread(team, d, s, n));                              \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_##OPNAME##_##KIND##_warp(nvshmem_team_t t, T* d, const T* s, size_t n) {  \
    return mori_shmem_##NAME##_##OPNAME##_##KIND##_warp(t, d, s, n);                                                \
  }                                                                                                                 \
  MORI_NVSHMEMI_DEV int nvshmemx_##NAME##_##OPNAME##_##KIND##_block(nvshmem_team_t t, T* d, const T* s, size_t n) { \
    return mori_shmem_##NAME##_##OPNAME##_##KIND##_block(t, d, s, n);                                               \
  }
#define MORI_NVSHMEMI_REDUCE(NAME, T, DT, OPNAME, OP)        \
  MORI_NVSHMEMI_REDUCE_KIND(reduce, NAME, T, DT, OPNAME, OP) \
  MORI_NVSHMEMI_REDUCE_KIND(reducescatter, NAME, T, DT, OPNAME, OP)
#define MORI_NVSHMEMI_REDUCE_INT(NAME, T, DT)                    \
  MORI_SHMEM_REDUCE_ARITH_OPS(MORI_NVSHMEMI_REDUCE, NAME, T, DT) \
  MORI_SHMEM_REDUCE_BIT_OPS(MORI_NVSHMEMI_REDUCE, NAME, T, DT)
#define MORI_NVSHMEMI_REDUCE_FLOAT(NAME, T, DT) MORI_SHMEM_REDUCE_ARITH_OPS(MORI_NVSHMEMI_REDUCE, NAME, T, DT)
MORI_SHMEM_REDUCE_INT_TYPES(MORI_NVSHMEMI_REDUCE_INT)
MORI_SHMEM_REDUCE_FLOAT_TYPES(MORI_NVSHMEMI_REDUCE_FLOAT)
MORI_SHMEM_REDUCE_HALF_TYPES(MORI_NVSHMEMI_REDUCE_FLOAT)
#undef MORI_NVSHMEMI_REDUCE_INT
#undef MORI_NVSHMEMI_REDUCE_FLOAT
#undef MORI_NVSHMEMI_REDUCE
#undef MORI_NVSHMEMI_REDUCE_KIND
