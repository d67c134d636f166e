// Device-side misuse of teams stops the kernel with a message naming the handle, never a hang or
// a silent wrong answer: a handle no team has, a destroyed team, a value outside the table, a
// broadcast root outside the team, a reducescatter's dest over another member's piece of source;
// and a value that names no element type or reduction operation
// of that type reaching the device library's dispatch (only a caller inside mori-shmem can pass
// one: the test calls the library's entries directly).
// Each case poisons the GPU context, so ctest runs each in its own process (--gtest_filter) and
// requires the device's message and the verdict line in the output.
#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(1, 1);

namespace {

__global__ void syncKernel(mori_shmem_team_t team) { mori_shmem_team_sync_block(team); }
__global__ void reduceKernel(mori_shmem_team_t team, int* buf) { mori_shmem_int_sum_reduce_thread(team, buf, buf, 1); }

__global__ void broadcastFrom(mori_shmem_team_device_t team, int root, int* buf) {
  mori_shmem_int_broadcast_warp(team, buf, buf + 4, 4, root);
}
__global__ void reduceOfType(int dtype, int* buf) {
  mori_shmemi_team_reduce_thread(MORI_SHMEM_TEAM_WORLD, buf, buf, 1, dtype, MORI_SHMEM_REDUCE_SUM);
}
__global__ void reduceWithOpThread(int dtype, int op, int* buf) {
  mori_shmemi_team_reduce_thread(MORI_SHMEM_TEAM_WORLD, buf, buf, 1, dtype, op);
}
__global__ void reduceWithOpBlock(int dtype, int op, int* buf) {
  mori_shmemi_team_reduce_block(MORI_SHMEM_TEAM_WORLD, buf, buf, 1, dtype, op);
}

__global__ void scatterOverlapping(int* buf) {
  mori_shmem_int_sum_reducescatter_thread(MORI_SHMEM_TEAM_WORLD, buf + 1, buf, 4);
}

void expectStopped() {
  EXPECT_NE(hipDeviceSynchronize(), hipSuccess) << "the kernel should have stopped";
  if (!::testing::Test::HasFailure()) printf("TEAM-DEVICE-ERROR-CHECK-PASSED\n");
  fflush(stdout);
}

TEST(TeamDeviceErrors, NoSuchTeam) {
  ASSERT_EQ(mori_shmem_init(), 0);
  syncKernel<<<1, 64>>>(25);
  expectStopped();
}

TEST(TeamDeviceErrors, DestroyedTeam) {
  ASSERT_EQ(mori_shmem_init(), 0);
  mori_shmem_team_t t = MORI_SHMEM_TEAM_INVALID;
  ASSERT_EQ(mori_shmem_team_split_strided(MORI_SHMEM_TEAM_WORLD, 0, 1, mori_shmem_n_pes(), nullptr, 0, &t), 0);
  ASSERT_EQ(mori_shmem_team_destroy(t), 0);
  int* buf = static_cast<int*>(mori_shmem_malloc(64));
  ASSERT_NE(buf, nullptr);
  printf("destroyed team %d\n", t);
  reduceKernel<<<1, 1>>>(t, buf);
  expectStopped();
}

TEST(TeamDeviceErrors, NotAHandle) {
  ASSERT_EQ(mori_shmem_init(), 0);
  syncKernel<<<1, 64>>>(1000);
  expectStopped();
}

// Without the check, every member would skip the data (no member is that root) and return with
// dest unwritten: a silent wrong answer.
TEST(TeamDeviceErrors, BroadcastRootOutsideTeam) {
  ASSERT_EQ(mori_shmem_init(), 0);
  int* buf = static_cast<int*>(mori_shmem_malloc(64));
  ASSERT_NE(buf, nullptr);
  const mori_shmem_team_device_t world = mori_shmem_team_get_device(MORI_SHMEM_TEAM_WORLD);
  ASSERT_EQ(world.size, 1);
  broadcastFrom<<<1, 64>>>(world, 1, buf);
  expectStopped();
}

TEST(TeamDeviceErrors, UnknownElementType) {
  ASSERT_EQ(mori_shmem_init(), 0);
  int* buf = static_cast<int*>(mori_shmem_malloc(64));
  ASSERT_NE(buf, nullptr);
  reduceOfType<<<1, 1>>>(-7, buf);
  expectStopped();
}

TEST(TeamDeviceErrors, UnknownOperation) {
  ASSERT_EQ(mori_shmem_init(), 0);
  int* buf = static_cast<int*>(mori_shmem_malloc(64));
  ASSERT_NE(buf, nullptr);
  reduceWithOpThread<<<1, 1>>>(MORI_SHMEM_DTYPE_INT32, 9, buf);
  expectStopped();
}

// A bitwise operation on a floating type: no such reduction (the typed names have none).
TEST(TeamDeviceErrors, BitwiseOperationOnFloat) {
  ASSERT_EQ(mori_shmem_init(), 0);
  int* buf = static_cast<int*>(mori_shmem_malloc(64));
  ASSERT_NE(buf, nullptr);
  reduceWithOpBlock<<<1, 64>>>(MORI_SHMEM_DTYPE_FLOAT, MORI_SHMEM_REDUCE_XOR, buf);
  expectStopped();
}

// A reducescatter whose dest overlaps source other than as this PE's own piece: without the check,
// members would read pieces that dest already overwrote (a silent wrong answer).
TEST(TeamDeviceErrors, ReducescatterDestOverlapsSource) {
  ASSERT_EQ(mori_shmem_init(), 0);
  int* buf = static_cast<int*>(mori_shmem_malloc(64));
  ASSERT_NE(buf, nullptr);
  scatterOverlapping<<<1, 1>>>(buf);
  expectStopped();
}

}  // namespace
