// How a bandwidth iteration of `bytes` is cut among the grid's scope instances (CTAs, waves or
// threads): host and device agree on it, and the CPU tests check that it covers every byte once.
#pragma once

#include <stddef.h>

#include "tools/perf/perf_types.hpp"

namespace mori::perf {

// Unit u's share [*begin, *begin + *len) of a transfer of `bytes` cut among `units`. Shares are
// cut on the largest power-of-two grain (<= 16 bytes) that divides `bytes`, so that every share of
// a multiple of 16 bytes starts 16-byte aligned (the P2P copy's vector width); together they cover
// the transfer exactly once. NVSHMEM's perftest gives each unit bytes / units and drops the rest.
MORI_PERF_HD void unitShare(size_t bytes, size_t units, size_t u, size_t* begin, size_t* len) {
  const size_t grain = bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1;
  const size_t grains = bytes / grain;
  const size_t first = grains * u / units, last = grains * (u + 1) / units;
  *begin = first * grain;
  *len = (last - first) * grain;
}

// How many of the `units` shares are non-empty: the operations one iteration issues.
MORI_PERF_HD size_t nonEmptyShares(size_t bytes, size_t units) {
  const size_t grain = bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1;
  const size_t grains = bytes / grain;
  return grains < units ? grains : units;
}

}  // namespace mori::perf
