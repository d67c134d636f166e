// How a host stream collective spreads over blocks (shmem/team_kernels.cpp). Small calls run as
// one kernel of one block, syncs included. Large ones as one kernel of many blocks: the first
// block to start runs the entry sync while the others wait for it (a one-block kernel before runs
// it when the grid is too large for that: resident_grid.hpp), every block moves its slice and
// then tells every member so itself (spreadArrival), and one block waits until every member's
// blocks have told this PE.
// Pure arithmetic, shared by the host (the plan) and the kernels (the slices); tests/host/team.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::shmem::team {

// One block moves ~38 GB/s over NVLink (one 1024-thread CTA's peer stores on the H200s), so
// 256 KiB takes it ~7 us, more than the spread form's extra launch costs (an estimate, not a
// measured crossover; even with no extra launch, a threshold of 64 KiB made 128 KiB calls slower
// at 4 PEs on one H200: bench/results/2026-12-03T1710Z_h200x1_mps_spread_exit_in_kernel.json);
// past that each block gets about 64 KiB of what lands in this PE.
constexpr size_t kSpreadFromBytes = size_t{256} << 10;
constexpr size_t kSpreadBytesPerBlock = size_t{64} << 10;
// Threads per block of the spread kernels, and their launch bounds' second argument: on NVIDIA
// the blocks one multiprocessor holds at least, which keeps the kernels at 64 registers, entry
// and exit syncs included (without it they took 72, one 512-thread block per multiprocessor, and
// a 4 MiB bfloat16 reduction 63 us instead of 47-49 at 4 PEs on one H200); hipcc passes it as the
// minimum waves per execution unit, which a 512-thread block's 8 waves on a compute unit's 4
// units already imply.
constexpr int kSpreadThreads = 512;
constexpr int kSpreadBlocksPerSm = 2;

// The largest spread grid that runs its entry sync in the data kernel (its first block, the others
// waiting for it) is resident_grid.hpp's residentGrid, since each grid's blocks wait for their
// PE's entry, which waits for the other PEs' first blocks, which need room to run (uncapped, at
// one block per SM, this hung test_collectives_np2 with 2 PEs on one H200:
// bench/results/2026-12-03T1710Z_h200x1_mps_spread_exit_in_kernel.json). A larger grid runs the
// entry as a one-block kernel before it (~4.5 us more at 4 PEs on one H200, ~1.4 at 2), rather
// than fewer blocks: 4 PEs on 25% of the GPU each, a bfloat16 reduction of 4 MiB took 47-48 us
// over 33 blocks and 63.5-63.9 over 16
// (bench/results/2026-12-04T0020Z_h200x1_mps_spread_entry_in_kernel.json).

// The exit: after its moves every block adds spreadArrival(its index, its grid) to its own word
// in every member's slot, so that one call adds exactly kSpreadArrivalUnit to each word whatever
// the grid of the member that sends it (a member's grid may differ: its GPU's size bounds it), and
// a word's sum stays below the call's until the member's last block has added. A member's call c is
// complete at a word of c units; the units left above the grid bound count 2^44 calls.
constexpr uint64_t kSpreadArrivalUnit = uint64_t{1} << 20;
MORI_HOST_DEVICE_INLINE uint64_t spreadArrival(int block, int blocks) {
  return block == 0 ? kSpreadArrivalUnit - static_cast<uint64_t>(blocks - 1) : 1;
}

// Blocks for a collective that brings `bytesIn` bytes into this PE (broadcast: the bytes;
// fcollect, alltoall: per-member bytes x members; direct reductions: the members' bytes loaded).
// `divisible`: the data movement may be split, i.e. the members form a P2P clique (every block's
// moves complete at its release: no RDMA or SDMA completion to wait for) and, for reductions, the
// direct-load path applies (the staged one syncs inside); collect never is (its offsets come from
// the peers). 1 means the one-block form.
inline int spreadBlocks(size_t bytesIn, bool divisible, int maxBlocks) {
  if (!divisible || maxBlocks <= 1 || bytesIn < kSpreadFromBytes) return 1;
  const size_t want = (bytesIn + kSpreadBytesPerBlock - 1) / kSpreadBytesPerBlock;
  const size_t most =
      static_cast<size_t>(maxBlocks) < kSpreadArrivalUnit ? static_cast<size_t>(maxBlocks) : kSpreadArrivalUnit - 1;
  return static_cast<int>(want < most ? want : most);
}

// Block b's slice [*lo, *hi) of a piece of `bytes` split among `blocks`: boundaries on 16 bytes
// (the copy's vector width), every byte in exactly one slice (some slices empty when the piece
// has fewer 16-byte grains than there are blocks).
MORI_HOST_DEVICE_INLINE void spreadSlice(size_t bytes, int blocks, int b, size_t* lo, size_t* hi) {
  const size_t grains = (bytes + 15) / 16;
  const size_t first = grains * static_cast<size_t>(b) / static_cast<size_t>(blocks);
  const size_t last = grains * (static_cast<size_t>(b) + 1) / static_cast<size_t>(blocks);
  *lo = first * 16 < bytes ? first * 16 : bytes;
  *hi = last * 16 < bytes ? last * 16 : bytes;
}

}  // namespace mori::shmem::team
