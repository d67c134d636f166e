// The host API's team collectives as kernels on a stream. Small calls: one block (kThreads, or
// kReduceThreads for reductions) runs the block-scope device collective
// (mori/shmem/team/collectives.hpp), syncs included. Large broadcast / fcollect / alltoall and
// direct reductions: one kernel of CollectiveArgs::blocks blocks whose first block to start runs
// the entry sync (or a one-block kernel before it, for grids too large for that), which moves the
// data (puts for fcollect and alltoall, loads for the others), and whose blocks each tell every
// member when they are done, one of them waiting for every member's (shmem/team_spread.hpp).
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
// The one-block reduction runs 512 (a thread's cap is then 128 registers; it uses 72-80): 4 PEs,
// bfloat16 of 2-4 KiB on a stream up to 2.3 us lower, no row slower; the other kinds gained nothing
// at 512 (bench/results/2026-12-04T2000Z_h200x1_mps_one_block_512_threads.json).
constexpr int kReduceThreads = 512;

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

// The spread form. Its entry sync: for fcollect and alltoall (puts) the push entry, after which
// every member has entered and its dest may be written; for broadcast and reductions (loads) the
// release sync, after which every member's source is ready. With a.entryInKernel the first block
// to start runs it while the others wait for it; the grid is then no larger than
// resident_grid.hpp's residentGrid, so that the grids of every PE on this GPU are resident
// together and each PE's first block runs. Otherwise a one-block kernel ran it before this one
// (launchCollective) and no block waits for another.
// The exit: every block moves its slice, releases its accesses (its stores, those to peers
// included; its loads of peers' sources) and adds its arrival to its word in every member's slot
// (team_spread.hpp: spreadArrival); one block, the entry's (else block 0), waits until every
// member's word reaches this call's count, after which every member has written its part of dest
// here and read what it reads of this PE's source, and this PE's own blocks are past every read of
// the spread words, which it then zeroes for the next call. Each block releases for itself before
// it tells the members: a last block that counted the others' ends and then released for them all
// took 2.7-3.0 us more per fcollect and 1.7-1.8 per alltoall (4 PEs on one H100, 128-512 KiB in all:
// bench/results/2026-12-05T1605Z_h100x1_mps_spread_exit_phases.json).
// Every member makes the same spread decision for a call (its bytes, and whether every member is
// P2P-reachable: the transport table is symmetric, its settings the same on every PE, which init
// checks), so their counts of spread calls agree. Calls
// of one team are ordered (one stream, as every collective of a team), so one set of words serves
// them.
template <bool kPush, class Move>
MORI_DEVICE_INLINE void spreadCall(const CollectiveArgs& a, Move&& move) {
  const TeamDevice& t = a.team;
  uint32_t* started = reinterpret_cast<uint32_t*>(t.slot + kSpreadOffset);
  uint32_t* entered = started + 1;
  __shared__ uint32_t ticket;
  if (a.entryInKernel) {
    if (threadIdx.x == 0) ticket = gpu::atomicFetchAdd<gpu::Order::Relaxed, gpu::Scope::Agent>(started, 1u);
    __syncthreads();
    if (ticket == 0) {
      if constexpr (kPush)
        pushEntry<Block>(t);
      else
        syncRelease<Block>(t);
      if (threadIdx.x == 0) gpu::atomicStore<gpu::Order::Release, gpu::Scope::Agent>(entered, 1u);
    } else if (threadIdx.x == 0) {
      impl::waitUntil(impl::states(), entered, impl::Cmp::Ge, 1u);
    }
  } else if (threadIdx.x == 0) {
    ticket = blockIdx.x;
  }
  __syncthreads();
  move();
  __syncthreads();
  if (threadIdx.x != 0) return;
  gpu::releaseSystem();
  const uint64_t arrival = spreadArrival(static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
  const size_t wordAt = static_cast<size_t>(t.scratch) + kSpreadArrivalAfterScratch;
  for (int k = 0; k < t.size; ++k) {
    // Every member is P2P-reachable here (team_spread.hpp: spreadBlocks' `divisible`).
    uint8_t* slot = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(t.slotWindows[k]));
    gpu::atomicFetchAdd<gpu::Order::Relaxed, gpu::Scope::System>(reinterpret_cast<uint64_t*>(slot + wordAt) + t.myIndex,
                                                                 arrival);
  }
  if (ticket != 0) return;
  uint64_t* calls = reinterpret_cast<uint64_t*>(t.slot + kSpreadCallsOffset);
  const uint64_t call = *calls + 1;
  const uint64_t* words = reinterpret_cast<const uint64_t*>(t.slot + wordAt);
  for (int k = 0; k < t.size; ++k) impl::waitUntil(impl::states(), words + k, impl::Cmp::Ge, call * kSpreadArrivalUnit);
  *calls = call;
  *started = *entered = 0;
}

// The spread form of broadcast, fcollect and alltoall, one kernel per kind: block b moves its
// slice of every piece.
template <int kKind>
__global__ __launch_bounds__(kSpreadThreads, kSpreadBlocksPerSm) void spreadKernel(CollectiveArgs a) {
  constexpr bool kPush = kKind == MORI_SHMEM_COLL_FCOLLECT || kKind == MORI_SHMEM_COLL_ALLTOALL;
  spreadCall<kPush>(a, [&] {
    size_t lo, hi;
    spreadSlice(a.bytes, static_cast<int>(gridDim.x), static_cast<int>(blockIdx.x), &lo, &hi);
    if constexpr (kKind == MORI_SHMEM_COLL_BROADCAST)
      broadcastMove<Block>(a.team, a.dest, a.source, lo, hi, a.root);
    else if constexpr (kKind == MORI_SHMEM_COLL_FCOLLECT)
      fcollectPush<Block>(a.team, a.dest, a.source, a.bytes, lo, hi);
    else
      alltoallPush<Block>(a.team, a.dest, a.source, a.bytes, lo, hi);
  });
}

// One kernel per element type; the operation and the kind (reduce, reducescatter) are chosen per
// call (AnyOp, a.kind).
template <typename T>
__global__ __launch_bounds__(kReduceThreads) void reduceKernel(CollectiveArgs a) {
  reduceWith<Block>(a.team, static_cast<T*>(a.dest), static_cast<const T*>(a.source), a.nelems,
                    AnyOp{static_cast<Op>(a.op)}, a.kind == MORI_SHMEM_COLL_REDUCESCATTER);
}

// The spread form of a direct reduction: the grid strides over the elements of a.source (a
// reducescatter's: this PE's piece, launchReduce), every member's copy of it loaded directly.
template <typename T>
__global__ __launch_bounds__(kSpreadThreads, kSpreadBlocksPerSm) void reduceSpreadKernel(CollectiveArgs a) {
  spreadCall<false>(a, [&] {
    reduceDirect(a.team, static_cast<T*>(a.dest), static_cast<const T*>(a.source), a.nelems,
                 AnyOp{static_cast<Op>(a.op)}, blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x,
                 gridDim.x * static_cast<size_t>(blockDim.x));
  });
}

template <typename T>
hipError_t launchReduce(const CollectiveArgs& a, hipStream_t stream) {
  if (a.blocks > 1) {
    CollectiveArgs piece = a;
    if (a.kind == MORI_SHMEM_COLL_REDUCESCATTER)
      piece.source = static_cast<const T*>(a.source) + static_cast<size_t>(a.team.myIndex) * a.nelems;
    reduceSpreadKernel<T><<<a.blocks, kSpreadThreads, 0, stream>>>(piece);
  } else {
    reduceKernel<T><<<1, kReduceThreads, 0, stream>>>(a);
  }
  return hipGetLastError();
}

hipError_t launchReduceTyped(const CollectiveArgs& a, hipStream_t stream) {
  return withDtype(a.dtype, hipErrorInvalidValue,
                   [&](auto* type) { return launchReduce<std::remove_pointer_t<decltype(type)>>(a, stream); });
}

}  // namespace

hipError_t launchCollective(const CollectiveArgs& a, hipStream_t stream) {
  if (a.blocks > 1 && !a.entryInKernel) {
    CollectiveArgs entry{};
    entry.team = a.team;
    const bool push = a.kind == MORI_SHMEM_COLL_FCOLLECT || a.kind == MORI_SHMEM_COLL_ALLTOALL;
    entry.kind = push ? kKindPushEntry : kKindSyncRelease;
    const hipError_t e = launchOneBlock(entry, stream);
    if (e != hipSuccess) return e;
  }
  if (a.kind == MORI_SHMEM_COLL_REDUCE || a.kind == MORI_SHMEM_COLL_REDUCESCATTER) return launchReduceTyped(a, stream);
  if (a.blocks <= 1) return launchOneBlock(a, stream);
  switch (a.kind) {
    case MORI_SHMEM_COLL_BROADCAST:
      spreadKernel<MORI_SHMEM_COLL_BROADCAST><<<a.blocks, kSpreadThreads, 0, stream>>>(a);
      break;
    case MORI_SHMEM_COLL_FCOLLECT:
      spreadKernel<MORI_SHMEM_COLL_FCOLLECT><<<a.blocks, kSpreadThreads, 0, stream>>>(a);
      break;
    case MORI_SHMEM_COLL_ALLTOALL:
      spreadKernel<MORI_SHMEM_COLL_ALLTOALL><<<a.blocks, kSpreadThreads, 0, stream>>>(a);
      break;
    default: return hipErrorInvalidValue;
  }
  return hipGetLastError();
}

hipError_t spreadResidentBlocksPerSm(int* perSm) {
  int least = 0;
  const auto fold = [&](const void* kernel) {
    int n = 0;
    const hipError_t e = hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kSpreadThreads, 0);
    if (e == hipSuccess && (least == 0 || n < least)) least = n;
    return e;
  };
  hipError_t e = fold(reinterpret_cast<const void*>(spreadKernel<MORI_SHMEM_COLL_BROADCAST>));
  if (e == hipSuccess) e = fold(reinterpret_cast<const void*>(spreadKernel<MORI_SHMEM_COLL_FCOLLECT>));
  if (e == hipSuccess) e = fold(reinterpret_cast<const void*>(spreadKernel<MORI_SHMEM_COLL_ALLTOALL>));
  for (int dtype = MORI_SHMEM_DTYPE_INT8; e == hipSuccess && dtype <= MORI_SHMEM_DTYPE_BFLOAT16; ++dtype)
    e = withDtype(dtype, hipErrorInvalidValue, [&](auto* type) {
      return fold(reinterpret_cast<const void*>(reduceSpreadKernel<std::remove_pointer_t<decltype(type)>>));
    });
  *perSm = least;
  return e;
}

}  // namespace mori::shmem::team
