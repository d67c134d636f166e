// The library's part of mori_shmem_collective_launch and its grid query (mori/shmem.h; the GPU
// runtime calls are the caller's, mori/shmem/collective_launch.hpp): the checks, the grid that
// fits beside the grids of every PE sharing this GPU (shmem/resident_grid.hpp), the messages.
#include <limits.h>

#include "mori/shmem.h"
#include "shmem/c_api.hpp"
#include "shmem/resident_grid.hpp"
#include "shmem/runtime.hpp"

using mori::Status;
using mori::shmem::code;
using mori::shmem::Runtime;
namespace log = mori::log;

namespace {

Status planGrid(const char* call, const void* func, mori_shmem_dim3_t grid, mori_shmem_dim3_t block, size_t sharedMem,
                int perSm, int sms, mori_shmem_dim3_t* run, int* maxGrid) {
  Runtime* r = Runtime::get(call);
  if (!r) return Status::InvalidUsage;
  const int me = r->ctx().myPe(), pes = r->ctx().sharedGpuPes();
  const uint64_t threads = static_cast<uint64_t>(block.x) * block.y * block.z;
  if (!func || threads == 0 || threads > INT_MAX || sharedMem > UINT_MAX || !run || !maxGrid)
    return MORI_FAIL(Status::InvalidUsage, log::kDevice,
                     "%s on PE %d: func %p, block %ux%ux%u, %zu bytes of shared memory, result %p: need a kernel, "
                     "a block of at least one thread, at most UINT_MAX bytes and a place for the result",
                     call, me, func, block.x, block.y, block.z, sharedMem, static_cast<void*>(maxGrid));
  const int largest = mori::shmem::residentGrid(sms, perSm, pes);
  if (largest < 1)
    return MORI_FAIL(Status::InvalidUsage, log::kDevice,
                     "%s on PE %d: no block of %ux%ux%u threads with %zu bytes of shared memory fits beside the "
                     "other PEs' (%d per multiprocessor x %d multiprocessors / %d PEs on this GPU)",
                     call, me, block.x, block.y, block.z, sharedMem, perSm, sms, pes);
  *maxGrid = largest;
  uint64_t blocks = 0;
  if (!mori::shmem::collectiveGrid(grid, largest, run, &blocks))
    return MORI_FAIL(Status::InvalidUsage, log::kDevice,
                     "%s on PE %d: grid %ux%ux%u (%llu blocks) of %ux%ux%u threads: at most %d blocks run at once "
                     "beside the other PEs' (%d per multiprocessor x %d multiprocessors / %d PEs on this GPU), and "
                     "no dimension may be 0 but in a grid of 0 (x 0, y and z 0 or 1: the largest)",
                     call, me, grid.x, grid.y, grid.z, static_cast<unsigned long long>(blocks), block.x, block.y,
                     block.z, largest, perSm, sms, pes);
  return Status::Success;
}

}  // namespace

MORI_API int mori_shmemi_collective_grid(const char* call, const void* func, mori_shmem_dim3_t grid,
                                         mori_shmem_dim3_t block, size_t shared_mem, int per_sm, int sms,
                                         mori_shmem_dim3_t* run, int* max_grid) {
  return code(planGrid(call, func, grid, block, shared_mem, per_sm, sms, run, max_grid));
}

MORI_API int mori_shmemi_collective_gpu_error(const char* call, const char* what, const char* error_name,
                                              const char* error_string) {
  Runtime* r = Runtime::current();
  return code(MORI_FAIL(Status::System, log::kDevice, "%s on PE %d: %s: %s (%s)", call, r ? r->ctx().myPe() : -1, what,
                        error_name, error_string));
}
