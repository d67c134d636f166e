// mori_shmem_team_my_pe / _n_pes / _translate_pe for GPU compilers: one name, callable from host
// and device code (as mori_shmem_my_pe is: impl/pe_queries.hpp). The host path calls the runtime;
// the device path reads this module's team table. Overloads taking a team's device value need no
// table lookup.
#pragma once

#include "mori/shmem/team/team_lookup.hpp"

namespace mori::shmem::team {
// Index in `t` of world PE `pe`, or -1.
MORI_HOST_DEVICE_INLINE int indexOf(const TeamDevice& t, int pe) {
  if (t.size <= 0 || pe < 0) return -1;
  if (t.members) {
    for (int i = 0; i < t.size; ++i)
      if (t.members[i] == pe) return i;
    return -1;
  }
  const int d = pe - t.start;
  if (d < 0 || d % t.stride != 0) return -1;
  const int i = d / t.stride;
  return i < t.size ? i : -1;
}
}  // namespace mori::shmem::team

static __host__ __device__ inline int mori_shmem_team_my_pe(mori_shmem_team_t team) {
#if MORI_DEVICE_COMPILE
  if (team == MORI_SHMEM_TEAM_INVALID) return -1;
  return mori::shmem::team::teamOf(team).myIndex;
#else
  return mori_shmemi_team_my_pe(team);
#endif
}

static __host__ __device__ inline int mori_shmem_team_n_pes(mori_shmem_team_t team) {
#if MORI_DEVICE_COMPILE
  if (team == MORI_SHMEM_TEAM_INVALID) return -1;
  return mori::shmem::team::teamOf(team).size;
#else
  return mori_shmemi_team_n_pes(team);
#endif
}

// PE number in dest_team of src_pe of src_team, or -1 when it is not a member of both.
static __host__ __device__ inline int mori_shmem_team_translate_pe(mori_shmem_team_t src_team, int src_pe,
                                                                   mori_shmem_team_t dest_team) {
#if MORI_DEVICE_COMPILE
  if (src_team == MORI_SHMEM_TEAM_INVALID || dest_team == MORI_SHMEM_TEAM_INVALID) return -1;
  const mori::shmem::team::TeamDevice s = mori::shmem::team::teamOf(src_team);
  if (src_pe < 0 || src_pe >= s.size) return -1;
  return mori::shmem::team::indexOf(mori::shmem::team::teamOf(dest_team), s.worldPe(src_pe));
#else
  return mori_shmemi_team_translate_pe(src_team, src_pe, dest_team);
#endif
}

static __host__ __device__ inline int mori_shmem_team_my_pe(const mori::shmem::team::TeamDevice& t) {
  return t.size > 0 ? t.myIndex : -1;
}
static __host__ __device__ inline int mori_shmem_team_n_pes(const mori::shmem::team::TeamDevice& t) {
  return t.size > 0 ? t.size : -1;
}
static __host__ __device__ inline int mori_shmem_team_translate_pe(const mori::shmem::team::TeamDevice& src, int src_pe,
                                                                   const mori::shmem::team::TeamDevice& dest) {
  if (src_pe < 0 || src_pe >= src.size) return -1;
  return mori::shmem::team::indexOf(dest, src.worldPe(src_pe));
}
