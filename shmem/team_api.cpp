// The team and collective host C API (mori/shmem_team.h): argument checks and status conversion
// around team::Registry.
#include <string.h>

#include "shmem/c_api.hpp"
#include "shmem/runtime.hpp"
#include "shmem/team_registry.hpp"
#include "shmem/team_spread.hpp"

using mori::Status;
using mori::shmem::code;
using mori::shmem::team::CollectiveArgs;
using mori::shmem::team::Registry;
using mori::shmem::team::TeamDevice;
namespace log = mori::log;

namespace {
constexpr int kUsage = MORI_SHMEM_ERROR_INVALID_USAGE;

// The live team, or null after logging who asked for which team.
const TeamDevice* liveTeam(Registry* r, mori_shmem_team_t team, const char* call) {
  const TeamDevice* t = r->live(team);
  if (!t)
    MORI_LOG_ERROR(log::kInit, "PE %d: %s: team %d is not a live team of this PE", r->runtime().ctx().myPe(), call,
                   static_cast<int>(team));
  return t;
}

bool symmetric(Registry* r, const void* p, size_t bytes) {
  if (!bytes) return true;
  const int me = r->runtime().ctx().myPe();
  return p && r->runtime().mem().peerPointer(p, me) &&
         r->runtime().mem().peerPointer(static_cast<const char*>(p) + bytes - 1, me);
}

const char* kindName(int kind) {
  switch (kind) {
    case MORI_SHMEM_COLL_BROADCAST: return "broadcast";
    case MORI_SHMEM_COLL_FCOLLECT: return "fcollect";
    case MORI_SHMEM_COLL_COLLECT: return "collect";
    case MORI_SHMEM_COLL_ALLTOALL: return "alltoall";
    case MORI_SHMEM_COLL_REDUCE: return "reduce";
    case MORI_SHMEM_COLL_REDUCESCATTER: return "reducescatter";
  }
  return "?";
}

size_t dtypeBytes(int dtype) {
  switch (dtype) {
    case MORI_SHMEM_DTYPE_INT8:
    case MORI_SHMEM_DTYPE_UINT8: return 1;
    case MORI_SHMEM_DTYPE_INT16:
    case MORI_SHMEM_DTYPE_UINT16:
    case MORI_SHMEM_DTYPE_HALF:
    case MORI_SHMEM_DTYPE_BFLOAT16: return 2;
    case MORI_SHMEM_DTYPE_INT32:
    case MORI_SHMEM_DTYPE_UINT32:
    case MORI_SHMEM_DTYPE_FLOAT: return 4;
    case MORI_SHMEM_DTYPE_INT64:
    case MORI_SHMEM_DTYPE_UINT64:
    case MORI_SHMEM_DTYPE_DOUBLE: return 8;
  }
  return 0;
}
bool floating(int dtype) { return dtype >= MORI_SHMEM_DTYPE_FLOAT; }

// Whether every member reaches every other by P2P (the same answer on every member) and maps
// `source`. Only then is a collective spread over many blocks: each block's moves are then complete
// when it tells the members (spreadCall's arrival: a release and an atomic add), whereas RDMA puts
// and gets complete at their completions (and, with PEs sharing a GPU, wait on the NIC model's
// kernels for room) and SDMA peers' puts, though the peers are mapped, at a quiet.
bool allP2p(Registry* r, mori_shmem_team_t team, const void* source) {
  if (!r->p2pClique(team)) return false;
  for (int pe : r->worldPes(team))
    if (!r->runtime().mem().peerPointer(source, pe)) return false;
  return true;
}

// Whether [a, a + aBytes) and [b, b + bBytes) share a byte.
bool overlaps(const void* a, size_t aBytes, const void* b, size_t bBytes) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return aBytes && bBytes && x < y + bBytes && y < x + aBytes;
}

// Blocks of the host collective (team_spread.hpp): what lands in this PE decides. Reductions
// spread only on their direct-load path (collectives.hpp, reduceWith: every member P2P, dest
// apart from the source the members read), which the device then takes too; a reducescatter's
// spread kernel is the reduction's over this PE's piece (team_kernels.cpp).
int collectiveBlocks(Registry* r, mori_shmem_team_t team, int kind, const void* dest, const void* source, size_t bytes,
                     size_t all) {
  using mori::shmem::team::spreadBlocks;
  switch (kind) {
    case MORI_SHMEM_COLL_BROADCAST: return spreadBlocks(bytes, allP2p(r, team, source), r->maxBlocks());
    case MORI_SHMEM_COLL_FCOLLECT:
    case MORI_SHMEM_COLL_ALLTOALL: return spreadBlocks(all, allP2p(r, team, source), r->maxBlocks());
    case MORI_SHMEM_COLL_REDUCE:
      return spreadBlocks(all, !overlaps(dest, bytes, source, bytes) && allP2p(r, team, source), r->maxBlocks());
    case MORI_SHMEM_COLL_REDUCESCATTER:
      return spreadBlocks(all, !overlaps(dest, bytes, source, all) && allP2p(r, team, source), r->maxBlocks());
  }
  return 1;
}

}  // namespace

MORI_API int mori_shmem_team_split_strided(mori_shmem_team_t parent, int start, int stride, int size,
                                           const mori_shmem_team_config_t* config, long config_mask,
                                           mori_shmem_team_t* new_team) {
  Registry* r = Registry::get("mori_shmem_team_split_strided");
  if (!r) {
    if (new_team) *new_team = MORI_SHMEM_TEAM_INVALID;
    return kUsage;
  }
  return code(r->splitStrided(parent, start, stride, size, config, config_mask, new_team));
}

MORI_API int mori_shmem_team_split_2d(mori_shmem_team_t parent, int xrange, const mori_shmem_team_config_t* xconfig,
                                      long xconfig_mask, mori_shmem_team_t* xteam,
                                      const mori_shmem_team_config_t* yconfig, long yconfig_mask,
                                      mori_shmem_team_t* yteam) {
  Registry* r = Registry::get("mori_shmem_team_split_2d");
  if (!r) {
    if (xteam) *xteam = MORI_SHMEM_TEAM_INVALID;
    if (yteam) *yteam = MORI_SHMEM_TEAM_INVALID;
    return kUsage;
  }
  return code(r->split2d(parent, xrange, xconfig, xconfig_mask, xteam, yconfig, yconfig_mask, yteam));
}

MORI_API int mori_shmem_team_destroy(mori_shmem_team_t team) {
  Registry* r = Registry::get("mori_shmem_team_destroy");
  return r ? code(r->destroy(team)) : kUsage;
}

MORI_API int mori_shmem_team_get_config(mori_shmem_team_t team, long config_mask, mori_shmem_team_config_t* config) {
  Registry* r = Registry::get("mori_shmem_team_get_config");
  if (!r || !liveTeam(r, team, "mori_shmem_team_get_config")) return kUsage;
  if (!config) return code(MORI_FAIL(Status::InvalidUsage, log::kInit, "mori_shmem_team_get_config: config is NULL"));
  if (config_mask & MORI_SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = r->config(team).num_contexts;
  config->version = MORI_SHMEM_TEAM_CONFIG_VERSION;
  return MORI_SHMEM_SUCCESS;
}

MORI_API int mori_shmemi_team_device(mori_shmem_team_t team, void* out, size_t bytes) {
  if (!out || bytes != sizeof(TeamDevice))
    return code(MORI_FAIL(Status::InvalidUsage, log::kInit,
                          "mori_shmem_team_get_device: %zu bytes asked, the team value has %zu (header mismatch?)",
                          bytes, sizeof(TeamDevice)));
  memset(out, 0, bytes);
  Registry* r = Registry::get("mori_shmem_team_get_device");
  const TeamDevice* t = r ? liveTeam(r, team, "mori_shmem_team_get_device") : nullptr;
  if (!t) return kUsage;
  memcpy(out, t, sizeof(TeamDevice));
  return MORI_SHMEM_SUCCESS;
}

MORI_API int mori_shmemi_team_my_pe(mori_shmem_team_t team) {
  if (team == MORI_SHMEM_TEAM_INVALID) return -1;
  Registry* r = Registry::get("mori_shmem_team_my_pe");
  const TeamDevice* t = r ? r->live(team) : nullptr;
  return t ? t->myIndex : -1;
}
MORI_API int mori_shmemi_team_n_pes(mori_shmem_team_t team) {
  if (team == MORI_SHMEM_TEAM_INVALID) return -1;
  Registry* r = Registry::get("mori_shmem_team_n_pes");
  const TeamDevice* t = r ? r->live(team) : nullptr;
  return t ? t->size : -1;
}
MORI_API int mori_shmemi_team_translate_pe(mori_shmem_team_t src_team, int src_pe, mori_shmem_team_t dest_team) {
  if (src_team == MORI_SHMEM_TEAM_INVALID || dest_team == MORI_SHMEM_TEAM_INVALID) return -1;
  Registry* r = Registry::get("mori_shmem_team_translate_pe");
  if (!r || !r->live(src_team) || !r->live(dest_team)) return -1;
  const std::vector<int>& src = r->worldPes(src_team);
  if (src_pe < 0 || src_pe >= static_cast<int>(src.size())) return -1;
  return mori::shmem::team::indexIn(r->worldPes(dest_team), src[static_cast<size_t>(src_pe)]);
}
MORI_API int mori_shmem_team_my_pe(mori_shmem_team_t team) { return mori_shmemi_team_my_pe(team); }
MORI_API int mori_shmem_team_n_pes(mori_shmem_team_t team) { return mori_shmemi_team_n_pes(team); }
MORI_API int mori_shmem_team_translate_pe(mori_shmem_team_t src_team, int src_pe, mori_shmem_team_t dest_team) {
  return mori_shmemi_team_translate_pe(src_team, src_pe, dest_team);
}

namespace {
int syncCall(const char* call, mori_shmem_team_t team, int kind, mori_shmem_stream_t stream, bool blocking) {
  Registry* r = Registry::get(call);
  const TeamDevice* t = r ? liveTeam(r, team, call) : nullptr;
  if (!t) return kUsage;
  CollectiveArgs a{};
  a.team = *t;
  a.kind = kind;
  return code(r->run(call, a, reinterpret_cast<hipStream_t>(stream), blocking));
}
}  // namespace

MORI_API int mori_shmem_barrier(mori_shmem_team_t team) {
  return syncCall("mori_shmem_barrier", team, mori::shmem::team::kKindBarrier, nullptr, true);
}
MORI_API int mori_shmem_team_sync(mori_shmem_team_t team) {
  return syncCall("mori_shmem_team_sync", team, mori::shmem::team::kKindSync, nullptr, true);
}
MORI_API int mori_shmem_barrier_on_stream(mori_shmem_team_t team, mori_shmem_stream_t stream) {
  return syncCall("mori_shmem_barrier_on_stream", team, mori::shmem::team::kKindBarrier, stream, false);
}
MORI_API int mori_shmem_team_sync_on_stream(mori_shmem_team_t team, mori_shmem_stream_t stream) {
  return syncCall("mori_shmem_team_sync_on_stream", team, mori::shmem::team::kKindSync, stream, false);
}

MORI_API int mori_shmemi_collective(int kind, mori_shmem_team_t team, void* dest, const void* source, size_t nelems,
                                    size_t elem_bytes, int root, int dtype, int op, mori_shmem_stream_t stream,
                                    int blocking) {
  const char* name = kindName(kind);
  char call[64];
  snprintf(call, sizeof(call), "mori_shmem %s%s", name, blocking ? "" : "_on_stream");
  Registry* r = Registry::get(call);
  const TeamDevice* t = r ? liveTeam(r, team, call) : nullptr;
  if (!t) return kUsage;
  const int me = r->runtime().ctx().myPe();
  if (kind < MORI_SHMEM_COLL_BROADCAST || kind > MORI_SHMEM_COLL_REDUCESCATTER || elem_bytes == 0 ||
      nelems > (static_cast<size_t>(-1) / elem_bytes) / static_cast<size_t>(t->size))
    return code(MORI_FAIL(Status::InvalidUsage, log::kInit,
                          "PE %d: %s: invalid collective (kind %d, %zu elements of %zu bytes)", me, call, kind, nelems,
                          elem_bytes));
  const size_t bytes = nelems * elem_bytes;
  const size_t all = bytes * static_cast<size_t>(t->size);
  size_t destBytes = bytes, srcBytes = bytes;
  if (kind == MORI_SHMEM_COLL_FCOLLECT) destBytes = all;
  if (kind == MORI_SHMEM_COLL_COLLECT) destBytes = 0;  // the sum of every member's count: the caller sizes it
  if (kind == MORI_SHMEM_COLL_ALLTOALL) destBytes = srcBytes = all;
  if (kind == MORI_SHMEM_COLL_REDUCESCATTER) srcBytes = all;
  if (kind == MORI_SHMEM_COLL_BROADCAST && (root < 0 || root >= t->size))
    return code(MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: %s: root %d is not a PE of team %d (0..%d)", me,
                          call, root, static_cast<int>(team), t->size - 1));
  if (kind == MORI_SHMEM_COLL_REDUCE || kind == MORI_SHMEM_COLL_REDUCESCATTER) {
    const bool bitOp = op == MORI_SHMEM_REDUCE_AND || op == MORI_SHMEM_REDUCE_OR || op == MORI_SHMEM_REDUCE_XOR;
    if (dtypeBytes(dtype) != elem_bytes || op < MORI_SHMEM_REDUCE_SUM || op > MORI_SHMEM_REDUCE_XOR ||
        (bitOp && floating(dtype)))
      return code(MORI_FAIL(Status::InvalidUsage, log::kInit,
                            "PE %d: %s: op %d is not defined for dtype %d (%zu-byte elements)", me, call, op, dtype,
                            elem_bytes));
  }
  if (!symmetric(r, dest, destBytes ? destBytes : (nelems ? 1 : 0)) || !symmetric(r, source, srcBytes))
    return code(MORI_FAIL(Status::InvalidUsage, log::kInit,
                          "PE %d: %s: dest %p (%zu bytes) or source %p (%zu bytes) is not inside the symmetric heap or "
                          "a registered region",
                          me, call, dest, destBytes, source, srcBytes));
  if (kind == MORI_SHMEM_COLL_REDUCESCATTER && overlaps(dest, bytes, source, all)) {
    const void* ownPiece = static_cast<const char*>(source) + static_cast<size_t>(t->myIndex) * bytes;
    if (dest != ownPiece)
      return code(MORI_FAIL(Status::InvalidUsage, log::kInit,
                            "PE %d: %s: dest %p overlaps source %p (%d pieces of %zu bytes) other than as this PE's "
                            "own piece %p (in place); other members read the rest of source while dest is written",
                            me, call, dest, source, t->size, bytes, ownPiece));
  }
  CollectiveArgs a{};
  a.team = *t;
  a.kind = kind;
  a.dest = dest;
  a.source = source;
  a.bytes = bytes;
  a.nelems = nelems;
  a.root = root;
  a.dtype = dtype;
  a.op = op;
  a.blocks = collectiveBlocks(r, team, kind, dest, source, bytes, all);
  a.entryInKernel = a.blocks <= r->residentGrid();
  return code(r->run(call, a, reinterpret_cast<hipStream_t>(stream), blocking != 0));
}
