// reducescatter's bodies in the device library (declared in mori/shmem/impl/device_library.hpp):
// one entry per scope, which goes on to the function of the element type (team_reduce.hpp). Apart
// from team_general.cpp, whose reductions it shares the code of: the two compile side by side.
#include "shmem/device/team_reduce.hpp"

using namespace mori::shmem::team;

#define MORI_TEAM_REDUCESCATTER(SC, S)                                                                            \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_team_reducescatter_##SC(int team, void* dest, const void* source, \
                                                                        size_t n, int dtype, int op) {            \
    reduceEntry<S, true>(team, dest, source, n, dtype, op);                                                       \
  }
MORI_TEAM_REDUCESCATTER(thread, Thread)
MORI_TEAM_REDUCESCATTER(warp, Warp)
MORI_TEAM_REDUCESCATTER(block, Block)
