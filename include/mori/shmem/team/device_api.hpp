/*
 * mori-shmem team collectives, device API (included by mori/shmem_device.h).
 *
 * Every collective takes the team first, as a handle (mori_shmem_team_t: looked up in this PE's
 * team table, trapping with a message when it is not a live team of this PE) or as the team's
 * device value (mori_shmem_team_device_t from mori_shmem_team_get_device(), a kernel argument:
 * no lookup). Scopes as in the point-to-point API: _thread (one thread), _warp (every lane of the
 * wave), _block (every thread of the block), with identical arguments. Every member of the team
 * calls; one collective runs on a team at a time per PE. Contracts in mori/shmem_team.h.
 *
 *   mori_shmem_barrier_<scope>(team)          quiet, then sync
 *   mori_shmem_team_sync_<scope>(team)        arrival of every member (orders no memory)
 *   mori_shmem_<T>_broadcast_<scope>(team, dest, source, nelems, root)    also broadcastmem (bytes)
 *   mori_shmem_<T>_fcollect_<scope>(team, dest, source, nelems)           also fcollectmem
 *   mori_shmem_<T>_collect_<scope>(team, dest, source, nelems)            also collectmem
 *   mori_shmem_<T>_alltoall_<scope>(team, dest, source, nelems)           also alltoallmem
 *   mori_shmem_<T>_<op>_reduce_<scope>(team, dest, source, nreduce)       op: sum prod min max
 *                                                                         (integers: and or xor)
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
MORI_DEVICE_INLINE TeamDevice asTeam(mori_shmem_team_t handle) { return teamOf(handle); }
MORI_DEVICE_INLINE const TeamDevice& asTeam(const TeamDevice& t) { return t; }
}  // namespace mori::shmem::team

#define MORI_SHMEMI_TEAM_NS ::mori::shmem::team
#define MORI_SHMEMI_TEAM_SCOPES(X) X(thread, Thread) X(warp, Warp) X(block, Block)
// The team argument is a template parameter (a handle or a device value, see asTeam): nothing is
// instantiated for a name until a kernel calls it, which keeps every translation unit that
// includes the device API cheap to compile.
#define MORI_SHMEMI_TEAM_ARGS(X, ...) X(Team, __VA_ARGS__)

#define MORI_SHMEMI_TEAM_UNTYPED(TEAM, SC, S)                                                                      \
  template <typename Team>                                                                                         \
  MORI_SHMEM_DEVICE int mori_shmem_barrier_##SC(TEAM team) {                                                       \
    MORI_SHMEMI_TEAM_NS::barrier<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::asTeam(team));                       \
    return 0;                                                                                                      \
  }                                                                                                                \
  template <typename Team>                                                                                         \
  MORI_SHMEM_DEVICE int mori_shmem_team_sync_##SC(TEAM team) {                                                     \
    MORI_SHMEMI_TEAM_NS::sync<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::asTeam(team));                          \
    return 0;                                                                                                      \
  }                                                                                                                \
  template <typename Team>                                                                                         \
  MORI_SHMEM_DEVICE int mori_shmem_broadcastmem_##SC(TEAM team, void* dest, const void* source, size_t bytes,      \
                                                     int root) {                                                   \
    MORI_SHMEMI_TEAM_NS::broadcast<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::asTeam(team), dest, source, bytes, \
                                                           root);                                                  \
    return 0;                                                                                                      \
  }                                                                                                                \
  template <typename Team>                                                                                         \
  MORI_SHMEM_DEVICE int mori_shmem_fcollectmem_##SC(TEAM team, void* dest, const void* source, size_t bytes) {     \
    MORI_SHMEMI_TEAM_NS::fcollect<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::asTeam(team), dest, source, bytes); \
    return 0;                                                                                                      \
  }                                                                                                                \
  template <typename Team>                                                                                         \
  MORI_SHMEM_DEVICE int mori_shmem_collectmem_##SC(TEAM team, void* dest, const void* source, size_t bytes) {      \
    MORI_SHMEMI_TEAM_NS::collect<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::asTeam(team), dest, source, bytes);  \
    return 0;                                                                                                      \
  }                                                                                                                \
  template <typename Team>                                                                                         \
  MORI_SHMEM_DEVICE int mori_shmem_alltoallmem_##SC(TEAM team, void* dest, const void* source, size_t bytes) {     \
    MORI_SHMEMI_TEAM_NS::alltoall<MORI_SHMEMI_TEAM_NS::S>(MORI_SHMEMI_TEAM_NS::asTeam(team), dest, source, bytes); \
    return 0;                                                                                                      \
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

/* Reduction element types of the GPU compilers (half, bfloat16), with their host forms. */
typedef mori::gpu::half mori_shmem_half_t;
typedef mori::gpu::bfloat16 mori_shmem_bfloat16_t;
#define MORI_SHMEM_REDUCE_HALF_TYPES(X) \
  X(half, mori_shmem_half_t, MORI_SHMEM_DTYPE_HALF) X(bfloat16, mori_shmem_bfloat16_t, MORI_SHMEM_DTYPE_BFLOAT16)
MORI_SHMEM_REDUCE_HALF_TYPES(MORI_SHMEMI_REDUCE_HOST_FLOAT)

#define MORI_SHMEMI_TEAM_REDUCE(TEAM, NAME, T, OPNAME, OP, SC, S)                                       \
  template <typename Team>                                                                              \
  MORI_SHMEM_DEVICE int mori_shmem_##NAME##_##OPNAME##_reduce_##SC(TEAM team, T* dest, const T* source, \
                                                                   size_t nreduce) {                    \
    MORI_SHMEMI_TEAM_NS::reduce<MORI_SHMEMI_TEAM_NS::S, static_cast<MORI_SHMEMI_TEAM_NS::Op>(OP), T>(   \
        MORI_SHMEMI_TEAM_NS::asTeam(team), dest, source, nreduce);                                      \
    return 0;                                                                                           \
  }
#define MORI_SHMEMI_TEAM_REDUCE_OP(NAME, T, DT, OPNAME, OP)                           \
  MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_REDUCE, NAME, T, OPNAME, OP, thread, Thread) \
  MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_REDUCE, NAME, T, OPNAME, OP, warp, Warp)     \
  MORI_SHMEMI_TEAM_ARGS(MORI_SHMEMI_TEAM_REDUCE, NAME, T, OPNAME, OP, block, Block)
#define MORI_SHMEMI_TEAM_REDUCE_INT(NAME, T, DT)                       \
  MORI_SHMEM_REDUCE_ARITH_OPS(MORI_SHMEMI_TEAM_REDUCE_OP, NAME, T, DT) \
  MORI_SHMEM_REDUCE_BIT_OPS(MORI_SHMEMI_TEAM_REDUCE_OP, NAME, T, DT)
#define MORI_SHMEMI_TEAM_REDUCE_FLOAT(NAME, T, DT) MORI_SHMEM_REDUCE_ARITH_OPS(MORI_SHMEMI_TEAM_REDUCE_OP, NAME, T, DT)
MORI_SHMEM_REDUCE_INT_TYPES(MORI_SHMEMI_TEAM_REDUCE_INT)
MORI_SHMEM_REDUCE_FLOAT_TYPES(MORI_SHMEMI_TEAM_REDUCE_FLOAT)
MORI_SHMEM_REDUCE_HALF_TYPES(MORI_SHMEMI_TEAM_REDUCE_FLOAT)

#endif  // !MORI_SHMEM_HOST_ONLY
