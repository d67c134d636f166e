// Single-element operations (p, g, fetch-add, signal_op) on both of their paths: the inline fast
// path (a heap object on a P2P peer) and the out-of-line general path (a registered buffer; and
// every target when the suite runs over RDMA through the NIC model).
#include <algorithm>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

constexpr int kThreads = 64;

// One PE's target; its left neighbour writes it.
struct Target {
  uint64_t counter;  // fetch-add by every thread
  uint64_t signal;   // signal_op ADD by every thread
  uint64_t words[kThreads];
  uint32_t counter32;
  uint32_t pad;  // a 4-byte NIC atomic may operate on the containing 8-byte word
  uint32_t words32[kThreads];
};

__host__ __device__ uint64_t word(uint64_t seed, int t) { return mix(seed + static_cast<uint64_t>(t)); }
__host__ __device__ uint32_t word32(uint64_t seed, int t) { return static_cast<uint32_t>(mix(~seed + t) >> 7); }

__global__ void elementOps(Target* target, int peer, uint64_t seed, uint64_t* fetched, uint32_t* fetched32) {
  const int t = static_cast<int>(threadIdx.x);
  mori_shmem_uint64_p(&target->words[t], word(seed, t), peer);
  mori_shmem_uint32_p(&target->words32[t], word32(seed, t), peer);
  fetched[t] = mori_shmem_uint64_atomic_fetch_add(&target->counter, 1, peer);
  fetched32[t] = mori_shmem_uint32_atomic_fetch_add(&target->counter32, 1, peer);
  mori_shmem_signal_op(&target->signal, 1, MORI_SHMEM_SIGNAL_ADD, peer);
  mori_shmem_quiet();
}

__global__ void readBack(const Target* target, int peer, uint64_t* words, uint32_t* words32) {
  const int t = static_cast<int>(threadIdx.x);
  words[t] = mori_shmem_uint64_g(&target->words[t], peer);
  words32[t] = mori_shmem_uint32_g(&target->words32[t], peer);
}

template <typename T>
bool isPermutation(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<T>(i)) return false;
  return true;
}

// `target` is this PE's (zeroed) copy of the symmetric Target.
void exercise(Target* target, const char* what) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const uint64_t seed = 0x5eed0000u + 977u * static_cast<unsigned>(me);
  const uint64_t leftSeed = 0x5eed0000u + 977u * static_cast<unsigned>(left);
  uint64_t* dev64 = nullptr;
  uint32_t* dev32 = nullptr;
  HIP_OK(hipMalloc(&dev64, kThreads * sizeof(uint64_t)));
  HIP_OK(hipMalloc(&dev32, kThreads * sizeof(uint32_t)));
  std::vector<uint64_t> h64(kThreads);
  std::vector<uint32_t> h32(kThreads);

  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  elementOps<<<1, kThreads>>>(target, right, seed, dev64, dev32);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipMemcpy(h64.data(), dev64, kThreads * sizeof(uint64_t), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(h32.data(), dev32, kThreads * sizeof(uint32_t), hipMemcpyDeviceToHost));
  EXPECT_TRUE(isPermutation(h64)) << what << ": 64-bit fetch-add results are not 0.." << kThreads - 1;
  EXPECT_TRUE(isPermutation(h32)) << what << ": 32-bit fetch-add results are not 0.." << kThreads - 1;

  // What the left neighbour wrote here.
  Target mine;
  HIP_OK(hipMemcpy(&mine, target, sizeof(mine), hipMemcpyDeviceToHost));
  EXPECT_EQ(mine.counter, static_cast<uint64_t>(kThreads)) << what;
  EXPECT_EQ(mine.counter32, static_cast<uint32_t>(kThreads)) << what;
  EXPECT_EQ(mine.signal, static_cast<uint64_t>(kThreads)) << what;
  EXPECT_EQ(mine.pad, 0u) << what << ": the word beside the 32-bit counter changed";
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(mine.words[t], word(leftSeed, t)) << what << ": uint64 p, word " << t;
    EXPECT_EQ(mine.words32[t], word32(leftSeed, t)) << what << ": uint32 p, word " << t;
  }

  // g: read back from the right neighbour what this PE put there.
  readBack<<<1, kThreads>>>(target, right, dev64, dev32);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipMemcpy(h64.data(), dev64, kThreads * sizeof(uint64_t), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(h32.data(), dev32, kThreads * sizeof(uint32_t), hipMemcpyDeviceToHost));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(h64[t], word(seed, t)) << what << ": uint64 g, word " << t;
    EXPECT_EQ(h32[t], word32(seed, t)) << what << ": uint32 g, word " << t;
  }
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipFree(dev64));
  HIP_OK(hipFree(dev32));
}

TEST(ElementPaths, HeapObject) {
  auto* target = static_cast<Target*>(mori_shmem_calloc(1, sizeof(Target)));
  ASSERT_NE(target, nullptr);
  exercise(target, "heap object");
  mori_shmem_free(target);
}

TEST(ElementPaths, RegisteredBuffer) {
  char* base = nullptr;
  HIP_OK(hipMalloc(&base, sizeof(Target) + 4096));
  auto* target = reinterpret_cast<Target*>(base + 256);  // inside a larger allocation
  HIP_OK(hipMemset(target, 0, sizeof(Target)));
  ASSERT_EQ(mori_shmem_register(target, sizeof(Target)), 0);
  exercise(target, "registered buffer");
  EXPECT_EQ(mori_shmem_deregister(target), 0);
  HIP_OK(hipFree(base));
}

}  // namespace
