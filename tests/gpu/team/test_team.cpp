// Teams: the predefined teams, strided and 2-D splits (nested too), queries and translation on
// the host and in device code (by handle and by value), destroy and slot reuse past the table's
// size, and bad input: invalid arguments, PEs that disagree, destroying predefined teams, a full
// table. Every failing split must fail on every PE and leave MORI_SHMEM_TEAM_INVALID.
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

// out[0..2]: my_pe, n_pes, translate(member 0 -> WORLD) by handle; out[3..5] the same by value;
// out[6]: a block-scope team sync ran (1).
__global__ void queryKernel(mori_shmem_team_t team, mori_shmem_team_device_t value, int* out) {
  if (threadIdx.x == 0) {
    out[0] = mori_shmem_team_my_pe(team);
    out[1] = mori_shmem_team_n_pes(team);
    out[2] = mori_shmem_team_translate_pe(team, 0, MORI_SHMEM_TEAM_WORLD);
    out[3] = mori_shmem_team_my_pe(value);
    out[4] = mori_shmem_team_n_pes(value);
    out[5] = value.worldPe(0);
  }
  mori_shmem_team_sync_block(team);
  mori_shmem_barrier_block(value);
  if (threadIdx.x == 0) out[6] = 1;
}

// The device's answers for `team` on this PE, checked against the host's.
void expectDeviceAgrees(mori_shmem_team_t team) {
  int* d = nullptr;
  HIP_OK(hipMalloc(&d, 8 * sizeof(int)));
  HIP_OK(hipMemset(d, 0xff, 8 * sizeof(int)));
  queryKernel<<<1, 128>>>(team, mori_shmem_team_get_device(team), d);
  HIP_OK(hipDeviceSynchronize());
  int h[8];
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  HIP_OK(hipFree(d));
  const int me = mori_shmem_team_my_pe(team), n = mori_shmem_team_n_pes(team);
  const int first = mori_shmem_team_translate_pe(team, 0, MORI_SHMEM_TEAM_WORLD);
  EXPECT_EQ(h[0], me);
  EXPECT_EQ(h[1], n);
  EXPECT_EQ(h[2], first);
  EXPECT_EQ(h[3], me);
  EXPECT_EQ(h[4], n);
  EXPECT_EQ(h[5], first);
  EXPECT_EQ(h[6], 1);
  // The members' slot windows the one-step sends use: what mori_shmem_ptr says for each member.
  const mori_shmem_team_device_t value = mori_shmem_team_get_device(team);
  std::vector<uint64_t> windows(static_cast<size_t>(n));
  HIP_OK(hipMemcpy(windows.data(), value.slotWindows, windows.size() * sizeof(uint64_t), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(windows[static_cast<size_t>(i)],
              reinterpret_cast<uint64_t>(
                  mori_shmem_ptr(value.slot, mori_shmem_team_translate_pe(team, i, MORI_SHMEM_TEAM_WORLD))))
        << "team " << team << " member " << i;
}

TEST(Team, Predefined) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  EXPECT_EQ(mori_shmem_team_my_pe(MORI_SHMEM_TEAM_WORLD), me);
  EXPECT_EQ(mori_shmem_team_n_pes(MORI_SHMEM_TEAM_WORLD), n);
  for (mori_shmem_team_t t : {MORI_SHMEM_TEAM_NODE, MORI_SHMEM_TEAM_SHARED, MORI_SHMEM_TEAM_SAME_MYPE_NODE}) {
    const int tn = mori_shmem_team_n_pes(t), tme = mori_shmem_team_my_pe(t);
    ASSERT_GE(tn, 1);
    ASSERT_GE(tme, 0);
    ASSERT_LT(tme, tn);
    EXPECT_EQ(mori_shmem_team_translate_pe(t, tme, MORI_SHMEM_TEAM_WORLD), me);
    EXPECT_EQ(mori_shmem_team_translate_pe(MORI_SHMEM_TEAM_WORLD, me, t), tme);
  }
  // On one host every PE is on the node; with P2P between all of them, SHARED is the node.
  // SAME_MYPE_NODE holds one PE per host: this one.
  EXPECT_EQ(mori_shmem_team_n_pes(MORI_SHMEM_TEAM_NODE), n);
  EXPECT_EQ(mori_shmem_team_n_pes(MORI_SHMEM_TEAM_SAME_MYPE_NODE), 1);
  EXPECT_EQ(mori_shmem_team_my_pe(MORI_SHMEM_TEAM_SAME_MYPE_NODE), 0);
  for (mori_shmem_team_t t :
       {MORI_SHMEM_TEAM_WORLD, MORI_SHMEM_TEAM_NODE, MORI_SHMEM_TEAM_SHARED, MORI_SHMEM_TEAM_SAME_MYPE_NODE})
    expectDeviceAgrees(t);
  EXPECT_EQ(mori_shmem_team_my_pe(MORI_SHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(mori_shmem_team_n_pes(MORI_SHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(mori_shmem_team_n_pes(17), -1);  // no such team
  EXPECT_EQ(mori_shmem_team_translate_pe(MORI_SHMEM_TEAM_WORLD, n, MORI_SHMEM_TEAM_WORLD), -1);
  EXPECT_EQ(mori_shmem_team_translate_pe(MORI_SHMEM_TEAM_WORLD, -1, MORI_SHMEM_TEAM_WORLD), -1);
}

// Every (start, stride, size) that fits the world: members get a handle whose queries and
// translation agree on host and device, non-members get INVALID.
TEST(Team, SplitStridedEveryShape) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  for (int stride = 1; stride <= n; ++stride)
    for (int start = 0; start < n; ++start)
      for (int size = 1; start + (size - 1) * stride < n; ++size) {
        mori_shmem_team_t t = 12345;
        ASSERT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t), 0);
        const bool member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
        if (!member) {
          EXPECT_EQ(t, MORI_SHMEM_TEAM_INVALID) << start << " " << stride << " " << size;
          continue;
        }
        ASSERT_NE(t, MORI_SHMEM_TEAM_INVALID);
        EXPECT_EQ(mori_shmem_team_my_pe(t), (me - start) / stride);
        EXPECT_EQ(mori_shmem_team_n_pes(t), size);
        for (int i = 0; i < size; ++i)
          EXPECT_EQ(mori_shmem_team_translate_pe(t, i, MORI_SHMEM_TEAM_WORLD), start + i * stride);
        EXPECT_EQ(mori_shmem_team_translate_pe(t, size, MORI_SHMEM_TEAM_WORLD), -1);
        expectDeviceAgrees(t);
        EXPECT_EQ(mori_shmem_team_destroy(t), 0);
        EXPECT_EQ(mori_shmem_team_n_pes(t), -1);
      }
}

// Rows and columns of every xrange, and a split of a split (parent numbering, not world).
TEST(Team, Split2dAndNested) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  for (int xr = 1; xr <= n + 1; ++xr) {
    mori_shmem_team_t x = 1234, y = 1234;
    mori_shmem_team_config_t cfg = MORI_SHMEM_TEAM_CONFIG_INITIALIZER;
    ASSERT_EQ(
        mori_shmem_team_split_2d(MORI_SHMEM_TEAM_WORLD, xr, &cfg, MORI_SHMEM_TEAM_NUM_CONTEXTS, &x, nullptr, 0, &y), 0);
    const int cols = xr < n ? xr : n;
    ASSERT_NE(x, MORI_SHMEM_TEAM_INVALID);
    ASSERT_NE(y, MORI_SHMEM_TEAM_INVALID);
    const int row = me / cols, col = me % cols;
    EXPECT_EQ(mori_shmem_team_my_pe(x), col);
    EXPECT_EQ(mori_shmem_team_n_pes(x), (row + 1) * cols <= n ? cols : n - row * cols);
    EXPECT_EQ(mori_shmem_team_my_pe(y), row);
    EXPECT_EQ(mori_shmem_team_n_pes(y), (n - col + cols - 1) / cols);
    EXPECT_EQ(mori_shmem_team_translate_pe(x, 0, MORI_SHMEM_TEAM_WORLD), row * cols);
    EXPECT_EQ(mori_shmem_team_translate_pe(y, 0, MORI_SHMEM_TEAM_WORLD), col);
    EXPECT_EQ(mori_shmem_team_translate_pe(x, mori_shmem_team_my_pe(x), y), row);
    mori_shmem_team_config_t got{};
    EXPECT_EQ(mori_shmem_team_get_config(x, MORI_SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    EXPECT_EQ(got.num_contexts, 0);
    expectDeviceAgrees(x);
    expectDeviceAgrees(y);
    EXPECT_EQ(mori_shmem_team_destroy(x), 0);
    EXPECT_EQ(mori_shmem_team_destroy(y), 0);
  }
  // Nested: the team of world PEs 0..n-2, then its members 1..n-2, numbered in the parent.
  if (n < 3) return;
  mori_shmem_team_t odd = MORI_SHMEM_TEAM_INVALID, sub = MORI_SHMEM_TEAM_INVALID;
  ASSERT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, n - 1, nullptr, 0, &odd), 0);
  if (me < n - 1) {
    ASSERT_NE(odd, MORI_SHMEM_TEAM_INVALID);
    ASSERT_EQ(mori_shmem_team_split_strided(odd, 1, 1, n - 2, nullptr, 0, &sub), 0);
    if (me >= 1) {
      ASSERT_NE(sub, MORI_SHMEM_TEAM_INVALID);
      EXPECT_EQ(mori_shmem_team_my_pe(sub), me - 1);
      EXPECT_EQ(mori_shmem_team_translate_pe(sub, 0, MORI_SHMEM_TEAM_WORLD), 1);
      EXPECT_EQ(mori_shmem_team_translate_pe(sub, mori_shmem_team_my_pe(sub), odd), me);
      expectDeviceAgrees(sub);
      EXPECT_EQ(mori_shmem_team_destroy(sub), 0);
    } else {
      EXPECT_EQ(sub, MORI_SHMEM_TEAM_INVALID);
    }
    EXPECT_EQ(mori_shmem_team_destroy(odd), 0);
  } else {
    EXPECT_EQ(odd, MORI_SHMEM_TEAM_INVALID);
  }
  EXPECT_EQ(mori_shmem_barrier_all(), 0);
}

// Slots are reused: 3x the table's size of create/sync/destroy, each team's sync area starting
// clean (a stale epoch would let a barrier pass early or never).
TEST(Team, DestroyAndReuse) {
  for (int i = 0; i < 3 * MORI_SHMEM_MAX_TEAMS; ++i) {
    mori_shmem_team_t t = MORI_SHMEM_TEAM_INVALID;
    ASSERT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, mori_shmem_n_pes(), nullptr, 0, &t), 0);
    ASSERT_NE(t, MORI_SHMEM_TEAM_INVALID);
    for (int k = 0; k < (i % 3) + 1; ++k) ASSERT_EQ(mori_shmem_team_sync(t), 0);
    ASSERT_EQ(mori_shmem_barrier(t), 0);
    ASSERT_EQ(mori_shmem_team_destroy(t), 0);
  }
}

TEST(Team, BadInputFailsOnEveryPe) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  struct Case {
    int start, stride, size;
  } bad[] = {{0, 1, 0}, {0, 0, 2}, {0, -1, 2}, {n, 1, 1}, {-1, 1, 1}, {0, 1, n + 1}, {1, n, 2}};
  for (const Case& c : bad) {
    mori_shmem_team_t t = 7;
    EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, c.start, c.stride, c.size, nullptr, 0, &t),
              MORI_SHMEM_ERROR_INVALID_USAGE)
        << c.start << " " << c.stride << " " << c.size;
    EXPECT_EQ(t, MORI_SHMEM_TEAM_INVALID);
  }
  // PEs that disagree: PE 0 asks for one size, the others for another; every PE fails.
  mori_shmem_team_t t = 7;
  EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, me == 0 ? 1 : 2, nullptr, 0, &t),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(t, MORI_SHMEM_TEAM_INVALID);
  // One PE calls split_2d while the others call split_strided.
  mori_shmem_team_t y = 7;
  if (me == n - 1)
    EXPECT_EQ(mori_shmem_team_split_2d(MORI_SHMEM_TEAM_WORLD, 1, nullptr, 0, &t, nullptr, 0, &y),
              MORI_SHMEM_ERROR_INVALID_USAGE);
  else
    EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &t),
              MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(t, MORI_SHMEM_TEAM_INVALID);
  // Contexts are not implemented: refused (on every PE), not ignored.
  mori_shmem_team_config_t cfg = MORI_SHMEM_TEAM_CONFIG_INITIALIZER;
  cfg.num_contexts = 2;
  EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, n, &cfg, MORI_SHMEM_TEAM_NUM_CONTEXTS, &t),
            MORI_SHMEM_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, n, nullptr, MORI_SHMEM_TEAM_NUM_CONTEXTS, &t),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, nullptr),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  for (mori_shmem_team_t p :
       {MORI_SHMEM_TEAM_WORLD, MORI_SHMEM_TEAM_NODE, MORI_SHMEM_TEAM_SHARED, MORI_SHMEM_TEAM_SAME_MYPE_NODE,
        MORI_SHMEM_TEAM_INVALID, static_cast<mori_shmem_team_t>(20)})
    EXPECT_EQ(mori_shmem_team_destroy(p), MORI_SHMEM_ERROR_INVALID_USAGE);
  // Collectives on a team that is not live, or a root outside the team, enqueue nothing.
  EXPECT_EQ(mori_shmem_barrier_on_stream(25, nullptr), MORI_SHMEM_ERROR_INVALID_USAGE);
  int* sym = static_cast<int*>(mori_shmem_malloc(64 * sizeof(int)));
  ASSERT_NE(sym, nullptr);
  EXPECT_EQ(mori_shmem_int_broadcast(MORI_SHMEM_TEAM_WORLD, sym, sym + 32, 4, n), MORI_SHMEM_ERROR_INVALID_USAGE);
  int local[4];
  EXPECT_EQ(mori_shmem_int_sum_reduce(MORI_SHMEM_TEAM_WORLD, sym, local, 4), MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmem_int_fcollect(MORI_SHMEM_TEAM_WORLD, local, sym, 1), MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmemi_collective(MORI_SHMEM_COLL_REDUCE, MORI_SHMEM_TEAM_WORLD, sym, sym + 32, 4, 4, 0,
                                   MORI_SHMEM_DTYPE_FLOAT, MORI_SHMEM_REDUCE_XOR, nullptr, 1),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  mori_shmem_free(sym);
  EXPECT_EQ(mori_shmem_barrier_all(), 0);
}

// The table holds 32 teams: the 29th user team fails on every PE, naming the limit; the others
// still work and free their slots.
TEST(Team, FullTable) {
  std::vector<mori_shmem_team_t> made;
  int rc = 0;
  for (int i = 0; i < MORI_SHMEM_MAX_TEAMS; ++i) {
    mori_shmem_team_t t = MORI_SHMEM_TEAM_INVALID;
    rc = mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, mori_shmem_n_pes(), nullptr, 0, &t);
    if (rc != 0) {
      EXPECT_EQ(t, MORI_SHMEM_TEAM_INVALID);
      break;
    }
    made.push_back(t);
  }
  EXPECT_EQ(rc, MORI_SHMEM_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(static_cast<int>(made.size()), MORI_SHMEM_MAX_TEAMS - 4);
  EXPECT_EQ(mori_shmem_barrier(made.back()), 0);
  for (mori_shmem_team_t t : made) EXPECT_EQ(mori_shmem_team_destroy(t), 0);
}

}  // namespace
