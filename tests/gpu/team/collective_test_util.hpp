// Shared by the team collective suites: the teams under test, calls at a chosen scope, and the
// reductions' input values.
#pragma once

#include <type_traits>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

namespace mori::test {

// The teams under test on this job: world, the last n-1 PEs (3 at np4), the even PEs.
struct Teams {
  std::vector<mori_shmem_team_t> all;
  std::vector<mori_shmem_team_t> made;
  Teams() {
    const int n = mori_shmem_n_pes();
    all.push_back(MORI_SHMEM_TEAM_WORLD);
    mori_shmem_team_t t = MORI_SHMEM_TEAM_INVALID;
    EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, &t), 0);
    all.push_back(t);
    made.push_back(t);
    t = MORI_SHMEM_TEAM_INVALID;
    EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &t), 0);
    all.push_back(t);
    made.push_back(t);
  }
  ~Teams() {
    for (mori_shmem_team_t t : made)
      if (t != MORI_SHMEM_TEAM_INVALID) EXPECT_EQ(mori_shmem_team_destroy(t), 0);
  }
};

// The reductions' inputs: PE pe's element i for seed. Floating types get small integers, so
// that every order of operations gives the same exact value in every type.
template <typename T>
T valueFor(uint64_t seed, int pe, size_t i, mori::shmem::team::Op op) {
  const uint64_t r = mix(seed * 0x100000001b3ull + static_cast<uint64_t>(pe) * 0x9e3779b1ull + i);
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(r);
  } else {
    const float v = op == mori::shmem::team::Op::Prod ? static_cast<float>(1 + r % 3)
                                                      : static_cast<float>(static_cast<int>(r % 17) - 8);
    if constexpr (mori::shmem::team::kIsHalf16<T>)
      return mori::gpu::fromFloat<T>(v);
    else
      return static_cast<T>(v);
  }
}

}  // namespace mori::test

// Calls the collective FN at scope SC with the team as handle or value.
#define CALL_SCOPE(SC, FN, TEAM, ...)                                                               \
  do {                                                                                              \
    if constexpr (SC == 0) {                                                                        \
      if (threadIdx.x == 0) FN##_thread(TEAM, __VA_ARGS__);                                         \
    } else if constexpr (SC == 1) {                                                                 \
      if (threadIdx.x < static_cast<unsigned>(mori::gpu::waveSize())) FN##_warp(TEAM, __VA_ARGS__); \
    } else {                                                                                        \
      FN##_block(TEAM, __VA_ARGS__);                                                                \
    }                                                                                               \
  } while (0)
#define CALL(SC, FN, ...)                     \
  do {                                        \
    if constexpr (BV)                         \
      CALL_SCOPE(SC, FN, value, __VA_ARGS__); \
    else                                      \
      CALL_SCOPE(SC, FN, team, __VA_ARGS__);  \
  } while (0)
