// MORI_SHMEM_COLLECTIVE_ENTRY=caller (set by this test's ctest entries): fcollect and alltoall in
// their push forms write into the members' dests without waiting for their entry, as OpenSHMEM
// and NVSHMEM do, and the program makes every dest ready before any member calls. Here each call
// follows a host barrier taken after every PE has written its source and poisoned its dest, and
// every member's dest is checked byte for byte against random data: one thread's, a wave's and a
// block's calls, the host's one-block and spread kernels on a stream, on the world team and on
// strided sub-teams (PEs outside a team idle), and calls back to back in one kernel with a team
// barrier between each call and the reads of its result. And that the setting takes effect: the
// other members' data lands in a PE's dest before that PE calls (with wait it cannot).
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"
#include "tests/gpu/team/collective_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

constexpr int kThreads = 256;

template <int SC, bool kAlltoall, bool BV>
__global__ void pushKernel(mori_shmem_team_t team, mori_shmem_team_device_t value, void* d, const void* s,
                           size_t bytes) {
  if constexpr (kAlltoall)
    CALL(SC, mori_shmem_alltoallmem, d, s, bytes);
  else
    CALL(SC, mori_shmem_fcollectmem, d, s, bytes);
}

using Launch = std::function<void(mori_shmem_team_t, void*, const void*, size_t)>;

template <int SC, bool kAlltoall>
Launch deviceLaunch() {
  return [](mori_shmem_team_t t, void* d, const void* s, size_t bytes) {
    pushKernel<SC, kAlltoall, SC == 1><<<1, kThreads>>>(t, mori_shmem_team_get_device(t), d, s, bytes);
    HIP_OK(hipGetLastError());
  };
}

Launch streamLaunch(bool alltoall, hipStream_t stream) {
  return [alltoall, stream](mori_shmem_team_t t, void* d, const void* s, size_t bytes) {
    char* dc = static_cast<char*>(d);
    const char* sc = static_cast<const char*>(s);
    EXPECT_EQ(alltoall ? mori_shmem_char_alltoall_on_stream(t, dc, sc, bytes, stream)
                       : mori_shmem_char_fcollect_on_stream(t, dc, sc, bytes, stream),
              0);
  };
}

// Member j's block of this PE's dest after the call: fcollect, j's source; alltoall, j's source
// block <this PE's index>. Source bytes of member j: patternByte(seed, j, i).
size_t badBytes(const std::vector<char>& out, bool alltoall, int n, int me, size_t bytes, uint64_t seed,
                size_t* first) {
  size_t bad = 0;
  for (int j = 0; j < n; ++j)
    for (size_t i = 0; i < bytes; ++i) {
      const size_t from = alltoall ? static_cast<size_t>(me) * bytes + i : i;
      if (out[j * bytes + i] != static_cast<char>(patternByte(seed, j, from)) && bad++ == 0) *first = j * bytes + i;
    }
  return bad;
}

// One call of `bytes` per member on `team`, made once every PE has set up (the caller's readiness).
bool runPush(bool alltoall, mori_shmem_team_t team, size_t bytes, const Launch& launch, uint64_t seed) {
  const int n = mori_shmem_team_n_pes(team) > 0 ? mori_shmem_team_n_pes(team) : 0;
  int tn = n;
  MPI_Allreduce(&n, &tn, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const size_t srcBytes = alltoall ? bytes * tn : bytes, dstBytes = bytes * tn;
  char* src = static_cast<char*>(mori_shmem_malloc(srcBytes));
  char* dst = static_cast<char*>(mori_shmem_malloc(dstBytes));
  EXPECT_TRUE(src && dst);
  bool good = src && dst;
  const int me = mori_shmem_team_my_pe(team);
  if (good) {
    std::vector<char> h(srcBytes), out(dstBytes, 0x5a);
    for (size_t i = 0; i < srcBytes; ++i) h[i] = static_cast<char>(patternByte(seed, me, i));
    EXPECT_EQ(hipMemcpy(src, h.data(), srcBytes, hipMemcpyHostToDevice), hipSuccess);
    EXPECT_EQ(hipMemcpy(dst, out.data(), dstBytes, hipMemcpyHostToDevice), hipSuccess);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    MPI_Barrier(MPI_COMM_WORLD);  // every dest is ready before any member calls
    if (me >= 0) {
      launch(team, dst, src, bytes);
      EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
      EXPECT_EQ(hipMemcpy(out.data(), dst, dstBytes, hipMemcpyDeviceToHost), hipSuccess);
      size_t first = 0;
      const size_t bad = badBytes(out, alltoall, n, me, bytes, seed, &first);
      if (bad) {
        ADD_FAILURE() << (alltoall ? "alltoall" : "fcollect") << " team " << team << " (" << n << " PEs) " << bytes
                      << " bytes per member: " << bad << " bad bytes, first at " << first << " on team PE " << me;
        good = false;
      }
    }
  }
  mori_shmem_free(dst);
  mori_shmem_free(src);
  return allTrue(good);
}

TEST(CallerEntry, TheTestRunsUnderTheCallersContract) {
  const char* v = getenv("MORI_SHMEM_COLLECTIVE_ENTRY");
  ASSERT_TRUE(v && strcmp(v, "caller") == 0)
      << "run this test with MORI_SHMEM_COLLECTIVE_ENTRY=caller (its ctest entry)";
}

// Sizes per member past the one-step and staged limits, so that the push forms run.
TEST(CallerEntry, DevicePushesAtEveryScope) {
  Teams teams;
  uint64_t seed = 7000;
  for (mori_shmem_team_t t : teams.all)
    for (size_t b : {size_t{20000}, size_t{65536} + 5, size_t{300000}}) {
      ASSERT_TRUE(runPush(false, t, b, deviceLaunch<0, false>(), seed++));
      ASSERT_TRUE(runPush(true, t, b, deviceLaunch<0, true>(), seed++));
      ASSERT_TRUE(runPush(false, t, b, deviceLaunch<1, false>(), seed++));
      ASSERT_TRUE(runPush(true, t, b, deviceLaunch<1, true>(), seed++));
      ASSERT_TRUE(runPush(false, t, b, deviceLaunch<2, false>(), seed++));
      ASSERT_TRUE(runPush(true, t, b, deviceLaunch<2, true>(), seed++));
    }
}

// 32 KiB per member: the one-block kernel's push at 4 PEs; 1 MiB + 3: the spread kernel.
TEST(CallerEntry, StreamPushesOneBlockAndSpread) {
  Teams teams;
  hipStream_t stream = nullptr;
  HIP_OK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  uint64_t seed = 8000;
  for (mori_shmem_team_t t : teams.all)
    for (size_t b : {size_t{32768}, size_t{100001}, (size_t{1} << 20) + 3}) {
      ASSERT_TRUE(runPush(false, t, b, streamLaunch(false, stream), seed++));
      ASSERT_TRUE(runPush(true, t, b, streamLaunch(true, stream), seed++));
    }
  HIP_OK(hipStreamDestroy(stream));
}

// Back to back in one kernel: call k's source is pattern k; after each call a team barrier (every
// member's puts into this dest are done), this PE copies its dest aside, and a second barrier
// makes every dest ready for call k + 1.
template <bool kAlltoall>
__global__ void backToBackKernel(mori_shmem_team_t team, char* dst, char* const* srcs, char* aside, size_t bytes, int n,
                                 int calls) {
  for (int k = 0; k < calls; ++k) {
    if constexpr (kAlltoall)
      mori_shmem_alltoallmem_block(team, dst, srcs[k], bytes);
    else
      mori_shmem_fcollectmem_block(team, dst, srcs[k], bytes);
    mori_shmem_barrier_block(team);
    for (size_t i = threadIdx.x; i < bytes * n; i += blockDim.x) aside[k * bytes * n + i] = dst[i];
    mori_shmem_barrier_block(team);
  }
}

template <bool kAlltoall>
void backToBack() {
  constexpr int kCalls = 4;
  constexpr size_t kBytes = 24 * 1024 + 8;  // past the staged limit at every team size
  Teams teams;
  for (mori_shmem_team_t t : teams.all) {
    const int n = mori_shmem_team_n_pes(t), me = mori_shmem_team_my_pe(t);
    int tn = n;
    MPI_Allreduce(&n, &tn, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const size_t srcBytes = kAlltoall ? kBytes * tn : kBytes;
    std::vector<char*> srcs(kCalls);
    for (auto& s : srcs) s = static_cast<char*>(mori_shmem_malloc(srcBytes));
    char* dst = static_cast<char*>(mori_shmem_malloc(kBytes * tn));
    char* aside = nullptr;
    char** srcsDev = nullptr;
    HIP_OK(hipMalloc(&aside, kCalls * kBytes * tn));
    HIP_OK(hipMalloc(&srcsDev, kCalls * sizeof(char*)));
    HIP_OK(hipMemcpy(srcsDev, srcs.data(), kCalls * sizeof(char*), hipMemcpyHostToDevice));
    const uint64_t seed = 9000 + static_cast<uint64_t>(t) * 16 + kAlltoall * 8;
    std::vector<char> h(srcBytes);
    for (int k = 0; k < kCalls; ++k) {
      for (size_t i = 0; i < srcBytes; ++i) h[i] = static_cast<char>(patternByte(seed + k, me, i));
      HIP_OK(hipMemcpy(srcs[k], h.data(), srcBytes, hipMemcpyHostToDevice));
    }
    HIP_OK(hipMemset(dst, 0x5a, kBytes * tn));
    HIP_OK(hipDeviceSynchronize());
    MPI_Barrier(MPI_COMM_WORLD);
    bool good = true;
    if (me >= 0) {
      backToBackKernel<kAlltoall><<<1, kThreads>>>(t, dst, srcsDev, aside, kBytes, n, kCalls);
      HIP_OK(hipGetLastError());
      EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
      std::vector<char> out(kCalls * kBytes * tn);
      HIP_OK(hipMemcpy(out.data(), aside, out.size(), hipMemcpyDeviceToHost));
      for (int k = 0; k < kCalls; ++k) {
        const auto at = [&](int call) { return out.begin() + static_cast<ptrdiff_t>(call * kBytes * n); };
        std::vector<char> one(at(k), at(k + 1));
        size_t first = 0;
        const size_t bad = badBytes(one, kAlltoall, n, me, kBytes, seed + k, &first);
        if (bad) {
          ADD_FAILURE() << (kAlltoall ? "alltoall" : "fcollect") << " team " << t << " call " << k << ": " << bad
                        << " bad bytes, first at " << first << " on team PE " << me;
          good = false;
        }
      }
    }
    EXPECT_TRUE(allTrue(good));
    HIP_OK(hipFree(srcsDev));
    HIP_OK(hipFree(aside));
    mori_shmem_free(dst);
    for (auto& s : srcs) mori_shmem_free(s);
  }
}

// The push does not wait for this PE's entry: the last PE holds its call back and polls its dest
// (every 10 ms, at most 5 s) until every other member's piece is there; with the default (wait) the
// others would still be waiting for it and the pieces would never come. Then it calls, and every
// member's whole dest is checked.
TEST(CallerEntry, OthersWriteBeforeThisPeCalls) {
  constexpr size_t kBytes = 40000;  // n x 40000 is past the staged limit: the one-block push at 2-4 PEs
  const int n = mori_shmem_n_pes(), me = mori_shmem_my_pe();
  char* src = static_cast<char*>(mori_shmem_malloc(kBytes));
  char* dst = static_cast<char*>(mori_shmem_malloc(kBytes * n));
  ASSERT_TRUE(src && dst);
  const uint64_t seed = 9900;
  std::vector<char> h(kBytes), out(kBytes * n, 0x5a);
  for (size_t i = 0; i < kBytes; ++i) h[i] = static_cast<char>(patternByte(seed, me, i));
  HIP_OK(hipMemcpy(src, h.data(), kBytes, hipMemcpyHostToDevice));
  HIP_OK(hipMemcpy(dst, out.data(), out.size(), hipMemcpyHostToDevice));
  HIP_OK(hipDeviceSynchronize());
  hipStream_t stream = nullptr;
  HIP_OK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  MPI_Barrier(MPI_COMM_WORLD);  // every dest is ready before any member calls
  const auto othersLanded = [&] {
    for (int j = 0; j < n; ++j)
      for (size_t i = 0; j != me && i < kBytes; ++i)
        if (out[j * kBytes + i] != static_cast<char>(patternByte(seed, j, i))) return false;
    return true;
  };
  if (me == n - 1) {
    bool landed = false;
    for (int poll = 0; poll < 500 && !landed; ++poll) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      HIP_OK(hipMemcpy(out.data(), dst, out.size(), hipMemcpyDeviceToHost));
      landed = othersLanded();
    }
    EXPECT_TRUE(landed)
        << "PE " << me << ": the other members' fcollect pieces did not reach its dest within 5 s "
        << "before it called: the push waited for its entry although MORI_SHMEM_COLLECTIVE_ENTRY=caller";
  }
  EXPECT_EQ(mori_shmem_char_fcollect_on_stream(MORI_SHMEM_TEAM_WORLD, dst, src, kBytes, stream), 0);
  HIP_OK(hipStreamSynchronize(stream));
  HIP_OK(hipMemcpy(out.data(), dst, out.size(), hipMemcpyDeviceToHost));
  size_t first = 0;
  const size_t bad = badBytes(out, false, n, me, kBytes, seed, &first);
  EXPECT_EQ(bad, 0u) << "PE " << me << ": first bad byte at " << first;
  EXPECT_TRUE(allTrue(bad == 0));
  HIP_OK(hipStreamDestroy(stream));
  mori_shmem_free(dst);
  mori_shmem_free(src);
}

TEST(CallerEntry, BackToBackWithTheCallersBarriers) {
  backToBack<false>();
  backToBack<true>();
}

}  // namespace
