// Kernels the team layer runs on a stream (shmem/team_kernels.cpp, compiled as GPU code): the
// host API's collectives (one block, or spread over many for large data) and the exchange behind
// team creation.
#pragma once

#include <stddef.h>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem/team/team_types.hpp"
#include "shmem/runtime_kernels.hpp"

namespace mori::shmem::team {

struct CollectiveArgs {
  TeamDevice team;
  int kind;  // mori_shmem_collective_t, or one of team_types.hpp's kKind* (syncs, barrier)
  void* dest;
  const void* source;
  size_t bytes;   // per PE (broadcast, fcollect, collect, alltoall block)
  size_t nelems;  // reductions
  int root;
  int dtype;
  int op;
  int blocks;  // 1: one kernel, one block; more: the spread form (shmem/team_spread.hpp)
  // The spread form runs its entry sync in the data kernel (resident_grid.hpp: residentGrid).
  bool entryInKernel;
};

MORI_RUNTIME_KERNEL hipError_t launchCollective(const CollectiveArgs& args, hipStream_t stream);
// The fewest blocks of kSpreadThreads that one multiprocessor holds of any spread kernel
// (resident_grid.hpp: residentGrid).
MORI_RUNTIME_KERNEL hipError_t spreadResidentBlocksPerSm(int* perSm);

}  // namespace mori::shmem::team
