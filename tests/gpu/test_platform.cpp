// The platform layer's device primitives on a real GPU, one PE: wave operations across a full
// wave (ballot, shuffle of 4- and 8-byte values, match, lane masks) whatever the wave size,
// scoped atomics under contention from every thread of a large grid (add, max, CAS, exchange,
// and/or/xor, no-return add), the wall clock (monotonic, advancing at its declared rate) and
// the MMIO store path.
#include <chrono>
#include <vector>

#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"
#include "mori/platform/mmio.hpp"
#include "mori/platform/wave.hpp"
#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(1, 1);

namespace {

namespace g = mori::gpu;
using g::Order;
using g::Scope;
using mori::test::gpuWaveSize;

// Per lane: [0] ballot of odd lanes, [1] shfl 4-byte from lane 3, [2] shfl 8-byte from the last
// lane, [3] matchAny on lane % 3, [4] popcount(active), [5] lanesBelow, [6] wave size.
__global__ void waveKernel(unsigned long long* out) {
  const int lane = g::laneId();
  const g::LaneMask active = g::activeMask();
  unsigned long long* o = out + static_cast<size_t>(threadIdx.x) * 7;
  o[0] = g::ballot(active, (lane & 1) != 0);
  o[1] = static_cast<unsigned>(g::shfl(active, static_cast<int>(lane * 10 + 1), 3));
  o[2] = g::shfl(active, (static_cast<unsigned long long>(lane) << 40) | 0xabcdull, g::waveSize() - 1);
  o[3] = g::matchAny(active, static_cast<uint64_t>(lane % 3));
  o[4] = static_cast<unsigned long long>(g::popcount(active));
  o[5] = g::lanesBelow();
  o[6] = static_cast<unsigned long long>(g::waveSize());
}

TEST(Platform, WaveOperationsAcrossAFullWave) {
  const int width = gpuWaveSize();
  unsigned long long* out = nullptr;
  HIP_OK(hipMalloc(&out, sizeof(unsigned long long) * 7 * width));
  waveKernel<<<1, width>>>(out);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  std::vector<unsigned long long> h(7 * width);
  HIP_OK(hipMemcpy(h.data(), out, h.size() * sizeof(h[0]), hipMemcpyDeviceToHost));
  unsigned long long odd = 0;
  for (int l = 1; l < width; l += 2) odd |= 1ull << l;
  for (int lane = 0; lane < width; ++lane) {
    const unsigned long long* o = &h[7 * lane];
    EXPECT_EQ(o[0], odd) << "ballot, lane " << lane;
    EXPECT_EQ(o[1], 31u) << "4-byte shuffle, lane " << lane;
    EXPECT_EQ(o[2], (static_cast<unsigned long long>(width - 1) << 40) | 0xabcdull) << "8-byte shuffle, lane " << lane;
    unsigned long long same = 0;
    for (int l = 0; l < width; ++l)
      if (l % 3 == lane % 3) same |= 1ull << l;
    EXPECT_EQ(o[3], same) << "matchAny, lane " << lane;
    EXPECT_EQ(o[4], static_cast<unsigned long long>(width));
    EXPECT_EQ(o[5], (1ull << lane) - 1);
    EXPECT_EQ(o[6], static_cast<unsigned long long>(width));
  }
  HIP_OK(hipFree(out));
}

// Every thread of 264 x 256 hammers the same words.
__global__ void contendKernel(uint64_t* w, uint32_t* w32, unsigned long long* tickets) {
  const uint64_t tid = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  tickets[tid] = g::atomicFetchAdd<Order::Relaxed, Scope::System>(&w[0], uint64_t{1});
  g::atomicFetchMax<Order::Relaxed, Scope::Agent>(&w[1], tid);
  uint64_t seen = g::atomicLoad<Order::Acquire, Scope::System>(&w[2]);
  for (;;) {  // CAS increment
    const uint64_t got = g::atomicCompareExchange<Order::AcqRel, Scope::System>(&w[2], seen, seen + 1);
    if (got == seen) break;
    seen = got;
  }
  g::atomicAddNoReturn<Scope::System>(&w[3], uint64_t{3});
  g::atomicAddNoReturn<Scope::Agent>(&w32[0], 1u);
  g::atomicFetchOr<Order::Relaxed, Scope::System>(&w[4], uint64_t{1} << (tid & 63));
  g::atomicFetchAnd<Order::Relaxed, Scope::System>(&w[5], ~(uint64_t{1} << (tid & 63)));
  g::atomicFetchXor<Order::Relaxed, Scope::System>(&w[6], uint64_t{1} << (tid & 7));
  g::atomicExchange<Order::Relaxed, Scope::System>(&w[7], tid + 1);
  g::atomicStore<Order::Release, Scope::System>(&w[8], uint64_t{42});
  g::fenceSystem();
}

TEST(Platform, AtomicsUnderContention) {
  constexpr int kBlocks = 264, kThreads = 256;
  constexpr uint64_t kN = uint64_t{kBlocks} * kThreads;
  uint64_t* w = nullptr;
  uint32_t* w32 = nullptr;
  unsigned long long* tickets = nullptr;
  HIP_OK(hipMalloc(&w, 16 * sizeof(uint64_t)));
  HIP_OK(hipMalloc(&w32, sizeof(uint32_t)));
  HIP_OK(hipMalloc(&tickets, kN * sizeof(unsigned long long)));
  std::vector<uint64_t> init(16, 0);
  init[5] = ~0ull;
  HIP_OK(hipMemcpy(w, init.data(), 16 * sizeof(uint64_t), hipMemcpyHostToDevice));
  HIP_OK(hipMemset(w32, 0, sizeof(uint32_t)));
  contendKernel<<<kBlocks, kThreads>>>(w, w32, tickets);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  std::vector<uint64_t> h(16);
  uint32_t h32 = 0;
  std::vector<unsigned long long> t(kN);
  HIP_OK(hipMemcpy(h.data(), w, 16 * sizeof(uint64_t), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(&h32, w32, sizeof(h32), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(t.data(), tickets, kN * sizeof(t[0]), hipMemcpyDeviceToHost));
  EXPECT_EQ(h[0], kN) << "fetch_add";
  std::vector<char> seen(kN, 0);
  size_t dup = 0;
  for (unsigned long long v : t) dup += (v >= kN || seen[v]++) ? 1 : 0;
  EXPECT_EQ(dup, 0u) << "fetch_add tickets are not a permutation";
  EXPECT_EQ(h[1], kN - 1) << "fetch_max";
  EXPECT_EQ(h[2], kN) << "compare-exchange loop";
  EXPECT_EQ(h[3], 3 * kN) << "no-return add (system)";
  EXPECT_EQ(h32, static_cast<uint32_t>(kN)) << "no-return add (agent, 32-bit)";
  EXPECT_EQ(h[4], ~0ull) << "fetch_or";
  EXPECT_EQ(h[5], 0ull) << "fetch_and";
  EXPECT_EQ(h[6], 0ull) << "fetch_xor (each bit flipped an even number of times)";
  EXPECT_TRUE(h[7] >= 1 && h[7] <= kN) << "exchange left a value some thread wrote";
  EXPECT_EQ(h[8], 42u) << "release store";
  HIP_OK(hipFree(w));
  HIP_OK(hipFree(w32));
  HIP_OK(hipFree(tickets));
}

// The wall clock never goes backwards and advances at kWallClockHz (checked against the host's
// clock over ~50 ms of spinning); the MMIO store lands.
__global__ void clockKernel(uint64_t* out, uint64_t spinTicks, uint64_t* reg) {
  uint64_t prev = g::wallClock(), backwards = 0;
  const uint64_t start = prev;
  while (prev - start < spinTicks) {
    const uint64_t now = g::wallClock();
    backwards += now < prev;
    prev = now;
    g::spinPause();
  }
  out[0] = backwards;
  out[1] = prev - start;
  g::mmioStore64(reg, 0x1122334455667788ull);
}

TEST(Platform, WallClockMonotonicAtItsRate) {
  uint64_t *out = nullptr, *reg = nullptr;
  HIP_OK(hipMalloc(&out, 2 * sizeof(uint64_t)));
  HIP_OK(hipMalloc(&reg, sizeof(uint64_t)));
  const uint64_t spin = g::nsToWallTicks(50'000'000);
  const auto t0 = std::chrono::steady_clock::now();
  clockKernel<<<1, 1>>>(out, spin, reg);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  const double hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  uint64_t h[2], r = 0;
  HIP_OK(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(&r, reg, sizeof(r), hipMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 0u) << "the wall clock went backwards";
  const double deviceMs = static_cast<double>(g::wallTicksToNs(h[1])) / 1e6;
  EXPECT_GE(deviceMs, 50.0);
  EXPECT_LE(deviceMs, hostMs + 1.0) << "device clock ran faster than the host's: wrong tick rate";
  EXPECT_GE(hostMs, 45.0);
  EXPECT_EQ(r, 0x1122334455667788ull) << "MMIO store";
  HIP_OK(hipFree(out));
  HIP_OK(hipFree(reg));
}

}  // namespace
