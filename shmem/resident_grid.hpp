// Grids whose blocks wait for other PEs' kernels: how large one PE's grid may be so that its blocks
// and those of every PE sharing its GPU are resident at once. A block that waits for another PE
// (a signal, a barrier, a collective's entry) never finishes if that PE's blocks cannot start, so
// every such grid on the GPU must fit together: each of the `pesOnGpu` PEs gets an equal share.
// Used by the host collectives' spread form (shmem/team_spread.hpp) and by
// mori_shmem_collective_launch (shmem/collective_launch.cpp). Pure arithmetic;
// tests/host/test_resident_grid.cpp.
#pragma once

#include <stdint.h>

#include "mori/shmem.h"

namespace mori::shmem {

// The largest such grid: `sms` multiprocessors holding `residentPerSm` blocks each, shared by
// `pesOnGpu` PEs; 0 when no block fits (or an argument is not positive).
inline int residentGrid(int sms, int residentPerSm, int pesOnGpu) {
  if (sms < 1 || residentPerSm < 1 || pesOnGpu < 1) return 0;
  return static_cast<int>(static_cast<long>(sms) * residentPerSm / pesOnGpu);
}

// The grid a collective launch runs, given the one asked for and the largest resident grid. A grid
// of 0 (x 0, y and z 0 or 1: {0, 0, 0}, and dim3(0), which is {0, 1, 1}) asks for the largest,
// maxGrid x 1 x 1. False, leaving *out alone, when another dimension is 0 or the grid's blocks
// (x * y * z, saturating) exceed maxGrid; *blocks receives the blocks asked for either way (0 for
// the largest when maxGrid < 1).
inline bool collectiveGrid(mori_shmem_dim3_t asked, int maxGrid, mori_shmem_dim3_t* out, uint64_t* blocks) {
  if (asked.x == 0 && asked.y <= 1 && asked.z <= 1) {
    *blocks = maxGrid > 0 ? static_cast<uint64_t>(maxGrid) : 0;
    if (maxGrid < 1) return false;
    *out = mori_shmem_dim3_t{static_cast<unsigned int>(maxGrid), 1, 1};
    return true;
  }
  const uint64_t xy = static_cast<uint64_t>(asked.x) * asked.y;  // < 2^64
  *blocks = xy > UINT32_MAX ? UINT64_MAX : xy * asked.z;         // saturated: past any grid anyway
  if (*blocks == 0 || maxGrid < 1 || *blocks > static_cast<uint64_t>(maxGrid)) return false;
  *out = asked;
  return true;
}

}  // namespace mori::shmem
