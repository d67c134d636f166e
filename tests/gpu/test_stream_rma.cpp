// The stream-ordered RMA of mori/shmem.h between PEs that run at the same time (2 PEs):
//  - putmem/getmem_on_stream of random data, sizes from 1 byte to 64 MiB, odd sizes and offsets,
//    symmetric and (P2P peers) plain hipMalloc local sides, on a created stream
//  - putmem_signal_on_stream (SET and ADD) with signal_wait_until_on_stream on the receiver's
//    stream: the data is complete when the stream passes the wait, over many rounds
//  - a stream capture (CUDA/HIP graph) of put + signal + wait + quiet + barrier, replayed with new
//    data each time
//  - bad inputs: each call returns INVALID_USAGE, enqueues nothing and leaves no device error
//  - host-initiated RMA (mori_shmem_host_*): blocking put and get complete on return, _nbi ones at
//    mori_shmem_host_quiet, random data of every size above; their bad inputs fail the same way
//  - host-initiated single elements and atomics: p / g of every size, every atomic op at 4 and 8
//    bytes from every PE on one counter (the sum of everyone's adds exact), bad sizes, ops, alignment
#include <string.h>

#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);  // the waits spin: PEs sharing a GPU need concurrent sharing (MPS)
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

#if MORI_PLATFORM_NVIDIA
using GraphT = cudaGraph_t;
using GraphExecT = cudaGraphExec_t;
hipError_t beginCapture(hipStream_t s) { return cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal); }
hipError_t endCapture(hipStream_t s, GraphT* g) { return cudaStreamEndCapture(s, g); }
hipError_t instantiate(GraphExecT* e, GraphT g) { return cudaGraphInstantiate(e, g, 0); }
hipError_t launchGraph(GraphExecT e, hipStream_t s) { return cudaGraphLaunch(e, s); }
void destroyGraph(GraphExecT e, GraphT g) {
  (void)cudaGraphExecDestroy(e);
  (void)cudaGraphDestroy(g);
}
#else
using GraphT = hipGraph_t;
using GraphExecT = hipGraphExec_t;
hipError_t beginCapture(hipStream_t s) { return hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal); }
hipError_t endCapture(hipStream_t s, GraphT* g) { return hipStreamEndCapture(s, g); }
hipError_t instantiate(GraphExecT* e, GraphT g) { return hipGraphInstantiate(e, g, nullptr, nullptr, 0); }
hipError_t launchGraph(GraphExecT e, hipStream_t s) { return hipGraphLaunch(e, s); }
void destroyGraph(GraphExecT e, GraphT g) {
  (void)hipGraphExecDestroy(e);
  (void)hipGraphDestroy(g);
}
#endif

mori_shmem_stream_t asStream(hipStream_t s) { return reinterpret_cast<mori_shmem_stream_t>(s); }

class StreamRma : public ::testing::Test {
 protected:
  void SetUp() override {
    me = mori_shmem_my_pe();
    n = mori_shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    HIP_OK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  }
  void TearDown() override {
    (void)hipStreamDestroy(stream);
    char why[512];
    EXPECT_EQ(mori_shmem_device_error(why, sizeof(why)), 0) << why;
  }
  int me = 0, n = 0, right = 0, left = 0;
  hipStream_t stream = nullptr;
};

constexpr size_t kSizes[] = {1, 7, 4096 + 3, (4 << 20) + 5, 64 << 20};

TEST_F(StreamRma, PutAndGetRandomData) {
  const size_t maxBytes = 64 << 20;
  auto* dst = static_cast<uint8_t*>(mori_shmem_malloc(maxBytes + 64));
  auto* src = static_cast<uint8_t*>(mori_shmem_malloc(maxBytes + 64));
  ASSERT_TRUE(dst && src);
  uint8_t* local = nullptr;
  HIP_OK(hipMalloc(&local, maxBytes + 64));
  uint64_t seed = 9000;
  for (size_t bytes : kSizes) {
    for (size_t offset : {size_t{0}, size_t{13}}) {
      ++seed;
      fill(src + offset, bytes, seed, me);
      HIP_OK(hipDeviceSynchronize());
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
      ASSERT_EQ(mori_shmem_putmem_on_stream(dst + offset, src + offset, bytes, right, asStream(stream)), 0);
      ASSERT_EQ(mori_shmem_quiet_on_stream(asStream(stream)), 0);
      ASSERT_EQ(mori_shmem_barrier_all_on_stream(asStream(stream)), 0);
      HIP_OK(hipStreamSynchronize(stream));
      CheckResult r = checkAll(dst + offset, bytes, seed, left);
      EXPECT_EQ(r.mismatches, 0u) << "put of " << bytes << " bytes at offset " << offset << ": first bad byte "
                                  << r.firstBad << " on PE " << r.firstBadPe;
      // Get back what the right neighbour holds in src: its own data.
      ASSERT_EQ(mori_shmem_getmem_on_stream(dst + offset, src + offset, bytes, right, asStream(stream)), 0);
      HIP_OK(hipStreamSynchronize(stream));
      r = checkAll(dst + offset, bytes, seed, right);
      EXPECT_EQ(r.mismatches, 0u) << "get of " << bytes << " bytes at offset " << offset << ": first bad byte "
                                  << r.firstBad << " on PE " << r.firstBadPe;
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
    }
  }
  // The local side of a put/get may be any device memory when the peer is reached by P2P.
  if (mori_shmem_ptr(dst, right) && mori_shmem_ptr(dst, left)) {
    const size_t bytes = (1 << 20) + 17;
    fill(local, bytes, ++seed, me);
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_putmem_on_stream(dst, local, bytes, right, asStream(stream)), 0);
    ASSERT_EQ(mori_shmem_barrier_all_on_stream(asStream(stream)), 0);
    HIP_OK(hipStreamSynchronize(stream));
    CheckResult r = checkAll(dst, bytes, seed, left);
    EXPECT_EQ(r.mismatches, 0u) << "put from hipMalloc memory: first bad byte " << r.firstBad << " on PE "
                                << r.firstBadPe;
    ASSERT_EQ(mori_shmem_getmem_on_stream(local, dst, bytes, right, asStream(stream)), 0);
    HIP_OK(hipStreamSynchronize(stream));
    r = checkAll(local, bytes, seed, me);  // right's dst holds what I put there
    EXPECT_EQ(r.mismatches, 0u) << "get into hipMalloc memory: first bad byte " << r.firstBad << " on PE "
                                << r.firstBadPe;
  }
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipFree(local));
  mori_shmem_free(src);
  mori_shmem_free(dst);
}

TEST_F(StreamRma, PutSignalThenWaitOnStream) {
  constexpr int kRounds = 16;
  constexpr size_t kChunk = (1 << 20) + 11;
  auto* dst = static_cast<uint8_t*>(mori_shmem_malloc(kRounds * kChunk));
  auto* src = static_cast<uint8_t*>(mori_shmem_malloc(kRounds * kChunk));
  auto* sig = static_cast<uint64_t*>(mori_shmem_calloc(2, sizeof(uint64_t)));
  ASSERT_TRUE(dst && src && sig);
  for (int r = 0; r < kRounds; ++r) fill(src + r * kChunk, kChunk, 700 + r, me);
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  for (int r = 0; r < kRounds; ++r) {
    // sig[0] counts rounds (ADD), sig[1] holds the round number (SET).
    ASSERT_EQ(mori_shmem_putmem_signal_on_stream(dst + r * kChunk, src + r * kChunk, kChunk, &sig[r % 2], r % 2 ? r : 1,
                                                 r % 2 ? MORI_SHMEM_SIGNAL_SET : MORI_SHMEM_SIGNAL_ADD, right,
                                                 asStream(stream)),
              0);
    // GE for both: SET values grow with r, and a fast neighbour may already be a round ahead.
    const uint64_t expect = r % 2 ? static_cast<uint64_t>(r) : static_cast<uint64_t>(r / 2 + 1);
    ASSERT_EQ(mori_shmem_signal_wait_until_on_stream(&sig[r % 2], MORI_SHMEM_CMP_GE, expect, asStream(stream)), 0);
  }
  ASSERT_EQ(mori_shmem_quiet_on_stream(asStream(stream)), 0);
  HIP_OK(hipStreamSynchronize(stream));
  for (int r = 0; r < kRounds; ++r) {
    CheckResult c = checkAll(dst + r * kChunk, kChunk, 700 + r, left);
    EXPECT_EQ(c.mismatches, 0u) << "round " << r << ": first bad byte " << c.firstBad << " on PE " << c.firstBadPe;
  }
  uint64_t h[2] = {};
  HIP_OK(hipMemcpy(h, sig, sizeof(h), hipMemcpyDeviceToHost));
  EXPECT_EQ(h[0], static_cast<uint64_t>(kRounds / 2));
  EXPECT_EQ(h[1], static_cast<uint64_t>(kRounds - 1));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  mori_shmem_free(sig);
  mori_shmem_free(src);
  mori_shmem_free(dst);
}

TEST_F(StreamRma, GraphCaptureReplays) {
  const size_t bytes = (8 << 20) + 3;
  auto* dst = static_cast<uint8_t*>(mori_shmem_malloc(bytes));
  auto* src = static_cast<uint8_t*>(mori_shmem_malloc(bytes));
  auto* sig = static_cast<uint64_t*>(mori_shmem_calloc(1, sizeof(uint64_t)));
  ASSERT_TRUE(dst && src && sig);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  GraphT graph = nullptr;
  GraphExecT exec = nullptr;
  HIP_OK(beginCapture(stream));
  const mori_shmem_stream_t s = asStream(stream);
  const int rcBarrier = mori_shmem_barrier_all_on_stream(s);  // every PE's src holds this round's data
  const int rcPut = mori_shmem_putmem_signal_on_stream(dst, src, bytes, sig, 1, MORI_SHMEM_SIGNAL_ADD, right, s);
  const int rcWait = mori_shmem_signal_wait_until_on_stream(sig, MORI_SHMEM_CMP_GE, 1, s);
  const int rcQuiet = mori_shmem_quiet_on_stream(s);
  const int rcBarrier2 = mori_shmem_barrier_all_on_stream(s);
  HIP_OK(endCapture(stream, &graph));
  ASSERT_EQ(rcBarrier | rcPut | rcWait | rcQuiet | rcBarrier2, 0) << "a call failed under capture";
  HIP_OK(instantiate(&exec, graph));
  for (int replay = 0; replay < 4; ++replay) {
    fill(src, bytes, 300 + replay, me);
    HIP_OK(hipMemset(sig, 0, sizeof(uint64_t)));  // reset on every PE before any PE replays
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    HIP_OK(launchGraph(exec, stream));
    HIP_OK(hipStreamSynchronize(stream));
    CheckResult c = checkAll(dst, bytes, 300 + replay, left);
    EXPECT_EQ(c.mismatches, 0u) << "replay " << replay << ": first bad byte " << c.firstBad << " on PE "
                                << c.firstBadPe;
    uint64_t h = 0;
    HIP_OK(hipMemcpy(&h, sig, sizeof(h), hipMemcpyDeviceToHost));
    EXPECT_EQ(h, 1u) << "replay " << replay;
  }
  destroyGraph(exec, graph);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  mori_shmem_free(sig);
  mori_shmem_free(src);
  mori_shmem_free(dst);
}

// Host-initiated RMA: a blocking put's source is reusable on return and its data delivered by the
// next host quiet; a blocking get's dest holds the data on return; _nbi forms complete at
// mori_shmem_host_quiet; a fence orders two puts to the same place.
TEST_F(StreamRma, HostInitiatedPutAndGet) {
  const size_t maxBytes = 64 << 20;
  auto* dst = static_cast<uint8_t*>(mori_shmem_malloc(maxBytes + 64));
  auto* src = static_cast<uint8_t*>(mori_shmem_malloc(maxBytes + 64));
  auto* got = static_cast<uint8_t*>(mori_shmem_malloc(maxBytes + 64));
  ASSERT_TRUE(dst && src && got);
  uint64_t seed = 9500;
  for (size_t bytes : kSizes) {
    for (bool nbi : {false, true}) {
      const size_t offset = nbi ? 13 : 0;
      ++seed;
      fill(src + offset, bytes, seed, me);
      HIP_OK(hipDeviceSynchronize());
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
      ASSERT_EQ(nbi ? mori_shmem_host_putmem_nbi(dst + offset, src + offset, bytes, right)
                    : mori_shmem_host_putmem(dst + offset, src + offset, bytes, right),
                0);
      ASSERT_EQ(mori_shmem_host_quiet(), 0);
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
      CheckResult r = checkAll(dst + offset, bytes, seed, left);
      EXPECT_EQ(r.mismatches, 0u) << (nbi ? "nbi " : "") << "put of " << bytes << " bytes: first bad byte "
                                  << r.firstBad << " on PE " << r.firstBadPe;
      // Get what the right neighbour holds in src (its own data); a blocking get is complete on return.
      ASSERT_EQ(nbi ? mori_shmem_host_getmem_nbi(got + offset, src + offset, bytes, right)
                    : mori_shmem_host_getmem(got + offset, src + offset, bytes, right),
                0);
      if (nbi) ASSERT_EQ(mori_shmem_host_quiet(), 0);
      r = checkAll(got + offset, bytes, seed, right);
      EXPECT_EQ(r.mismatches, 0u) << (nbi ? "nbi " : "") << "get of " << bytes << " bytes: first bad byte "
                                  << r.firstBad << " on PE " << r.firstBadPe;
    }
  }
  // Two puts to the same bytes with a fence between: the second one's data stays.
  const size_t bytes = 4096 + 3;
  fill(src, bytes, ++seed, me);
  fill(got, bytes, seed + 1, me);
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  ASSERT_EQ(mori_shmem_host_putmem_nbi(dst, src, bytes, right), 0);
  ASSERT_EQ(mori_shmem_host_fence(), 0);
  ASSERT_EQ(mori_shmem_host_putmem_nbi(dst, got, bytes, right), 0);
  ASSERT_EQ(mori_shmem_host_quiet(), 0);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  CheckResult r = checkAll(dst, bytes, seed + 1, left);
  EXPECT_EQ(r.mismatches, 0u) << "fenced puts: first bad byte " << r.firstBad << " on PE " << r.firstBadPe;
  // Bad inputs: refused, nothing enqueued.
  const int bad = MORI_SHMEM_ERROR_INVALID_USAGE;
  uint8_t* plain = nullptr;
  HIP_OK(hipMalloc(&plain, 4096));
  EXPECT_EQ(mori_shmem_host_putmem(dst, src, 64, n), bad) << "PE out of range";
  EXPECT_EQ(mori_shmem_host_getmem_nbi(dst, src, 64, -1), bad) << "negative PE";
  EXPECT_EQ(mori_shmem_host_putmem_nbi(plain, src, 64, right), bad) << "dest not symmetric";
  EXPECT_EQ(mori_shmem_host_getmem(dst, plain, 64, right), bad) << "source not symmetric";
  EXPECT_EQ(mori_shmem_host_putmem(nullptr, src, 64, right), bad) << "NULL dest";
  EXPECT_EQ(mori_shmem_host_putmem(dst, src, 0, right), 0) << "0 bytes is a no-op";
  EXPECT_EQ(mori_shmem_host_quiet(), 0);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipFree(plain));
  mori_shmem_free(got);
  mori_shmem_free(src);
  mori_shmem_free(dst);
}

// Single elements and atomics from host code: p to the right neighbour, g back, of 1-8 bytes;
// every PE adds to PE 0's counters (4 and 8 bytes), then fetch, swap, compare_swap and the bit ops
// on its own slot of PE 0, every result checked.
TEST_F(StreamRma, HostInitiatedElementsAndAtomics) {
  auto* slots = static_cast<uint64_t*>(mori_shmem_calloc(8 + 2 * static_cast<size_t>(n), sizeof(uint64_t)));
  ASSERT_TRUE(slots);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  const uint64_t pattern = 0x8877665544332211ull ^ (static_cast<uint64_t>(me) << 40);
  for (size_t size : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
    uint8_t* dest = reinterpret_cast<uint8_t*>(slots + 1) + (8 - size);  // aligned to size
    ASSERT_EQ(mori_shmem_host_p(dest, &pattern, size, right), 0) << size;
    ASSERT_EQ(mori_shmem_host_quiet(), 0);
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    uint64_t got = 0, want = 0;
    const uint64_t leftPattern = 0x8877665544332211ull ^ (static_cast<uint64_t>(left) << 40);
    memcpy(&want, &leftPattern, size);
    HIP_OK(hipMemcpy(&got, dest, size, hipMemcpyDeviceToHost));
    EXPECT_EQ(got, want) << "p of " << size << " bytes landed wrong";
    got = 0;
    ASSERT_EQ(mori_shmem_host_g(&got, dest, size, right), 0) << size;
    memcpy(&want, &pattern, size);  // the right neighbour holds what this PE put
    EXPECT_EQ(got, want) << "g of " << size << " bytes";
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
  }
  // Every PE adds me + 1 to PE 0's 8-byte counter (slots[2]) and 4-byte counter (slots[3]), twice.
  auto* c64 = slots + 2;
  auto* c32 = reinterpret_cast<uint32_t*>(slots + 3);
  const uint64_t add64 = static_cast<uint64_t>(me) + 1;
  const uint32_t add32 = static_cast<uint32_t>(me) + 1;
  uint64_t old64 = 0;
  uint32_t old32 = 0;
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_ADD, c64, &add64, nullptr, nullptr, 8, 0), 0);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_ADD, c64, &add64, nullptr, &old64, 8, 0), 0);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_ADD, c32, &add32, nullptr, nullptr, 4, 0), 0);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_ADD, c32, &add32, nullptr, &old32, 4, 0), 0);
  ASSERT_EQ(mori_shmem_host_quiet(), 0);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  const uint64_t total = 2 * static_cast<uint64_t>(n) * (n + 1) / 2;
  EXPECT_LT(old64, total);
  uint64_t f64 = 0;
  uint32_t f32 = 0;
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, c64, nullptr, nullptr, &f64, 8, 0), 0);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, c32, nullptr, nullptr, &f32, 4, 0), 0);
  EXPECT_EQ(f64, total);
  EXPECT_EQ(f32, static_cast<uint32_t>(total));
  // This PE's own slot on PE 0: set, swap, compare_swap (failing, then succeeding), and, or, xor.
  auto* mine = slots + 4 + 2 * me;
  const uint64_t a = 0xf0f0f0f00f0f0f0full + static_cast<uint64_t>(me), b = 0x123456789abcdef0ull, wrong = 7;
  uint64_t v = 0;
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_SET, mine, &a, nullptr, nullptr, 8, 0), 0);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_SWAP, mine, &b, nullptr, &v, 8, 0), 0);
  EXPECT_EQ(v, a);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_COMPARE_SWAP, mine, &a, &wrong, &v, 8, 0), 0);
  EXPECT_EQ(v, b) << "a failing compare_swap returns the value";
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_COMPARE_SWAP, mine, &a, &b, &v, 8, 0), 0);
  EXPECT_EQ(v, b);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_AND, mine, &b, nullptr, &v, 8, 0), 0);
  EXPECT_EQ(v, a);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_OR, mine, &wrong, nullptr, nullptr, 8, 0), 0);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_XOR, mine, &b, nullptr, &v, 8, 0), 0);
  EXPECT_EQ(v, (a & b) | wrong);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, mine, nullptr, nullptr, &v, 8, 0), 0);
  EXPECT_EQ(v, ((a & b) | wrong) ^ b);
  // Bad inputs: refused, nothing written.
  const int bad = MORI_SHMEM_ERROR_INVALID_USAGE;
  EXPECT_EQ(mori_shmem_host_p(slots, &pattern, 3, right), bad) << "size 3";
  EXPECT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_ADD, c32, &add32, nullptr, nullptr, 2, 0), bad) << "2-byte atomic";
  EXPECT_EQ(mori_shmem_host_atomic(8, c64, &add64, nullptr, nullptr, 8, 0), bad) << "op 8";
  EXPECT_EQ(mori_shmem_host_atomic(-1, c64, &add64, nullptr, nullptr, 8, 0), bad) << "op -1";
  EXPECT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_SWAP, c64, &add64, nullptr, nullptr, 8, 0), bad) << "no fetched";
  EXPECT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_COMPARE_SWAP, c64, &add64, nullptr, &v, 8, 0), bad) << "no cond";
  EXPECT_EQ(
      mori_shmem_host_atomic(MORI_SHMEM_AMO_ADD, reinterpret_cast<uint8_t*>(c64) + 4, &add64, nullptr, nullptr, 8, 0),
      bad)
      << "misaligned";
  EXPECT_EQ(mori_shmem_host_g(&v, slots, 8, n), bad) << "PE out of range";
  uint64_t* plain = nullptr;
  HIP_OK(hipMalloc(&plain, 64));
  EXPECT_EQ(mori_shmem_host_p(plain, &pattern, 8, right), bad) << "dest not symmetric";
  ASSERT_EQ(mori_shmem_host_quiet(), 0);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, c64, nullptr, nullptr, &f64, 8, 0), 0);
  EXPECT_EQ(f64, total) << "a refused call wrote";
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipFree(plain));
  mori_shmem_free(slots);
}

TEST_F(StreamRma, BadInputsEnqueueNothing) {
  auto* sym = static_cast<uint8_t*>(mori_shmem_malloc(4096));
  auto* sig = static_cast<uint64_t*>(mori_shmem_calloc(2, sizeof(uint64_t)));
  ASSERT_TRUE(sym && sig);
  uint8_t* plain = nullptr;
  HIP_OK(hipMalloc(&plain, 4096));
  const mori_shmem_stream_t s = asStream(stream);
  const int bad = MORI_SHMEM_ERROR_INVALID_USAGE;
  EXPECT_EQ(mori_shmem_putmem_on_stream(sym, sym, 64, n, s), bad) << "PE out of range";
  EXPECT_EQ(mori_shmem_putmem_on_stream(sym, sym, 64, -1, s), bad) << "negative PE";
  EXPECT_EQ(mori_shmem_putmem_on_stream(plain, sym, 64, right, s), bad) << "dest not symmetric";
  EXPECT_EQ(mori_shmem_getmem_on_stream(sym, plain, 64, right, s), bad) << "source not symmetric";
  EXPECT_EQ(mori_shmem_putmem_on_stream(nullptr, sym, 64, right, s), bad) << "NULL dest";
  EXPECT_EQ(mori_shmem_getmem_on_stream(sym, nullptr, 64, right, s), bad) << "NULL source";
  // A range that runs past the end of the symmetric heap.
  void* heapEnd = nullptr;
  {
    auto* p = static_cast<uint8_t*>(sym);
    size_t lo = 4096, hi = size_t{1} << 40;  // find the first byte past the heap by bisection
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      (mori_shmem_ptr(p + mid, me) ? lo : hi) = mid;
    }
    heapEnd = p + hi;
  }
  EXPECT_EQ(mori_shmem_putmem_on_stream(static_cast<uint8_t*>(heapEnd) - 32, sym, 64, right, s), bad)
      << "range overruns the heap";
  EXPECT_EQ(mori_shmem_putmem_signal_on_stream(sym, sym, 64, sig, 1, 2, right, s), bad) << "sig_op 2";
  EXPECT_EQ(mori_shmem_putmem_signal_on_stream(sym, sym, 64, nullptr, 1, 0, right, s), bad) << "NULL sig_addr";
  EXPECT_EQ(mori_shmem_putmem_signal_on_stream(sym, sym, 64, reinterpret_cast<uint64_t*>(plain), 1, 0, right, s), bad)
      << "sig_addr not symmetric";
  EXPECT_EQ(mori_shmem_putmem_signal_on_stream(sym, sym, 64, reinterpret_cast<uint64_t*>(sym + 4), 1, 0, right, s), bad)
      << "sig_addr not aligned";
  EXPECT_EQ(mori_shmem_signal_wait_until_on_stream(sig, 6, 0, s), bad) << "cmp 6";
  EXPECT_EQ(mori_shmem_signal_wait_until_on_stream(sig, -1, 0, s), bad) << "cmp -1";
  EXPECT_EQ(mori_shmem_signal_wait_until_on_stream(reinterpret_cast<uint64_t*>(plain), 0, 0, s), bad)
      << "wait on memory that is not symmetric";
  EXPECT_EQ(mori_shmem_putmem_on_stream(sym, sym, 0, right, s), 0) << "0 bytes is a no-op";
  // Nothing was enqueued: the stream is idle and no kernel failed.
  EXPECT_EQ(hipStreamQuery(stream), hipSuccess);
  HIP_OK(hipStreamSynchronize(stream));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  HIP_OK(hipFree(plain));
  mori_shmem_free(sig);
  mori_shmem_free(sym);
}

}  // namespace
