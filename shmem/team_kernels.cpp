// The host API's team collectives as kernels on a stream. Small calls: one block of kThreads runs
// the block-scope device collective (mori/shmem/team/collectives.hpp), syncs included. Large
// broadcast / fcollect / alltoall and direct reductions: the entry sync (one block), then one
// kernel of CollectiveArgs::blocks blocks that moves the data (puts for fcollect and alltoall,
// loads for the others) and whose last block runs the exit sync (shmem/team_spread.hpp).
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

// The spread form's data movement, after its entry sync (a kernel of one block before it, which
// runs once this PE's earlier work on the stream is done: for fcollect and alltoall (puts) every
// member has entered, so its dest may be written; for broadcast and reductions (loads) every
// member's source is ready). Every block moves its slice; the last block to finish runs the exit
// sync (every put is visible, and no member returns to overwriting its source while another
// still reads it) and zeroes the team's count of finished blocks for the next call, which the
// kernel boundary orders after it. No block waits for another: any number of them may run,
// resident or not, and PEs that share a GPU cannot starve each other's entry (a first block
// running the entry while the rest of the grid waited for it, on SMs the other PEs' entries
// needed, hung test_collectives on one H200 under MPS). Calls of one team are ordered (one
// stream, as every collective of a team), so one count serves them.
template <class Move>
MORI_DEVICE_INLINE void spreadCall(const TeamDevice& t, Move&& move) {
  move();
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t* finished = reinterpret_cast<uint32_t*>(t.slot + kSpreadOffset);
    gpu::fenceSystem();  // this block's stores, those to peers included, before its count
    last = gpu::atomicFetchAdd<gpu::Order::AcqRel, gpu::Scope::Agent>(finished, 1u) + 1 == gridDim.x;
    if (last) *finished = 0;
  }
  __syncthreads();
  if (last) syncRelease<Block>(t);
}

// The spread form of broadcast, fcollect and alltoall: block b moves its slice of every piece.
__global__ __launch_bounds__(kSpreadThreads, kSpreadBlocksPerSm) void spreadKernel(CollectiveArgs a) {
  spreadCall(a.team, [&] {
    size_t lo, hi;
    spreadSlice(a.bytes, static_cast<int>(gridDim.x), static_cast<int>(blockIdx.x), &lo, &hi);
    switch (a.kind) {
      case MORI_SHMEM_COLL_BROADCAST: broadcastMove<Block>(a.team, a.dest, a.source, lo, hi, a.root); break;
      case MORI_SHMEM_COLL_FCOLLECT: fcollectPush<Block>(a.team, a.dest, a.source, a.bytes, lo, hi); break;
      case MORI_SHMEM_COLL_ALLTOALL: alltoallPush<Block>(a.team, a.dest, a.source, a.bytes, lo, hi); break;
      default: failKind(a.team.handle, "collective kind", a.kind);
    }
  });
}

// One kernel per element type; the operation is chosen per call (AnyOp).
template <typename T>
__global__ __launch_bounds__(kThreads) void reduceKernel(CollectiveArgs a) {
  reduceWith<Block>(a.team, static_cast<T*>(a.dest), static_cast<const T*>(a.source), a.nelems,
                    AnyOp{static_cast<Op>(a.op)});
}

// The spread form of a direct reduction: the grid strides over the elements.
template <typename T>
__global__ __launch_bounds__(kSpreadThreads, kSpreadBlocksPerSm) void reduceSpreadKernel(CollectiveArgs a) {
  spreadCall(a.team, [&] {
    reduceDirect(a.team, static_cast<T*>(a.dest), static_cast<const T*>(a.source), a.nelems,
                 AnyOp{static_cast<Op>(a.op)}, blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x,
                 gridDim.x * static_cast<size_t>(blockDim.x));
  });
}

template <typename T>
hipError_t launchReduce(const CollectiveArgs& a, hipStream_t stream) {
  if (a.blocks > 1)
    reduceSpreadKernel<T><<<a.blocks, kSpreadThreads, 0, stream>>>(a);
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
  if (a.blocks > 1) {
    CollectiveArgs entry{};
    entry.team = a.team;
    const bool push = a.kind == MORI_SHMEM_COLL_FCOLLECT || a.kind == MORI_SHMEM_COLL_ALLTOALL;
    entry.kind = push ? kKindPushEntry : kKindSyncRelease;
    const hipError_t e = launchOneBlock(entry, stream);
    if (e != hipSuccess) return e;
  }
  if (a.kind == MORI_SHMEM_COLL_REDUCE) return launchReduceTyped(a, stream);
  if (a.blocks <= 1) return launchOneBlock(a, stream);
  spreadKernel<<<a.blocks, kSpreadThreads, 0, stream>>>(a);
  return hipGetLastError();
}

}  // namespace mori::shmem::team
