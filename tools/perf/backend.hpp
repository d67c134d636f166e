// The SHMEM library under test, behind a dozen calls: the benchmark sources are written once
// against this adapter and compiled twice, for mori-shmem (default) and for NVSHMEM
// (MORI_PERF_BACKEND_NVSHMEM=1, NVIDIA only). Each wrapper is one call of the library's public
// API with the same meaning on both sides; nothing is emulated.
//
// Host:   initUniqueId (rank 0 creates the ID, MPI_Bcast shares it), malloc, free, myPe, nPes,
//         barrierAll, finalize, deviceError, name, version, heap-size variable.
// Device: putNbi / getNbi / get in thread, warp and block scope, p (uint64), atomics (uint64),
//         putSignalNbi and signalSet (SET), signalWaitGe, fence, quiet.
// Collectives on the world team: barrier, teamSync, int64 broadcast / fcollect / alltoall and
//         sum reductions and reducescatters (int32, int64, float, bfloat16) in thread, warp and
//         block scope, and
//         their host _on_stream forms; the host's putmem_on_stream and quiet_on_stream.
#pragma once

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include <type_traits>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/platform/half.hpp"
#include "tools/perf/perf_types.hpp"

#if MORI_PERF_BACKEND_NVSHMEM
#if !MORI_PLATFORM_NVIDIA
#error "the NVSHMEM backend of mori-shmem-perf builds on NVIDIA only"
#endif
#include <nvshmem.h>
#include <nvshmemx.h>
#else
#include "mori/shmem_device.h"
#endif

namespace mori::perf::backend {

// ---- host ----------------------------------------------------------------------------------------

#if MORI_PERF_BACKEND_NVSHMEM

inline const char* name() { return "nvshmem"; }
// Read after init: the library actually loaded, not the headers compiled against.
inline std::string version() {
  int major = 0, minor = 0, patch = 0;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}
inline const char* heapSizeVariable() { return "NVSHMEM_SYMMETRIC_SIZE"; }

// Before init: NVLink multicast stays off (NVSHMEM_DISABLE_NVLS=1, the GPU machines' rule): set when
// unset, and any other value is refused rather than overridden.
inline bool prepareEnvironment(std::string* error) {
  const char* v = getenv("NVSHMEM_DISABLE_NVLS");
  if (!v) {
    if (setenv("NVSHMEM_DISABLE_NVLS", "1", 1) == 0) return true;
    *error = "setenv(NVSHMEM_DISABLE_NVLS=1) failed";
    return false;
  }
  if (strcmp(v, "1") == 0) return true;
  *error = std::string("NVSHMEM_DISABLE_NVLS=") + v + ": NVLink multicast must stay off here; set it to 1 or unset it";
  return false;
}

// Returns 0 or the library's status; *what names the failing call.
inline int initUniqueId(MPI_Comm comm, int rank, int nranks, const char** what) {
  nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (rank == 0) {
    const int s = nvshmemx_get_uniqueid(&uid);
    if (s != 0) {
      *what = "nvshmemx_get_uniqueid";
      return s;
    }
  }
  const int m = MPI_Bcast(&uid, sizeof(uid), MPI_BYTE, 0, comm);
  if (m != MPI_SUCCESS) {
    *what = "MPI_Bcast of the unique ID";
    return m;
  }
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  int s = nvshmemx_set_attr_uniqueid_args(rank, nranks, &uid, &attr);
  if (s != 0) {
    *what = "nvshmemx_set_attr_uniqueid_args";
    return s;
  }
  s = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
  if (s != 0) *what = "nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID)";
  return s;
}
inline void* malloc(size_t bytes) { return nvshmem_malloc(bytes); }
inline void free(void* p) { nvshmem_free(p); }
inline int myPe() { return nvshmem_my_pe(); }
inline int nPes() { return nvshmem_n_pes(); }
inline int barrierAll() {
  nvshmem_barrier_all();
  return 0;
}
inline int finalize() {
  nvshmem_finalize();
  return 0;
}
// NVSHMEM keeps no device-side error record: a failed kernel shows as the GPU runtime's error.
inline bool deviceError(std::string*) { return false; }

#else  // mori-shmem

inline const char* name() { return "mori-shmem"; }
inline std::string version() {
  return std::to_string(MORI_SHMEM_VERSION_MAJOR) + "." + std::to_string(MORI_SHMEM_VERSION_MINOR) + "." +
         std::to_string(MORI_SHMEM_VERSION_PATCH);
}
inline const char* heapSizeVariable() { return "MORI_SHMEM_HEAP_SIZE"; }

// mori-shmem never uses NVLink multicast and needs no variable set before init.
inline bool prepareEnvironment(std::string*) { return true; }

inline int initUniqueId(MPI_Comm comm, int rank, int nranks, const char** what) {
  mori_shmem_uniqueid_t uid = {};
  if (rank == 0) {
    const int s = mori_shmem_get_uniqueid(&uid);
    if (s != 0) {
      *what = "mori_shmem_get_uniqueid";
      return s;
    }
  }
  const int m = MPI_Bcast(&uid, sizeof(uid), MPI_BYTE, 0, comm);
  if (m != MPI_SUCCESS) {
    *what = "MPI_Bcast of the unique ID";
    return m;
  }
  mori_shmem_init_attr_t attr = MORI_SHMEM_INIT_ATTR_INITIALIZER;
  int s = mori_shmem_set_attr_uniqueid_args(rank, nranks, &uid, &attr);
  if (s != 0) {
    *what = "mori_shmem_set_attr_uniqueid_args";
    return s;
  }
  s = mori_shmem_init_attr(MORI_SHMEM_INIT_WITH_UNIQUEID, &attr);
  if (s != 0) *what = "mori_shmem_init_attr(MORI_SHMEM_INIT_WITH_UNIQUEID)";
  return s;
}
inline void* malloc(size_t bytes) { return mori_shmem_malloc(bytes); }
inline void free(void* p) { mori_shmem_free(p); }
inline int myPe() { return mori_shmem_my_pe(); }
inline int nPes() { return mori_shmem_n_pes(); }
inline int barrierAll() { return mori_shmem_barrier_all(); }
inline int finalize() { return mori_shmem_finalize(); }
inline bool deviceError(std::string* text) {
  char buf[512];
  if (!mori_shmem_device_error(buf, sizeof(buf))) return false;
  *text = buf;
  return true;
}

#endif

// ---- device and collectives ---------------------------------------------------------------------
// Written once against the names below: the two libraries' names differ only in prefix and scope
// suffix (NVSHMEM's thread forms have none; its warp, block and stream forms are nvshmemx_).

#define MORI_PERF_DEVICE __device__ __forceinline__

#if MORI_PERF_BACKEND_NVSHMEM
#define MORI_PERF_API(NAME) nvshmem_##NAME
#define MORI_PERF_APIX(NAME) nvshmemx_##NAME
#define MORI_PERF_SCOPED(S, NAME, ...)                                     \
  do {                                                                     \
    if constexpr (S == Scope::Thread) nvshmem_##NAME(__VA_ARGS__);         \
    if constexpr (S == Scope::Warp) nvshmemx_##NAME##_warp(__VA_ARGS__);   \
    if constexpr (S == Scope::Block) nvshmemx_##NAME##_block(__VA_ARGS__); \
  } while (0)
#define MORI_PERF_SIGNAL_SET NVSHMEM_SIGNAL_SET
#define MORI_PERF_CMP_GE NVSHMEM_CMP_GE
using Team = nvshmem_team_t;
inline Team worldTeam() { return NVSHMEM_TEAM_WORLD; }
#else
#define MORI_PERF_API(NAME) mori_shmem_##NAME
#define MORI_PERF_APIX(NAME) mori_shmem_##NAME
#define MORI_PERF_SCOPED(S, NAME, ...)                                         \
  do {                                                                         \
    if constexpr (S == Scope::Thread) mori_shmem_##NAME##_thread(__VA_ARGS__); \
    if constexpr (S == Scope::Warp) mori_shmem_##NAME##_warp(__VA_ARGS__);     \
    if constexpr (S == Scope::Block) mori_shmem_##NAME##_block(__VA_ARGS__);   \
  } while (0)
#define MORI_PERF_SIGNAL_SET MORI_SHMEM_SIGNAL_SET
#define MORI_PERF_CMP_GE MORI_SHMEM_CMP_GE
using Team = mori_shmem_team_t;
inline Team worldTeam() { return MORI_SHMEM_TEAM_WORLD; }
#endif

template <Scope S>
MORI_PERF_DEVICE void putNbi(void* dst, const void* src, size_t bytes, int pe) {
  MORI_PERF_SCOPED(S, putmem_nbi, dst, src, bytes, pe);
}
template <Scope S>
MORI_PERF_DEVICE void getNbi(void* dst, const void* src, size_t bytes, int pe) {
  MORI_PERF_SCOPED(S, getmem_nbi, dst, src, bytes, pe);
}
template <Scope S>
MORI_PERF_DEVICE void get(void* dst, const void* src, size_t bytes, int pe) {
  MORI_PERF_SCOPED(S, getmem, dst, src, bytes, pe);
}
template <Scope S>
MORI_PERF_DEVICE void putSignalNbi(void* dst, const void* src, size_t bytes, uint64_t* sig, uint64_t value, int pe) {
  MORI_PERF_SCOPED(S, putmem_signal_nbi, dst, src, bytes, sig, value, MORI_PERF_SIGNAL_SET, pe);
}
MORI_PERF_DEVICE void p(uint64_t* dst, uint64_t value, int pe) { MORI_PERF_API(uint64_p)(dst, value, pe); }
MORI_PERF_DEVICE void signalSet(uint64_t* sig, uint64_t value, int pe) {
  MORI_PERF_APIX(signal_op)(sig, value, MORI_PERF_SIGNAL_SET, pe);
}
MORI_PERF_DEVICE uint64_t signalWaitGe(uint64_t* sig, uint64_t value) {
  return MORI_PERF_API(signal_wait_until)(sig, MORI_PERF_CMP_GE, value);
}
MORI_PERF_DEVICE void fence() { MORI_PERF_API(fence)(); }
MORI_PERF_DEVICE void quiet() { MORI_PERF_API(quiet)(); }

// The element types of the collective tests: 64-bit elements for broadcast / fcollect / alltoall,
// and the reduction types of -d.
using Bf16 = gpu::bfloat16;

template <Scope S>
MORI_PERF_DEVICE void barrier(Team t) {
  MORI_PERF_SCOPED(S, barrier, t);
}
template <Scope S>
MORI_PERF_DEVICE void teamSync(Team t) {
  MORI_PERF_SCOPED(S, team_sync, t);
}
template <Scope S>
MORI_PERF_DEVICE void broadcast64(Team t, int64_t* d, const int64_t* s, size_t n, int root) {
  MORI_PERF_SCOPED(S, int64_broadcast, t, d, s, n, root);
}
template <Scope S>
MORI_PERF_DEVICE void fcollect64(Team t, int64_t* d, const int64_t* s, size_t n) {
  MORI_PERF_SCOPED(S, int64_fcollect, t, d, s, n);
}
template <Scope S>
MORI_PERF_DEVICE void alltoall64(Team t, int64_t* d, const int64_t* s, size_t n) {
  MORI_PERF_SCOPED(S, int64_alltoall, t, d, s, n);
}
template <Scope S, typename T>
MORI_PERF_DEVICE void sumReduce(Team t, T* d, const T* s, size_t n) {
  if constexpr (std::is_same_v<T, int32_t>) MORI_PERF_SCOPED(S, int32_sum_reduce, t, d, s, n);
  if constexpr (std::is_same_v<T, int64_t>) MORI_PERF_SCOPED(S, int64_sum_reduce, t, d, s, n);
  if constexpr (std::is_same_v<T, float>) MORI_PERF_SCOPED(S, float_sum_reduce, t, d, s, n);
  if constexpr (std::is_same_v<T, Bf16>) MORI_PERF_SCOPED(S, bfloat16_sum_reduce, t, d, s, n);
}
template <Scope S, typename T>
MORI_PERF_DEVICE void sumReducescatter(Team t, T* d, const T* s, size_t n) {
  if constexpr (std::is_same_v<T, int32_t>) MORI_PERF_SCOPED(S, int32_sum_reducescatter, t, d, s, n);
  if constexpr (std::is_same_v<T, int64_t>) MORI_PERF_SCOPED(S, int64_sum_reducescatter, t, d, s, n);
  if constexpr (std::is_same_v<T, float>) MORI_PERF_SCOPED(S, float_sum_reducescatter, t, d, s, n);
  if constexpr (std::is_same_v<T, Bf16>) MORI_PERF_SCOPED(S, bfloat16_sum_reducescatter, t, d, s, n);
}
#undef MORI_PERF_SCOPED

// The host's stream forms. NVSHMEM's stream RMA calls return nothing (errors are fatal inside the
// library): 0 there.
inline int putOnStream(void* dst, const void* src, size_t bytes, int pe, hipStream_t st) {
#if MORI_PERF_BACKEND_NVSHMEM
  nvshmemx_putmem_on_stream(dst, src, bytes, pe, st);
  return 0;
#else
  return mori_shmem_putmem_on_stream(dst, src, bytes, pe, st);
#endif
}
inline int quietOnStream(hipStream_t st) {
#if MORI_PERF_BACKEND_NVSHMEM
  nvshmemx_quiet_on_stream(st);
  return 0;
#else
  return mori_shmem_quiet_on_stream(st);
#endif
}
inline int barrierOnStream(Team t, hipStream_t st) { return MORI_PERF_APIX(barrier_on_stream)(t, st); }
inline int teamSyncOnStream(Team t, hipStream_t st) { return MORI_PERF_APIX(team_sync_on_stream)(t, st); }
inline int broadcast64OnStream(Team t, int64_t* d, const int64_t* s, size_t n, int root, hipStream_t st) {
  return MORI_PERF_APIX(int64_broadcast_on_stream)(t, d, s, n, root, st);
}
inline int fcollect64OnStream(Team t, int64_t* d, const int64_t* s, size_t n, hipStream_t st) {
  return MORI_PERF_APIX(int64_fcollect_on_stream)(t, d, s, n, st);
}
inline int alltoall64OnStream(Team t, int64_t* d, const int64_t* s, size_t n, hipStream_t st) {
  return MORI_PERF_APIX(int64_alltoall_on_stream)(t, d, s, n, st);
}
template <typename T>
inline int sumReduceOnStream(Team t, T* d, const T* s, size_t n, hipStream_t st) {
  if constexpr (std::is_same_v<T, int32_t>) return MORI_PERF_APIX(int32_sum_reduce_on_stream)(t, d, s, n, st);
  if constexpr (std::is_same_v<T, int64_t>) return MORI_PERF_APIX(int64_sum_reduce_on_stream)(t, d, s, n, st);
  if constexpr (std::is_same_v<T, float>) return MORI_PERF_APIX(float_sum_reduce_on_stream)(t, d, s, n, st);
  if constexpr (std::is_same_v<T, Bf16>) return MORI_PERF_APIX(bfloat16_sum_reduce_on_stream)(t, d, s, n, st);
  return -1;
}
template <typename T>
inline int sumReducescatterOnStream(Team t, T* d, const T* s, size_t n, hipStream_t st) {
  if constexpr (std::is_same_v<T, int32_t>) return MORI_PERF_APIX(int32_sum_reducescatter_on_stream)(t, d, s, n, st);
  if constexpr (std::is_same_v<T, int64_t>) return MORI_PERF_APIX(int64_sum_reducescatter_on_stream)(t, d, s, n, st);
  if constexpr (std::is_same_v<T, float>) return MORI_PERF_APIX(float_sum_reducescatter_on_stream)(t, d, s, n, st);
  if constexpr (std::is_same_v<T, Bf16>) return MORI_PERF_APIX(bfloat16_sum_reducescatter_on_stream)(t, d, s, n, st);
  return -1;
}

// One uint64 atomic on pe's *dst; returns the old value for fetching operations, 0 otherwise.
template <AtomicOp OP>
MORI_PERF_DEVICE uint64_t amo(uint64_t* dst, uint64_t value, uint64_t cond, int pe) {
  if constexpr (OP == AtomicOp::Inc) {
    MORI_PERF_API(uint64_atomic_inc)(dst, pe);
  } else if constexpr (OP == AtomicOp::FetchInc) {
    return MORI_PERF_API(uint64_atomic_fetch_inc)(dst, pe);
  } else if constexpr (OP == AtomicOp::Add) {
    MORI_PERF_API(uint64_atomic_add)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::FetchAdd) {
    return MORI_PERF_API(uint64_atomic_fetch_add)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::Set) {
    MORI_PERF_API(uint64_atomic_set)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::Swap) {
    return MORI_PERF_API(uint64_atomic_swap)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::CompareSwap) {
    return MORI_PERF_API(uint64_atomic_compare_swap)(dst, cond, value, pe);
  } else if constexpr (OP == AtomicOp::And) {
    MORI_PERF_API(uint64_atomic_and)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::FetchAnd) {
    return MORI_PERF_API(uint64_atomic_fetch_and)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::Or) {
    MORI_PERF_API(uint64_atomic_or)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::FetchOr) {
    return MORI_PERF_API(uint64_atomic_fetch_or)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::Xor) {
    MORI_PERF_API(uint64_atomic_xor)(dst, value, pe);
  } else if constexpr (OP == AtomicOp::FetchXor) {
    return MORI_PERF_API(uint64_atomic_fetch_xor)(dst, value, pe);
  } else {
    static_assert(OP == AtomicOp::Fetch, "every AtomicOp has a call");
    return MORI_PERF_API(uint64_atomic_fetch)(dst, pe);
  }
  return 0;
}
#undef MORI_PERF_API
#undef MORI_PERF_APIX
#undef MORI_PERF_SIGNAL_SET
#undef MORI_PERF_CMP_GE

}  // namespace mori::perf::backend
