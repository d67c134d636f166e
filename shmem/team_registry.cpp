#include "shmem/team_registry.hpp"

#include <string.h>

#include <memory>

#include "shmem/resident_grid.hpp"
#include "shmem/runtime.hpp"
#include "shmem/team_spread.hpp"
#include "src/common/gpu_check.hpp"

namespace mori::shmem {
namespace {

static_assert(team::kMaxTeams == MORI_SHMEM_MAX_TEAMS, "the C API states the device table's size");
static_assert(team::kMaxTeams <= 32, "free slots travel as a 32-bit mask (SplitRecord::freeSlots)");

team::Registry*& current() {
  static team::Registry* r = nullptr;
  return r;
}

}  // namespace

Status createTeams(Runtime& r) {
  std::unique_ptr<team::Registry> reg(new team::Registry(r));
  MORI_TRY(reg->init());
  current() = reg.release();
  return Status::Success;
}

const team::TeamDevice* teamTable() { return current() ? current()->deviceTable() : nullptr; }

void destroyTeams() {
  delete current();
  current() = nullptr;
}

namespace team {

Registry* Registry::get(const char* call) {
  if (!Runtime::get(call)) return nullptr;
  if (!current()) MORI_LOG_ERROR(log::kInit, "%s: the team layer did not initialise (see the init log)", call);
  return current();
}

Registry::~Registry() {
  for (Entry& e : entries_)
    if (e.arraysDev) (void)hipFree(e.arraysDev);
  if (tableDev_) (void)hipFree(tableDev_);
  if (stream_) (void)hipStreamDestroy(stream_);
  // The slot pool lives in the symmetric heap, released with it.
}

uint32_t Registry::freeSlots() const {
  uint32_t m = 0;
  for (int k = 0; k < kMaxTeams; ++k)
    if (!entries_[k].live) m |= 1u << k;
  return m;
}

const TeamDevice* Registry::live(mori_shmem_team_t team) const {
  if (team < 0 || team >= kMaxTeams || !entries_[team].live) return nullptr;
  return &entries_[team].dev;
}

Status Registry::init() {
  context::Context& ctx = rt_.ctx();
  const int n = ctx.nPes(), me = ctx.myPe();
  // Every PE takes the same push entry (GpuStates::collectiveFlags), else the PEs that wait for
  // the others' entry signals would wait for ever.
  const uint8_t mine = callerEntry(rt_.cfg().collectiveEntry) ? 1 : 0;
  std::vector<uint8_t> entries(static_cast<size_t>(n));
  MORI_TRY(rt_.boot().allGather(&mine, entries.data(), 1));
  const std::string differ = entrySettingsDiffer(entries);
  if (!differ.empty()) return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: %s", me, differ.c_str());
  slotBytes_ = slotBytes(n);
  void* pool = nullptr;
  MORI_TRY(rt_.mem().allocate(kMaxTeams * slotBytes_, 4096, true, &pool));
  pool_ = static_cast<uint8_t*>(pool);
  MORI_HIP_TRY(hipMalloc(&tableDev_, kMaxTeams * sizeof(TeamDevice)), log::kInit);
  MORI_HIP_TRY(hipMemset(tableDev_, 0, kMaxTeams * sizeof(TeamDevice)), log::kInit);
  MORI_HIP_TRY(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), log::kInit);
  int device = 0;
  MORI_HIP_TRY(hipGetDevice(&device), log::kInit);
  MORI_HIP_TRY(hipDeviceGetAttribute(&maxBlocks_, hipDeviceAttributeMultiprocessorCount, device), log::kInit);
  int perSm = 0;
  if (spreadResidentBlocksPerSm)
    MORI_TRY(rt_.launch("team init: the spread kernels' occupancy", spreadResidentBlocksPerSm, &perSm));
  residentGrid_ = mori::shmem::residentGrid(maxBlocks_, perSm, ctx.sharedGpuPes());

  // Every PE's transport row, so that every member of a team judges its P2P clique alike.
  std::vector<uint8_t> row(static_cast<size_t>(n));
  for (int pe = 0; pe < n; ++pe) row[static_cast<size_t>(pe)] = ctx.transport(pe) == Transport::P2P;
  p2pPairs_.resize(static_cast<size_t>(n) * n);
  MORI_TRY(rt_.boot().allGather(row.data(), p2pPairs_.data(), static_cast<size_t>(n)));

  const mori_shmem_team_config_t defaults = MORI_SHMEM_TEAM_CONFIG_INITIALIZER;
  std::vector<int> world(static_cast<size_t>(n));
  for (int pe = 0; pe < n; ++pe) world[static_cast<size_t>(pe)] = pe;
  MORI_TRY(install(MORI_SHMEM_TEAM_WORLD, world, defaults));
  const std::vector<int>& node = ctx.nodePes();
  MORI_TRY(install(MORI_SHMEM_TEAM_NODE, node, defaults));

  // SHARED: the node when every pair of its PEs reaches each other by P2P, else this PE alone.
  MORI_TRY(
      install(MORI_SHMEM_TEAM_SHARED, team::p2pClique(p2pPairs_, n, node) ? node : std::vector<int>{me}, defaults));
  std::vector<std::string> hosts;
  for (const auto& p : ctx.peers()) hosts.emplace_back(p.hostId);
  MORI_TRY(install(MORI_SHMEM_TEAM_SAME_MYPE_NODE, sameIndexOnEveryHost(hosts, me), defaults));
  return Status::Success;
}

Status Registry::install(int handle, const std::vector<int>& world, const mori_shmem_team_config_t& config) {
  Entry& e = entries_[handle];
  const int me = rt_.ctx().myPe();
  if (e.arraysDev) (void)hipFree(e.arraysDev);  // left by an install that failed after allocating
  e = Entry{};
  e.world = world;
  e.config = config;
  e.p2pClique = team::p2pClique(p2pPairs_, rt_.ctx().nPes(), world);
  TeamDevice& d = e.dev;
  d.size = static_cast<int32_t>(world.size());
  d.myIndex = indexIn(world, me);
  d.handle = handle;
  d.scratch = static_cast<int32_t>(scratchOffset(rt_.ctx().nPes()));
  d.slot = pool_ + static_cast<size_t>(handle) * slotBytes_;
  if (d.myIndex < 0)
    return MORI_FAIL(Status::Internal, log::kInit, "PE %d: team %d was installed without this PE", me, handle);
  // The team's device arrays, one allocation: the members' slot windows, then (a set that is no
  // arithmetic progression) their world PEs.
  int start = 0, stride = 1;
  const bool strided = asStrided(world, &start, &stride);
  const size_t n = world.size(), windowBytes = n * sizeof(uint64_t);
  std::vector<uint8_t> arrays(windowBytes + (strided ? 0 : n * sizeof(int32_t)));
  for (size_t j = 0; j < n; ++j) {
    const uint64_t w = reinterpret_cast<uint64_t>(rt_.mem().peerPointer(d.slot, world[j]));
    memcpy(arrays.data() + j * sizeof(uint64_t), &w, sizeof(w));
  }
  for (size_t j = 0; !strided && j < n; ++j) {
    const int32_t pe = world[j];
    memcpy(arrays.data() + windowBytes + j * sizeof(int32_t), &pe, sizeof(pe));
  }
  MORI_HIP_TRY(hipMalloc(&e.arraysDev, arrays.size()), log::kInit);
  MORI_HIP_TRY(hipMemcpy(e.arraysDev, arrays.data(), arrays.size(), hipMemcpyHostToDevice), log::kInit);
  d.slotWindows = static_cast<const uint64_t*>(e.arraysDev);
  d.start = strided ? start : world[0];
  d.stride = strided ? stride : 0;
  d.members = strided ? nullptr : reinterpret_cast<const int32_t*>(static_cast<uint8_t*>(e.arraysDev) + windowBytes);
  e.live = true;
  return upload(handle);
}

Status Registry::upload(int handle) {
  const TeamDevice d = entries_[handle].live ? entries_[handle].dev : TeamDevice{};
  MORI_HIP_TRY(hipMemcpy(tableDev_ + handle, &d, sizeof(d), hipMemcpyHostToDevice), log::kInit);
  return Status::Success;
}

Status Registry::run(const char* call, const CollectiveArgs& args, hipStream_t stream, bool blocking) {
  MORI_TRY(rt_.checkPeers(call));
  if (blocking) {
    MORI_TRY(rt_.checkGpu(hipDeviceSynchronize(), call));
    stream = stream_;
  }
  MORI_TRY(rt_.launch(call, launchCollective, args, stream));
  if (blocking) MORI_TRY(rt_.checkGpu(hipStreamSynchronize(stream_), call));
  return Status::Success;
}

Status Registry::splitStrided(mori_shmem_team_t parent, int start, int stride, int size,
                              const mori_shmem_team_config_t* config, long mask, mori_shmem_team_t* out) {
  const mori_shmem_team_config_t* configs[2] = {config, nullptr};
  const long masks[2] = {mask, 0};
  mori_shmem_team_t* outs[2] = {out, nullptr};
  return split("mori_shmem_team_split_strided", parent, SplitKind::Strided, start, stride, size, configs, masks, 1,
               outs);
}

Status Registry::split2d(mori_shmem_team_t parent, int xrange, const mori_shmem_team_config_t* xconfig, long xmask,
                         mori_shmem_team_t* xteam, const mori_shmem_team_config_t* yconfig, long ymask,
                         mori_shmem_team_t* yteam) {
  const mori_shmem_team_config_t* configs[2] = {xconfig, yconfig};
  const long masks[2] = {xmask, ymask};
  mori_shmem_team_t* outs[2] = {xteam, yteam};
  return split("mori_shmem_team_split_2d", parent, SplitKind::TwoD, xrange, 0, 0, configs, masks, 2, outs);
}

Status Registry::split(const char* call, mori_shmem_team_t parent, SplitKind kind, int a, int b, int c,
                       const mori_shmem_team_config_t* const configs[2], const long masks[2], int teams,
                       mori_shmem_team_t* outs[2]) {
  const int me = rt_.ctx().myPe();
  for (int i = 0; i < teams; ++i)
    if (!outs[i]) return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: %s: a new-team pointer is NULL", me, call);
  for (int i = 0; i < teams; ++i) *outs[i] = MORI_SHMEM_TEAM_INVALID;
  const TeamDevice* p = live(parent);
  if (!p)
    return MORI_FAIL(Status::InvalidUsage, log::kInit,
                     "PE %d: %s: parent team %d is not a live team of this PE (only the parent's members call)", me,
                     call, static_cast<int>(parent));
  Entry& pe = entries_[parent];
  const int parentSize = p->size;

  SplitRecord mine;
  memset(&mine, 0, sizeof(mine));
  mine.magic = kSplitMagic;
  mine.kind = static_cast<int32_t>(kind);
  mine.sequence = ++pe.splits;
  mine.start = a;
  mine.stride = b;
  mine.size = c;
  mine.localOk = 1;
  mine.worldPe = me;
  mine.freeSlots = freeSlots();
  for (int i = 0; i < 2; ++i) {
    mine.contexts[i] = -1;
    if (i < teams && (masks[i] & MORI_SHMEM_TEAM_NUM_CONTEXTS)) {
      if (!configs[i]) {
        MORI_LOG_ERROR(log::kInit, "PE %d: %s: config_mask names num_contexts but config is NULL", me, call);
        mine.localOk = 0;
      } else {
        mine.contexts[i] = configs[i]->num_contexts;
      }
    }
  }

  // The exchange: every parent PE's record, gathered over the parent by the device fcollect.
  uint8_t* area = p->slot + kExchangeOffset;
  MORI_TRY(rt_.checkGpu(hipDeviceSynchronize(), call));
  MORI_HIP_TRY(hipMemcpy(area, &mine, sizeof(mine), hipMemcpyHostToDevice), log::kInit);
  CollectiveArgs x{};
  x.team = *p;
  x.kind = MORI_SHMEM_COLL_FCOLLECT;
  x.dest = area + kExchangeRecord;
  x.source = area;
  x.bytes = kExchangeRecord;
  MORI_TRY(run(call, x, nullptr, true));
  std::vector<SplitRecord> all(static_cast<size_t>(parentSize));
  MORI_HIP_TRY(hipMemcpy(all.data(), area + kExchangeRecord, all.size() * sizeof(SplitRecord), hipMemcpyDeviceToHost),
               log::kInit);

  // From here every parent PE draws the same conclusions from the same records.
  std::string why = verdict(all, call);
  Status bad = Status::InvalidUsage;
  if (why.empty()) {
    const std::string args = kind == SplitKind::Strided ? checkStrided(parentSize, a, b, c) : check2d(parentSize, a);
    if (!args.empty())
      why = std::string(call) + "(parent team " + std::to_string(parent) + " of " + std::to_string(parentSize) +
            " PEs): " + args;
  }
  if (why.empty())
    for (int i = 0; i < teams; ++i)
      if (mine.contexts[i] > 0) {
        why = std::string(call) + ": num_contexts " + std::to_string(mine.contexts[i]) +
              ": team contexts are not supported (pass 0 or leave it out of the mask)";
        bad = Status::NotSupported;
      }
  std::vector<int> slots;
  if (why.empty()) {
    slots = commonFreeSlots(all, teams, kPredefinedTeams);
    if (slots.empty()) {
      why = std::string(call) + ": no free team slot on every parent PE: at most " + std::to_string(kMaxTeams) +
            " teams exist at once (MORI_SHMEM_MAX_TEAMS, predefined ones included); destroy one first";
      bad = Status::OutOfMemory;
    }
  }
  if (!why.empty()) return MORI_FAIL(bad, log::kInit, "PE %d: %s", me, why.c_str());

  std::vector<int> members[2];
  if (kind == SplitKind::Strided)
    members[0] = stridedMembers(a, b, c);
  else
    team::split2d(parentSize, a, p->myIndex, &members[0], &members[1]);
  for (int i = 0; i < teams; ++i) {
    if (indexIn(members[i], p->myIndex) < 0) continue;
    std::vector<int> world;
    for (int idx : members[i]) world.push_back(pe.world[static_cast<size_t>(idx)]);
    mori_shmem_team_config_t cfg = MORI_SHMEM_TEAM_CONFIG_INITIALIZER;
    if (mine.contexts[i] >= 0) cfg.num_contexts = mine.contexts[i];
    MORI_HIP_TRY(hipMemset(pool_ + static_cast<size_t>(slots[i]) * slotBytes_, 0, slotBytes_), log::kInit);
    MORI_TRY(install(slots[i], world, cfg));
    *outs[i] = slots[i];
  }
  // No member may signal into a new slot before every member has cleared it.
  MORI_HIP_TRY(hipDeviceSynchronize(), log::kInit);
  CollectiveArgs s{};
  s.team = entries_[parent].dev;
  s.kind = kKindSync;
  return run(call, s, nullptr, true);
}

Status Registry::destroy(mori_shmem_team_t team) {
  const int me = rt_.ctx().myPe();
  if (team >= 0 && team < kPredefinedTeams)
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: mori_shmem_team_destroy: team %d is predefined", me,
                     static_cast<int>(team));
  const TeamDevice* t = live(team);
  if (!t)
    return MORI_FAIL(Status::InvalidUsage, log::kInit,
                     "PE %d: mori_shmem_team_destroy: team %d is not a live team of this PE", me,
                     static_cast<int>(team));
  CollectiveArgs s{};
  s.team = *t;
  s.kind = kKindSync;
  MORI_TRY(run("mori_shmem_team_destroy", s, nullptr, true));
  Entry& e = entries_[team];
  if (e.arraysDev) (void)hipFree(e.arraysDev);
  e = Entry{};
  return upload(team);
}

}  // namespace team
}  // namespace mori::shmem
