// This PE's teams between init and finalize: the table of TeamDevice entries (host mirror and the
// device copy GpuStates::teams points to), the sync-slot pool in the symmetric heap, creation
// (the exchange over the parent team, checks, slot choice), destruction, and running collectives
// on a stream. Created by the runtime at init (predefined teams), destroyed at finalize.
#pragma once

#include <vector>

#include "mori/shmem.h"
#include "mori/shmem/team/team_types.hpp"
#include "shmem/team_kernels.hpp"
#include "shmem/team_logic.hpp"
#include "src/common/status.hpp"

namespace mori::shmem {

class Runtime;

// Collective, at init (after the symmetric heap exists, before GpuStates is built): the slot pool,
// WORLD, NODE, SHARED and the device team table.
Status createTeams(Runtime& r);
// The device team table (GpuStates::teams), or null before createTeams / after destroyTeams.
const team::TeamDevice* teamTable();
// At finalize (before the heap is released and the modules are unbound): frees the team table.
void destroyTeams();

namespace team {

class Registry {
 public:
  // The live registry, or null (logging that `call` needs init).
  static Registry* get(const char* call);

  Status splitStrided(mori_shmem_team_t parent, int start, int stride, int size, const mori_shmem_team_config_t* config,
                      long mask, mori_shmem_team_t* out);
  Status split2d(mori_shmem_team_t parent, int xrange, const mori_shmem_team_config_t* xconfig, long xmask,
                 mori_shmem_team_t* xteam, const mori_shmem_team_config_t* yconfig, long ymask,
                 mori_shmem_team_t* yteam);
  Status destroy(mori_shmem_team_t team);

  // The team's entry if it is live on this PE, else null.
  const TeamDevice* live(mori_shmem_team_t team) const;
  const std::vector<int>& worldPes(mori_shmem_team_t team) const { return entries_[team].world; }
  const mori_shmem_team_config_t& config(mori_shmem_team_t team) const { return entries_[team].config; }
  // Whether every member reaches every other member by P2P, from every PE's transport row
  // (gathered at init): the same answer on every member.
  bool p2pClique(mori_shmem_team_t team) const { return entries_[team].p2pClique; }

  // Runs a collective on `stream` (blocking: after the device's earlier work, on the registry's
  // stream, waiting for it).
  Status run(const char* call, const CollectiveArgs& args, hipStream_t stream, bool blocking);

  Runtime& runtime() { return rt_; }
  const TeamDevice* deviceTable() const { return tableDev_; }
  // Most blocks a spread host collective runs on: the GPU's multiprocessors.
  int maxBlocks() const { return maxBlocks_; }
  // The largest spread grid that runs its entry sync inside (resident_grid.hpp: residentGrid).
  int residentGrid() const { return residentGrid_; }
  ~Registry();

 private:
  friend Status mori::shmem::createTeams(Runtime& r);
  explicit Registry(Runtime& rt) : rt_(rt) {}
  Status init();
  Status install(int handle, const std::vector<int>& world, const mori_shmem_team_config_t& config);
  Status upload(int handle);
  Status split(const char* call, mori_shmem_team_t parent, SplitKind kind, int a, int b, int c,
               const mori_shmem_team_config_t* const configs[2], const long masks[2], int teams,
               mori_shmem_team_t* outs[2]);
  uint32_t freeSlots() const;

  struct Entry {
    bool live = false;
    TeamDevice dev{};
    std::vector<int> world;
    void* arraysDev = nullptr;  // TeamDevice::slotWindows and ::members
    mori_shmem_team_config_t config{};
    uint64_t splits = 0;  // splits made from this team (the exchange's sequence number)
    bool p2pClique = false;
  };

  Runtime& rt_;
  uint8_t* pool_ = nullptr;
  size_t slotBytes_ = 0;
  TeamDevice* tableDev_ = nullptr;
  hipStream_t stream_ = nullptr;
  int maxBlocks_ = 1;
  int residentGrid_ = 0;
  std::vector<uint8_t> p2pPairs_;  // [a * nPes + b]: PE a reaches PE b by P2P
  Entry entries_[kMaxTeams];
};

}  // namespace team
}  // namespace mori::shmem
