// The team collectives' bodies (device library, declared in mori/shmem/impl/device_library.hpp):
// the device API's data collectives call these, one function per collective and scope, and its
// reductions one entry per scope, which goes on to the function of the element type
// (team_reduce.hpp; reducescatter's in team_reducescatter.cpp); the
// operation is chosen per element in the one-step path of a wave and block and in the staged
// path, once per call in one thread's one-step path and in the direct-load path (collectives.hpp:
// withFixedOp). Compiled with a register cap of their own (CMakeLists.txt next to this file). One
// function per collective: each path's registers and stack are its own, so changing one
// collective's code does not move another's spills.
#include "shmem/device/team_reduce.hpp"

using namespace mori::shmem::team;

#define MORI_TEAM_GENERAL(SC, S)                                                                                     \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_team_broadcast_##SC(int team, void* dest, const void* source,        \
                                                                    size_t bytes, int root) {                        \
    const TeamDevice t = teamOf(team);                                                                               \
    if (MORI_UNLIKELY(root < 0 || root >= t.size)) failRoot(team, root, t.size);                                     \
    broadcast<S>(t, dest, source, bytes, root);                                                                      \
  }                                                                                                                  \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_team_fcollect_##SC(int team, void* dest, const void* source,         \
                                                                   size_t bytes) {                                   \
    fcollect<S>(teamOf(team), dest, source, bytes);                                                                  \
  }                                                                                                                  \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_team_collect_##SC(int team, void* dest, const void* source,          \
                                                                  size_t bytes) {                                    \
    collect<S>(teamOf(team), dest, source, bytes);                                                                   \
  }                                                                                                                  \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_team_alltoall_##SC(int team, void* dest, const void* source,         \
                                                                   size_t bytes) {                                   \
    alltoall<S>(teamOf(team), dest, source, bytes);                                                                  \
  }                                                                                                                  \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_team_reduce_##SC(int team, void* dest, const void* source, size_t n, \
                                                                 int dtype, int op) {                                \
    reduceEntry<S, false>(team, dest, source, n, dtype, op);                                                         \
  }
MORI_TEAM_GENERAL(thread, Thread)
MORI_TEAM_GENERAL(warp, Warp)
MORI_TEAM_GENERAL(block, Block)
