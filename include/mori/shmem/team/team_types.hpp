// The team layout the host fills and the GPU reads: one TeamDevice per team handle in a table in
// device memory, and each team's symmetric sync slot (flags, counters, scratch) in the heap.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::shmem::team {

// Team handles are slot indices: 0 WORLD, 1 NODE, 2 SHARED, 3 SAME_MYPE_NODE, user teams above.
// A PE's table has an entry for every team it is a member of; other entries have size 0.
constexpr int kMaxTeams = 32;
constexpr int kPredefinedTeams = 4;

// What a collective call does, beside the data collectives' MORI_SHMEM_COLL_* (mori/shmem_team.h):
// the team sync, the barrier, and the entry sync of the host's spread form when it runs before the
// data kernel (the push entry before an fcollect's or alltoall's puts, the sync with release before
// the others' moves).
constexpr int kKindSync = 0;
constexpr int kKindBarrier = -1;
constexpr int kKindSyncRelease = -2;
constexpr int kKindPushEntry = -3;

// A team as device code uses it: a value (trivially copyable, kernel-argument sized). Members are
// world PEs start + i*stride, or members[i] when the set is not an arithmetic progression (NODE
// on a host whose PEs are interleaved with another host's).
struct TeamDevice {
  int32_t start;           // world PE of member 0
  int32_t stride;          // world PE distance between consecutive members (>= 1)
  int32_t size;            // members; 0: not a live team on this PE
  int32_t myIndex;         // this PE's index in the team
  int32_t handle;          // the team's handle (and sync slot index)
  int32_t scratch;         // byte offset of the scratch in the slot (scratchOffset(world size))
  const int32_t* members;  // device array of world PEs, or null (strided)
  uint8_t* slot;           // this team's symmetric sync slot (same address on every member)
  // Device array: member j's slot as this PE addresses it by load/store (mori_shmem_ptr(slot, its
  // world PE)), 0 where member j has no such mapping (RDMA). The one-step exchange's sends read one
  // entry per peer (ll_exchange.hpp: llSend).
  const uint64_t* slotWindows;

  MORI_HOST_DEVICE_INLINE int worldPe(int index) const { return members ? members[index] : start + index * stride; }
};
static_assert(sizeof(TeamDevice) == 48, "TeamDevice is a kernel argument and a table entry");

// Sync slot layout (byte offsets). The epochs and the collect count are written by this PE only;
// flags (dissemination rounds, direct arrivals) are written by peers. Exchange records carry team
// creation arguments (kExchangeRecord bytes per PE, nPes + 1 records). Scratch stages reductions
// whose peers are not P2P-reachable and in-place reductions. The LL area, after the scratch,
// receives the one-step small broadcasts and fcollects (mori/shmem/team/ll_exchange.hpp): two
// halves, used by alternate calls. The stage area, after it, receives the staged fcollects and
// alltoalls (mori/shmem/team/collectives.hpp): arrival words and two halves of raw data, apart
// from the LL area, whose readers take any word that carries their tag.
constexpr size_t kEpochOffset = 0;
constexpr size_t kLlEpochOffset = 8;      // the LL exchanges' call count
constexpr size_t kStageEpochOffset = 24;  // the staged exchanges' call count (collectives.hpp: stagedExchange)
// The host's spread form's words (shmem/team_kernels.cpp: spreadCall), written by this PE's
// blocks: blocks started and entry done (32 bits each, zero between calls), then the count of
// spread calls whose exit this PE completed (64 bits). The exit's arrival words, one per member
// (64 bits, written by that member's blocks), lie after the stage area (kSpreadArrivalAfterScratch).
constexpr size_t kSpreadOffset = 32;
constexpr size_t kSpreadCallsOffset = kSpreadOffset + 8;
constexpr size_t kFlagsOffset = 64;  // 64 rounds of dissemination: any team size
constexpr int kMaxRounds = 64;
constexpr size_t kCountOffset = kFlagsOffset + kMaxRounds * 8;  // 576
// The direct release sync's arrival flags (collectives.hpp: syncRelease), one per member of a
// team of up to kDirectSyncMembers, written by that member.
constexpr int kDirectSyncMembers = 32;
constexpr size_t kArrivalOffset = 640;
constexpr size_t kExchangeOffset = 1024;
static_assert(kStageEpochOffset + 8 <= kSpreadOffset && kSpreadCallsOffset + 8 <= kFlagsOffset &&
                  kCountOffset + 8 <= kArrivalOffset && kArrivalOffset + kDirectSyncMembers * 8 <= kExchangeOffset,
              "the sync slot's areas do not overlap");
constexpr size_t kExchangeRecord = 64;
// The one-step area's halves hold a broadcast of up to 16 KiB (32 KiB of words); their offsets
// are powers of two (at 40 KiB, one thread's one-step broadcast of 128 B went from 3.7 to 4.2 us
// at 4 PEs on one H200, its function's registers and spills moved:
// bench/results/2026-12-04T0340Z_h200x1_mps_ll_broadcast_16k.json), and the scratch holds an
// alltoall's staged regions at the offset of the call's half (ll_exchange.hpp).
constexpr size_t kScratchBytes = 128 * 1024;
constexpr size_t kLlHalfBytes = 64 * 1024;
// The staged exchange's area, after the LL area: an arrival word per member of a team of up to
// kStageMembers (written by that member), then two halves used by alternate calls.
constexpr int kStageMembers = 32;
constexpr size_t kStageArrivalBytes = kStageMembers * 8;
constexpr size_t kStageHalfBytes = 64 * 1024;

MORI_HOST_DEVICE_INLINE constexpr size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }
MORI_HOST_DEVICE_INLINE constexpr size_t scratchOffset(int nPes) {
  return alignUp(kExchangeOffset + kExchangeRecord * (static_cast<size_t>(nPes) + 1), 256);
}
MORI_HOST_DEVICE_INLINE constexpr size_t llOffset(int nPes) { return scratchOffset(nPes) + kScratchBytes; }
// The stage area's offset from the scratch's (TeamDevice::scratch).
constexpr size_t kStageAfterScratch = kScratchBytes + 2 * kLlHalfBytes;
// The spread exit's arrival words (one per member of a team as large as the world) after the
// stage area, at this offset from the scratch's.
constexpr size_t kSpreadArrivalAfterScratch = kStageAfterScratch + kStageArrivalBytes + 2 * kStageHalfBytes;
MORI_HOST_DEVICE_INLINE constexpr size_t slotBytes(int nPes) {
  return alignUp(scratchOffset(nPes) + kSpreadArrivalAfterScratch + 8 * static_cast<size_t>(nPes), 4096);
}

}  // namespace mori::shmem::team
