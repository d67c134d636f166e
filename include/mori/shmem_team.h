/*
 * mori-shmem teams and collectives, host API (C). Included by mori/shmem.h; the device forms
 * (thread/warp/block scope) are in mori/shmem/team/device_api.hpp, included by mori/shmem_device.h.
 *
 * Teams: MORI_SHMEM_TEAM_WORLD (every PE), _NODE (the PEs of this host, ordered by world PE),
 * _SHARED (the PEs that reach each other by load/store: the node when every pair of its PEs is
 * P2P-connected, else this PE alone) and _SAME_MYPE_NODE (below) exist from init to finalize.
 * Teams split from a parent are strided subsets of it. A handle is valid on the PEs that are
 * members; at most 32 teams exist at once (the four predefined ones included): their sync areas
 * are preallocated in the symmetric heap at init (about 386 KiB + 72 B per PE each).
 *
 * Creation (split_strided, split_2d) is collective over the parent: every parent PE calls it with
 * the same arguments; they are exchanged and checked on every PE, and a disagreement or an invalid
 * argument fails the call on every PE with the same message. PEs outside the new team receive
 * MORI_SHMEM_TEAM_INVALID. destroy is collective over the team.
 *
 * Collectives: every member of the team calls, with the same arguments (root, counts) and, for the
 * device forms, at the same scope; at most one collective runs on a team at a time (per PE). dest
 * and source are symmetric (heap or registered). Blocking forms return when the operation is
 * complete on this PE (dest written, source reusable); _on_stream forms enqueue it on `stream` and
 * return. Reductions combine the members' values in team-PE order (0, 1, ..., n-1), so every PE
 * gets bitwise the same result; dest may equal source. reducescatter: source holds n pieces of
 * nreduce elements and team PE i's dest (nreduce elements) gets piece i of the reduction, bitwise
 * as reduce computes it; dest is apart from the whole source or is this PE's own piece (in place).
 * broadcast also writes the root's dest.
 * Broadcasts of at most 16 KiB and fcollect, alltoall and reductions of at most 8 KiB per member
 * (a reducescatter's piece) from a wave or block, 128 B from one thread (all members' data
 * together within 16 KiB; a broadcast's root's data in teams of up to 2048), move in one step: each member stores its
 * data, tagged with the call, into the others' team areas (by RDMA writes to RDMA peers) and copies (or combines) what
 * it receives into dest. A block's fcollect and alltoall of up to 64 KiB for all members together, and its broadcast of
 * up to 64 KiB (teams of up to 32), go the same way untagged: puts into the others' team areas, an arrival word each, a
 * copy into dest. Otherwise fcollect and alltoall put each member's data into the others' dest (stores over P2P, RDMA
 * writes to RDMA peers), from the moment every member has entered the call (with MORI_SHMEM_COLLECTIVE_ENTRY=caller at
 * once: the caller has made every member's dest ready before any member calls, as OpenSHMEM and NVSHMEM require);
 * broadcast, collect and reductions load from the peers' copies over P2P and get from RDMA peers, with the same
 * results. team_sync is arrival only: it orders no memory (use barrier).
 */
#ifndef MORI_SHMEM_TEAM_H
#define MORI_SHMEM_TEAM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "mori/shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MORI_SHMEM_TEAM_SHARED ((mori_shmem_team_t)2)
/* NVSHMEM's TEAM_SAME_MYPE_NODE: one PE per host, the one whose index on its host (in world
 * order) is this PE's, in world order; on one host, this PE alone. */
#define MORI_SHMEM_TEAM_SAME_MYPE_NODE ((mori_shmem_team_t)3)
#define MORI_SHMEM_MAX_TEAMS 32

/* Team configuration (NVSHMEM's nvshmem_team_config_t shape). Fields are read only where
 * config_mask names them; num_contexts is accepted for compatibility (contexts are not
 * implemented: a value other than 0 fails as NOT_SUPPORTED). */
#define MORI_SHMEM_TEAM_CONFIG_VERSION 1
#define MORI_SHMEM_TEAM_NUM_CONTEXTS 0x1L
typedef struct mori_shmem_team_config {
  int version; /* MORI_SHMEM_TEAM_CONFIG_VERSION */
  int num_contexts;
  char padding[56];
} mori_shmem_team_config_t;
#define MORI_SHMEM_TEAM_CONFIG_INITIALIZER   \
  {                                          \
    MORI_SHMEM_TEAM_CONFIG_VERSION, 0, { 0 } \
  }

/* New team of parent PEs start, start+stride, ..., start+(size-1)*stride (parent numbering):
 * size >= 1, stride >= 1 (any when size is 1), all inside the parent. config may be NULL (defaults).
 * Returns 0 and *new_team (MORI_SHMEM_TEAM_INVALID on non-members), or a negative status on every
 * parent PE. */
int mori_shmem_team_split_strided(mori_shmem_team_t parent, int start, int stride, int size,
                                  const mori_shmem_team_config_t* config, long config_mask,
                                  mori_shmem_team_t* new_team);
/* The parent as a 2-D grid of xrange columns (row-major in parent numbering; xrange > parent size
 * means one row): *xteam is this PE's row, *yteam its column. */
int mori_shmem_team_split_2d(mori_shmem_team_t parent, int xrange, const mori_shmem_team_config_t* xconfig,
                             long xconfig_mask, mori_shmem_team_t* xteam, const mori_shmem_team_config_t* yconfig,
                             long yconfig_mask, mori_shmem_team_t* yteam);
/* Collective over the team (a team sync first); predefined teams and INVALID are refused. */
int mori_shmem_team_destroy(mori_shmem_team_t team);
/* The configuration the team was created with (fields named by config_mask). */
int mori_shmem_team_get_config(mori_shmem_team_t team, long config_mask, mori_shmem_team_config_t* config);
/* Copies the team's device value (mori_shmem_team_device_t in C++, bytes == its size) for use as
 * a kernel argument: device collectives then need no table lookup. */
int mori_shmemi_team_device(mori_shmem_team_t team, void* out, size_t bytes);

int mori_shmemi_team_my_pe(mori_shmem_team_t team);
int mori_shmemi_team_n_pes(mori_shmem_team_t team);
int mori_shmemi_team_translate_pe(mori_shmem_team_t src_team, int src_pe, mori_shmem_team_t dest_team);

/* ---- collectives from the host ---------------------------------------------------------------
 * barrier: quiet (this PE's outstanding device operations complete) + sync; sync: arrival only. */
int mori_shmem_barrier(mori_shmem_team_t team);
int mori_shmem_team_sync(mori_shmem_team_t team);
int mori_shmem_barrier_on_stream(mori_shmem_team_t team, mori_shmem_stream_t stream);
int mori_shmem_team_sync_on_stream(mori_shmem_team_t team, mori_shmem_stream_t stream);

/* Element types of reductions (dtype of mori_shmemi_collective). */
typedef enum mori_shmem_dtype {
  MORI_SHMEM_DTYPE_INT8 = 1,
  MORI_SHMEM_DTYPE_INT16,
  MORI_SHMEM_DTYPE_INT32,
  MORI_SHMEM_DTYPE_INT64,
  MORI_SHMEM_DTYPE_UINT8,
  MORI_SHMEM_DTYPE_UINT16,
  MORI_SHMEM_DTYPE_UINT32,
  MORI_SHMEM_DTYPE_UINT64,
  MORI_SHMEM_DTYPE_FLOAT,
  MORI_SHMEM_DTYPE_DOUBLE,
  MORI_SHMEM_DTYPE_HALF,
  MORI_SHMEM_DTYPE_BFLOAT16
} mori_shmem_dtype_t;
typedef enum mori_shmem_reduce_op {
  MORI_SHMEM_REDUCE_SUM = 0,
  MORI_SHMEM_REDUCE_PROD,
  MORI_SHMEM_REDUCE_MIN,
  MORI_SHMEM_REDUCE_MAX,
  MORI_SHMEM_REDUCE_AND,
  MORI_SHMEM_REDUCE_OR,
  MORI_SHMEM_REDUCE_XOR
} mori_shmem_reduce_op_t;
typedef enum mori_shmem_collective {
  MORI_SHMEM_COLL_BROADCAST = 1, /* root: team PE of the source */
  MORI_SHMEM_COLL_FCOLLECT,      /* every PE contributes nelems; dest holds n*nelems */
  MORI_SHMEM_COLL_COLLECT,       /* nelems may differ between PEs; concatenated in team order */
  MORI_SHMEM_COLL_ALLTOALL,      /* block j of source goes to PE j's block <me> */
  MORI_SHMEM_COLL_REDUCE,        /* dtype, op */
  MORI_SHMEM_COLL_REDUCESCATTER  /* dtype, op; source holds n * nelems, dest nelems */
} mori_shmem_collective_t;

/* One entry point behind every typed host collective below: elem_bytes per element, stream NULL
 * means the legacy default stream; blocking 1 waits for completion. Checks: team live on this PE,
 * root in the team, dest/source symmetric and large enough, op valid for dtype; a failed check
 * returns INVALID_USAGE naming the PE and the argument, enqueues nothing. */
int mori_shmemi_collective(int kind, mori_shmem_team_t team, void* dest, const void* source, size_t nelems,
                           size_t elem_bytes, int root, int dtype, int op, mori_shmem_stream_t stream, int blocking);

#define MORI_SHMEMI_COLL_HOST_BYTES(NAME, KIND)                                                                    \
  static inline int mori_shmem_##NAME##mem(mori_shmem_team_t team, void* dest, const void* source, size_t bytes) { \
    return mori_shmemi_collective(KIND, team, dest, source, bytes, 1, 0, 0, 0, NULL, 1);                           \
  }                                                                                                                \
  static inline int mori_shmem_##NAME##mem_on_stream(mori_shmem_team_t team, void* dest, const void* source,       \
                                                     size_t bytes, mori_shmem_stream_t stream) {                   \
    return mori_shmemi_collective(KIND, team, dest, source, bytes, 1, 0, 0, 0, stream, 0);                         \
  }
MORI_SHMEMI_COLL_HOST_BYTES(fcollect, MORI_SHMEM_COLL_FCOLLECT)
MORI_SHMEMI_COLL_HOST_BYTES(collect, MORI_SHMEM_COLL_COLLECT)
MORI_SHMEMI_COLL_HOST_BYTES(alltoall, MORI_SHMEM_COLL_ALLTOALL)
static inline int mori_shmem_broadcastmem(mori_shmem_team_t team, void* dest, const void* source, size_t bytes,
                                          int root) {
  return mori_shmemi_collective(MORI_SHMEM_COLL_BROADCAST, team, dest, source, bytes, 1, root, 0, 0, NULL, 1);
}
static inline int mori_shmem_broadcastmem_on_stream(mori_shmem_team_t team, void* dest, const void* source,
                                                    size_t bytes, int root, mori_shmem_stream_t stream) {
  return mori_shmemi_collective(MORI_SHMEM_COLL_BROADCAST, team, dest, source, bytes, 1, root, 0, 0, stream, 0);
}

/* Element types of broadcast/fcollect/collect/alltoall (the RMA types of the device API). */
/* clang-format off */
#define MORI_SHMEM_COLL_TYPES(X)                                                                                 \
  X(float, float)                                                                                                \
  X(double, double)                                                                                              \
  X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long) X(longlong, long long)           \
      X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)            \
          X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) \
              X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)      \
                  X(ptrdiff, ptrdiff_t)
/* clang-format on */

/* Reduction element types: (name, type, dtype code). Integers take every op (char as signed or
 * unsigned, as the compiler's char is); floating types sum, prod, min, max; half and bfloat16
 * (MORI_SHMEM_REDUCE_HALF_TYPES, mori/shmem.h) where C++ can name them. */
#define MORI_SHMEMI_DT_INT(T)                \
  (sizeof(T) == 1   ? MORI_SHMEM_DTYPE_INT8  \
   : sizeof(T) == 2 ? MORI_SHMEM_DTYPE_INT16 \
   : sizeof(T) == 4 ? MORI_SHMEM_DTYPE_INT32 \
                    : MORI_SHMEM_DTYPE_INT64)
#define MORI_SHMEMI_DT_UINT(T)                \
  (sizeof(T) == 1   ? MORI_SHMEM_DTYPE_UINT8  \
   : sizeof(T) == 2 ? MORI_SHMEM_DTYPE_UINT16 \
   : sizeof(T) == 4 ? MORI_SHMEM_DTYPE_UINT32 \
                    : MORI_SHMEM_DTYPE_UINT64)
/* Any integer type: signed or not as T is (unsigned: 0 - 1 wraps above 0; written so that no
 * compiler sees an unsigned value compared below 0). */
#define MORI_SHMEMI_DT_INTEGER(T) ((T)((T)0 - 1) > (T)0 ? MORI_SHMEMI_DT_UINT(T) : MORI_SHMEMI_DT_INT(T))
/* clang-format off */
#define MORI_SHMEM_REDUCE_INT_TYPES(X)                                                                           \
  X(char, char, (CHAR_MIN < 0 ? MORI_SHMEMI_DT_INT(char) : MORI_SHMEMI_DT_UINT(char)))                           \
  X(schar, signed char, MORI_SHMEMI_DT_INT(signed char))                                                         \
  X(short, short, MORI_SHMEMI_DT_INT(short))                                                                     \
  X(int, int, MORI_SHMEMI_DT_INT(int)) X(long, long, MORI_SHMEMI_DT_INT(long))                                   \
      X(longlong, long long, MORI_SHMEMI_DT_INT(long long)) X(ptrdiff, ptrdiff_t, MORI_SHMEMI_DT_INT(ptrdiff_t)) \
          X(int8, int8_t, MORI_SHMEM_DTYPE_INT8) X(int16, int16_t, MORI_SHMEM_DTYPE_INT16)                       \
              X(int32, int32_t, MORI_SHMEM_DTYPE_INT32) X(int64, int64_t, MORI_SHMEM_DTYPE_INT64)                \
                  X(uchar, unsigned char, MORI_SHMEMI_DT_UINT(unsigned char))                                    \
                      X(ushort, unsigned short, MORI_SHMEMI_DT_UINT(unsigned short))                             \
                          X(uint, unsigned int, MORI_SHMEMI_DT_UINT(unsigned int))                               \
                              X(ulong, unsigned long, MORI_SHMEMI_DT_UINT(unsigned long))                        \
                                  X(ulonglong, unsigned long long, MORI_SHMEMI_DT_UINT(unsigned long long))      \
                                      X(size, size_t, MORI_SHMEMI_DT_UINT(size_t))                               \
                                          X(uint8, uint8_t, MORI_SHMEM_DTYPE_UINT8)                              \
                                              X(uint16, uint16_t, MORI_SHMEM_DTYPE_UINT16)                       \
                                                  X(uint32, uint32_t, MORI_SHMEM_DTYPE_UINT32)                   \
                                                      X(uint64, uint64_t, MORI_SHMEM_DTYPE_UINT64)
/* clang-format on */
#define MORI_SHMEM_REDUCE_FLOAT_TYPES(X) \
  X(float, float, MORI_SHMEM_DTYPE_FLOAT) X(double, double, MORI_SHMEM_DTYPE_DOUBLE)
#define MORI_SHMEM_REDUCE_ARITH_OPS(X, NAME, T, DT) \
  X(NAME, T, DT, sum, MORI_SHMEM_REDUCE_SUM)        \
  X(NAME, T, DT, prod, MORI_SHMEM_REDUCE_PROD)      \
  X(NAME, T, DT, min, MORI_SHMEM_REDUCE_MIN) X(NAME, T, DT, max, MORI_SHMEM_REDUCE_MAX)
#define MORI_SHMEM_REDUCE_BIT_OPS(X, NAME, T, DT) \
  X(NAME, T, DT, and, MORI_SHMEM_REDUCE_AND)      \
  X(NAME, T, DT, or, MORI_SHMEM_REDUCE_OR) X(NAME, T, DT, xor, MORI_SHMEM_REDUCE_XOR)

#define MORI_SHMEMI_COLL_HOST_TYPED(NAME, T)                                                                           \
  static inline int mori_shmem_##NAME##_broadcast(mori_shmem_team_t team, T* dest, const T* source, size_t nelems,     \
                                                  int root) {                                                          \
    return mori_shmemi_collective(MORI_SHMEM_COLL_BROADCAST, team, dest, source, nelems, sizeof(T), root, 0, 0, NULL,  \
                                  1);                                                                                  \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_broadcast_on_stream(mori_shmem_team_t team, T* dest, const T* source,          \
                                                            size_t nelems, int root, mori_shmem_stream_t stream) {     \
    return mori_shmemi_collective(MORI_SHMEM_COLL_BROADCAST, team, dest, source, nelems, sizeof(T), root, 0, 0,        \
                                  stream, 0);                                                                          \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_fcollect(mori_shmem_team_t team, T* dest, const T* source, size_t nelems) {    \
    return mori_shmemi_collective(MORI_SHMEM_COLL_FCOLLECT, team, dest, source, nelems, sizeof(T), 0, 0, 0, NULL, 1);  \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_fcollect_on_stream(mori_shmem_team_t team, T* dest, const T* source,           \
                                                           size_t nelems, mori_shmem_stream_t stream) {                \
    return mori_shmemi_collective(MORI_SHMEM_COLL_FCOLLECT, team, dest, source, nelems, sizeof(T), 0, 0, 0, stream,    \
                                  0);                                                                                  \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_collect(mori_shmem_team_t team, T* dest, const T* source, size_t nelems) {     \
    return mori_shmemi_collective(MORI_SHMEM_COLL_COLLECT, team, dest, source, nelems, sizeof(T), 0, 0, 0, NULL, 1);   \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_collect_on_stream(mori_shmem_team_t team, T* dest, const T* source,            \
                                                          size_t nelems, mori_shmem_stream_t stream) {                 \
    return mori_shmemi_collective(MORI_SHMEM_COLL_COLLECT, team, dest, source, nelems, sizeof(T), 0, 0, 0, stream, 0); \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_alltoall(mori_shmem_team_t team, T* dest, const T* source, size_t nelems) {    \
    return mori_shmemi_collective(MORI_SHMEM_COLL_ALLTOALL, team, dest, source, nelems, sizeof(T), 0, 0, 0, NULL, 1);  \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_alltoall_on_stream(mori_shmem_team_t team, T* dest, const T* source,           \
                                                           size_t nelems, mori_shmem_stream_t stream) {                \
    return mori_shmemi_collective(MORI_SHMEM_COLL_ALLTOALL, team, dest, source, nelems, sizeof(T), 0, 0, 0, stream,    \
                                  0);                                                                                  \
  }
MORI_SHMEM_COLL_TYPES(MORI_SHMEMI_COLL_HOST_TYPED)

#define MORI_SHMEMI_REDUCE_HOST(NAME, T, DT, OPNAME, OP)                                                               \
  static inline int mori_shmem_##NAME##_##OPNAME##_reduce(mori_shmem_team_t team, T* dest, const T* source,            \
                                                          size_t nreduce) {                                            \
    return mori_shmemi_collective(MORI_SHMEM_COLL_REDUCE, team, dest, source, nreduce, sizeof(T), 0, DT, OP, NULL, 1); \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_##OPNAME##_reduce_on_stream(mori_shmem_team_t team, T* dest, const T* source,  \
                                                                    size_t nreduce, mori_shmem_stream_t stream) {      \
    return mori_shmemi_collective(MORI_SHMEM_COLL_REDUCE, team, dest, source, nreduce, sizeof(T), 0, DT, OP, stream,   \
                                  0);                                                                                  \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_##OPNAME##_reducescatter(mori_shmem_team_t team, T* dest, const T* source,     \
                                                                 size_t nreduce) {                                     \
    return mori_shmemi_collective(MORI_SHMEM_COLL_REDUCESCATTER, team, dest, source, nreduce, sizeof(T), 0, DT, OP,    \
                                  NULL, 1);                                                                            \
  }                                                                                                                    \
  static inline int mori_shmem_##NAME##_##OPNAME##_reducescatter_on_stream(                                            \
      mori_shmem_team_t team, T* dest, const T* source, size_t nreduce, mori_shmem_stream_t stream) {                  \
    return mori_shmemi_collective(MORI_SHMEM_COLL_REDUCESCATTER, team, dest, source, nreduce, sizeof(T), 0, DT, OP,    \
                                  stream, 0);                                                                          \
  }
#define MORI_SHMEMI_REDUCE_HOST_INT(NAME, T, DT)                    \
  MORI_SHMEM_REDUCE_ARITH_OPS(MORI_SHMEMI_REDUCE_HOST, NAME, T, DT) \
  MORI_SHMEM_REDUCE_BIT_OPS(MORI_SHMEMI_REDUCE_HOST, NAME, T, DT)
#define MORI_SHMEMI_REDUCE_HOST_FLOAT(NAME, T, DT) MORI_SHMEM_REDUCE_ARITH_OPS(MORI_SHMEMI_REDUCE_HOST, NAME, T, DT)
MORI_SHMEM_REDUCE_INT_TYPES(MORI_SHMEMI_REDUCE_HOST_INT)
MORI_SHMEM_REDUCE_FLOAT_TYPES(MORI_SHMEMI_REDUCE_HOST_FLOAT)
#if MORI_SHMEM_HAS_HALF_TYPES
MORI_SHMEM_RMA_HALF_TYPES(MORI_SHMEMI_COLL_HOST_TYPED)
MORI_SHMEM_REDUCE_HALF_TYPES(MORI_SHMEMI_REDUCE_HOST_FLOAT)
#endif

#ifdef __cplusplus
}
#endif

#if MORI_SHMEM_WITH_DEVICE_API
#include "mori/shmem/team/team_queries.hpp"
#endif

#ifdef __cplusplus
#include "mori/shmem/team/team_types.hpp"
typedef mori::shmem::team::TeamDevice mori_shmem_team_device_t;
/* The team's device value for kernel arguments (size 0 when `team` is not live on this PE: the
 * device collectives then trap). It stands for the team while the team lives. */
static inline mori_shmem_team_device_t mori_shmem_team_get_device(mori_shmem_team_t team) {
  mori_shmem_team_device_t t{};
  (void)mori_shmemi_team_device(team, &t, sizeof(t));
  return t;
}
#endif

#endif /* MORI_SHMEM_TEAM_H */
