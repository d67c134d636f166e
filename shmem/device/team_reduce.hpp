// The reductions' entry into the device library, shared by reduce (team_general.cpp) and
// reducescatter (team_reducescatter.cpp): the element type's function, chosen per call.
#pragma once

#include "mori/shmem.h"
#include "shmem/device/general_path.hpp"

namespace mori::shmem::team {

// One function per scope and element type: all twelve types' bodies in one function made ROCm
// 5.2's device link fail for gfx90a ("unhandled SGPR spill to memory").
template <class S, bool kScatter, typename T>
MORI_LIB_NOINLINE void reduceOf(int team, void* dest, const void* source, size_t n, int op) {
  if (MORI_UNLIKELY(!opApplies<T>(static_cast<Op>(op)))) failKind(team, "reduction operation", op);
  reduceWith<S, kScatter>(teamOf(team), static_cast<T*>(dest), static_cast<const T*>(source), n,
                          AnyOp{static_cast<Op>(op)});
}

template <class S, bool kScatter>
MORI_DEVICE_INLINE void reduceEntry(int team, void* dest, const void* source, size_t n, int dtype, int op) {
  const bool typed = withDtype(dtype, false, [&](auto* type) {
    reduceOf<S, kScatter, std::remove_pointer_t<decltype(type)>>(team, dest, source, n, op);
    return true;
  });
  if (!typed) failKind(team, "reduction element type", dtype);
}

}  // namespace mori::shmem::team
