// The pure logic of team creation, apart from the runtime so that host tests cover it: argument
// checks of strided and 2-D splits, membership, the exchange record every parent PE contributes
// and the verdict drawn from all of them (the same on every PE, since every PE sees the same
// records), sync-slot choice, and PE translation.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

namespace mori::shmem::team {

enum class SplitKind : int32_t { Strided = 1, TwoD = 2 };

// What each parent PE contributes to a split (exchanged as raw bytes, one record per PE).
struct SplitRecord {
  uint32_t magic;
  int32_t kind;                 // SplitKind
  uint64_t sequence;            // splits this PE made from this parent
  int32_t start, stride, size;  // strided; 2-D: xrange in start
  int32_t contexts[2];          // num_contexts per requested team when the mask names it, else -1
  uint32_t freeSlots;           // bit k: sync slot k is free on this PE
  int32_t localOk;              // 0: this PE rejected the call locally (and logged why)
  int32_t worldPe;
  uint8_t pad[16];
};
static_assert(sizeof(SplitRecord) == 64, "one exchange record");
constexpr uint32_t kSplitMagic = 0x4d535450;  // "MSTP"

// MORI_SHMEM_COLLECTIVE_ENTRY (env::validate admits wait and caller, in any case): whether it is
// caller, OpenSHMEM's contract, under which a push skips its entry wait.
bool callerEntry(const std::string& setting);
// "" when every PE has the same entry setting (callerEntry[pe]: 1 for caller, 0 for wait), else
// why not, naming PE 0's setting and the first PE whose setting differs.
std::string entrySettingsDiffer(const std::vector<uint8_t>& callerEntry);

// "" if a strided split of a parent of `parentSize` PEs is valid, else why not.
std::string checkStrided(int parentSize, int start, int stride, int size);
// "" if a 2-D split is valid (xrange >= 1), else why not.
std::string check2d(int parentSize, int xrange);
// NVSHMEM's TEAM_SAME_MYPE_NODE: the world PEs whose index among their host's PEs (in world order)
// is `me`'s, in world order; hosts[pe] names pe's host.
std::vector<int> sameIndexOnEveryHost(const std::vector<std::string>& hosts, int me);
// Parent indices of the members of a strided split.
std::vector<int> stridedMembers(int start, int stride, int size);
// This parent PE's row (x) and column (y) in a 2-D split of `parentSize` PEs with `xrange` columns
// (clamped to parentSize), as parent indices.
void split2d(int parentSize, int xrange, int me, std::vector<int>* x, std::vector<int>* y);

// Same verdict on every PE: "" if every record names the same call with the same arguments and
// every PE accepted it locally, else a message naming the first PE that differs (by parent index
// and world PE) and what each passed, or the PE that rejected it. `call` names the API.
std::string verdict(const std::vector<SplitRecord>& records, const char* call);

// The lowest `count` slots free on every PE (bits of freeSlots) at or above `first`; empty if
// there are not that many.
std::vector<int> commonFreeSlots(const std::vector<SplitRecord>& records, int count, int first);

// World PEs as (start, stride) when they form an arithmetic progression with stride >= 1 (one
// PE: stride 1); false otherwise.
bool asStrided(const std::vector<int>& worldPes, int* start, int* stride);

// Index of `value` in `list`, or -1.
int indexIn(const std::vector<int>& list, int value);

// Whether every one of `members` (world PEs) reaches every other, and itself, by P2P in its own
// transport row. p2pPairs[a * nPes + b] is nonzero where PE a reaches PE b by P2P: every PE's row,
// gathered, so every PE draws the same verdict for a team although the rows may differ (an SDMA
// or RDMA peer in one PE's row can be P2P in the other's).
bool p2pClique(const std::vector<uint8_t>& p2pPairs, int nPes, const std::vector<int>& members);

}  // namespace mori::shmem::team
