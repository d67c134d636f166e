// mori_shmem_collective_launch (and NVSHMEM's name for it, mori/nvshmem.h): a kernel whose every
// block waits for blocks of its own grid and of the next PE's, at the largest grid the query
// gives (so every PE's grid must be resident at once beside the others' on a shared GPU), at a
// 2-D grid, at {0, 0, 0} and at NVSHMEM's dim3(0). Each round, block b puts a payload with a
// signal to block b of the next PE and checks the one from the previous PE word for word, then
// waits for block b + 1 of its own grid to reach the round. Bad input launches nothing and names
// the sizes: a grid one block past the limit, a zero dimension, no kernel, an empty block, a NULL
// grid_size.
#include <stdint.h>

#include "mori/nvshmem.h"
#include "mori/platform/clock.hpp"
#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);  // every PE's blocks wait for the others': MPS when they share a GPU
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

constexpr int kThreads = 128;
constexpr int kRounds = 6;
constexpr int kWords = 8;                             // a payload: 64 bytes
constexpr uint64_t kBlockWaitNs = 10'000'000'000ull;  // a block of the grid that never starts

// Symmetric: sig[b], inbox[round][b][kWords] (a PE may run rounds ahead of the next one: nothing
// waits for the receiver), outbox[b][kWords]. Device-local:
// reached[b] (the last round block b finished), result[0] bad words, result[1] blocks that
// finished every round, result[2] blocks that gave up waiting for the next block of their grid.
struct Buffers {
  int slots;  // blocks the buffers hold: the largest grid of any PE
  uint64_t* sig;
  uint64_t* inbox;
  uint64_t* outbox;
  unsigned long long* reached;
  unsigned long long* result;
};

__host__ __device__ inline uint64_t payload(uint64_t seed, int pe, int block, int round, int w) {
  return mix(seed ^ (static_cast<uint64_t>(pe) << 48) ^ (static_cast<uint64_t>(block) << 16) ^
             (static_cast<uint64_t>(round) << 8) ^ static_cast<uint64_t>(w));
}

__global__ void ringKernel(Buffers buf, uint64_t seed) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const int blocks = static_cast<int>(gridDim.x * gridDim.y * gridDim.z);
  const int b = static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  __shared__ int stuck;
  if (threadIdx.x == 0) stuck = 0;
  for (int round = 1; round <= kRounds; ++round) {
    uint64_t* out = buf.outbox + static_cast<size_t>(b) * kWords;
    uint64_t* in = buf.inbox + (static_cast<size_t>(round - 1) * buf.slots + b) * kWords;
    if (threadIdx.x < kWords) out[threadIdx.x] = payload(seed, me, b, round, static_cast<int>(threadIdx.x));
    __syncthreads();
    mori_shmem_putmem_signal_block(in, out, kWords * sizeof(uint64_t), buf.sig + b, static_cast<uint64_t>(round),
                                   MORI_SHMEM_SIGNAL_SET, next);
    if (threadIdx.x == 0) mori_shmem_signal_wait_until(buf.sig + b, MORI_SHMEM_CMP_GE, static_cast<uint64_t>(round));
    __syncthreads();
    if (threadIdx.x < kWords && in[threadIdx.x] != payload(seed, prev, b, round, static_cast<int>(threadIdx.x)))
      atomicAdd(&buf.result[0], 1ull);
    __syncthreads();
    // Block b + 1 of this grid reaches the round too: every block of the grid runs at once.
    if (threadIdx.x == 0) {
      atomicExch(&buf.reached[b], static_cast<unsigned long long>(round));
      volatile unsigned long long* other = buf.reached + (b + 1) % blocks;
      const uint64_t end = mori::gpu::wallClock() + mori::gpu::nsToWallTicks(kBlockWaitNs);
      while (*other < static_cast<unsigned long long>(round) && mori::gpu::wallClock() < end) mori::gpu::spinPause();
      if (*other < static_cast<unsigned long long>(round)) stuck = 1;  // not resident beside it: give up
    }
    __syncthreads();
    if (stuck) {
      if (threadIdx.x == 0) atomicAdd(&buf.result[2], 1ull);
      return;
    }
  }
  if (threadIdx.x == 0) atomicAdd(&buf.result[1], 1ull);
}

int queried(int threads);

struct Fixture {
  Buffers buf{};
  size_t slots = 0;
  Fixture() {
    int mine = queried(kThreads), most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);  // every PE allocates alike
    slots = static_cast<size_t>(most > 8 ? most : 8);
    buf.slots = static_cast<int>(slots);
    buf.sig = static_cast<uint64_t*>(mori_shmem_calloc(slots, sizeof(uint64_t)));
    buf.inbox = static_cast<uint64_t*>(mori_shmem_malloc(size_t{kRounds} * slots * kWords * sizeof(uint64_t)));
    buf.outbox = static_cast<uint64_t*>(mori_shmem_malloc(slots * kWords * sizeof(uint64_t)));
    EXPECT_TRUE(buf.sig && buf.inbox && buf.outbox);
    EXPECT_EQ(hipMalloc(&buf.reached, slots * sizeof(unsigned long long)), hipSuccess);
    EXPECT_EQ(hipMalloc(&buf.result, 3 * sizeof(unsigned long long)), hipSuccess);
  }
  ~Fixture() {
    EXPECT_EQ(hipFree(buf.result), hipSuccess);
    EXPECT_EQ(hipFree(buf.reached), hipSuccess);
    mori_shmem_free(buf.outbox);
    mori_shmem_free(buf.inbox);
    mori_shmem_free(buf.sig);
  }
  // Zeroes the signals, the rounds reached and the result on every PE, and syncs the PEs.
  void reset() {
    ASSERT_EQ(hipMemset(buf.sig, 0, slots * sizeof(uint64_t)), hipSuccess);
    ASSERT_EQ(hipMemset(buf.reached, 0, slots * sizeof(unsigned long long)), hipSuccess);
    ASSERT_EQ(hipMemset(buf.result, 0, 3 * sizeof(unsigned long long)), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
  }
  // result[0] (bad words), [1] (blocks done) and [2] (blocks that gave up) after the kernel.
  void result(unsigned long long out[3]) {
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(hipMemcpy(out, buf.result, 3 * sizeof(unsigned long long), hipMemcpyDeviceToHost), hipSuccess);
  }
};

int queried(int threads) {
  int grid = -1;
  EXPECT_EQ(mori_shmem_collective_launch_query_gridsize(reinterpret_cast<const void*>(ringKernel),
                                                        mori_shmem_dim3_t{static_cast<unsigned>(threads), 1, 1},
                                                        nullptr, 0, &grid),
            0);
  return grid;
}

// The blocks of ringKernel the whole GPU holds at once.
int wholeGpuGrid(int threads) {
  int perSm = 0, sms = 0, dev = 0;
  EXPECT_EQ(hipGetDevice(&dev), hipSuccess);
  EXPECT_EQ(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev), hipSuccess);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, ringKernel, threads, 0), hipSuccess);
  return perSm * sms;
}

void runRing(Fixture& f, mori_shmem_dim3_t grid, int expectBlocks, const char* what) {
  f.reset();
  uint64_t seed = 0x5eed0000ull + static_cast<uint64_t>(grid.x * 31 + grid.y);
  void* args[] = {&f.buf, &seed};
  ASSERT_EQ(mori_shmem_collective_launch(reinterpret_cast<const void*>(ringKernel), grid,
                                         mori_shmem_dim3_t{kThreads, 1, 1}, args, 0, nullptr),
            0)
      << what;
  unsigned long long r[3] = {0, 0, 0};
  f.result(r);
  EXPECT_EQ(r[0], 0u) << what << ": bad payload words on PE " << mori_shmem_my_pe();
  EXPECT_EQ(r[2], 0u) << what << ": blocks whose next block never ran beside them on PE " << mori_shmem_my_pe();
  EXPECT_EQ(r[1], static_cast<unsigned long long>(expectBlocks)) << what << ": blocks that finished every round";
  ASSERT_TRUE(allTrue(r[0] == 0 && r[1] == static_cast<unsigned long long>(expectBlocks))) << what;
}

TEST(CollectiveLaunch, QueryIsTheGpuShareOfThisPe) {
  const int grid = queried(kThreads);
  const int whole = wholeGpuGrid(kThreads);
  ASSERT_GT(grid, 0);
  // An equal share for each PE on this GPU: whole / k for some k in [1, PEs].
  int share = 0;
  for (int k = 1; k <= mori_shmem_n_pes(); ++k)
    if (whole / k == grid) share = k;
  EXPECT_GT(share, 0) << "grid " << grid << ", whole GPU " << whole;
  EXPECT_TRUE(allTrue(share > 0));
}

TEST(CollectiveLaunch, LargestGridEveryBlockMeetsItsPeers) {
  Fixture f;
  const int grid = queried(kThreads);
  ASSERT_GT(grid, 0);
  runRing(f, mori_shmem_dim3_t{static_cast<unsigned>(grid), 1, 1}, grid, "the query's grid");
  runRing(f, mori_shmem_dim3_t{0, 0, 0}, grid, "grid {0, 0, 0}");
}

TEST(CollectiveLaunch, TwoDimensionalGridAndNvshmemName) {
  Fixture f;
  runRing(f, mori_shmem_dim3_t{3, 2, 1}, 6, "grid 3x2x1");
  f.reset();
  uint64_t seed = 77;
  void* args[] = {&f.buf, &seed};
  int grid = 0;
  ASSERT_EQ(nvshmemx_collective_launch_query_gridsize(reinterpret_cast<const void*>(ringKernel), dim3(kThreads), args,
                                                      0, &grid),
            0);
  EXPECT_EQ(grid, queried(kThreads));
  ASSERT_EQ(nvshmemx_collective_launch(reinterpret_cast<const void*>(ringKernel), dim3(2, 2, 2), dim3(kThreads), args,
                                       0, nullptr),
            0);
  unsigned long long r[3] = {0, 0, 0};
  f.result(r);
  EXPECT_EQ(r[0], 0u);
  EXPECT_EQ(r[1], 8u);
  EXPECT_EQ(r[2], 0u);
  ASSERT_TRUE(allTrue(r[0] == 0 && r[1] == 8));
  // NVSHMEM's grid of 0, dim3(0) = {0, 1, 1}: the largest grid.
  f.reset();
  ASSERT_EQ(
      nvshmemx_collective_launch(reinterpret_cast<const void*>(ringKernel), dim3(0), dim3(kThreads), args, 0, nullptr),
      0);
  f.result(r);
  EXPECT_EQ(r[0], 0u);
  EXPECT_EQ(r[1], static_cast<unsigned long long>(grid));
  EXPECT_EQ(r[2], 0u);
  ASSERT_TRUE(allTrue(r[0] == 0 && r[1] == static_cast<unsigned long long>(grid)));
}

TEST(CollectiveLaunch, BadInputLaunchesNothing) {
  Fixture f;
  f.reset();
  const int grid = queried(kThreads);
  ASSERT_GT(grid, 0);
  uint64_t seed = 1;
  void* args[] = {&f.buf, &seed};
  const void* fn = reinterpret_cast<const void*>(ringKernel);
  const mori_shmem_dim3_t block{kThreads, 1, 1};
  // Launched, a grid past the limit could wait forever: refused on every PE.
  EXPECT_EQ(mori_shmem_collective_launch(fn, mori_shmem_dim3_t{static_cast<unsigned>(grid) + 1, 1, 1}, block, args, 0,
                                         nullptr),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(
      mori_shmem_collective_launch(fn, mori_shmem_dim3_t{static_cast<unsigned>(grid), 2, 1}, block, args, 0, nullptr),
      MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmem_collective_launch(fn, mori_shmem_dim3_t{0, 4, 1}, block, args, 0, nullptr),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmem_collective_launch(nullptr, mori_shmem_dim3_t{1, 1, 1}, block, args, 0, nullptr),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmem_collective_launch(fn, mori_shmem_dim3_t{1, 1, 1}, mori_shmem_dim3_t{0, 1, 1}, args, 0, nullptr),
            MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(mori_shmem_collective_launch_query_gridsize(fn, block, args, 0, nullptr), MORI_SHMEM_ERROR_INVALID_USAGE);
  unsigned long long r[3] = {9, 9, 9};
  f.result(r);
  EXPECT_EQ(r[0], 0u);
  EXPECT_EQ(r[1], 0u) << "a refused launch ran blocks";
  EXPECT_EQ(r[2], 0u);
  ASSERT_TRUE(allTrue(r[1] == 0));
}

}  // namespace
