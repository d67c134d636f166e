// Device-side signalling, atomics and synchronisation between PEs that run at the same time
// (one PE per GPU: these tests spin on each other).
//  - put with signal (every scope, SET and ADD), and put + fence + signal_op: data is complete
//    when the signal is seen, under load, over many rounds
//  - every atomic, 32- and 64-bit: fetch_add from all threads of all PEs returns a permutation
//    (linearisable), CAS/swap/bitwise/set/fetch/inc give exact results
//  - every wait_until comparator, test/test_all/test_any/test_some, wait_until_all/any/some, and
//    the per-element comparand (_vector) forms
//  - barrier_all / sync_all with random skew, thread and block scope
#include <algorithm>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

__device__ void spinFor(uint64_t ns) {
  const uint64_t end = mori::gpu::wallClock() + mori::gpu::nsToWallTicks(ns);
  while (mori::gpu::wallClock() < end) mori::gpu::spinPause();
}

// ---- put with signal ----------------------------------------------------------------------

constexpr int kRounds = 48;
constexpr size_t kChunk = 192 * 1024 + 5;

template <int SCOPE, int SIGOP>
__global__ void signalSender(char* buf, const char* src, uint64_t* sig, int peer, uint64_t seedBase) {
  // Block 0 sends kRounds chunks, each followed by its signal.
  for (int r = 0; r < kRounds; ++r) {
    char* dst = buf + r * kChunk;
    const char* s = src + r * kChunk;
    const uint64_t value = SIGOP == MORI_SHMEM_SIGNAL_ADD ? 1 : static_cast<uint64_t>(r + 1);
    if constexpr (SCOPE == 0) {
      if (threadIdx.x == 0) mori_shmem_putmem_signal_nbi_thread(dst, s, kChunk, sig, value, SIGOP, peer);
    } else if constexpr (SCOPE == 1) {
      if (threadIdx.x < static_cast<unsigned>(mori::gpu::waveSize()))
        mori_shmem_putmem_signal_nbi_warp(dst, s, kChunk, sig, value, SIGOP, peer);
    } else if constexpr (SCOPE == 2) {
      mori_shmem_putmem_signal_block(dst, s, kChunk, sig, value, SIGOP, peer);
    } else {
      // The unfused form: signal_op alone is unordered, the fence after the block's sync orders it.
      mori_shmem_putmem_nbi_block(dst, s, kChunk, peer);
      __syncthreads();
      if (threadIdx.x == 0) {
        mori_shmem_fence();
        mori_shmem_signal_op(sig, value, SIGOP, peer);
      }
    }
    __syncthreads();
  }
  (void)seedBase;
  if (threadIdx.x == 0) mori_shmem_quiet();
}

// Waits for each round's signal, then checks that round's chunk against the sender's pattern.
__global__ void signalReceiver(const char* buf, uint64_t* sig, int sender, uint64_t seedBase, unsigned long long* bad) {
  for (int r = 0; r < kRounds; ++r) {
    if (threadIdx.x == 0) mori_shmem_signal_wait_until(sig, MORI_SHMEM_CMP_GE, static_cast<uint64_t>(r + 1));
    __syncthreads();
    const char* chunk = buf + r * kChunk;
    for (size_t i = threadIdx.x; i < kChunk; i += blockDim.x)
      if (static_cast<uint8_t>(chunk[i]) != patternByte(seedBase + r, sender, i)) atomicAdd(bad, 1ull);
    __syncthreads();
  }
}

__global__ void fillRounds(char* src, int pe, uint64_t seedBase) {
  for (int r = 0; r < kRounds; ++r)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < kChunk; i += gridDim.x * blockDim.x)
      src[r * kChunk + i] = static_cast<char>(patternByte(seedBase + r, pe, i));
}

template <int SCOPE, int SIGOP>
void signalCase() {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  char* buf = static_cast<char*>(mori_shmem_calloc(kRounds * kChunk, 1));
  char* src = static_cast<char*>(mori_shmem_malloc(kRounds * kChunk));
  uint64_t* sig = static_cast<uint64_t*>(mori_shmem_calloc(1, sizeof(uint64_t)));
  ASSERT_TRUE(buf && src && sig);
  const uint64_t seedBase = 500 + SCOPE * 10 + SIGOP;
  fillRounds<<<64, 256>>>(src, me, seedBase);
  HIP_OK(hipGetLastError());
  unsigned long long* bad = nullptr;
  HIP_OK(hipMalloc(&bad, sizeof(*bad)));
  HIP_OK(hipMemset(bad, 0, sizeof(*bad)));
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  hipStream_t rs;
  HIP_OK(hipStreamCreateWithFlags(&rs, hipStreamNonBlocking));
  signalReceiver<<<1, 512, 0, rs>>>(buf, sig, left, seedBase, bad);
  HIP_OK(hipGetLastError());
  signalSender<SCOPE, SIGOP><<<1, 256>>>(buf, src, sig, right, seedBase);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  unsigned long long h = 0;
  HIP_OK(hipMemcpy(&h, bad, sizeof(h), hipMemcpyDeviceToHost));
  uint64_t finalSig = 0;
  HIP_OK(hipMemcpy(&finalSig, sig, sizeof(finalSig), hipMemcpyDeviceToHost));
  EXPECT_TRUE(allTrue(h == 0)) << h << " bytes seen before their signal (scope " << SCOPE << ", op " << SIGOP << ")";
  EXPECT_EQ(finalSig, static_cast<uint64_t>(kRounds));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipStreamDestroy(rs));
  HIP_OK(hipFree(bad));
  mori_shmem_free(sig);
  mori_shmem_free(src);
  mori_shmem_free(buf);
}

TEST(PutSignal, ThreadSet) { signalCase<0, MORI_SHMEM_SIGNAL_SET>(); }
TEST(PutSignal, ThreadAdd) { signalCase<0, MORI_SHMEM_SIGNAL_ADD>(); }
TEST(PutSignal, WarpSet) { signalCase<1, MORI_SHMEM_SIGNAL_SET>(); }
TEST(PutSignal, WarpAdd) { signalCase<1, MORI_SHMEM_SIGNAL_ADD>(); }
TEST(PutSignal, BlockSet) { signalCase<2, MORI_SHMEM_SIGNAL_SET>(); }
TEST(PutSignal, BlockAdd) { signalCase<2, MORI_SHMEM_SIGNAL_ADD>(); }
TEST(PutSignal, BlockPutFenceSignalOpSet) { signalCase<3, MORI_SHMEM_SIGNAL_SET>(); }
TEST(PutSignal, BlockPutFenceSignalOpAdd) { signalCase<3, MORI_SHMEM_SIGNAL_ADD>(); }

__global__ void signalOpKernel(uint64_t* sig, uint64_t* fetched, int peer) {
  mori_shmem_signal_op(sig, 10, MORI_SHMEM_SIGNAL_SET, peer);
  mori_shmem_quiet();
  mori_shmem_signal_op(sig + 1, 3, MORI_SHMEM_SIGNAL_ADD, peer);
  mori_shmem_signal_op(sig + 1, 4, MORI_SHMEM_SIGNAL_ADD, peer);
  mori_shmem_quiet();
  mori_shmem_barrier_all_thread();
  fetched[0] = mori_shmem_signal_fetch(sig);
  fetched[1] = mori_shmem_signal_fetch(sig + 1);
}

TEST(PutSignal, SignalOpAndFetch) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  uint64_t* sig = static_cast<uint64_t*>(mori_shmem_calloc(2, sizeof(uint64_t)));
  uint64_t* fetched = nullptr;
  HIP_OK(hipMalloc(&fetched, 2 * sizeof(uint64_t)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  signalOpKernel<<<1, 1>>>(sig, fetched, (me + 1) % n);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  uint64_t h[2];
  HIP_OK(hipMemcpy(h, fetched, sizeof(h), hipMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 10u);
  EXPECT_EQ(h[1], 7u);
  HIP_OK(hipFree(fetched));
  mori_shmem_free(sig);
}

// ---- atomics -------------------------------------------------------------------------------

// Every thread of every PE fetch-adds 1 to PE 0's counter; the results must be a permutation.
template <typename T>
__global__ void fetchAddAll(T* counter, T* results, int target) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if constexpr (sizeof(T) == 4)
    results[tid] = static_cast<T>(mori_shmem_uint32_atomic_fetch_add(reinterpret_cast<uint32_t*>(counter), 1u, target));
  else
    results[tid] =
        static_cast<T>(mori_shmem_uint64_atomic_fetch_add(reinterpret_cast<uint64_t*>(counter), 1ull, target));
}

template <typename T>
void linearisable() {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  constexpr int kBlocks = 16, kThreads = 128, kPer = kBlocks * kThreads;
  T* counter = static_cast<T*>(mori_shmem_calloc(1, sizeof(T)));
  T* results = nullptr;
  HIP_OK(hipMalloc(&results, kPer * sizeof(T)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  fetchAddAll<T><<<kBlocks, kThreads>>>(counter, results, 0);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  std::vector<T> mine(kPer), all(static_cast<size_t>(kPer) * n);
  HIP_OK(hipMemcpy(mine.data(), results, kPer * sizeof(T), hipMemcpyDeviceToHost));
  MPI_Allgather(mine.data(), kPer * sizeof(T), MPI_BYTE, all.data(), kPer * sizeof(T), MPI_BYTE, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  size_t bad = 0;
  for (size_t i = 0; i < all.size(); ++i) bad += all[i] != static_cast<T>(i);
  EXPECT_EQ(bad, 0u) << "fetch_add results are not a permutation of 0.." << all.size() - 1;
  if (me == 0) {
    T final = 0;
    HIP_OK(hipMemcpy(&final, counter, sizeof(T), hipMemcpyDeviceToHost));
    EXPECT_EQ(final, static_cast<T>(all.size()));
  }
  HIP_OK(hipFree(results));
  mori_shmem_free(counter);
}

TEST(Atomics, FetchAddLinearisable32) { linearisable<uint32_t>(); }
TEST(Atomics, FetchAddLinearisable64) { linearisable<uint64_t>(); }

// Exercises every AMO name of one type against the right neighbour. Slots (per PE copy):
// 0 add/inc counter, 1 CAS counter, 2 swap, 3 or-mask, 4 and-mask, 5 xor, 6 set/fetch.
#define AMO_KERNEL(NAME, T)                                                                                    \
  __global__ void amo_##NAME(T* slots, T* out, int peer) {                                                     \
    const unsigned t = threadIdx.x; /* 32 threads */                                                           \
    mori_shmem_##NAME##_atomic_add(slots + 0, static_cast<T>(2), peer);                                        \
    mori_shmem_##NAME##_atomic_inc(slots + 0, peer);                                                           \
    (void)mori_shmem_##NAME##_atomic_fetch_inc(slots + 0, peer);                                               \
    T seen = mori_shmem_##NAME##_atomic_fetch(slots + 1, peer);                                                \
    for (;;) {                                                                                                 \
      T got = mori_shmem_##NAME##_atomic_compare_swap(slots + 1, seen, static_cast<T>(seen + 1), peer);        \
      if (got == seen) break;                                                                                  \
      seen = got;                                                                                              \
    }                                                                                                          \
    out[t] = mori_shmem_##NAME##_atomic_swap(slots + 2, static_cast<T>(t + 1), peer);                          \
    (void)mori_shmem_##NAME##_atomic_fetch_or(slots + 3, static_cast<T>(static_cast<T>(1) << t), peer);        \
    mori_shmem_##NAME##_atomic_and(slots + 4, static_cast<T>(~(static_cast<T>(1) << t)), peer);                \
    mori_shmem_##NAME##_atomic_xor(slots + 5, static_cast<T>(static_cast<T>(1) << t), peer);                   \
    (void)mori_shmem_##NAME##_atomic_fetch_xor(slots + 5, static_cast<T>(static_cast<T>(1) << (t ^ 1)), peer); \
    (void)mori_shmem_##NAME##_atomic_fetch_and(slots + 6, static_cast<T>(-1), peer);                           \
    (void)mori_shmem_##NAME##_atomic_fetch_add(slots + 6, static_cast<T>(0), peer);                            \
    mori_shmem_##NAME##_atomic_or(slots + 6, static_cast<T>(0), peer);                                         \
    if (t == 0) mori_shmem_##NAME##_atomic_set(slots + 7, static_cast<T>(12345), peer);                        \
    mori_shmem_quiet();                                                                                        \
  }
MORI_SHMEM_AMO_TYPES(AMO_KERNEL)

template <typename T, typename K>
void amoCase(const char* name, K kernel) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  constexpr int kT = 32;
  T* slots = static_cast<T*>(mori_shmem_calloc(8, sizeof(T)));
  T init[8] = {0, 0, 0, 0, static_cast<T>(~T(0)), 0, 0, 0};
  HIP_OK(hipMemcpy(slots, init, sizeof(init), hipMemcpyHostToDevice));
  T* out = nullptr;
  HIP_OK(hipMalloc(&out, kT * sizeof(T)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  kernel<<<1, kT>>>(slots, out, (me + 1) % n);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  T h[8];
  std::vector<T> swapped(kT);
  HIP_OK(hipMemcpy(h, slots, sizeof(h), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(swapped.data(), out, kT * sizeof(T), hipMemcpyDeviceToHost));
  // The swap chain this PE ran is on its right neighbour's slot 2; that slot's final value
  // completes it (this PE's own slot 2 ends the left neighbour's chain).
  T chainEnd = h[2];
  MPI_Sendrecv(&h[2], sizeof(T), MPI_BYTE, (me + n - 1) % n, 0, &chainEnd, sizeof(T), MPI_BYTE, (me + 1) % n, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const T lowMask = static_cast<T>((uint64_t{1} << kT) - 1);
  EXPECT_EQ(h[0], static_cast<T>(4 * kT)) << name << " add/inc";
  EXPECT_EQ(h[1], static_cast<T>(kT)) << name << " compare_swap";
  std::vector<T> ids(swapped);
  ids.push_back(chainEnd);
  std::sort(ids.begin(), ids.end());
  bool perm = true;
  for (int i = 0; i <= kT; ++i) perm &= ids[i] == static_cast<T>(i);
  EXPECT_TRUE(perm) << name << " swap chain is not a permutation";
  EXPECT_EQ(h[3], lowMask) << name << " or";
  EXPECT_EQ(h[4], static_cast<T>(~lowMask)) << name << " and";
  EXPECT_EQ(h[5], static_cast<T>(0)) << name << " xor";
  EXPECT_EQ(h[6], static_cast<T>(0)) << name << " fetch-only ops changed the value";
  EXPECT_EQ(h[7], static_cast<T>(12345)) << name << " set";
  HIP_OK(hipFree(out));
  mori_shmem_free(slots);
}

TEST(Atomics, EveryOperationEveryType) {
#define AMO_RUN(NAME, T) amoCase<T>(#NAME, amo_##NAME);
  MORI_SHMEM_AMO_TYPES(AMO_RUN)
}

// ---- point-to-point synchronisation ----------------------------------------------------------

struct CmpCase {
  int cmp;
  int64_t initial, written, ref;
};
// Each waits for a value only the peer's write can produce.
#define CMP_CASES                                                                                  \
  {                                                                                                \
    {MORI_SHMEM_CMP_EQ, 0, 42, 42}, {MORI_SHMEM_CMP_NE, 0, 42, 0}, {MORI_SHMEM_CMP_GT, 0, 42, 41}, \
        {MORI_SHMEM_CMP_GE, 0, 42, 42}, {MORI_SHMEM_CMP_LT, 100, 42, 50}, {                        \
      MORI_SHMEM_CMP_LE, 100, 42, 42                                                               \
    }                                                                                              \
  }
constexpr CmpCase kCmpCases[] = CMP_CASES;
__device__ const CmpCase kCmpCasesDev[] = CMP_CASES;

#define WAIT_KERNELS(NAME, T)                                                                                      \
  __global__ void wait_##NAME(T* ivars, int peer, int* result) {                                                   \
    /* block 0 thread 0 writes the peer's ivars after a delay; block 1 waits on mine */                            \
    if (blockIdx.x == 0) {                                                                                         \
      spinFor(200000);                                                                                             \
      for (int c = 0; c < 6; ++c) mori_shmem_##NAME##_p(ivars + c, static_cast<T>(kCmpCasesDev[c].written), peer); \
      mori_shmem_quiet();                                                                                          \
      return;                                                                                                      \
    }                                                                                                              \
    int ok = 1;                                                                                                    \
    for (int c = 0; c < 6; ++c) {                                                                                  \
      const T ref = static_cast<T>(kCmpCasesDev[c].ref);                                                           \
      mori_shmem_##NAME##_wait_until(ivars + c, kCmpCasesDev[c].cmp, ref);                                         \
      ok &= ivars[c] == static_cast<T>(kCmpCasesDev[c].written);                                                   \
      ok &= mori_shmem_##NAME##_test(ivars + c, kCmpCasesDev[c].cmp, ref) == 1;                                    \
    }                                                                                                              \
    ok &= mori_shmem_##NAME##_test_all(ivars, 1, nullptr, MORI_SHMEM_CMP_EQ, static_cast<T>(42)) == 1;             \
    ok &= mori_shmem_##NAME##_test_any(ivars, 6, nullptr, MORI_SHMEM_CMP_EQ, static_cast<T>(7)) == 6;              \
    *result = ok;                                                                                                  \
  }
MORI_SHMEM_SYNC_TYPES(WAIT_KERNELS)

template <typename T, typename K>
void waitCase(const char* name, K kernel) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  T* ivars = static_cast<T*>(mori_shmem_malloc(8 * sizeof(T)));
  T init[6];
  for (int c = 0; c < 6; ++c) init[c] = static_cast<T>(kCmpCases[c].initial);
  HIP_OK(hipMemcpy(ivars, init, sizeof(init), hipMemcpyHostToDevice));
  int* result = nullptr;
  HIP_OK(hipMalloc(&result, sizeof(int)));
  HIP_OK(hipMemset(result, 0, sizeof(int)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  // Before the peer writes, none of the conditions holds.
  kernel<<<2, 1>>>(ivars, (me + 1) % n, result);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  int h = 0;
  HIP_OK(hipMemcpy(&h, result, sizeof(int), hipMemcpyDeviceToHost));
  EXPECT_TRUE(allTrue(h == 1)) << name;
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipFree(result));
  mori_shmem_free(ivars);
}

TEST(PointToPoint, EveryComparatorEveryType) {
#define WAIT_RUN(NAME, T) waitCase<T>(#NAME, wait_##NAME);
  MORI_SHMEM_SYNC_TYPES(WAIT_RUN)
}

// wait_until_all / any / some over 16 flags, the peer setting flags 3, 7 and 11 only; status
// excludes every other flag for _all.
__global__ void waitSetKernel(uint64_t* flags, int peer, const int* status, size_t* indices, size_t* out) {
  if (blockIdx.x == 0) {
    spinFor(100000);
    for (int f : {3, 7, 11}) mori_shmem_uint64_p(flags + f, 1, peer);
    mori_shmem_quiet();
    return;
  }
  out[0] = mori_shmem_uint64_wait_until_any(flags, 16, nullptr, MORI_SHMEM_CMP_EQ, 1);
  mori_shmem_uint64_wait_until_all(flags, 16, status, MORI_SHMEM_CMP_EQ, 1);
  out[1] = mori_shmem_uint64_wait_until_some(flags, 16, indices, nullptr, MORI_SHMEM_CMP_EQ, 1);
  out[2] = mori_shmem_uint64_test_any(flags, 16, status, MORI_SHMEM_CMP_EQ, 0);  // all unset ones excluded
}

TEST(PointToPoint, WaitAllAnySome) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  uint64_t* flags = static_cast<uint64_t*>(mori_shmem_calloc(16, sizeof(uint64_t)));
  int hs[16];
  for (int i = 0; i < 16; ++i) hs[i] = (i == 3 || i == 7 || i == 11) ? 0 : 1;
  int* status = nullptr;
  size_t *indices = nullptr, *out = nullptr;
  HIP_OK(hipMalloc(&status, sizeof(hs)));
  HIP_OK(hipMemcpy(status, hs, sizeof(hs), hipMemcpyHostToDevice));
  HIP_OK(hipMalloc(&indices, 16 * sizeof(size_t)));
  HIP_OK(hipMalloc(&out, 3 * sizeof(size_t)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  waitSetKernel<<<2, 1>>>(flags, (me + 1) % n, status, indices, out);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  size_t h[3], idx[16];
  HIP_OK(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(idx, indices, sizeof(idx), hipMemcpyDeviceToHost));
  EXPECT_TRUE(h[0] == 3 || h[0] == 7 || h[0] == 11) << "wait_until_any returned " << h[0];
  EXPECT_GE(h[1], 1u);
  for (size_t i = 0; i < h[1] && i < 16; ++i) EXPECT_TRUE(idx[i] == 3 || idx[i] == 7 || idx[i] == 11) << idx[i];
  EXPECT_EQ(h[2], 16u) << "test_any must skip excluded entries";
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipFree(status));
  HIP_OK(hipFree(indices));
  HIP_OK(hipFree(out));
  mori_shmem_free(flags);
}

// The per-element comparand (_vector) forms and test_some over 16 flags: the peer sets flags 3, 7
// and 11 to their index; vals[i] is i there and i + 100 elsewhere, so EQ holds at 3, 7, 11 only.
__global__ void waitVectorKernel(uint64_t* flags, uint64_t* vals, int peer, const int* status, size_t* indices,
                                 size_t* indices2, size_t* out) {
  if (blockIdx.x == 0) {
    spinFor(100000);
    for (int f : {3, 7, 11}) mori_shmem_uint64_p(flags + f, static_cast<uint64_t>(f), peer);
    mori_shmem_quiet();
    return;
  }
  out[0] = mori_shmem_uint64_wait_until_any_vector(flags, 16, nullptr, MORI_SHMEM_CMP_EQ, vals);
  mori_shmem_uint64_wait_until_all_vector(flags, 16, status, MORI_SHMEM_CMP_EQ, vals);
  out[1] = mori_shmem_uint64_wait_until_some_vector(flags, 16, indices, nullptr, MORI_SHMEM_CMP_EQ, vals);
  out[2] = static_cast<size_t>(mori_shmem_uint64_test_all_vector(flags, 16, status, MORI_SHMEM_CMP_EQ, vals));
  out[3] = static_cast<size_t>(mori_shmem_uint64_test_all_vector(flags, 16, nullptr, MORI_SHMEM_CMP_EQ, vals));
  out[4] = mori_shmem_uint64_test_any_vector(flags, 16, status, MORI_SHMEM_CMP_NE, vals);    // none: 16
  out[5] = mori_shmem_uint64_test_some(flags, 16, indices2, nullptr, MORI_SHMEM_CMP_EQ, 0);  // the 13 unset
  out[6] = mori_shmem_uint64_test_some_vector(flags, 16, indices, nullptr, MORI_SHMEM_CMP_GE, vals);
}

TEST(PointToPoint, VectorFormsAndTestSome) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  uint64_t* flags = static_cast<uint64_t*>(mori_shmem_calloc(16, sizeof(uint64_t)));
  ASSERT_NE(flags, nullptr);
  uint64_t hv[16];
  int hs[16];
  for (int i = 0; i < 16; ++i) {
    const bool set = i == 3 || i == 7 || i == 11;
    hv[i] = static_cast<uint64_t>(set ? i : i + 100);
    hs[i] = set ? 0 : 1;
  }
  uint64_t* vals = nullptr;
  int* status = nullptr;
  size_t *indices = nullptr, *indices2 = nullptr, *out = nullptr;
  HIP_OK(hipMalloc(&vals, sizeof(hv)));
  HIP_OK(hipMemcpy(vals, hv, sizeof(hv), hipMemcpyHostToDevice));
  HIP_OK(hipMalloc(&status, sizeof(hs)));
  HIP_OK(hipMemcpy(status, hs, sizeof(hs), hipMemcpyHostToDevice));
  HIP_OK(hipMalloc(&indices, 16 * sizeof(size_t)));
  HIP_OK(hipMalloc(&indices2, 16 * sizeof(size_t)));
  HIP_OK(hipMalloc(&out, 7 * sizeof(size_t)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  waitVectorKernel<<<2, 1>>>(flags, vals, (me + 1) % n, status, indices, indices2, out);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  size_t h[7], idx[16], idx2[16];
  HIP_OK(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(idx, indices, sizeof(idx), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(idx2, indices2, sizeof(idx2), hipMemcpyDeviceToHost));
  EXPECT_TRUE(h[0] == 3 || h[0] == 7 || h[0] == 11) << "wait_until_any_vector returned " << h[0];
  EXPECT_GE(h[1], 1u);
  EXPECT_EQ(h[2], 1u) << "test_all_vector over the included flags";
  EXPECT_EQ(h[3], 0u) << "test_all_vector over every flag";
  EXPECT_EQ(h[4], 16u) << "test_any_vector: no included flag differs";
  ASSERT_EQ(h[5], 13u) << "test_some of the unset flags";
  for (size_t i = 0, f = 0; i < 13; ++i, ++f) {
    while (f == 3 || f == 7 || f == 11) ++f;
    EXPECT_EQ(idx2[i], f) << "test_some index " << i;
  }
  ASSERT_EQ(h[6], 3u) << "test_some_vector";
  EXPECT_EQ(idx[0], 3u);
  EXPECT_EQ(idx[1], 7u);
  EXPECT_EQ(idx[2], 11u);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  for (void* p : {static_cast<void*>(vals), static_cast<void*>(status), static_cast<void*>(indices),
                  static_cast<void*>(indices2), static_cast<void*>(out)})
    HIP_OK(hipFree(p));
  mori_shmem_free(flags);
}

// ---- barriers ----------------------------------------------------------------------------------

// Each iteration: random skew, add 1 to every PE's counter, barrier; then my counter must hold
// exactly n * (iteration + 1). At wave scope a lane other than 0 adds (the wave's barrier completes
// every lane's operations) and the block's other waves stay out.
enum class BarrierScope { Thread, Warp, Block };
// barrier_all (kBarrier) or sync_all at scope kScope, then a block sync.
template <BarrierScope kScope, bool kBarrier>
__device__ void allAt() {
  if constexpr (kScope == BarrierScope::Block) {
    kBarrier ? mori_shmem_barrier_all_block() : mori_shmem_sync_all_block();
  } else if constexpr (kScope == BarrierScope::Warp) {
    if (static_cast<int>(threadIdx.x) < mori::gpu::waveSize())
      kBarrier ? mori_shmem_barrier_all_warp() : mori_shmem_sync_all_warp();
  } else if (threadIdx.x == 0) {
    kBarrier ? mori_shmem_barrier_all_thread() : mori_shmem_sync_all_thread();
  }
  __syncthreads();
}

template <BarrierScope kScope>
__global__ void barrierSkew(uint64_t* counter, int iterations, uint64_t seed, int* bad) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const unsigned adder = kScope == BarrierScope::Warp ? 5 : 0;
  for (int it = 0; it < iterations; ++it) {
    if (threadIdx.x == adder) {
      spinFor(mix(seed + static_cast<uint64_t>(me) * 1000 + it) % 20000);
      for (int pe = 0; pe < n; ++pe) mori_shmem_uint64_atomic_add(counter, 1ull, pe);
    }
    allAt<kScope, true>();
    if (threadIdx.x == 0 && mori::gpu::atomicLoad<mori::gpu::Order::Acquire, mori::gpu::Scope::System>(counter) !=
                                static_cast<uint64_t>(n) * (it + 1))
      atomicAdd(bad, 1);
    allAt<kScope, false>();  // no PE may add for the next round before everyone checked this one
  }
}

template <BarrierScope kScope>
void barrierCase() {
  uint64_t* counter = static_cast<uint64_t*>(mori_shmem_calloc(1, sizeof(uint64_t)));
  int* bad = nullptr;
  HIP_OK(hipMalloc(&bad, sizeof(int)));
  HIP_OK(hipMemset(bad, 0, sizeof(int)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  const int threads = kScope == BarrierScope::Block ? 256 : kScope == BarrierScope::Warp ? 128 : 32;
  barrierSkew<kScope><<<1, threads>>>(counter, 200, 4242, bad);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  int h = 0;
  HIP_OK(hipMemcpy(&h, bad, sizeof(int), hipMemcpyDeviceToHost));
  EXPECT_TRUE(allTrue(h == 0)) << h << " iterations saw a counter that the barrier should have completed";
  HIP_OK(hipFree(bad));
  mori_shmem_free(counter);
}

TEST(Barrier, ThreadScopeRandomSkew) { barrierCase<BarrierScope::Thread>(); }
TEST(Barrier, WarpScopeRandomSkew) { barrierCase<BarrierScope::Warp>(); }
TEST(Barrier, BlockScopeRandomSkew) { barrierCase<BarrierScope::Block>(); }

}  // namespace
