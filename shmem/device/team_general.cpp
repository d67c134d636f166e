// The team collectives' bodies (device library, declared in mori/shmem/impl/device_library.hpp):
// the device API's data collectives call these, one function per collective and scope, and its
// reductions and reducescatters one entry per scope each, which go on to the function of the
// element type (the two share it: collectives.hpp, reduceWith); the operation is chosen per
// element in the one-step path of a wave and block and in the staged path, once per call in one
// thread's one-step path and in the direct-load path (collectives.hpp: withFixedOp). Compiled with a register cap of
// their own (CMakeLists.txt next to this file). One function per collective: each path's registers and stack are its
// own, so changing one collective's code does not move another's spills.
#include "mori/shmem.h"
#include "shmem/device/general_path.hpp"

using namespace mori::shmem::team;

namespace {
// One function per scope and element type: all twelve types' bodies in one function made ROCm
// 5.2's device link fail for gfx90a ("unhandled SGPR spill to memory").
template <class S, typename T>
MORI_LIB_NOINLINE void reduceOf(int team, void* dest, const void* source, size_t n, int op, bool scatter) {
  if (MORI_UNLIKELY(!opApplies<T>(static_cast<Op>(op)))) failKind(team, "reduction operation", op);
  reduceWith<S>(teamOf(team), static_cast<T*>(dest), static_cast<const T*>(source), n, AnyOp{static_cast<Op>(op)},
                scatter);
}
template <class S>
MORI_DEVICE_INLINE void reduceEntry(int team, void* dest, const void* source, size_t n, int dtype, int op,
                                    bool scatter) {
  const bool typed = withDtype(dtype, false, [&](auto* type) {
    reduceOf<S, std::remove_pointer_t<decltype(type)>>(team, dest, source, n, op, scatter);
    return true;
  });
  if (!typed) failKind(team, "reduction element type", dtype);
}
}  // namespace

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
    reduceEntry<S>(team, dest, source, n, dtype, op, false);                                                         \
  }                                                                                                                  \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_team_reducescatter_##SC(int team, void* dest, const void* source,    \
                                                                        size_t n, int dtype, int op) {               \
    reduceEntry<S>(team, dest, source, n, dtype, op, true);                                                          \
  }
MORI_TEAM_GENERAL(thread, Thread)
MORI_TEAM_GENERAL(warp, Warp)
MORI_TEAM_GENERAL(block, Block)
