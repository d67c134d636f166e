// Team table binding. Each GPU module that includes the team API owns one `__device__` pointer to
// this PE's team table and registers a binder with the runtime when it loads (as GpuStates is
// bound: shmem/device/device_states.cpp). The runtime binds every registered module when it
// creates the predefined teams at init and clears them at finalize. Kept apart from GpuStates so
// that the team layer can move with the state-binding mechanism without touching it.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mori/shmem/team/team_types.hpp"

extern "C" {
// Stores `table` (a device pointer, or null) into the module; returns 0 or the GPU runtime's error.
typedef int (*mori_shmemi_team_binder_t)(const void* table);
void mori_shmemi_register_team_module(mori_shmemi_team_binder_t bind);
void mori_shmemi_unregister_team_module(mori_shmemi_team_binder_t bind);
}

#if MORI_GPU_COMPILER
#include "mori/platform/gpu_runtime.hpp"
#include "mori/platform/mmio.hpp"

namespace mori::shmem::team {
namespace {  // one of each per module, by design

// `static` as well as unnamed: clang 15 (ROCm) otherwise drops the variable and folds its loads to zero.
static __device__ const TeamDevice* moduleTeamTable;

int bindModuleTeamTable(const void* table) {
  return static_cast<int>(
      hipMemcpyToSymbol(HIP_SYMBOL(moduleTeamTable), &table, sizeof(table), 0, hipMemcpyHostToDevice));
}

struct TeamModuleRegistrar {
  TeamModuleRegistrar() { mori_shmemi_register_team_module(&bindModuleTeamTable); }
  ~TeamModuleRegistrar() { mori_shmemi_unregister_team_module(&bindModuleTeamTable); }
};
TeamModuleRegistrar teamModuleRegistrar;

}  // namespace

[[noreturn]] inline MORI_DEVICE_NOINLINE void failTeam(int handle, const char* why) {
  printf("mori-shmem: team handle %d: %s [block %d thread %d]\n", handle, why, static_cast<int>(blockIdx.x),
         static_cast<int>(threadIdx.x));
  gpu::trap();
}

// The live team `handle` of this PE; traps naming the handle when it is none.
MORI_DEVICE_INLINE TeamDevice teamOf(int32_t handle) {
  const TeamDevice* table = moduleTeamTable;
  if (MORI_UNLIKELY(!table)) failTeam(handle, "the team table is not bound (mori_shmem_init not called, or finalized)");
  if (MORI_UNLIKELY(handle < 0 || handle >= kMaxTeams)) failTeam(handle, "not a team handle");
  const TeamDevice t = table[handle];
  if (MORI_UNLIKELY(t.size <= 0)) failTeam(handle, "not a live team of this PE (destroyed, or this PE is no member)");
  return t;
}

}  // namespace mori::shmem::team
#endif
