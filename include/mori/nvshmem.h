/*
 * NVSHMEM source compatibility: an NVSHMEM program that uses the subset below builds against
 * mori-shmem with `#include <mori/nvshmem.h>` in place of <nvshmem.h> / <nvshmemx.h>, on NVIDIA
 * (nvcc) and AMD (hipcc) alike, and in host files of C++ or C (C99 and later: the host names).
 * Every name forwards to the mori-shmem call (a macro or a force-inlined function: no cost).
 * Functions NVSHMEM has and this layer does not are declared so that a use fails to compile with
 * a message naming the call (listed at the end; from C through GCC's and Clang's error attribute;
 * test_nvshmem_names checks that every function NVSHMEM declares is one or the other).
 *
 * Covered (host):   nvshmem_init, nvshmemx_init_attr (+ NVSHMEMX_INIT_WITH_MPI_COMM /
 *   _WITH_UNIQUEID, nvshmemx_get_uniqueid, nvshmemx_set_attr_uniqueid_args), nvshmem_finalize,
 *   nvshmem_global_exit (also in device code where the device API is declared),
 *   nvshmem_my_pe, nvshmem_n_pes, nvshmem_malloc, nvshmem_calloc, nvshmem_align, nvshmem_free,
 *   nvshmem_ptr, nvshmemx_cumodule_init / _finalize (a module linking mori's device library),
 *   nvshmem_barrier_all, nvshmem_sync_all, nvshmemx_barrier_all_on_stream,
 *   nvshmemx_sync_all_on_stream, nvshmemx_quiet_on_stream,
 *   nvshmemx_putmem[_nbi]_on_stream, nvshmemx_getmem[_nbi]_on_stream,
 *   nvshmemx_putmem_signal[_nbi]_on_stream, their typed (nvshmemx_<T>_put_on_stream, ...) and
 *   sized (nvshmemx_put32_on_stream, ...) forms (the _nbi ones complete as the blocking ones),
 *   host-initiated nvshmem_putmem / getmem [_nbi], nvshmem_<T>_put / get [_nbi],
 *   nvshmem_put<BITS> / get<BITS> [_nbi], nvshmem_<T>_iput / iget, nvshmem_iput<BITS> /
 *   iget<BITS> (8-128), nvshmem_<T>_p / _g, nvshmem_<T>_atomic_* (integer types), nvshmemx_signal_op,
 *   nvshmem_signal_fetch, nvshmem_quiet and nvshmem_fence (below); on a stream
 *   nvshmemx_<T>_p / _g / iput / iget_on_stream, nvshmemx_iput<BITS> / iget<BITS>_on_stream (8-128),
 *   nvshmemx_signal_op_on_stream; nvshmem_info_get_version / _name (NVSHMEM_MAJOR_VERSION,
 *   _MINOR_VERSION, _VENDOR_STRING, _MAX_NAME_LEN),
 *   nvshmemx_signal_wait_until_on_stream, nvshmemx_collective_launch and
 *   nvshmemx_collective_launch_query_gridsize (GPU compilers; with PEs sharing a GPU the largest
 *   grid is their share of it: mori/shmem.h); teams: nvshmem_team_split_strided, _split_2d,
 *   _destroy, _my_pe, _n_pes, _translate_pe, _get_config; collectives (blocking on the host,
 *   nvshmemx_*_on_stream): barrier, team_sync, <T>_broadcast, <T>_fcollect, <T>_alltoall,
 *   <T>_<op>_reduce and <T>_<op>_reducescatter (sum prod min max; and or xor on integers); half and
 *   bfloat16 in the typed stream RMA and every collective wherever C++ can name them (GPU
 *   compilers; host compilers that find cuda_fp16.h or hip_fp16.h).
 * Covered (device): nvshmem_putmem[_nbi], nvshmem_getmem[_nbi], nvshmem_putmem_signal[_nbi] and
 *   their nvshmemx_*_warp / _block forms; nvshmem_<T>_put/get[_nbi], _put_signal[_nbi], _iput,
 *   _iget (+ _warp/_block), _p, _g (every RMA type, half and bfloat16 included); the
 *   sized nvshmem_put<BITS>/get<BITS>[_nbi], put<BITS>_signal[_nbi] (8-128) and
 *   iput<BITS>/iget<BITS> (8-128) (+ _warp/_block);
 *   nvshmemx_signal_op, nvshmem_signal_fetch, nvshmem_signal_wait_until; nvshmem_<T>_atomic_*
 *   (fetch, set, swap, compare_swap, fetch_inc, inc, fetch_add, add, fetch_and, and, fetch_or,
 *   or, fetch_xor, xor); nvshmem_<T>_wait_until[_all/_any/_some], _test[_all/_any]; nvshmem_quiet,
 *   nvshmem_fence, nvshmem_barrier_all, nvshmemx_barrier_all_warp / _block, nvshmem_sync_all,
 *   nvshmemx_sync_all_warp / _block; the team queries and every collective above in thread (no
 *   suffix), warp and block scope.
 * Types and constants: nvshmem_team_t, nvshmemx_team_t, nvshmem_team_config_t, NVSHMEM_TEAM_WORLD,
 *   NVSHMEM_TEAM_SHARED, NVSHMEMX_TEAM_NODE, NVSHMEMX_TEAM_SAME_MYPE_NODE, NVSHMEM_TEAM_INVALID,
 *   NVSHMEM_TEAM_NUM_CONTEXTS, NVSHMEMX_INIT_ATTR_V1_INITIALIZER, NVSHMEM_VENDOR_*_VERSION,
 *   NVSHMEM_CMP_*, NVSHMEM_SIGNAL_SET/ADD, NVSHMEMX_INIT_*, nvshmemx_uniqueid_t,
 *   NVSHMEMX_UNIQUEID_INITIALIZER, nvshmemx_init_attr_t, NVSHMEMX_INIT_ATTR_INITIALIZER,
 *   NVSHMEMX_SUCCESS and NVSHMEMX_ERROR_* (below).
 * Also nvshmemx_init_status (NVSHMEM's status values; mori reports NOT_INITIALIZED or
 *   IS_INITIALIZED: PEs sharing a GPU lose no feature here, so neither _MPG status applies).
 * Also: nvshmem_broadcastmem / fcollectmem / alltoallmem (host and device, nvshmemx_*_warp /
 *   _block / _on_stream), char reductions, nvshmem_float / double_atomic_fetch / _set / _swap,
 *   nvshmem_init_thread / query_thread (NVSHMEM_THREAD_*: FUNNELED is provided),
 *   nvshmemx_vendor_get_version_info (mori-shmem's version), nvshmemx_set_attr_mpi_comm_args,
 *   nvshmemx_culibrary_init / _finalize, nvshmem_<T>_test_some and the _vector forms of
 *   wait_until_all / _any / _some and test_all / _any / _some, nvshmemx_mc_ptr (NULL: no
 *   multicast objects), nvshmemx_hostlib_init_attr / _finalize (mori-shmem's init / finalize),
 *   the waits and tests of short / ushort, nvshmemx_<T>_wait_until / _wait_until_all /
 *   _wait_until_all_vector_on_stream.
 * Not covered (refused, at the end): contexts; buffer registration; explicit QPs; teams from a
 *   PE list; warpgroup scope; maxloc; the constants of these and of OpenSHMEM interop, NVSHMEM's
 *   nested init-argument initialisers and the errors GPU_NOT_SELECTED / COLLECTIVE_LAUNCH_FAILED.
 * Differences: host calls that return void in NVSHMEM return mori's status (ignorable);
 * NVSHMEM_TEAM_SHARED and NVSHMEMX_TEAM_NODE have mori's values (2 and 1), and so do
 * NVSHMEM_CMP_* (GE 3 and LE 5, where NVSHMEM has LE 3 and GE 5) and NVSHMEM_SIGNAL_SET / _ADD
 * (0 and 1, where NVSHMEM has 9 and 10): code that spells the names builds and runs unchanged,
 * code that stores their numbers does not.
 */
#ifndef MORI_NVSHMEM_H
#define MORI_NVSHMEM_H

#include <limits.h>
#include <string.h>

#include "mori/shmem.h"  // with the device API where it is declared (MORI_SHMEM_WITH_DEVICE_API)

/* A zeroed local of type T: value-initialised in C++ (16-bit floating classes included), cleared
 * in C. */
#ifdef __cplusplus
#define MORI_NVSHMEMI_ZERO(T, V) \
  T V {}
#else
#define MORI_NVSHMEMI_ZERO(T, V) \
  T V;                           \
  memset(&V, 0, sizeof(V))
#endif

/* ---- types and constants --------------------------------------------------------------------- */
typedef mori_shmem_team_t nvshmem_team_t;
typedef mori_shmem_team_t nvshmemx_team_t;
typedef mori_shmem_team_config_t nvshmem_team_config_t;
typedef mori_shmem_uniqueid_t nvshmemx_uniqueid_t;
typedef mori_shmem_init_attr_t nvshmemx_init_attr_t;
#define NVSHMEM_TEAM_INVALID MORI_SHMEM_TEAM_INVALID
#define NVSHMEM_TEAM_WORLD MORI_SHMEM_TEAM_WORLD
#define NVSHMEM_TEAM_SHARED MORI_SHMEM_TEAM_SHARED
#define NVSHMEMX_TEAM_SAME_MYPE_NODE MORI_SHMEM_TEAM_SAME_MYPE_NODE
#define NVSHMEMX_TEAM_NODE MORI_SHMEM_TEAM_NODE
#define NVSHMEM_TEAM_NUM_CONTEXTS MORI_SHMEM_TEAM_NUM_CONTEXTS
#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS MORI_SHMEM_TEAM_NUM_CONTEXTS
#define NVSHMEM_TEAM_CONFIG_INITIALIZER MORI_SHMEM_TEAM_CONFIG_INITIALIZER
#define NVSHMEM_PE_INVALID (-1) /* what nvshmem_team_translate_pe returns for no PE */
#define NVSHMEM_CMP_EQ MORI_SHMEM_CMP_EQ
#define NVSHMEM_CMP_NE MORI_SHMEM_CMP_NE
#define NVSHMEM_CMP_GT MORI_SHMEM_CMP_GT
#define NVSHMEM_CMP_GE MORI_SHMEM_CMP_GE
#define NVSHMEM_CMP_LT MORI_SHMEM_CMP_LT
#define NVSHMEM_CMP_LE MORI_SHMEM_CMP_LE
#define NVSHMEM_SIGNAL_SET MORI_SHMEM_SIGNAL_SET
#define NVSHMEM_SIGNAL_ADD MORI_SHMEM_SIGNAL_ADD
#define NVSHMEMX_INIT_WITH_MPI_COMM MORI_SHMEM_INIT_WITH_MPI_COMM
#define NVSHMEMX_INIT_WITH_UNIQUEID MORI_SHMEM_INIT_WITH_UNIQUEID
#define NVSHMEMX_INIT_ATTR_INITIALIZER MORI_SHMEM_INIT_ATTR_INITIALIZER
#define NVSHMEMX_INIT_ATTR_V1_INITIALIZER MORI_SHMEM_INIT_ATTR_INITIALIZER /* mori's attr has one version */
#define NVSHMEMX_UNIQUEID_INITIALIZER MORI_SHMEM_UNIQUEID_INITIALIZER
/* Host calls' results: success is 0 in both; the errors are mori's (negative) values, each named
 * after the NVSHMEM error that means the same. GPU_NOT_SELECTED and COLLECTIVE_LAUNCH_FAILED have
 * no counterpart (a collective launch that fails returns INVALID_USAGE or SYSTEM, naming why):
 * refused, with the other constants outside the subset, at the end. */
#define NVSHMEMX_SUCCESS MORI_SHMEM_SUCCESS
#define NVSHMEMX_ERROR_INVALID_VALUE MORI_SHMEM_ERROR_INVALID_USAGE
#define NVSHMEMX_ERROR_OUT_OF_MEMORY MORI_SHMEM_ERROR_OUT_OF_MEMORY
#define NVSHMEMX_ERROR_NOT_SUPPORTED MORI_SHMEM_ERROR_NOT_SUPPORTED
#define NVSHMEMX_ERROR_SYMMETRY MORI_SHMEM_ERROR_REMOTE
#define NVSHMEMX_ERROR_INTERNAL MORI_SHMEM_ERROR_INTERNAL

/* Thread levels (nvshmem_init_thread, nvshmem_query_thread), as NVSHMEM numbers them. */
enum { NVSHMEM_THREAD_SINGLE = 0, NVSHMEM_THREAD_FUNNELED, NVSHMEM_THREAD_SERIALIZED, NVSHMEM_THREAD_MULTIPLE };

/* nvshmemx_init_status's values, as NVSHMEM numbers them. */
typedef enum {
  NVSHMEM_STATUS_NOT_INITIALIZED = 0,
  NVSHMEM_STATUS_IS_BOOTSTRAPPED = 1,
  NVSHMEM_STATUS_IS_INITIALIZED = 2,
  NVSHMEM_STATUS_LIMITED_MPG = 3,
  NVSHMEM_STATUS_FULL_MPG = 4,
  NVSHMEM_STATUS_INVALID = INT_MAX
} nvshmemx_init_status_t;

/* nvshmem_info_get_version / _name: NVSHMEM's OpenSHMEM version (1.3), so that code that checks it
 * behaves as under NVSHMEM; the name is mori-shmem's. */
#define NVSHMEM_MAJOR_VERSION 1
#define NVSHMEM_MINOR_VERSION 3
#define NVSHMEM_MAX_NAME_LEN 256
#define MORI_NVSHMEMI_STR2(X) #X
#define MORI_NVSHMEMI_STR(X) MORI_NVSHMEMI_STR2(X)
#define NVSHMEM_VENDOR_STRING                                                      \
  "mori-shmem " MORI_NVSHMEMI_STR(MORI_SHMEM_VERSION_MAJOR) "." MORI_NVSHMEMI_STR( \
      MORI_SHMEM_VERSION_MINOR) "." MORI_NVSHMEMI_STR(MORI_SHMEM_VERSION_PATCH)
/* The vendor's (mori-shmem's) version, as nvshmemx_vendor_get_version_info reports it. */
#define NVSHMEM_VENDOR_MAJOR_VERSION MORI_SHMEM_VERSION_MAJOR
#define NVSHMEM_VENDOR_MINOR_VERSION MORI_SHMEM_VERSION_MINOR
#define NVSHMEM_VENDOR_PATCH_VERSION MORI_SHMEM_VERSION_PATCH
#define NVSHMEM_VENDOR_PACKAGE_VERSION 0
#define NVSHMEM_VENDOR_VERSION \
  ((NVSHMEM_VENDOR_MAJOR_VERSION)*10000 + (NVSHMEM_VENDOR_MINOR_VERSION)*100 + (NVSHMEM_VENDOR_PATCH_VERSION))

/* ---- host ----------------------------------------------------------------------------------- */
static inline int nvshmemx_init_status(void) {
  return mori_shmem_initialized() ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}
#define nvshmem_init mori_shmem_init
#define nvshmemx_init_attr mori_shmem_init_attr
#define nvshmemx_get_uniqueid mori_shmem_get_uniqueid
#define nvshmemx_set_attr_uniqueid_args mori_shmem_set_attr_uniqueid_args
#define nvshmemx_set_attr_mpi_comm_args mori_shmem_set_attr_mpi_comm
/* NVSHMEM's host library alone: mori-shmem has one library; its init prepares the device state
 * too, which a module binds when it loads (nvshmemx_cumodule_init). */
#define nvshmemx_hostlib_init_attr mori_shmem_init_attr
#define nvshmemx_hostlib_finalize mori_shmem_finalize
/* The thread level mori-shmem provides: FUNNELED (host calls come from the thread that
 * initialised it, which is the one whose GPU is current), whatever was requested. */
static inline void nvshmem_query_thread(int* provided) { *provided = NVSHMEM_THREAD_FUNNELED; }
static inline int nvshmem_init_thread(int requested, int* provided) {
  (void)requested;
  const int rc = mori_shmem_init();
  if (provided) nvshmem_query_thread(provided);
  return rc;
}
#define nvshmem_finalize mori_shmem_finalize
#define nvshmem_global_exit mori_shmem_global_exit
#define nvshmem_my_pe mori_shmem_my_pe
#define nvshmem_n_pes mori_shmem_n_pes
#define nvshmem_malloc mori_shmem_malloc
#define nvshmem_calloc mori_shmem_calloc
#define nvshmem_align mori_shmem_align
#define nvshmem_free mori_shmem_free
#define nvshmem_ptr mori_shmem_ptr
/* A CUmodule (hipModule_t on AMD) whose code links mori-shmem's device library, as NVSHMEM's
 * cubins link libnvshmem_device (mori/shmem.h, docs/TRITON.md). */
static inline int nvshmemx_cumodule_init(void* module) { return mori_shmem_module_init(module); }
static inline int nvshmemx_cumodule_finalize(void* module) {
  return mori_shmem_module_finalize(module, MORI_SHMEM_MODULE);
}
/* A CUlibrary (NVIDIA) likewise. */
static inline int nvshmemx_culibrary_init(void* library) {
  return mori_shmem_module_init_kind(library, MORI_SHMEM_LIBRARY);
}
static inline int nvshmemx_culibrary_finalize(void* library) {
  return mori_shmem_module_finalize(library, MORI_SHMEM_LIBRARY);
}
#define nvshmemx_barrier_all_on_stream mori_shmem_barrier_all_on_stream
static inline int nvshmemx_sync_all_on_stream(mori_shmem_stream_t stream) {
  return mori_shmem_team_sync_on_stream(MORI_SHMEM_TEAM_WORLD, stream);
}
#define nvshmemx_quiet_on_stream mori_shmem_quiet_on_stream
#define nvshmemx_putmem_on_stream mori_shmem_putmem_on_stream
#define nvshmemx_getmem_on_stream mori_shmem_getmem_on_stream
#define nvshmemx_putmem_signal_on_stream mori_shmem_putmem_signal_on_stream
/* The _nbi forms on a stream: the blocking call (it completes no later than NVSHMEM's nbi form
 * must, when the stream reaches it). */
#define nvshmemx_putmem_nbi_on_stream mori_shmem_putmem_on_stream
#define nvshmemx_getmem_nbi_on_stream mori_shmem_getmem_on_stream
#define nvshmemx_putmem_signal_nbi_on_stream mori_shmem_putmem_signal_on_stream
#define nvshmemx_signal_wait_until_on_stream mori_shmem_signal_wait_until_on_stream
#define nvshmemx_signal_op_on_stream mori_shmem_signal_op_on_stream
#define nvshmem_team_split_strided mori_shmem_team_split_strided
#define nvshmem_team_split_2d mori_shmem_team_split_2d
#define nvshmem_team_destroy mori_shmem_team_destroy
#define nvshmem_team_get_config mori_shmem_team_get_config
#define nvshmem_team_my_pe mori_shmem_team_my_pe
#define nvshmem_team_n_pes mori_shmem_team_n_pes
#define nvshmem_team_translate_pe mori_shmem_team_translate_pe
#define nvshmemx_barrier_on_stream mori_shmem_barrier_on_stream
#define nvshmemx_team_sync_on_stream mori_shmem_team_sync_on_stream

/* Typed and sized RMA on a stream: nvshmemx_<T>_put / _get / _put_signal [_nbi]_on_stream and
 * nvshmemx_put<BITS> / get<BITS> / put<BITS>_signal [_nbi]_on_stream, in bytes. */
#define MORI_NVSHMEMI_STREAM_RMA(PRE, MID, T, BYTES)                                                                   \
  static inline int nvshmemx_##PRE##put##MID##_on_stream(T* d, const T* s, size_t n, int pe, mori_shmem_stream_t st) { \
    return mori_shmem_putmem_on_stream(d, s, n * (BYTES), pe, st);                                                     \
  }                                                                                                                    \
  static inline int nvshmemx_##PRE##put##MID##_nbi_on_stream(T* d, const T* s, size_t n, int pe,                       \
                                                             mori_shmem_stream_t st) {                                 \
    return mori_shmem_putmem_on_stream(d, s, n * (BYTES), pe, st);                                                     \
  }                                                                                                                    \
  static inline int nvshmemx_##PRE##get##MID##_on_stream(T* d, const T* s, size_t n, int pe, mori_shmem_stream_t st) { \
    return mori_shmem_getmem_on_stream(d, s, n * (BYTES), pe, st);                                                     \
  }                                                                                                                    \
  static inline int nvshmemx_##PRE##get##MID##_nbi_on_stream(T* d, const T* s, size_t n, int pe,                       \
                                                             mori_shmem_stream_t st) {                                 \
    return mori_shmem_getmem_on_stream(d, s, n * (BYTES), pe, st);                                                     \
  }                                                                                                                    \
  static inline int nvshmemx_##PRE##put##MID##_signal_on_stream(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, \
                                                                int op, int pe, mori_shmem_stream_t st) {              \
    return mori_shmem_putmem_signal_on_stream(d, s, n * (BYTES), sig, v, op, pe, st);                                  \
  }                                                                                                                    \
  static inline int nvshmemx_##PRE##put##MID##_signal_nbi_on_stream(                                                   \
      T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, mori_shmem_stream_t st) {                 \
    return mori_shmem_putmem_signal_on_stream(d, s, n * (BYTES), sig, v, op, pe, st);                                  \
  }
// Strided: nvshmemx_<T>_iput / iget_on_stream, nvshmemx_iput<BITS> / iget<BITS>_on_stream (8-128).
#define MORI_NVSHMEMI_STREAM_STRIDED(PRE, MID, T, BYTES)                                                            \
  static inline int nvshmemx_##PRE##iput##MID##_on_stream(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                                          int pe, mori_shmem_stream_t st) {                         \
    return mori_shmem_iput_on_stream(d, s, dst, sst, n, BYTES, pe, st);                                             \
  }                                                                                                                 \
  static inline int nvshmemx_##PRE##iget##MID##_on_stream(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                                          int pe, mori_shmem_stream_t st) {                         \
    return mori_shmem_iget_on_stream(d, s, dst, sst, n, BYTES, pe, st);                                             \
  }
// nvshmemx_<T>_p / _g_on_stream (g waits for the stream and returns the element; 0 on error, logged).
#define MORI_NVSHMEMI_STREAM_TYPED(NAME, T)                                                          \
  MORI_NVSHMEMI_STREAM_RMA(NAME##_, , T, sizeof(T))                                                  \
  MORI_NVSHMEMI_STREAM_STRIDED(NAME##_, , T, sizeof(T))                                              \
  static inline int nvshmemx_##NAME##_p_on_stream(T* d, const T v, int pe, mori_shmem_stream_t st) { \
    return mori_shmem_p_on_stream(d, &v, sizeof(T), pe, st);                                         \
  }                                                                                                  \
  static inline T nvshmemx_##NAME##_g_on_stream(const T* s, int pe, mori_shmem_stream_t st) {        \
    MORI_NVSHMEMI_ZERO(T, v);                                                                        \
    (void)mori_shmem_g_on_stream(&v, s, sizeof(T), pe, st);                                          \
    return v;                                                                                        \
  }
#define MORI_NVSHMEMI_STREAM_SIZED(BITS) MORI_NVSHMEMI_STREAM_RMA(, BITS, void, (BITS) / 8)
#define MORI_NVSHMEMI_STREAM_SIZED_STRIDED(BITS) MORI_NVSHMEMI_STREAM_STRIDED(, BITS, void, (BITS) / 8)
MORI_SHMEM_RMA_TYPES(MORI_NVSHMEMI_STREAM_TYPED)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_STREAM_TYPED)
#endif
MORI_NVSHMEMI_STREAM_SIZED(8)
MORI_NVSHMEMI_STREAM_SIZED(16)
MORI_NVSHMEMI_STREAM_SIZED(32)
MORI_NVSHMEMI_STREAM_SIZED(64)
MORI_NVSHMEMI_STREAM_SIZED(128)
MORI_NVSHMEMI_STREAM_SIZED_STRIDED(8)
MORI_NVSHMEMI_STREAM_SIZED_STRIDED(16)
MORI_NVSHMEMI_STREAM_SIZED_STRIDED(32)
MORI_NVSHMEMI_STREAM_SIZED_STRIDED(64)
MORI_NVSHMEMI_STREAM_SIZED_STRIDED(128)
#undef MORI_NVSHMEMI_STREAM_SIZED_STRIDED
#undef MORI_NVSHMEMI_STREAM_SIZED
#undef MORI_NVSHMEMI_STREAM_TYPED
#undef MORI_NVSHMEMI_STREAM_STRIDED
#undef MORI_NVSHMEMI_STREAM_RMA
// Typed waits on a stream: nvshmemx_<T>_wait_until / _wait_until_all / _wait_until_all_vector
// _on_stream (status and cmp_values in memory the GPU reaches, as NVSHMEM's kernel reads them).
#define MORI_NVSHMEMI_STREAM_WAIT(NAME, T)                                                                            \
  static inline int nvshmemx_##NAME##_wait_until_on_stream(T* ivar, int cmp, T v, mori_shmem_stream_t st) {           \
    return mori_shmem_wait_until_on_stream(ivar, 1, MORI_SHMEMI_DT_INTEGER(T), NULL, cmp, &v, NULL, st);              \
  }                                                                                                                   \
  static inline int nvshmemx_##NAME##_wait_until_all_on_stream(T* ivars, size_t n, const int* status, int cmp, T v,   \
                                                               mori_shmem_stream_t st) {                              \
    return mori_shmem_wait_until_on_stream(ivars, n, MORI_SHMEMI_DT_INTEGER(T), status, cmp, &v, NULL, st);           \
  }                                                                                                                   \
  static inline int nvshmemx_##NAME##_wait_until_all_vector_on_stream(T* ivars, size_t n, const int* status, int cmp, \
                                                                      T* vs, mori_shmem_stream_t st) {                \
    return mori_shmem_wait_until_on_stream(ivars, n, MORI_SHMEMI_DT_INTEGER(T), status, cmp, NULL, vs, st);           \
  }
MORI_SHMEM_SYNC_TYPES(MORI_NVSHMEMI_STREAM_WAIT)
#undef MORI_NVSHMEMI_STREAM_WAIT

/* Host-initiated RMA and atomics: nvshmem_putmem / getmem [_nbi], nvshmem_<T>_put / get [_nbi],
 * nvshmem_put<BITS> / get<BITS> [_nbi], nvshmem_<T>_p / _g, nvshmem_<T>_atomic_*, nvshmem_quiet and
 * nvshmem_fence called from host code run mori_shmem_host_* (mori/shmem.h). Where the device API is declared they are
 * host-and-device functions whose device pass is the thread-scope device call (no cost). Errors are logged (the NVSHMEM
 * forms return nothing). */
// The names NVSHMEM shares between host and device (these, and mori/shmem/compat's collectives):
// MORI_NVSHMEMI_HOSTDEV declares them; in a body, HOST_OR_DEVICE makes the pass's call,
// _FETCH returns the pass's T (the host call writing it to v_), DUAL returns the pass's call.
#if MORI_SHMEM_WITH_DEVICE_API
#define MORI_NVSHMEMI_HOSTDEV static __host__ __device__ __forceinline__
#if MORI_DEVICE_COMPILE
#define MORI_NVSHMEMI_HOST_OR_DEVICE(HOSTCALL, DEVCALL) DEVCALL
#define MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(T, HOSTCALL, DEVCALL) return DEVCALL
#define MORI_NVSHMEMI_DUAL(HOSTCALL, DEVCALL) return DEVCALL
#endif
#else
#define MORI_NVSHMEMI_HOSTDEV static inline
#endif
#ifndef MORI_NVSHMEMI_HOST_OR_DEVICE
#define MORI_NVSHMEMI_HOST_OR_DEVICE(HOSTCALL, DEVCALL) (void)HOSTCALL
#define MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(T, HOSTCALL, DEVCALL) \
  MORI_NVSHMEMI_ZERO(T, v_);                                     \
  (void)HOSTCALL;                                                \
  return v_
#define MORI_NVSHMEMI_DUAL(HOSTCALL, DEVCALL) return HOSTCALL
#endif
// One name: OP is putmem or getmem, NBI empty or _nbi; DEVCALL is the device pass's call.
#define MORI_NVSHMEMI_HOST_RMA_ONE(NAME, T, BYTES, OP, NBI, DEVCALL)                       \
  MORI_NVSHMEMI_HOSTDEV void NAME(T* d, const T* s, size_t n, int pe) {                    \
    MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_##OP##NBI(d, s, n*(BYTES), pe), DEVCALL); \
  }
#define MORI_NVSHMEMI_HOST_RMA_TYPED(NAME, T)                                      \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_##NAME##_put, T, sizeof(T), putmem, ,         \
                             mori_shmem_##NAME##_put_thread(d, s, n, pe))          \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_##NAME##_put_nbi, T, sizeof(T), putmem, _nbi, \
                             mori_shmem_##NAME##_put_nbi_thread(d, s, n, pe))      \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_##NAME##_get, T, sizeof(T), getmem, ,         \
                             mori_shmem_##NAME##_get_thread(d, s, n, pe))          \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_##NAME##_get_nbi, T, sizeof(T), getmem, _nbi, \
                             mori_shmem_##NAME##_get_nbi_thread(d, s, n, pe))
#define MORI_NVSHMEMI_HOST_RMA_BYTES(NAME, BYTES)                                                                     \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_put##NAME, void, BYTES, putmem, , mori_shmem_putmem_thread(d, s, n*(BYTES), pe)) \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_put##NAME##_nbi, void, BYTES, putmem, _nbi,                                      \
                             mori_shmem_putmem_nbi_thread(d, s, n*(BYTES), pe))                                       \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_get##NAME, void, BYTES, getmem, , mori_shmem_getmem_thread(d, s, n*(BYTES), pe)) \
  MORI_NVSHMEMI_HOST_RMA_ONE(nvshmem_get##NAME##_nbi, void, BYTES, getmem, _nbi,                                      \
                             mori_shmem_getmem_nbi_thread(d, s, n*(BYTES), pe))
// Strided, one name: OP is iput or iget.
#define MORI_NVSHMEMI_HOST_STRIDED_ONE(NAME, T, BYTES, OP, DEVCALL)                                   \
  MORI_NVSHMEMI_HOSTDEV void NAME(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_##OP(d, s, dst, sst, n, BYTES, pe), DEVCALL);        \
  }
#define MORI_NVSHMEMI_HOST_STRIDED_TYPED(NAME, T)                                        \
  MORI_NVSHMEMI_HOST_STRIDED_ONE(nvshmem_##NAME##_iput, T, sizeof(T), iput,              \
                                 mori_shmem_##NAME##_iput_thread(d, s, dst, sst, n, pe)) \
  MORI_NVSHMEMI_HOST_STRIDED_ONE(nvshmem_##NAME##_iget, T, sizeof(T), iget,              \
                                 mori_shmem_##NAME##_iget_thread(d, s, dst, sst, n, pe))
#define MORI_NVSHMEMI_HOST_STRIDED_SIZED(BITS)                                                                      \
  MORI_NVSHMEMI_HOST_STRIDED_ONE(                                                                                   \
      nvshmem_iput##BITS, void, (BITS) / 8, iput,                                                                   \
      mori_shmem_int##BITS##_iput_thread(static_cast<int##BITS##_t*>(d), static_cast<const int##BITS##_t*>(s), dst, \
                                         sst, n, pe))                                                               \
  MORI_NVSHMEMI_HOST_STRIDED_ONE(                                                                                   \
      nvshmem_iget##BITS, void, (BITS) / 8, iget,                                                                   \
      mori_shmem_int##BITS##_iget_thread(static_cast<int##BITS##_t*>(d), static_cast<const int##BITS##_t*>(s), dst, \
                                         sst, n, pe))
MORI_SHMEM_RMA_TYPES(MORI_NVSHMEMI_HOST_STRIDED_TYPED)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_HOST_STRIDED_TYPED)
#endif
MORI_NVSHMEMI_HOST_STRIDED_SIZED(8)
MORI_NVSHMEMI_HOST_STRIDED_SIZED(16)
MORI_NVSHMEMI_HOST_STRIDED_SIZED(32)
MORI_NVSHMEMI_HOST_STRIDED_SIZED(64)
MORI_NVSHMEMI_HOST_STRIDED_ONE(nvshmem_iput128, void, 16, iput, mori_shmem_iput128_thread(d, s, dst, sst, n, pe))
MORI_NVSHMEMI_HOST_STRIDED_ONE(nvshmem_iget128, void, 16, iget, mori_shmem_iget128_thread(d, s, dst, sst, n, pe))
#undef MORI_NVSHMEMI_HOST_STRIDED_SIZED
#undef MORI_NVSHMEMI_HOST_STRIDED_TYPED
#undef MORI_NVSHMEMI_HOST_STRIDED_ONE

// Signals: the host's signal_op is mori_shmem_host_signal_op, its signal_fetch an atomic fetch of
// this PE's word.
MORI_NVSHMEMI_HOSTDEV void nvshmemx_signal_op(uint64_t* sig, uint64_t v, int op, int pe) {
  MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_signal_op(sig, v, op, pe), mori_shmem_signal_op(sig, v, op, pe));
}
MORI_NVSHMEMI_HOSTDEV uint64_t nvshmem_signal_fetch(uint64_t* sig) {
  MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(
      uint64_t,
      mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, sig, NULL, NULL, &v_, sizeof(uint64_t), mori_shmem_my_pe()),
      mori_shmem_signal_fetch(sig));
}

MORI_NVSHMEMI_HOST_RMA_BYTES(mem, 1)
MORI_NVSHMEMI_HOST_RMA_BYTES(8, 1)
MORI_NVSHMEMI_HOST_RMA_BYTES(16, 2)
MORI_NVSHMEMI_HOST_RMA_BYTES(32, 4)
MORI_NVSHMEMI_HOST_RMA_BYTES(64, 8)
MORI_NVSHMEMI_HOST_RMA_BYTES(128, 16)
MORI_SHMEM_RMA_TYPES(MORI_NVSHMEMI_HOST_RMA_TYPED)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_HOST_RMA_TYPED)
#endif
// nvshmem_<T>_p / _g (every RMA type).
#define MORI_NVSHMEMI_HOST_PG(NAME, T)                                                                             \
  MORI_NVSHMEMI_HOSTDEV void nvshmem_##NAME##_p(T* d, T v, int pe) {                                               \
    MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_p(d, &v, sizeof(T), pe), mori_shmem_##NAME##_p(d, v, pe));        \
  }                                                                                                                \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_g(const T* s, int pe) {                                                 \
    MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(T, mori_shmem_host_g(&v_, s, sizeof(T), pe), mori_shmem_##NAME##_g(s, pe)); \
  }
MORI_SHMEM_RMA_TYPES(MORI_NVSHMEMI_HOST_PG)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_HOST_PG)
#endif
#undef MORI_NVSHMEMI_HOST_PG

// nvshmem_<T>_atomic_* (every atomic type): the host pass runs mori_shmem_host_atomic.
static inline int mori_nvshmemi_host_atomic_one(int op, void* d, void* fetched, size_t size, int pe) {
  const uint64_t one = 1;  // its low bytes: 1 at every size (little-endian hosts)
  return mori_shmem_host_atomic(op, d, &one, NULL, fetched, size, pe);
}
#define MORI_NVSHMEMI_HOST_AMO_OP(NAME, T, OP, OPU)                                                                   \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_atomic_fetch_##OP(T* d, T v, int pe) {                                     \
    MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(T,                                                                             \
                                       mori_shmem_host_atomic(MORI_SHMEM_AMO_##OPU, d, &v, NULL, &v_, sizeof(T), pe), \
                                       mori_shmem_##NAME##_atomic_fetch_##OP(d, v, pe));                              \
  }                                                                                                                   \
  MORI_NVSHMEMI_HOSTDEV void nvshmem_##NAME##_atomic_##OP(T* d, T v, int pe) {                                        \
    MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_atomic(MORI_SHMEM_AMO_##OPU, d, &v, NULL, NULL, sizeof(T), pe),      \
                                 mori_shmem_##NAME##_atomic_##OP(d, v, pe));                                          \
  }
#define MORI_NVSHMEMI_HOST_AMO(NAME, T)                                                                              \
  MORI_NVSHMEMI_HOST_AMO_OP(NAME, T, add, ADD)                                                                       \
  MORI_NVSHMEMI_HOST_AMO_OP(NAME, T, and, AND)                                                                       \
  MORI_NVSHMEMI_HOST_AMO_OP(NAME, T, or, OR)                                                                         \
  MORI_NVSHMEMI_HOST_AMO_OP(NAME, T, xor, XOR)                                                                       \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_atomic_fetch(const T* s, int pe) {                                        \
    MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(                                                                              \
        T, mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, (T*)s, NULL, NULL, &v_, sizeof(T), pe),                      \
        mori_shmem_##NAME##_atomic_fetch(s, pe));                                                                    \
  }                                                                                                                  \
  MORI_NVSHMEMI_HOSTDEV void nvshmem_##NAME##_atomic_set(T* d, T v, int pe) {                                        \
    MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_atomic(MORI_SHMEM_AMO_SET, d, &v, NULL, NULL, sizeof(T), pe),       \
                                 mori_shmem_##NAME##_atomic_set(d, v, pe));                                          \
  }                                                                                                                  \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_atomic_swap(T* d, T v, int pe) {                                          \
    MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(T,                                                                            \
                                       mori_shmem_host_atomic(MORI_SHMEM_AMO_SWAP, d, &v, NULL, &v_, sizeof(T), pe), \
                                       mori_shmem_##NAME##_atomic_swap(d, v, pe));                                   \
  }                                                                                                                  \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_atomic_compare_swap(T* d, T c, T v, int pe) {                             \
    MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(                                                                              \
        T, mori_shmem_host_atomic(MORI_SHMEM_AMO_COMPARE_SWAP, d, &v, &c, &v_, sizeof(T), pe),                       \
        mori_shmem_##NAME##_atomic_compare_swap(d, c, v, pe));                                                       \
  }                                                                                                                  \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_atomic_fetch_inc(T* d, int pe) {                                          \
    MORI_NVSHMEMI_HOST_OR_DEVICE_FETCH(T, mori_nvshmemi_host_atomic_one(MORI_SHMEM_AMO_ADD, d, &v_, sizeof(T), pe),  \
                                       mori_shmem_##NAME##_atomic_fetch_inc(d, pe));                                 \
  }                                                                                                                  \
  MORI_NVSHMEMI_HOSTDEV void nvshmem_##NAME##_atomic_inc(T* d, int pe) {                                             \
    MORI_NVSHMEMI_HOST_OR_DEVICE(mori_nvshmemi_host_atomic_one(MORI_SHMEM_AMO_ADD, d, NULL, sizeof(T), pe),          \
                                 mori_shmem_##NAME##_atomic_inc(d, pe));                                             \
  }
MORI_SHMEM_AMO_TYPES(MORI_NVSHMEMI_HOST_AMO)
#undef MORI_NVSHMEMI_HOST_AMO
#undef MORI_NVSHMEMI_HOST_AMO_OP

// nvshmem_float / double_atomic_fetch, _set, _swap: the same-sized unsigned atomic on the bits.
#define MORI_NVSHMEMI_HOST_AMO_BITS(NAME, T, U)                                                      \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_atomic_fetch(const T* s, int pe) {                        \
    return mori_nvshmemi_bits<T>(nvshmem_##U##_atomic_fetch(reinterpret_cast<const U##_t*>(s), pe)); \
  }                                                                                                  \
  MORI_NVSHMEMI_HOSTDEV void nvshmem_##NAME##_atomic_set(T* d, T v, int pe) {                        \
    nvshmem_##U##_atomic_set(reinterpret_cast<U##_t*>(d), mori_nvshmemi_bits<U##_t>(v), pe);         \
  }                                                                                                  \
  MORI_NVSHMEMI_HOSTDEV T nvshmem_##NAME##_atomic_swap(T* d, T v, int pe) {                          \
    return mori_nvshmemi_bits<T>(                                                                    \
        nvshmem_##U##_atomic_swap(reinterpret_cast<U##_t*>(d), mori_nvshmemi_bits<U##_t>(v), pe));   \
  }
#ifdef __cplusplus
template <typename To, typename From>
MORI_NVSHMEMI_HOSTDEV To mori_nvshmemi_bits(From from) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To to;
  __builtin_memcpy(&to, &from, sizeof(to));
  return to;
}
MORI_NVSHMEMI_HOST_AMO_BITS(float, float, uint32)
MORI_NVSHMEMI_HOST_AMO_BITS(double, double, uint64)
#endif
#undef MORI_NVSHMEMI_HOST_AMO_BITS

/* No team has a multicast object: NULL, what NVSHMEM returns where NVLink SHARP is unavailable
 * or disabled (NVSHMEM_DISABLE_NVLS=1), for every team and address. */
MORI_NVSHMEMI_HOSTDEV void* nvshmemx_mc_ptr(nvshmem_team_t team, const void* ptr) {
  (void)team;
  (void)ptr;
  return NULL;
}

/* The vendor's version: mori-shmem's (nvshmem_info_get_name names it). */
MORI_NVSHMEMI_HOSTDEV void nvshmemx_vendor_get_version_info(int* major, int* minor, int* patch) {
  *major = MORI_SHMEM_VERSION_MAJOR;
  *minor = MORI_SHMEM_VERSION_MINOR;
  *patch = MORI_SHMEM_VERSION_PATCH;
}

MORI_NVSHMEMI_HOSTDEV void nvshmem_info_get_version(int* major, int* minor) {
  *major = NVSHMEM_MAJOR_VERSION;
  *minor = NVSHMEM_MINOR_VERSION;
}
MORI_NVSHMEMI_HOSTDEV void nvshmem_info_get_name(char* name) {
  const char* v = NVSHMEM_VENDOR_STRING;
  int i = 0;
  for (; i < NVSHMEM_MAX_NAME_LEN - 1 && v[i] != '\0'; ++i) name[i] = v[i];
  name[i] = '\0';
}

MORI_NVSHMEMI_HOSTDEV void nvshmem_quiet(void) {
  MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_quiet(), mori_shmem_quiet());
}
MORI_NVSHMEMI_HOSTDEV void nvshmem_fence(void) {
  MORI_NVSHMEMI_HOST_OR_DEVICE(mori_shmem_host_fence(), mori_shmem_fence());
}
#undef MORI_NVSHMEMI_HOST_RMA_BYTES
#undef MORI_NVSHMEMI_HOST_RMA_TYPED
#undef MORI_NVSHMEMI_HOST_RMA_ONE

/* Collectives on a stream (host code of every compiler): nvshmemx_<T>_broadcast / fcollect /
 * alltoall_on_stream, nvshmemx_<T>_<op>_reduce / reducescatter_on_stream (half and bfloat16 where
 * C++ can name them: mori/shmem.h). */
#define MORI_NVSHMEMI_STREAM_COLL(NAME, T)                                                                     \
  static inline int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t t, T* d, const T* s, size_t n, int r, \
                                                          mori_shmem_stream_t st) {                            \
    return mori_shmem_##NAME##_broadcast_on_stream(t, d, s, n, r, st);                                         \
  }                                                                                                            \
  static inline int nvshmemx_##NAME##_fcollect_on_stream(nvshmem_team_t t, T* d, const T* s, size_t n,         \
                                                         mori_shmem_stream_t st) {                             \
    return mori_shmem_##NAME##_fcollect_on_stream(t, d, s, n, st);                                             \
  }                                                                                                            \
  static inline int nvshmemx_##NAME##_alltoall_on_stream(nvshmem_team_t t, T* d, const T* s, size_t n,         \
                                                         mori_shmem_stream_t st) {                             \
    return mori_shmem_##NAME##_alltoall_on_stream(t, d, s, n, st);                                             \
  }
MORI_SHMEM_COLL_TYPES(MORI_NVSHMEMI_STREAM_COLL)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_STREAM_COLL)
#endif
#undef MORI_NVSHMEMI_STREAM_COLL
#define nvshmemx_broadcastmem_on_stream mori_shmem_broadcastmem_on_stream
#define nvshmemx_fcollectmem_on_stream mori_shmem_fcollectmem_on_stream
#define nvshmemx_alltoallmem_on_stream mori_shmem_alltoallmem_on_stream
#define MORI_NVSHMEMI_STREAM_REDUCE_KIND(KIND, NAME, T, DT, OPNAME, OP)                                           \
  static inline int nvshmemx_##NAME##_##OPNAME##_##KIND##_on_stream(nvshmem_team_t t, T* d, const T* s, size_t n, \
                                                                    mori_shmem_stream_t st) {                     \
    return mori_shmem_##NAME##_##OPNAME##_##KIND##_on_stream(t, d, s, n, st);                                     \
  }
#define MORI_NVSHMEMI_STREAM_REDUCE(NAME, T, DT, OPNAME, OP)        \
  MORI_NVSHMEMI_STREAM_REDUCE_KIND(reduce, NAME, T, DT, OPNAME, OP) \
  MORI_NVSHMEMI_STREAM_REDUCE_KIND(reducescatter, NAME, T, DT, OPNAME, OP)
#define MORI_NVSHMEMI_STREAM_REDUCE_INT(NAME, T, DT)                    \
  MORI_SHMEM_REDUCE_ARITH_OPS(MORI_NVSHMEMI_STREAM_REDUCE, NAME, T, DT) \
  MORI_SHMEM_REDUCE_BIT_OPS(MORI_NVSHMEMI_STREAM_REDUCE, NAME, T, DT)
#define MORI_NVSHMEMI_STREAM_REDUCE_FLOAT(NAME, T, DT) \
  MORI_SHMEM_REDUCE_ARITH_OPS(MORI_NVSHMEMI_STREAM_REDUCE, NAME, T, DT)
MORI_SHMEM_REDUCE_INT_TYPES(MORI_NVSHMEMI_STREAM_REDUCE_INT)
MORI_SHMEM_REDUCE_FLOAT_TYPES(MORI_NVSHMEMI_STREAM_REDUCE_FLOAT)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_REDUCE_HALF_TYPES(MORI_NVSHMEMI_STREAM_REDUCE_FLOAT)
#endif
#undef MORI_NVSHMEMI_STREAM_REDUCE_FLOAT
#undef MORI_NVSHMEMI_STREAM_REDUCE_INT
#undef MORI_NVSHMEMI_STREAM_REDUCE
#undef MORI_NVSHMEMI_STREAM_REDUCE_KIND

#if defined(__CUDACC__) || defined(__HIPCC__)
/* dim3, cudaStream_t / hipStream_t: as NVSHMEM declares them (mori/shmem.h's own forms are C). */
static inline int nvshmemx_collective_launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                             mori_shmem_stream_t stream) {
  return mori_shmem_collective_launch(func, mori_shmem_dim3_t{grid.x, grid.y, grid.z},
                                      mori_shmem_dim3_t{block.x, block.y, block.z}, args, shared_mem, stream);
}
static inline int nvshmemx_collective_launch_query_gridsize(const void* func, dim3 block, void** args,
                                                            size_t shared_mem, int* grid_size) {
  return mori_shmem_collective_launch_query_gridsize(func, mori_shmem_dim3_t{block.x, block.y, block.z}, args,
                                                     shared_mem, grid_size);
}
#endif

/* ---- names outside the subset: a use fails to compile, naming the call ----------------------- */
#ifdef __cplusplus
template <typename... A>
struct mori_nvshmem_unsupported {
  static constexpr bool value = false;
};
#if defined(__CUDACC__) || defined(__HIPCC__)
#define MORI_NVSHMEMI_HD __host__ __device__
#else
#define MORI_NVSHMEMI_HD
#endif
#define MORI_NVSHMEM_UNSUPPORTED(NAME)                                                              \
  template <typename... A>                                                                          \
  MORI_NVSHMEMI_HD inline int NAME(A...) {                                                          \
    static_assert(mori_nvshmem_unsupported<A...>::value,                                            \
                  #NAME " is not in mori-shmem's NVSHMEM subset (see mori/nvshmem.h for what is)"); \
    return 0;                                                                                       \
  }
#define MORI_NVSHMEMI_REFUSE_CONSTANT(NAME)                                                         \
  template <typename... A>                                                                          \
  MORI_NVSHMEMI_HD constexpr int mori_nvshmemi_constant_##NAME(A...) {                              \
    static_assert(mori_nvshmem_unsupported<A...>::value,                                            \
                  #NAME " is not in mori-shmem's NVSHMEM subset (see mori/nvshmem.h for what is)"); \
    return 0;                                                                                       \
  }
#else
/* C (host code): a refused name is a function whose error attribute (GCC, Clang) fails a call
 * with the same message. Its prototype takes a pointer and anything after it, so that no call is
 * converted on the way (Clang 14 drops the attribute from a call through a cast); a call whose
 * arguments do not fit it fails too, naming the function. */
#define MORI_NVSHMEM_UNSUPPORTED(NAME) \
  int NAME(const volatile void*, ...)  \
      __attribute__((error(#NAME " is not in mori-shmem's NVSHMEM subset (see mori/nvshmem.h for what is)")));
#define MORI_NVSHMEMI_REFUSE_CONSTANT(NAME) \
  int mori_nvshmemi_constant_##NAME(void)   \
      __attribute__((error(#NAME " is not in mori-shmem's NVSHMEM subset (see mori/nvshmem.h for what is)")));
#endif
// Contexts, buffer registration (local and symmetric), NVSHMEM's explicit QPs, teams from a PE
// list, warpgroup scope, maxloc.
MORI_NVSHMEM_UNSUPPORTED(nvshmem_ctx_create)
MORI_NVSHMEM_UNSUPPORTED(nvshmem_ctx_destroy)
MORI_NVSHMEM_UNSUPPORTED(nvshmem_team_create_ctx)
MORI_NVSHMEM_UNSUPPORTED(nvshmem_ctx_get_team)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_buffer_register)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_buffer_unregister)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_buffer_unregister_all)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_buffer_register_symmetric)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_buffer_unregister_symmetric)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_init_init_attr_ver_only)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_team_init)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_team_get_uniqueid)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_barrier_warpgroup)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_double2_maxloc_reduce_block)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_create)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_signal_op)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_quiet)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_quiet_warp)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_quiet_block)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_fence)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_fence_warp)
MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_fence_block)
#define MORI_NVSHMEMI_REFUSE_QP_SCOPE(NAME, SUFFIX)                     \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_put##SUFFIX)            \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_put_nbi##SUFFIX)        \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_put_signal##SUFFIX)     \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_put_signal_nbi##SUFFIX) \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_get##SUFFIX)            \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_get_nbi##SUFFIX)
#define MORI_NVSHMEMI_REFUSE_QP(NAME, T)           \
  MORI_NVSHMEMI_REFUSE_QP_SCOPE(NAME, )            \
  MORI_NVSHMEMI_REFUSE_QP_SCOPE(NAME, _warp)       \
  MORI_NVSHMEMI_REFUSE_QP_SCOPE(NAME, _block)      \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_p) \
  MORI_NVSHMEM_UNSUPPORTED(nvshmemx_qp_##NAME##_g)
MORI_SHMEM_RMA_TYPES(MORI_NVSHMEMI_REFUSE_QP)
MORI_NVSHMEMI_REFUSE_QP(half, )
MORI_NVSHMEMI_REFUSE_QP(bfloat16, )
#undef MORI_NVSHMEMI_REFUSE_QP
#undef MORI_NVSHMEMI_REFUSE_QP_SCOPE
// Constants outside the subset: a use is a call of a refused function named after the constant.
// The error codes NVSHMEM's GPU selection and collective launch return (no counterpart: mori's
// collective launch returns INVALID_USAGE or SYSTEM, naming why), init flags for OpenSHMEM interop
// and NVSHMEM's legacy thread PEs, the initialisers of NVSHMEM's nested init-argument structs
// (mori's attr has none), the explicit QPs' PE and QP selectors, and teams from a unique ID.
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_ERROR_GPU_NOT_SELECTED)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_INIT_THREAD_PES)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_INIT_WITH_SHMEM)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_INIT_MAX)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_INIT_ARGS_INITIALIZER)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_INIT_ARGS_V2_INITIALIZER)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_UNIQUEID_ARGS_INITIALIZER)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_PE_ALL)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_PE_ANY)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_QP_ALL)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_QP_ANY)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_QP_DEFAULT)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEMX_QP_HOST)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEM_TEAM_UNIQUID_INITIALIZER)
MORI_NVSHMEMI_REFUSE_CONSTANT(NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID)
#undef MORI_NVSHMEMI_REFUSE_CONSTANT
#define NVSHMEMX_ERROR_GPU_NOT_SELECTED mori_nvshmemi_constant_NVSHMEMX_ERROR_GPU_NOT_SELECTED()
#define NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED mori_nvshmemi_constant_NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED()
#define NVSHMEMX_INIT_THREAD_PES mori_nvshmemi_constant_NVSHMEMX_INIT_THREAD_PES()
#define NVSHMEMX_INIT_WITH_SHMEM mori_nvshmemi_constant_NVSHMEMX_INIT_WITH_SHMEM()
#define NVSHMEMX_INIT_MAX mori_nvshmemi_constant_NVSHMEMX_INIT_MAX()
#define NVSHMEMX_INIT_ARGS_INITIALIZER mori_nvshmemi_constant_NVSHMEMX_INIT_ARGS_INITIALIZER()
#define NVSHMEMX_INIT_ARGS_V2_INITIALIZER mori_nvshmemi_constant_NVSHMEMX_INIT_ARGS_V2_INITIALIZER()
#define NVSHMEMX_UNIQUEID_ARGS_INITIALIZER mori_nvshmemi_constant_NVSHMEMX_UNIQUEID_ARGS_INITIALIZER()
#define NVSHMEMX_PE_ALL mori_nvshmemi_constant_NVSHMEMX_PE_ALL()
#define NVSHMEMX_PE_ANY mori_nvshmemi_constant_NVSHMEMX_PE_ANY()
#define NVSHMEMX_QP_ALL mori_nvshmemi_constant_NVSHMEMX_QP_ALL()
#define NVSHMEMX_QP_ANY mori_nvshmemi_constant_NVSHMEMX_QP_ANY()
#define NVSHMEMX_QP_DEFAULT mori_nvshmemi_constant_NVSHMEMX_QP_DEFAULT()
#define NVSHMEMX_QP_HOST mori_nvshmemi_constant_NVSHMEMX_QP_HOST()
#define NVSHMEM_TEAM_UNIQUID_INITIALIZER mori_nvshmemi_constant_NVSHMEM_TEAM_UNIQUID_INITIALIZER()
#define NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID mori_nvshmemi_constant_NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID()
#undef MORI_NVSHMEM_UNSUPPORTED

/* Host collectives: blocking forms have NVSHMEM's thread-scope device names, so where the device
 * API is declared they are host-and-device functions (below); elsewhere these. */
#if !MORI_SHMEM_WITH_DEVICE_API
#define nvshmem_barrier_all mori_shmem_barrier_all
static inline int nvshmem_sync_all(void) { return mori_shmem_team_sync(MORI_SHMEM_TEAM_WORLD); }
#define nvshmem_barrier mori_shmem_barrier
#define nvshmem_team_sync mori_shmem_team_sync
#define nvshmem_broadcastmem mori_shmem_broadcastmem
#define nvshmem_fcollectmem mori_shmem_fcollectmem
#define nvshmem_alltoallmem mori_shmem_alltoallmem
#define MORI_NVSHMEMI_HOST_COLL(NAME, T)                                                                    \
  static inline int nvshmem_##NAME##_broadcast(nvshmem_team_t team, T* d, const T* s, size_t n, int root) { \
    return mori_shmem_##NAME##_broadcast(team, d, s, n, root);                                              \
  }                                                                                                         \
  static inline int nvshmem_##NAME##_fcollect(nvshmem_team_t team, T* d, const T* s, size_t n) {            \
    return mori_shmem_##NAME##_fcollect(team, d, s, n);                                                     \
  }                                                                                                         \
  static inline int nvshmem_##NAME##_alltoall(nvshmem_team_t team, T* d, const T* s, size_t n) {            \
    return mori_shmem_##NAME##_alltoall(team, d, s, n);                                                     \
  }
MORI_SHMEM_COLL_TYPES(MORI_NVSHMEMI_HOST_COLL)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_RMA_HALF_TYPES(MORI_NVSHMEMI_HOST_COLL)
#endif
#undef MORI_NVSHMEMI_HOST_COLL
#define MORI_NVSHMEMI_HOST_REDUCE(NAME, T, DT, OPNAME, OP)                                                       \
  static inline int nvshmem_##NAME##_##OPNAME##_reduce(nvshmem_team_t team, T* d, const T* s, size_t n) {        \
    return mori_shmem_##NAME##_##OPNAME##_reduce(team, d, s, n);                                                 \
  }                                                                                                              \
  static inline int nvshmem_##NAME##_##OPNAME##_reducescatter(nvshmem_team_t team, T* d, const T* s, size_t n) { \
    return mori_shmem_##NAME##_##OPNAME##_reducescatter(team, d, s, n);                                          \
  }
#define MORI_NVSHMEMI_HOST_REDUCE_INT(NAME, T, DT)                    \
  MORI_SHMEM_REDUCE_ARITH_OPS(MORI_NVSHMEMI_HOST_REDUCE, NAME, T, DT) \
  MORI_SHMEM_REDUCE_BIT_OPS(MORI_NVSHMEMI_HOST_REDUCE, NAME, T, DT)
#define MORI_NVSHMEMI_HOST_REDUCE_FLOAT(NAME, T, DT) MORI_SHMEM_REDUCE_ARITH_OPS(MORI_NVSHMEMI_HOST_REDUCE, NAME, T, DT)
MORI_SHMEM_REDUCE_INT_TYPES(MORI_NVSHMEMI_HOST_REDUCE_INT)
MORI_SHMEM_REDUCE_FLOAT_TYPES(MORI_NVSHMEMI_HOST_REDUCE_FLOAT)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_REDUCE_HALF_TYPES(MORI_NVSHMEMI_HOST_REDUCE_FLOAT)
#endif
#else
#include "mori/shmem/compat/nvshmem_device.hpp"
#endif

#endif /* MORI_NVSHMEM_H */
