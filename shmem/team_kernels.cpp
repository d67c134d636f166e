// The host API's team collectives as kernels on a stream. Small calls: one block of kThreads runs
// the block-scope device collective (mori/shmem/team/collectives.hpp), syncs included. Large
// broadcast / fcollect / alltoall and direct reductions: the entry sync, the data movement split
// over CollectiveArgs::blocks blocks (puts for fcollect and alltoall, loads for the others), the
// exit sync, as three kernels (shmem/team_spread.hpp).
// This module is bound at init like a user's.
// The collectives call mori_shmem_ptr and the team queries in device code, which exist only for
// translation units that see the device API whole: this GPU module is such a unit (the library's
// host sources are built with MORI_SHMEM_HOST_ONLY).
#undef MORI_SHMEM_HOST_ONLY
#include "shmem/team_kernels.hpp"

#include "mori/shmem_device.h"
#include "shmem/team_spread.hpp"

namespace mori::shmem::team {
namespace {

// 256 threads: the device API's register budget allows a block of them without spilling.
constexpr int kThreads = 256;

// One kernel per kind: each holds only its own path's code (as the device library's functions).
template <int kKind>
__global__ __launch_bounds__(kThreads) void collectiveKernel(CollectiveArgs a) {
  if constexpr (kKind == kKindSync)
    sync<Block>(a.team);
  else if constexpr (kKind == kKindSyncRelease)
    syncRelease<Block>(a.team);
  else if constexpr (kKind == kKindPushEntry)
    pushEntry<Block>(a.team);
  else if constexpr (kKind == kKindBarrier)
    barrier<Block>(a.team);
  else if constexpr (kKind == MORI_SHMEM_COLL_BROADCAST)
    broadcast<Block>(a.team, a.dest, a.source, a.bytes, a.root);
  else if constexpr (kKind == MORI_SHMEM_COLL_FCOLLECT)
    fcollect<Block>(a.team, a.dest, a.source, a.bytes);
  else if constexpr (kKind == MORI_SHMEM_COLL_COLLECT)
    collect<Block>(a.team, a.dest, a.source, a.bytes);
  else
    alltoall<Block>(a.team, a.dest, a.source, a.bytes);
}

// One block runs the collective of a.kind (not a reduction); hipErrorInvalidValue for a kind that
// names none.
hipError_t launchOneBlock(const CollectiveArgs& a, hipStream_t stream) {
  switch (a.kind) {
    case kKindSync: collectiveKernel<kKindSync><<<1, kThreads, 0, stream>>>(a); break;
    case kKindSyncRelease: collectiveKernel<kKindSyncRelease><<<1, kThreads, 0, stream>>>(a); break;
    case kKindPushEntry: collectiveKernel<kKindPushEntry><<<1, kThreads, 0, stream>>>(a); break;
    case kKindBarrier: collectiveKernel<kKindBarrier><<<1, kThreads, 0, stream>>>(a); break;
    case MORI_SHMEM_COLL_BROADCAST: collectiveKernel<MORI_SHMEM_COLL_BROADCAST><<<1, kThreads, 0, stream>>>(a); break;
    case MORI_SHMEM_COLL_FCOLLECT: collectiveKernel<MORI_SHMEM_COLL_FCOLLECT><<<1, kThreads, 0, stream>>>(a); break;
    case MORI_SHMEM_COLL_COLLECT: collectiveKernel<MORI_SHMEM_COLL_COLLECT><<<1, kThreads, 0, stream>>>(a); break;
    case MORI_SHMEM_COLL_ALLTOALL: collectiveKernel<MORI_SHMEM_COLL_ALLTOALL><<<1, kThreads, 0, stream>>>(a); break;
    default: return hipErrorInvalidValue;
  }
  return hipGetLastError();
}

// The spread form's middle kernel: block b moves its slice of every piece; no syncs.
__global__ __launch_bounds__(kSpreadThreads) void moveKernel(CollectiveArgs a) {
  size_t lo, hi;
  spreadSlice(a.bytes, static_cast<int>(gridDim.x), static_cast<int>(blockIdx.x), &lo, &hi);
  switch (a.kind) {
    case MORI_SHMEM_COLL_BROADCAST: broadcastMove<Block>(a.team, a.dest, a.source, lo, hi, a.root); break;
    case MORI_SHMEM_COLL_FCOLLECT: fcollectPush<Block>(a.team, a.dest, a.source, a.bytes, lo, hi); break;
    case MORI_SHMEM_COLL_ALLTOALL: alltoallPush<Block>(a.team, a.dest, a.source, a.bytes, lo, hi); break;
    default: failKind(a.team.handle, "collective kind", a.kind);
  }
}

// One kernel per element type; the operation is chosen per call (AnyOp).
template <typename T>
__global__ __launch_bounds__(kThreads) void reduceKernel(CollectiveArgs a) {
  reduceWith<Block>(a.team, static_cast<T*>(a.dest), static_cast<const T*>(a.source), a.nelems,
                    AnyOp{static_cast<Op>(a.op)});
}

// The spread form's middle kernel of a direct reduction: the grid strides over the elements.
template <typename T>
__global__ __launch_bounds__(kSpreadThreads) void reduceDirectKernel(CollectiveArgs a) {
  reduceDirect(a.team, static_cast<T*>(a.dest), static_cast<const T*>(a.source), a.nelems, AnyOp{static_cast<Op>(a.op)},
               blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x, gridDim.x * static_cast<size_t>(blockDim.x));
}

hipError_t launchSync(const CollectiveArgs& a, int kind, hipStream_t stream) {
  CollectiveArgs s{};
  s.team = a.team;
  s.kind = kind;
  return launchOneBlock(s, stream);
}

template <typename T>
hipError_t launchReduce(const CollectiveArgs& a, hipStream_t stream) {
  if (a.blocks > 1)
    reduceDirectKernel<T><<<a.blocks, kSpreadThreads, 0, stream>>>(a);
  else
    reduceKernel<T><<<1, kThreads, 0, stream>>>(a);
  return hipGetLastError();
}

hipError_t launchReduceTyped(const CollectiveArgs& a, hipStream_t stream) {
  return withDtype(a.dtype, hipErrorInvalidValue,
                   [&](auto* type) { return launchReduce<std::remove_pointer_t<decltype(type)>>(a, stream); });
}

}  // namespace

hipError_t launchCollective(const CollectiveArgs& a, hipStream_t stream) {
  if (a.blocks <= 1) {
    if (a.kind == MORI_SHMEM_COLL_REDUCE) return launchReduceTyped(a, stream);
    return launchOneBlock(a, stream);
  }
  // Spread form. Entry sync: for fcollect and alltoall (puts) every member has entered, so its dest
  // may be written; for broadcast and reductions (loads) every member's source is ready (each
  // member's earlier stream work is done when its sync kernel runs). Exit sync: every put is
  // visible, and no member returns to overwriting its source while another still reads it (the
  // moves of this PE ended with the kernel before).
  const bool push = a.kind == MORI_SHMEM_COLL_FCOLLECT || a.kind == MORI_SHMEM_COLL_ALLTOALL;
  hipError_t e = launchSync(a, push ? kKindPushEntry : kKindSyncRelease, stream);
  if (e != hipSuccess) return e;
  if (a.kind == MORI_SHMEM_COLL_REDUCE) {
    e = launchReduceTyped(a, stream);
  } else {
    moveKernel<<<a.blocks, kSpreadThreads, 0, stream>>>(a);
    e = hipGetLastError();
  }
  if (e != hipSuccess) return e;
  return launchSync(a, kKindSyncRelease, stream);
}

}  // namespace mori::shmem::team
