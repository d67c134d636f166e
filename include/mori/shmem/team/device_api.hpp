/*
 * mori-shmem team collectives, device API (included by mori/shmem_device.h).
 *
 * Every collective takes the team first, as a handle (mori_shmem_team_t: looked up in this PE's
 * team table, trapping with a message when it is not a live team of this PE) or as the team's
 * device value (mori_shmem_team_device_t from mori_shmem_team_get_device(), a kernel argument;
 * it stands for its team while the team lives). Scopes as in the point-to-point API: _thread (one
 * thread), _warp (every lane of the wave), _block (every thread of the block), with identical
 * arguments. Every member of the team calls, at the same scope (the path a collective takes
 * depends on it, as in NVSHMEM); one collective runs on a team at a time per PE. barrier and
 * team_sync are inline (34-40 registers); the data collectives' and reductions' bodies are in the
 * device library, where a kernel that calls one takes at most 64 registers (NVIDIA), so
 * 1024-thread blocks launch (inline, a warp fcollect took 82 and a reduction up to 114).
 * Contracts in mori/shmem_team.h.
 *
 *   mori_shmem_barrier_<scope>(team)          quiet, then sync
 *   mori_shmem_team_sync_<scope>(team)        arrival of every member (orders no memory)
 *   mori_shmem_<T>_broadcast_<scope>(team, dest, source, nelems, root)    also broadcastmem (bytes)
 *   mori_shmem_<T>_fcollect_<scope>(team, dest, source, nelems)           also fcollectmem
 *   mori_shmem_<T>_collect_<scope>(team, dest, source, nelems)            also collectmem
 *   mori_shmem_<T>_alltoall_<scope>(team, dest, source, nelems)           also alltoallmem
 *   mori_shmem_<T>_<op>_reduce_<scope>(team, dest, source, nreduce)       op: sum prod min max
 *                                                                         (integers: and or xor)
 *   mori_shmem_<T>_<op>_reducescatter_<scope>(team, dest, source, nreduce)
 *                                                   source: n_pes pieces of nreduce, dest: this PE's
 *                                                   piece of the reduction (mori/shmem_team.h)
 * Collectives return 0 (int, as NVSHMEM's do).
 */
#pragma once

// Translation units built with MORI_SHMEM_HOST_ONLY see mori_shmem_ptr and the team queries as
// host functions only (mori/shmem.h): the collectives, which call them in device code, are left
// out there.
#if !defined(MORI_SHMEM_HOST_ONLY)
#include "mori/shmem/team/collectives.hpp"
#include "mori/shmem_team.h"  // the type lists and host forms (mori/shmem.h may include us first)

namespace mori::shmem::team {
// The team as the inline syncs use it: a handle's entry in this PE's table, or the value itself.
MORI_DEVICE_INLINE TeamDevice teamValue(mori_shmem_team_t handle) { return teamOf(handle); }
MORI_DEVICE_INLINE const TeamDevice& teamValue(const TeamDevice& t) { return t; }
// The team as the device library's collectives take it: a handle as it is; a value's own (the
// library reads the team's entry in this PE's table, as for a handle: a call passes one word,
// where the value itself went through the calling kernel's stack). A value stands for its team
// while the team lives; a value of no live team (mori_shmem_team_get_device failed) stops here.
MORI_DEVICE_INLINE int32_t teamHandle(mori_shmem_team_t handle) { return handle; }
MORI_DEVICE_INLINE int32_t teamHandle(const TeamDevice& t) {
  if (MORI_UNLIKELY(t.size <= 0)) failTeam(t.handle, "a team value of no live team of this PE");
  return t.handle;
}

// f(static_cast<T*>(nullptr)) for the element type T of dtype (MORI_SHMEM_DTYPE_*); `otherwise`
// for a value that names none. Host or device, as f is (nvcc checks the call per instantiation).
#if defined(__NVCC__)
#pragma nv_exec_check_disable
#endif
template <class R, class F>
MORI_HOST_DEVICE_INLINE R withDtype(int dtype, R otherwise, F&& f) {
  switch (dtype) {
    case MORI_SHMEM_DTYPE_INT8: return f(static_cast<int8_t*>(nullptr));
    case MORI_SHMEM_DTYPE_INT16: return f(static_cast<int16_t*>(nullptr));
    case MORI_SHMEM_DTYPE_INT32: return f(static_cast<int32_t*>(nullptr));
    case MORI_SHMEM_DTYPE_INT64: return f(static_cast<int64_t*>(nullptr));
    case MORI_SHMEM_DTYPE_UINT8: return f(static_cast<uint8_t*>(nullptr));
    case MORI_SHMEM_DTYPE_UINT16: return f(static_cast<uint16_t*>(nullptr));
    case MORI_SHMEM_DTYPE_UINT32: return f(static_cast<uint32_t*>(nullptr));
    case MORI_SHMEM_DTYPE_UINT64: return f(static_cast<uint64_t*>(nullptr));
    case MORI_SHMEM_DTYPE_FLOAT: return f(static_cast<float*>(nullptr));
    case MORI_SHMEM_DTYPE_DOUBLE: return f(static_cast<double*>(nullptr));
    case MORI_SHMEM_DTYPE_HALF: return f(static_cast<gpu::half*>(nullptr));
    case MORI_SHMEM_DTYPE_BFLOAT16: return f(static_cast<gpu::bfloat16*>(nullptr));
    default: return otherwise;
  }
}
}  // namespace mori::shmem::team

#define MORI_SHMEMI_TEAM_NS ::mori::shmem::team
#define MORI_SHMEMI_TEAM_SCOPES(X) X(thread, Thread) X(warp, Warp) X(block, Block)
// The team argument is a template parameter (a handle or a device value, see teamHandle): nothing is
// instantiated for a name until a kernel calls it, which keeps every translation unit that
// includes the device API cheap to compile.
#define MORI_SHMEMI_TEAM_ARGS(X, ...) X(Team, __VA_ARGS__)

#define MORI_SHMEMI_TEAM_UNTYPED(TEAM, SC, S)                                                                  \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_barrier_##SC(TEAM team) {                                                   \
    MORI_SHMEMI_TEAM_NS::barrier<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::teamValue(team));                \
    return 0;                                                                                                  \
  }                                                                                                            \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_team_sync_##SC(TEAM team) {                                                 \
    MORI_SHMEMI_TEAM_NS::sync<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::teamValue(team));                   \
    return 0;                                                                                                  \
  }                                                                                                            \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_broadcastmem_##SC(TEAM team, void* dest, const void* source, size_t bytes,  \
                                                     int root) {                                               \
    mori_shmemi_team_broadcast_##SC(MORI_SHMEMI_TEAM_NS::teamHandle(team), dest, source, bytes, root);         \
    return 0;                                                                                                  \
  }                                                                                                            \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_fcollectmem_##SC(TEAM team, void* dest, const void* source, size_t bytes) { \
    mori_shmemi_team_fcollect_##SC(MORI_SHMEMI_TEAM_NS::teamHandle(team), dest, source, bytes);                \
    return 0;                                                                                                  \
  }                                                                                                            \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_collectmem_##SC(TEAM team, void* dest, const void* source, size_t bytes) {  \
    mori_shmemi_team_collect_##SC(MORI_SHMEMI_TEAM_NS::teamHandle(team), dest, source, bytes);                 \
    return 0;                                                                                                  \
  }                                                                                                            \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_alltoallmem_##SC(TEAM team, void* dest, const void* source, size_t bytes) { \
    mori_shmemi_team_alltoall_##SC(MORI_SHMEMI_TEAM_NS::teamHandle(team), dest, source, bytes);                \
    return 0;                                                                                                  \
  }
#define MORI_SHMEMI_TEAM_UNTYPED_SCOPE(SC, S) MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_UNTYPED, SC, S)
MORI_SHMEMI_TEAM_SCOPES(MORI_SHMEMI_TEAM_UNTYPED_SCOPE)

#define MORI_SHMEMI_TEAM_TYPED(TEAM, NAME, T, SC, S)                                                            \
  template <typename Team>                                                                                      \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_broadcast_##SC(TEAM team, T* dest, const T* source, size_t nelems,  \
                                                           int root) {                                          \
    return mori_shmem_broadcastmem_##SC(team, dest, source, nelems * sizeof(T), root);                          \
  }                                                                                                             \
  template <typename Team>                                                                                      \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_fcollect_##SC(TEAM team, T* dest, const T* source, size_t nelems) { \
    return mori_shmem_fcollectmem_##SC(team, dest, source, nelems * sizeof(T));                                 \
  }                                                                                                             \
  template <typename Team>                                                                                      \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_collect_##SC(TEAM team, T* dest, const T* source, size_t nelems) {  \
    return mori_shmem_collectmem_##SC(team, dest, source, nelems * sizeof(T));                                  \
  }                                                                                                             \
  template <typename Team>                                                                                      \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_alltoall_##SC(TEAM team, T* dest, const T* source, size_t nelems) { \
    return mori_shmem_alltoallmem_##SC(team, dest, source, nelems * sizeof(T));                                 \
  }
#define MORI_SHMEMI_TEAM_TYPED_SCOPE(SC, S, NAME, T) MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_TYPED, NAME, T, SC, S)
#define MORI_SHMEMI_TEAM_TYPED_ALL(NAME, T)             \
  MORI_SHMEMI_TEAM_TYPED_SCOPE(thread, Thread, NAME, T) \
  MORI_SHMEMI_TEAM_TYPED_SCOPE(warp, Warp, NAME, T)     \
  MORI_SHMEMI_TEAM_TYPED_SCOPE(block, Block, NAME, T)
MORI_SHMEM_COLL_TYPES(MORI_SHMEMI_TEAM_TYPED_ALL)
MORI_SHMEM_RMA_HALF_TYPES(MORI_SHMEMI_TEAM_TYPED_ALL)

#define MORI_SHMEMI_TEAM_REDUCE(TEAM, NAME, T, DT, OPNAME, OP, SC)                                             \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_##OPNAME##_reduce_##SC(TEAM team, T* dest, const T* source,        \
                                                                   size_t nreduce) {                           \
    mori_shmemi_team_reduce_##SC(MORI_SHMEMI_TEAM_NS::teamHandle(team), dest, source, nreduce, DT, OP);        \
    return 0;                                                                                                  \
  }                                                                                                            \
  template <typename Team>                                                                                     \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_##OPNAME##_reducescatter_##SC(TEAM team, T* dest, const T* source, \
                                                                          size_t nreduce) {                    \
    mori_shmemi_team_reducescatter_##SC(MORI_SHMEMI_TEAM_NS::teamHandle(team), dest, source, nreduce, DT, OP); \
    return 0;                                                                                                  \
  }
#define MORI_SHMEMI_TEAM_REDUCE_OP(NAME, T, DT, OPNAME, OP)                       \
  MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_REDUCE, NAME, T, DT, OPNAME, OP, thread) \
  MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_REDUCE, NAME, T, DT, OPNAME, OP, warp)   \
  MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_REDUCE, NAME, T, DT, OPNAME, OP, block)
#define MORI_SHMEMI_TEAM_REDUCE_INT(NAME, T, DT)                       \
  MORI_SHMEM_REDUCE_ARITH_OPS(MORI_SHMEMI_TEAM_REDUCE_OP, NAME, T, DT) \
  MORI_SHMEM_REDUCE_BIT_OPS(MORI_SHMEMI_TEAM_REDUCE_OP, NAME, T, DT)
#define MORI_SHMEMI_TEAM_REDUCE_FLOAT(NAME, T, DT) MORI_SHMEM_REDUCE_ARITH_OPS(MORI_SHMEMI_TEAM_REDUCE_OP, NAME, T, DT)
MORI_SHMEM_REDUCE_INT_TYPES(MORI_SHMEMI_TEAM_REDUCE_INT)
MORI_SHMEM_REDUCE_FLOAT_TYPES(MORI_SHMEMI_TEAM_REDUCE_FLOAT)
MORI_SHMEM_REDUCE_HALF_TYPES(MORI_SHMEMI_TEAM_REDUCE_FLOAT)

#endif  // !MORI_SHMEM_HOST_ONLY
