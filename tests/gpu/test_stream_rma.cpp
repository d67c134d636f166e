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
//  - strided RMA (iput / iget) on a stream and from host code: every element size, strides of
//    both signs, local sides in hipMalloc memory, each dest span checked byte for byte with margins
//  - p / g / signal_op on a stream (the element seen after the signal's wait), the host's
//    signal_op, a g refused on a stream being captured; bad strides, sizes and local sides refused
//  - typed waits on a stream of every width and signedness (one variable, status, per-entry
//    comparands): the stream still waits when its PE has enqueued them, passes once written
#include <stdint.h>
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

// One strided case: n elements of `size` bytes, strides dst / sst (elements, any sign but 0).
struct Strided {
  size_t size, n;
  ptrdiff_t dst, sst;
};

size_t spanOf(const Strided& c, ptrdiff_t stride) {
  return (c.n - 1) * static_cast<size_t>(stride < 0 ? -stride : stride) * c.size + c.size;
}
// Where element 0 lies from the start of its span (at the end for a negative stride).
size_t firstOf(const Strided& c, ptrdiff_t stride) { return stride < 0 ? spanOf(c, stride) - c.size : 0; }

// The bytes a strided copy of c leaves in a zeroed dest span of dSpan + 2 * kMargin bytes: element
// i from the source span filled with pattern(seed, srcPe), nothing else.
constexpr size_t kMargin = 64;
std::vector<uint8_t> expectStrided(const Strided& c, uint64_t seed, int srcPe) {
  std::vector<uint8_t> want(spanOf(c, c.dst) + 2 * kMargin, 0);
  for (size_t i = 0; i < c.n; ++i)
    for (size_t b = 0; b < c.size; ++b) {
      const ptrdiff_t d = static_cast<ptrdiff_t>(kMargin + firstOf(c, c.dst)) +
                          static_cast<ptrdiff_t>(i) * c.dst * static_cast<ptrdiff_t>(c.size);
      const ptrdiff_t s = static_cast<ptrdiff_t>(firstOf(c, c.sst)) +
                          static_cast<ptrdiff_t>(i) * c.sst * static_cast<ptrdiff_t>(c.size);
      want[static_cast<size_t>(d) + b] = patternByte(seed, srcPe, static_cast<uint64_t>(s) + b);
    }
  return want;
}

// Strided put and get of random data, every element size (16 bytes: two 8-byte words each),
// positive and negative strides, on a stream and from host code; iput from and iget into plain hipMalloc memory too
// (the local side may be any device memory). Each PE checks its dest span byte for byte, margins included.
TEST_F(StreamRma, StridedOnStreamAndFromHost) {
  const Strided cases[] = {{1, 1, 1, 1},     {1, 4099, 3, 2},  {2, 33, 1, -5}, {4, 4099, 2, 7},
                           {8, 1000, -3, 1}, {8, 33, 17, -17}, {4, 1, -1, 1},  {2, 4099, -2, -3},
                           {16, 513, 3, -2}, {16, 1, 5, 5},    {16, 70, -1, 1}};
  const size_t maxSpan = 17 * 33 * 8 + 4099 * 7 * 4 + 2 * kMargin;
  auto* src = static_cast<uint8_t*>(mori_shmem_malloc(maxSpan));
  auto* dst = static_cast<uint8_t*>(mori_shmem_malloc(maxSpan));
  ASSERT_TRUE(src && dst);
  uint8_t* plain = nullptr;
  HIP_OK(hipMalloc(&plain, maxSpan));
  std::vector<uint8_t> got(maxSpan);
  uint64_t seed = 12000;
  int idx = 0;
  for (const Strided& c : cases) {
    for (int form = 0; form < 4; ++form) {  // 0 iput on a stream, 1 iput from host, 2 iget on a stream, 3 from host
      const bool put = form < 2, host = form % 2 == 1;
      const bool fromPlain = idx++ % 3 == 0;  // the local side in hipMalloc memory
      ++seed;
      const size_t dSpan = spanOf(c, c.dst) + 2 * kMargin, sSpan = spanOf(c, c.sst);
      uint8_t* sBase = put && fromPlain ? plain : src;
      uint8_t* dBase = !put && fromPlain ? plain : dst;
      fill(sBase, sSpan, seed, me);
      HIP_OK(hipMemset(dBase, 0, dSpan));
      HIP_OK(hipDeviceSynchronize());
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
      uint8_t* d = dBase + kMargin + firstOf(c, c.dst);
      const uint8_t* sp = sBase + firstOf(c, c.sst);
      const int peer = put ? right : left;  // iget reads the left neighbour's source
      int rc = 0;
      if (put)
        rc = host ? mori_shmem_host_iput(d, sp, c.dst, c.sst, c.n, c.size, peer)
                  : mori_shmem_iput_on_stream(d, sp, c.dst, c.sst, c.n, c.size, peer, asStream(stream));
      else
        rc = host ? mori_shmem_host_iget(d, sp, c.dst, c.sst, c.n, c.size, peer)
                  : mori_shmem_iget_on_stream(d, sp, c.dst, c.sst, c.n, c.size, peer, asStream(stream));
      ASSERT_EQ(rc, 0) << "form " << form << ", size " << c.size << ", n " << c.n;
      if (put) ASSERT_EQ(host ? mori_shmem_host_quiet() : mori_shmem_quiet_on_stream(asStream(stream)), 0);
      HIP_OK(hipStreamSynchronize(stream));
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
      HIP_OK(hipMemcpy(got.data(), dBase, dSpan, hipMemcpyDeviceToHost));
      const std::vector<uint8_t> want = expectStrided(c, seed, left);  // put: left put here; get: read from left
      size_t bad = 0, first = 0;
      for (size_t i = 0; i < dSpan; ++i)
        if (got[i] != want[i] && bad++ == 0) first = i;
      EXPECT_EQ(bad, 0u) << (put ? "iput" : "iget") << (host ? " from host" : " on a stream") << " of " << c.n
                         << " elements of " << c.size << " bytes, strides " << c.dst << "/" << c.sst
                         << (fromPlain ? ", local side hipMalloc'ed" : "") << ": first bad byte " << first
                         << " of the dest span (margin " << kMargin << ")";
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
    }
  }
  HIP_OK(hipFree(plain));
  mori_shmem_free(dst);
  mori_shmem_free(src);
}

// Single elements and signals on a stream: p of every size and a signal ADD to the right neighbour,
// which waits for the signal on its stream and finds the element; g of every size back; the host's
// signal_op; g refusing a stream that is being captured.
TEST_F(StreamRma, ElementsAndSignalsOnStream) {
  auto* slots = static_cast<uint64_t*>(mori_shmem_calloc(4, sizeof(uint64_t)));
  ASSERT_TRUE(slots);
  uint64_t* sig = slots;
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  const mori_shmem_stream_t s = asStream(stream);
  uint64_t round = 0;
  for (size_t size : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
    const uint64_t mine = 0xa1b2c3d4e5f60718ull ^ (static_cast<uint64_t>(me) << 48) ^ size;
    const uint64_t fromLeft = 0xa1b2c3d4e5f60718ull ^ (static_cast<uint64_t>(left) << 48) ^ size;
    uint8_t* dest = reinterpret_cast<uint8_t*>(slots + 1) + (8 - size);
    ++round;
    ASSERT_EQ(mori_shmem_p_on_stream(dest, &mine, size, right, s), 0) << size;
    ASSERT_EQ(mori_shmem_signal_op_on_stream(sig, 1, MORI_SHMEM_SIGNAL_ADD, right, s), 0);
    ASSERT_EQ(mori_shmem_signal_wait_until_on_stream(sig, MORI_SHMEM_CMP_GE, round, s), 0);
    uint64_t got = 0, want = 0;
    ASSERT_EQ(mori_shmem_g_on_stream(&got, dest, size, me, s), 0);  // waits for the stream: the wait passed
    memcpy(&want, &fromLeft, size);
    EXPECT_EQ(got, want) << "p_on_stream of " << size << " bytes, seen after the signal";
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    got = 0;
    ASSERT_EQ(mori_shmem_g_on_stream(&got, dest, size, right, s), 0);
    memcpy(&want, &mine, size);  // the right neighbour holds what this PE put
    EXPECT_EQ(got, want) << "g_on_stream of " << size << " bytes";
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
  }
  // The host's signal_op: SET on the right neighbour's word, then every PE ADDs 2 to PE 0's.
  ASSERT_EQ(mori_shmem_host_signal_op(slots + 2, 40 + static_cast<uint64_t>(me), MORI_SHMEM_SIGNAL_SET, right), 0);
  ASSERT_EQ(mori_shmem_host_signal_op(slots + 3, 2, MORI_SHMEM_SIGNAL_ADD, 0), 0);
  ASSERT_EQ(mori_shmem_host_quiet(), 0);
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  uint64_t v = 0;
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, slots + 2, nullptr, nullptr, &v, 8, me), 0);
  EXPECT_EQ(v, 40u + static_cast<uint64_t>(left));
  ASSERT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_FETCH, slots + 3, nullptr, nullptr, &v, 8, 0), 0);
  EXPECT_EQ(v, 2u * static_cast<uint64_t>(n));
  // g cannot wait for a stream being captured: refused, the capture intact and empty of it.
  GraphT graph = nullptr;
  HIP_OK(beginCapture(stream));
  EXPECT_EQ(mori_shmem_g_on_stream(&v, slots + 1, 8, right, s), MORI_SHMEM_ERROR_INVALID_USAGE);
  HIP_OK(endCapture(stream, &graph));
  ASSERT_NE(graph, nullptr);
#if MORI_PLATFORM_NVIDIA
  (void)cudaGraphDestroy(graph);
#else
  (void)hipGraphDestroy(graph);
#endif
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  mori_shmem_free(slots);
}

// Typed waits on a stream (mori_shmem_wait_until_on_stream), every width and signedness: the
// waiter's stream waits for one variable, for six of which status excludes two, and for six
// against per-entry comparands; the waiter enqueues them, both meet (MPI: no GPU wait), the stream
// must still be waiting, and only then does the writer write the waiter's variables. Each PE of the
// first two waits once (waiter PE r, writer PE r + 1): a process whose stream waits does nothing
// else on its GPU meanwhile (with the NIC model, 3 of 7 runs where both PEs waited and wrote at
// once ended with the writer's model kernel never started:
// bench/results/2026-12-05T1340Z_h200x1_mps_session31_suites_python_staged.json). The single
// variable's condition holds only as the type's signedness reads the written bits (signed: < 0;
// unsigned: > 1000), so a wait comparing with the wrong signedness never passes.
template <typename T>
void typedWaitsCase(int dtype, hipStream_t stream, int waiter) {
  constexpr int kAll = 1, kVector = 7, kCount = 13;  // entry 0, entries 1-6, entries 7-12
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes(), writer = (waiter + 1) % n;
  const bool isSigned = static_cast<T>(-1) < static_cast<T>(0);
  T* ivars = static_cast<T*>(mori_shmem_calloc(kCount, sizeof(T)));
  ASSERT_NE(ivars, nullptr);
  const int hostStatus[6] = {0, 1, 0, 0, 1, 0};  // entries 2 and 5 excluded
  T hostValues[6];
  for (int i = 0; i < 6; ++i) hostValues[i] = static_cast<T>(20 + kVector + i);
  int* status = nullptr;
  T *values = nullptr, *seen = nullptr;
  HIP_OK(hipMalloc(&status, sizeof(hostStatus)));
  HIP_OK(hipMemcpy(status, hostStatus, sizeof(hostStatus), hipMemcpyHostToDevice));
  HIP_OK(hipMalloc(&values, sizeof(hostValues)));
  HIP_OK(hipMemcpy(values, hostValues, sizeof(hostValues), hipMemcpyHostToDevice));
  HIP_OK(hipMalloc(&seen, kCount * sizeof(T)));
  ASSERT_EQ(mori_shmem_barrier_all(), 0);

  const mori_shmem_stream_t s = asStream(stream);
  const T single = isSigned ? static_cast<T>(0) : static_cast<T>(1000), seven = 7;
  const T negative = static_cast<T>(-5);  // signed: -5; unsigned: the type's maximum - 4
  if (me == waiter) {                     // EXPECT, not ASSERT, from here on: both PEs must reach every barrier
    EXPECT_EQ(mori_shmem_wait_until_on_stream(ivars, 1, dtype, nullptr,
                                              isSigned ? MORI_SHMEM_CMP_LT : MORI_SHMEM_CMP_GT, &single, nullptr, s),
              0);
    EXPECT_EQ(mori_shmem_wait_until_on_stream(ivars + kAll, 6, dtype, status, MORI_SHMEM_CMP_EQ, &seven, nullptr, s),
              0);
    EXPECT_EQ(
        mori_shmem_wait_until_on_stream(ivars + kVector, 6, dtype, nullptr, MORI_SHMEM_CMP_EQ, nullptr, values, s), 0);
    HIP_OK(hipMemcpyAsync(seen, ivars, kCount * sizeof(T), hipMemcpyDeviceToDevice, stream));
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the waits are enqueued; nobody has written yet
  if (me == waiter) {
    EXPECT_EQ(hipStreamQuery(stream), hipErrorNotReady) << "the stream passed a wait before any variable was written";
    (void)hipGetLastError();  // hipStreamQuery's not-ready is not an error of this test
    HIP_OK(hipStreamSynchronize(stream));
    T got[kCount];
    HIP_OK(hipMemcpy(got, seen, sizeof(got), hipMemcpyDeviceToHost));
    EXPECT_EQ(got[0], negative) << "dtype " << dtype;
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(got[kAll + i], static_cast<T>(hostStatus[i] ? 0 : 7)) << "dtype " << dtype << " entry " << kAll + i;
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(got[kVector + i], hostValues[i]) << "dtype " << dtype << " entry " << kVector + i;
  } else if (me == writer) {
    for (int i = 0; i < 6; ++i) EXPECT_EQ(mori_shmem_host_p(ivars + kVector + i, &hostValues[i], sizeof(T), waiter), 0);
    for (int i : {0, 2, 3, 5}) EXPECT_EQ(mori_shmem_host_p(ivars + kAll + i, &seven, sizeof(T), waiter), 0);
    EXPECT_EQ(mori_shmem_host_p(ivars, &negative, sizeof(T), waiter), 0);
    EXPECT_EQ(mori_shmem_host_quiet(), 0);
  }
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  for (void* p : {static_cast<void*>(status), static_cast<void*>(values), static_cast<void*>(seen)}) HIP_OK(hipFree(p));
  mori_shmem_free(ivars);
}

TEST_F(StreamRma, TypedWaitsOnStream) {
  for (int waiter : {0, 1}) {
    typedWaitsCase<int16_t>(MORI_SHMEM_DTYPE_INT16, stream, waiter);
    typedWaitsCase<uint16_t>(MORI_SHMEM_DTYPE_UINT16, stream, waiter);
    typedWaitsCase<int32_t>(MORI_SHMEM_DTYPE_INT32, stream, waiter);
    typedWaitsCase<uint32_t>(MORI_SHMEM_DTYPE_UINT32, stream, waiter);
    typedWaitsCase<int64_t>(MORI_SHMEM_DTYPE_INT64, stream, waiter);
    typedWaitsCase<uint64_t>(MORI_SHMEM_DTYPE_UINT64, stream, waiter);
  }
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
  // Typed waits.
  const uint32_t seven = 7;
  uint32_t* word = reinterpret_cast<uint32_t*>(sig);
  const int u32 = MORI_SHMEM_DTYPE_UINT32;
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 1, MORI_SHMEM_DTYPE_FLOAT, nullptr, 0, &seven, nullptr, s), bad)
      << "dtype float";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 1, MORI_SHMEM_DTYPE_INT8, nullptr, 0, &seven, nullptr, s), bad)
      << "dtype int8";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 1, 0, nullptr, 0, &seven, nullptr, s), bad) << "dtype 0";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 1, u32, nullptr, 6, &seven, nullptr, s), bad) << "typed wait cmp 6";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 1, u32, nullptr, 0, nullptr, nullptr, s), bad) << "no comparand";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 1, u32, nullptr, 0, &seven, word, s), bad) << "two comparands";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(sym + 2, 1, u32, nullptr, 0, &seven, nullptr, s), bad)
      << "ivars not 4-byte aligned";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(plain, 1, u32, nullptr, 0, &seven, nullptr, s), bad)
      << "ivars not symmetric";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(static_cast<uint8_t*>(heapEnd) - 8, 4, u32, nullptr, 0, &seven, nullptr, s),
            bad)
      << "ivars run past the end of the heap";
  std::vector<int> hostStatus(4, 0);  // pageable host memory: the GPU cannot reach it
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 4, u32, hostStatus.data(), 0, &seven, nullptr, s), bad)
      << "status in pageable host memory";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 4, u32, nullptr, 0, nullptr, hostStatus.data(), s), bad)
      << "cmp_values in pageable host memory";
  EXPECT_EQ(mori_shmem_wait_until_on_stream(word, 0, u32, nullptr, 0, &seven, nullptr, s), 0)
      << "0 elements is a no-op";
  // Single elements, signals and strided RMA.
  uint64_t value = 7;
  EXPECT_EQ(mori_shmem_p_on_stream(sym, &value, 3, right, s), bad) << "element size 3";
  EXPECT_EQ(mori_shmem_p_on_stream(sym + 1, &value, 8, right, s), bad) << "element not aligned";
  EXPECT_EQ(mori_shmem_g_on_stream(&value, plain, 8, right, s), bad) << "g from memory that is not symmetric";
  EXPECT_EQ(mori_shmem_g_on_stream(&value, sym, 8, n, s), bad) << "g from a PE out of range";
  EXPECT_EQ(mori_shmem_signal_op_on_stream(sig, 1, 2, right, s), bad) << "signal_op sig_op 2";
  EXPECT_EQ(mori_shmem_signal_op_on_stream(nullptr, 1, 0, right, s), bad) << "signal_op NULL sig_addr";
  EXPECT_EQ(mori_shmem_signal_op_on_stream(reinterpret_cast<uint64_t*>(sym + 4), 1, 0, right, s), bad)
      << "signal_op sig_addr not aligned";
  EXPECT_EQ(mori_shmem_host_signal_op(reinterpret_cast<uint64_t*>(plain), 1, 0, right), bad)
      << "host signal_op on memory that is not symmetric";
  EXPECT_EQ(mori_shmem_iput_on_stream(sym, sym + 64, 1, 1, 4, 3, right, s), bad) << "iput element size 3";
  EXPECT_EQ(mori_shmem_iput_on_stream(sym + 2, sym + 64, 1, 1, 4, 4, right, s), bad) << "iput dest not aligned";
  EXPECT_EQ(mori_shmem_iput_on_stream(sym, sym + 64, 1, 1, 4, 32, right, s), bad) << "iput element size 32";
  EXPECT_EQ(mori_shmem_iget_on_stream(sym + 4, sym + 64, 1, 1, 4, 16, right, s), bad)
      << "iget of 16-byte elements into dest 4-byte aligned";
  EXPECT_EQ(mori_shmem_iput_on_stream(plain, sym, 1, 1, 4, 4, right, s), bad) << "iput dest not symmetric";
  EXPECT_EQ(mori_shmem_iget_on_stream(sym, plain, 1, 1, 4, 4, right, s), bad) << "iget source not symmetric";
  EXPECT_EQ(mori_shmem_iput_on_stream(static_cast<uint8_t*>(heapEnd) - 4, sym, 1, 1, 2, 4, right, s), bad)
      << "iput's second element past the end of the heap";
  EXPECT_EQ(mori_shmem_iput_on_stream(sym, sym, -(ptrdiff_t{1} << 38), 1, 2, 4, right, s), bad)
      << "iput's second element 1 TiB before the heap";
  EXPECT_EQ(mori_shmem_iput_on_stream(sym, sym, PTRDIFF_MAX, 1, 3, 8, right, s), bad) << "stride overflows";
  std::vector<uint32_t> hostSide(64, 5);  // pageable host memory: the GPU cannot reach it
  EXPECT_EQ(mori_shmem_iput_on_stream(sym, hostSide.data(), 1, 1, 4, 4, right, s), bad)
      << "iput from pageable host memory";
  EXPECT_EQ(mori_shmem_host_iget(hostSide.data(), sym, 1, 1, 4, 4, right), bad) << "iget into pageable host memory";
  EXPECT_EQ(mori_shmem_host_iput(sym, sym + 64, 1, 1, 4, 4, n), bad) << "host iput to a PE out of range";
  EXPECT_EQ(mori_shmem_iput_on_stream(sym, sym, 1, 1, 0, 4, right, s), 0) << "0 elements is a no-op";
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
