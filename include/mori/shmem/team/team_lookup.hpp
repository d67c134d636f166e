// A team handle's device value, looked up in this PE's team table. The table's address is a field
// of the module's device state (GpuStates::teams): the one binding of mori_shmem_device_states at
// init gives every module its teams, a JIT-loaded module included.
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "mori/shmem/team/team_types.hpp"

#if MORI_GPU_COMPILER
#include "mori/platform/mmio.hpp"
#include "mori/shmem/impl/device_library.hpp"

namespace mori::shmem::team {

[[noreturn]] inline MORI_DEVICE_NOINLINE void failTeam(int handle, const char* why) {
  printf("mori-shmem: team handle %d: %s [block %d thread %d]\n", handle, why, static_cast<int>(blockIdx.x),
         static_cast<int>(threadIdx.x));
  gpu::trap();
}

// A value that names nothing reached a collective's dispatch (`what`: "collective kind", "reduction
// element type"): a caller inside mori-shmem passed it. Stops the kernel naming it.
[[noreturn]] inline MORI_DEVICE_NOINLINE void failKind(int handle, const char* what, int value) {
  printf("mori-shmem: team handle %d: internal error: no %s %d [block %d thread %d]\n", handle, what, value,
         static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  gpu::trap();
}

// A broadcast's root that is no member index of the team (`size` members). Stops the kernel naming
// it: a member that waited for that root's data would wait forever, one that read it would read
// another PE's memory.
[[noreturn]] inline MORI_DEVICE_NOINLINE void failRoot(int handle, int root, int size) {
  printf("mori-shmem: team handle %d: broadcast root %d is not a member index (team of %d) [block %d thread %d]\n",
         handle, root, size, static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  gpu::trap();
}

// The live team `handle` of this PE: two constant-memory loads (the state's magic, checked as
// every device call does, and the table's address) and a load of the entry's fields used.
// Traps naming the handle when it is no live team of this PE; an unbound module traps as every
// device call does ("not initialised").
MORI_DEVICE_INLINE TeamDevice teamOf(int32_t handle) {
  const TeamDevice* table = impl::states().teams;
  if (MORI_UNLIKELY(handle < 0 || handle >= kMaxTeams)) failTeam(handle, "not a team handle");
  const TeamDevice t = table[handle];
  if (MORI_UNLIKELY(t.size <= 0)) failTeam(handle, "not a live team of this PE (destroyed, or this PE is no member)");
  return t;
}

}  // namespace mori::shmem::team
#endif
