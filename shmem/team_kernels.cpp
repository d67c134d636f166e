// The host API's team collectives as kernels: one block of kThreads runs the block-scope device
// collective (mori/shmem/team/collectives.hpp). This module is bound at init like a user's.
// The collectives call mori_shmem_ptr and the team queries in device code, which exist only for
// translation units that see the device API whole: this GPU module is such a unit (the library's
// host sources are built with MORI_SHMEM_HOST_ONLY).
#undef MORI_SHMEM_HOST_ONLY
#include "shmem/team_kernels.hpp"

#include "mori/shmem_device.h"

namespace mori::shmem::team {
namespace {

// 256 threads: the device API's register budget allows a block of them without spilling.
constexpr int kThreads = 256;

__global__ __launch_bounds__(kThreads) void collectiveKernel(CollectiveArgs a) {
  switch (a.kind) {
    case kKindSync: sync<Block>(a.team); break;
    case kKindBarrier: barrier<Block>(a.team); break;
    case MORI_SHMEM_COLL_BROADCAST: broadcast<Block>(a.team, a.dest, a.source, a.bytes, a.root); break;
    case MORI_SHMEM_COLL_FCOLLECT: fcollect<Block>(a.team, a.dest, a.source, a.bytes); break;
    case MORI_SHMEM_COLL_COLLECT: collect<Block>(a.team, a.dest, a.source, a.bytes); break;
    case MORI_SHMEM_COLL_ALLTOALL: alltoall<Block>(a.team, a.dest, a.source, a.bytes); break;
    default: break;
  }
}

// One kernel per element type; the operation is chosen per call (AnyOp).
template <typename T>
__global__ __launch_bounds__(kThreads) void reduceKernel(CollectiveArgs a) {
  reduceWith<Block>(a.team, static_cast<T*>(a.dest), static_cast<const T*>(a.source), a.nelems,
                    AnyOp{static_cast<Op>(a.op)});
}

template <typename T>
hipError_t launchReduce(const CollectiveArgs& a, hipStream_t stream) {
  reduceKernel<T><<<1, kThreads, 0, stream>>>(a);
  return hipGetLastError();
}

}  // namespace

hipError_t launchCollective(const CollectiveArgs& a, hipStream_t stream) {
  if (a.kind != MORI_SHMEM_COLL_REDUCE) {
    collectiveKernel<<<1, kThreads, 0, stream>>>(a);
    return hipGetLastError();
  }
  switch (a.dtype) {
    case MORI_SHMEM_DTYPE_INT8: return launchReduce<int8_t>(a, stream);
    case MORI_SHMEM_DTYPE_INT16: return launchReduce<int16_t>(a, stream);
    case MORI_SHMEM_DTYPE_INT32: return launchReduce<int32_t>(a, stream);
    case MORI_SHMEM_DTYPE_INT64: return launchReduce<int64_t>(a, stream);
    case MORI_SHMEM_DTYPE_UINT8: return launchReduce<uint8_t>(a, stream);
    case MORI_SHMEM_DTYPE_UINT16: return launchReduce<uint16_t>(a, stream);
    case MORI_SHMEM_DTYPE_UINT32: return launchReduce<uint32_t>(a, stream);
    case MORI_SHMEM_DTYPE_UINT64: return launchReduce<uint64_t>(a, stream);
    case MORI_SHMEM_DTYPE_FLOAT: return launchReduce<float>(a, stream);
    case MORI_SHMEM_DTYPE_DOUBLE: return launchReduce<double>(a, stream);
    case MORI_SHMEM_DTYPE_HALF: return launchReduce<gpu::half>(a, stream);
    case MORI_SHMEM_DTYPE_BFLOAT16: return launchReduce<gpu::bfloat16>(a, stream);
    default: return hipErrorInvalidValue;
  }
}

}  // namespace mori::shmem::team
