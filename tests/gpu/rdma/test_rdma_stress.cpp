// The RDMA posting mechanism under contention, through the NIC model: every thread of 132 CTAs x
// 256 threads posts thread-scope operations to the other PE over one 64-slot send queue
// (MORI_SHMEM_QP_DEPTH=64, MORI_SHMEM_NUM_QP_PER_PE=1), round after round, until the ring has
// wrapped more than 10,000 times: inline puts, puts from the heap, 64-bit fetch-adds (native on
// every provider) and 32-bit fetch-adds (mlx5: masked atomics with big-endian results; bnxt,
// ionic: compare-and-swap loops on the containing word). Every destination word, every counter
// and every fetched value is checked: nothing lost, duplicated or corrupted.
// Blocks of 256 threads leave room on every SM for the model's own kernel.
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

constexpr int kBlocks = 132, kThreads = 256, kRounds = 24;
constexpr uint64_t kPerRound = static_cast<uint64_t>(kBlocks) * kThreads;
constexpr uint32_t kCounters64 = 1024;   // contended: many threads add to each
constexpr uint32_t kCounters32 = 16384;  // two threads per counter (CAS loops stay short)
constexpr uint64_t kSqDepth = 64;
constexpr int kFetchRounds = 6;
static_assert(kPerRound * kRounds >= 10000 * kSqDepth, "the ring must wrap at least 10,000 times");

enum class RoundOp { Inline, Put, FetchAdd64, FetchAdd32 };

__host__ __device__ RoundOp roundOp(int r) {
  if (r % 8 == 3) return RoundOp::FetchAdd64;
  if (r % 8 == 7) return RoundOp::FetchAdd32;
  return r % 2 ? RoundOp::Put : RoundOp::Inline;
}
// Index among the fetching rounds (3, 7, 11, ... -> 0, 1, 2, ...).
__host__ __device__ int fetchRound(int r) { return r / 4; }
__host__ __device__ uint32_t counter64(int r, uint64_t tid) {
  return static_cast<uint32_t>((tid * 7 + r * 13) % kCounters64);
}
__host__ __device__ uint32_t counter32(int r, uint64_t tid) { return static_cast<uint32_t>((tid + r) % kCounters32); }
// Never 0: a word still 0 was never written.
__host__ __device__ uint64_t valueOf(int pe, int r, uint64_t tid) {
  return mix((static_cast<uint64_t>(pe) << 48) ^ (static_cast<uint64_t>(r) << 32) ^ tid) | 1;
}

__global__ void stressKernel(uint64_t* dst, uint64_t* src, uint64_t* counters64, uint32_t* counters32,
                             uint64_t* fetched, int me, int peer) {
  const uint64_t tid = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t slot = static_cast<uint64_t>(r) * kPerRound + tid;
    const uint64_t v = valueOf(me, r, tid);
    switch (roundOp(r)) {
      case RoundOp::Inline: mori_shmem_uint64_p(dst + slot, v, peer); break;
      case RoundOp::Put:
        src[slot] = v;
        mori_shmem_putmem_nbi_thread(dst + slot, src + slot, sizeof(uint64_t), peer);
        break;
      case RoundOp::FetchAdd64:
        fetched[fetchRound(r) * kPerRound + tid] =
            mori_shmem_uint64_atomic_fetch_add(counters64 + counter64(r, tid), 1ull, peer);
        break;
      case RoundOp::FetchAdd32:
        fetched[fetchRound(r) * kPerRound + tid] =
            mori_shmem_uint32_atomic_fetch_add(counters32 + counter32(r, tid), 1u, peer);
        break;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) mori_shmem_quiet();
}

// counts[0] = words that differ from what the left neighbour sent, counts[1] = first such index.
__global__ void checkWords(const uint64_t* dst, int left, unsigned long long* counts) {
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < kPerRound * kRounds;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(i / kPerRound);
    const RoundOp op = roundOp(r);
    const uint64_t want = op == RoundOp::Inline || op == RoundOp::Put ? valueOf(left, r, i % kPerRound) : 0;
    if (dst[i] != want) {
      atomicAdd(&counts[0], 1ull);
      atomicMin(&counts[1], static_cast<unsigned long long>(i));
    }
  }
}

// How many fetch-adds each counter receives from one PE (the same on every PE).
void expectedAdds(std::vector<uint64_t>* adds64, std::vector<uint64_t>* adds32) {
  adds64->assign(kCounters64, 0);
  adds32->assign(kCounters32, 0);
  for (int r = 0; r < kRounds; ++r)
    for (uint64_t t = 0; t < kPerRound; ++t) {
      if (roundOp(r) == RoundOp::FetchAdd64) ++(*adds64)[counter64(r, t)];
      if (roundOp(r) == RoundOp::FetchAdd32) ++(*adds32)[counter32(r, t)];
    }
}

// The values fetched from each counter must be exactly 0 .. adds-1: every add applied once, in
// some order.
uint64_t badFetches(const std::vector<uint64_t>& fetched, bool wide, const std::vector<uint64_t>& adds) {
  std::vector<std::vector<uint64_t>> seen(adds.size());
  for (int r = 0; r < kRounds; ++r) {
    const RoundOp op = roundOp(r);
    if (op != (wide ? RoundOp::FetchAdd64 : RoundOp::FetchAdd32)) continue;
    for (uint64_t t = 0; t < kPerRound; ++t)
      seen[wide ? counter64(r, t) : counter32(r, t)].push_back(fetched[fetchRound(r) * kPerRound + t]);
  }
  uint64_t bad = 0;
  for (size_t c = 0; c < seen.size(); ++c) {
    std::sort(seen[c].begin(), seen[c].end());
    if (seen[c].size() != adds[c]) ++bad;
    for (size_t i = 0; i < seen[c].size(); ++i) bad += seen[c][i] != i;
  }
  return bad;
}

TEST(RdmaStress, ThreadScopeOpsWrapA64SlotRing) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  ASSERT_EQ(n, 2) << "one peer: each PE's single QP carries everything";
  const int peer = 1 - me;
  const size_t words = kPerRound * kRounds;
  auto* dst = static_cast<uint64_t*>(mori_shmem_calloc(words, sizeof(uint64_t)));
  auto* src = static_cast<uint64_t*>(mori_shmem_malloc(words * sizeof(uint64_t)));
  auto* counters64 = static_cast<uint64_t*>(mori_shmem_calloc(kCounters64, sizeof(uint64_t)));
  auto* counters32 = static_cast<uint32_t*>(mori_shmem_calloc(kCounters32, sizeof(uint32_t)));
  ASSERT_TRUE(dst && src && counters64 && counters32);
  uint64_t* fetched = nullptr;
  HIP_OK(hipMalloc(&fetched, kFetchRounds * kPerRound * sizeof(uint64_t)));
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);

  const auto t0 = std::chrono::steady_clock::now();
  stressKernel<<<kBlocks, kThreads>>>(dst, src, counters64, counters32, fetched, me, peer);
  HIP_OK(hipGetLastError());
  const hipError_t e = hipDeviceSynchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char why[512] = "";
  if (e != hipSuccess && mori_shmem_device_error(why, sizeof(why)))
    FAIL() << "PE " << me << ": the kernel stopped: " << why;
  ASSERT_EQ(e, hipSuccess) << hipGetErrorString(e);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  if (me == 0)
    printf("stress: %llu operations per PE on a %llu-slot ring (%llu+ wraps) in %.2f s\n",
           static_cast<unsigned long long>(words), static_cast<unsigned long long>(kSqDepth),
           static_cast<unsigned long long>(words / kSqDepth), seconds);

  // Every word the peer wrote into this PE's buffer, and none it should not have.
  unsigned long long* counts = nullptr;
  unsigned long long init[2] = {0, ~0ull}, got[2];
  HIP_OK(hipMalloc(&counts, sizeof(init)));
  HIP_OK(hipMemcpy(counts, init, sizeof(init), hipMemcpyHostToDevice));
  checkWords<<<264, 256>>>(dst, peer, counts);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(got, counts, sizeof(got), hipMemcpyDeviceToHost));
  HIP_OK(hipFree(counts));
  EXPECT_EQ(got[0], 0ull) << "PE " << me << ": " << got[0] << " words differ from what PE " << peer
                          << " sent; first at word " << got[1] << " (round " << got[1] / kPerRound << ", thread "
                          << got[1] % kPerRound << ")";

  // Counters on this PE: the peer's adds, each applied exactly once.
  std::vector<uint64_t> adds64, adds32;
  expectedAdds(&adds64, &adds32);
  std::vector<uint64_t> c64(kCounters64);
  std::vector<uint32_t> c32(kCounters32);
  HIP_OK(hipMemcpy(c64.data(), counters64, kCounters64 * sizeof(uint64_t), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(c32.data(), counters32, kCounters32 * sizeof(uint32_t), hipMemcpyDeviceToHost));
  uint64_t badCounters = 0;
  for (uint32_t c = 0; c < kCounters64; ++c) badCounters += c64[c] != adds64[c];
  for (uint32_t c = 0; c < kCounters32; ++c) badCounters += c32[c] != adds32[c];
  EXPECT_EQ(badCounters, 0u) << "PE " << me << ": counters whose final value is not the number of adds";

  // Values this PE fetched from the peer's counters.
  std::vector<uint64_t> f(kFetchRounds * kPerRound);
  HIP_OK(hipMemcpy(f.data(), fetched, f.size() * sizeof(uint64_t), hipMemcpyDeviceToHost));
  EXPECT_EQ(badFetches(f, true, adds64), 0u) << "PE " << me << ": 64-bit fetch-add results are not a permutation";
  EXPECT_EQ(badFetches(f, false, adds32), 0u) << "PE " << me << ": 32-bit fetch-add results are not a permutation";

  HIP_OK(hipFree(fetched));
  mori_shmem_free(counters32);
  mori_shmem_free(counters64);
  mori_shmem_free(src);
  mori_shmem_free(dst);
}

}  // namespace
