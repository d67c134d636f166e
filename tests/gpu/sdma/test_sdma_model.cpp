// The SDMA device path through the DMA-engine model, one process on one GPU: the queue sets of
// transport/sdma with the model as their engine, and every device operation of
// include/mori/transport/sdma/sdma_ops.hpp at thread, warp and block scope, on random data and
// sizes (1 B to 64 MiB, odd offsets): put then quiet (checked in the kernel after quiet),
// put-with-signal ordered in the queue (a concurrent kernel waits for each signal, then checks
// the data), an ordered signal after puts split over several queues (POLL_REGMEM), signal alone, get, a ring-wrap
// stress (132 x 256 threads into 64-slot rings), and the model's own rules: only what the doorbell announced is
// consumed, a bad packet is reported.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/gpu/sdma/sdma_test_scopes.hpp"
#include "tests/support/dma_model/dma_model.hpp"
#include "tests/support/test_env.hpp"
#include "transport/sdma/sdma_queues.hpp"
#include "transport/sdma/sdma_transport.hpp"

MORI_TEST_REQUIRES_GPU(1, 1);

namespace mori::test::dma {
namespace {

using sdma::AtomicOp;
using sdma::SdmaPeerDevice;

// Unit u's range inside its stride: a random skew (odd offsets) and a random length >= 1.
struct Range {
  uint64_t off, len;
};
__host__ __device__ inline Range rangeOf(uint64_t seed, uint64_t u, uint64_t stride) {
  const uint64_t r = mix(seed ^ (u * 0x100000001b3ull));
  const uint64_t skew = r % 16;
  const uint64_t maxLen = stride - skew;
  // Mostly small, sometimes the whole stride.
  const uint64_t len = (r >> 8) % 4 == 0 ? maxLen : 1 + (r >> 16) % (maxLen < 4096 ? maxLen : 4096);
  return {u * stride + skew, len};
}

__device__ uint8_t loadFresh(const uint8_t* p) {
  return gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::System>(
             reinterpret_cast<const uint32_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{3})) >>
         (8 * (reinterpret_cast<uintptr_t>(p) & 3));
}

// Each unit puts its range, quiets, and checks its range in the destination.
template <class G>
__global__ void putQuietCheck(SdmaPeerDevice peer, uint8_t* dst, const uint8_t* src, uint64_t seed, uint64_t stride,
                              unsigned long long* bad) {
  const Range r = rangeOf(seed, G::unit(), stride);
  sdma::put<G>(peer, dst + r.off, src + r.off, r.len);
  sdma::quiet<G>(peer);
  for (uint64_t i = G::rank(); i < r.len; i += G::size())
    if (loadFresh(dst + r.off + i) != src[r.off + i]) atomicAdd(bad, 1ull);
}

// Each unit gets its range from `remote` into `local` (blocking) and checks it.
template <class G>
__global__ void getCheck(SdmaPeerDevice peer, uint8_t* local, const uint8_t* remote, uint64_t seed, uint64_t stride,
                         unsigned long long* bad) {
  const Range r = rangeOf(seed, G::unit(), stride);
  sdma::get<G>(peer, local + r.off, remote + r.off, r.len);
  for (uint64_t i = G::rank(); i < r.len; i += G::size())
    if (loadFresh(local + r.off + i) != remote[r.off + i]) atomicAdd(bad, 1ull);
}

// Producer: unit u puts its range and sets sig[u] = u + 1 in the same queue.
template <class G>
__global__ void putSignalKernel(SdmaPeerDevice peer, uint8_t* dst, const uint8_t* src, uint64_t seed, uint64_t stride,
                                uint64_t* sig) {
  const uint64_t u = G::unit();
  const Range r = rangeOf(seed, u, stride);
  sdma::putSignal<G>(peer, dst + r.off, src + r.off, r.len, sig + u, u + 1, AtomicOp::Swap64);
}

// A put (split across the peer's queues where large) and then, from rank 0, an ordered signal
// that the engine applies only after the copies on every queue (POLL_REGMEM on the busy ones).
template <class G>
__global__ void putThenOrderedSignalKernel(SdmaPeerDevice peer, uint8_t* dst, const uint8_t* src, uint64_t seed,
                                           uint64_t stride, uint64_t* sig) {
  const uint64_t u = G::unit();
  const Range r = rangeOf(seed, u, stride);
  sdma::put<G>(peer, dst + r.off, src + r.off, r.len);
  G::sync();
  if (G::rank() == 0) sdma::signalAfterCopies(peer, sig + u, u + 1, AtomicOp::Swap64);
}

// Consumer (a concurrent kernel): block b waits for units b, b + gridDim.x, ... to signal, then
// checks their data; counts late data (a signal before its data) and waits that never end.
__global__ void waitThenCheck(const uint8_t* dst, const uint8_t* src, uint64_t seed, uint64_t stride,
                              const uint64_t* sig, uint64_t units, unsigned long long* bad, unsigned long long* stuck) {
  __shared__ int ok;
  for (uint64_t u = blockIdx.x; u < units; u += gridDim.x) {
    if (threadIdx.x == 0) {
      const uint64_t start = gpu::wallClock();
      ok = 1;
      while (gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(sig + u) != u + 1)
        if (gpu::wallClock() - start > gpu::nsToWallTicks(30'000'000'000ull)) {
          ok = 0;
          atomicAdd(stuck, 1ull);
          break;
        }
    }
    __syncthreads();
    if (ok) {
      const Range r = rangeOf(seed, u, stride);
      for (uint64_t i = threadIdx.x; i < r.len; i += blockDim.x)
        if (loadFresh(dst + r.off + i) != src[r.off + i]) atomicAdd(bad, 1ull);
    }
    __syncthreads();
  }
}

template <class G>
__global__ void signalAddKernel(SdmaPeerDevice peer, uint64_t* counter) {
  sdma::signalOp<G>(peer, counter, 3, AtomicOp::Add64);
}

__global__ void quietKernel(SdmaPeerDevice peer) { sdma::quiet<BlockG>(peer); }

// Writes one slot and stores the write pointer WITHOUT the doorbell (ring = false), or rings.
__global__ void announceKernel(SdmaPeerDevice peer, uint8_t* dst, const uint8_t* src, uint64_t n, int ring,
                               uint32_t junkHeader) {
  const sdma::SdmaQueueDevice& q = peer.queues[0];
  const uint64_t base = sdma::reserveSlots(q, 1);
  sdma::waitForRoom(q, base, 1, nullptr);
  sdma::SdmaProvider::encode(q, base, reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), n, nullptr,
                             true, static_cast<uint32_t>(base + 1));
  if (junkHeader != 0) sdma::slotAddress(q, base)[0] = junkHeader;
  if (ring) {
    sdma::submitAndRing(q, base, base + 1, nullptr);
  } else {
    // Everything a producer does except the doorbell store (posted advances, so later producers
    // can still submit behind it).
    gpu::fenceSystem();
    gpu::atomicStore<gpu::Order::Relaxed, gpu::Scope::System>(q.writePtr, (base + 1) << sdma::kSlotShift);
    gpu::atomicStore<gpu::Order::Release, gpu::Scope::Agent>(&q.state->posted, base + 1);
  }
}

// One queue set with the model as its engine, "peer" PE 1 of 2 in this process.
struct ModelQueues {
  DmaModelEngine* model = nullptr;
  std::unique_ptr<sdma::SdmaQueues> queues;
  SdmaPeerDevice peer{};
  void create(uint32_t perPeer, uint32_t slots, uint64_t firstSlot = 0) {
    auto engine = std::make_unique<DmaModelEngine>();
    model = engine.get();
    sdma::SdmaQueuesConfig cfg;
    cfg.myPe = 0;
    cfg.nPes = 2;
    cfg.queuesPerPeer = perPeer;
    cfg.ringSlots = slots;
    cfg.timeoutTicks = gpu::nsToWallTicks(60'000'000'000ull);
    cfg.firstSlot = firstSlot;
    ASSERT_EQ(sdma::SdmaQueues::create(cfg, {{1, true}}, std::move(engine), &queues), Status::Success);
    peer = queues->devicePeers()[1];
    ASSERT_EQ(peer.count, perPeer);
    EXPECT_TRUE(queues->devicePeers()[0].count == 0) << "no queues to myself";
  }
  void expectNoModelErrors() {
    for (const std::string& e : model->errors()) ADD_FAILURE() << "DMA model: " << e;
    for (const std::string& s : model->stalls()) printf("DMA model stall: %s\n", s.c_str());
  }
};

struct Buffers {
  uint8_t* src = nullptr;
  uint8_t* dst = nullptr;
  unsigned long long* counters = nullptr;
  uint64_t bytes = 0;
  void create(uint64_t n, uint64_t seed) {
    bytes = n;
    HIP_OK(hipMalloc(&src, n));
    HIP_OK(hipMalloc(&dst, n));
    HIP_OK(hipMalloc(&counters, 64));
    std::vector<uint8_t> h(n);
    for (uint64_t i = 0; i < n; i += 8) {
      const uint64_t v = mix(seed + i);
      memcpy(h.data() + i, &v, n - i < 8 ? n - i : 8);
    }
    HIP_OK(hipMemcpy(src, h.data(), n, hipMemcpyHostToDevice));
    HIP_OK(hipMemset(dst, 0xEE, n));
    HIP_OK(hipMemset(counters, 0, 64));
  }
  ~Buffers() {
    (void)hipFree(src);
    (void)hipFree(dst);
    (void)hipFree(counters);
  }
  unsigned long long counter(int i) {
    unsigned long long v = 0;
    EXPECT_EQ(hipMemcpy(&v, counters + i, sizeof(v), hipMemcpyDeviceToHost), hipSuccess);
    return v;
  }
  // Bytes outside every unit's range must still hold the fill.
  uint64_t touchedOutside(uint64_t seed, uint64_t units, uint64_t stride) {
    std::vector<uint8_t> h(bytes);
    EXPECT_EQ(hipMemcpy(h.data(), dst, bytes, hipMemcpyDeviceToHost), hipSuccess);
    std::vector<uint8_t> inside(bytes, 0);
    for (uint64_t u = 0; u < units; ++u) {
      const Range r = rangeOf(seed, u, stride);
      memset(inside.data() + r.off, 1, r.len);
    }
    uint64_t n = 0;
    for (uint64_t i = 0; i < bytes; ++i) n += !inside[i] && h[i] != 0xEE;
    return n;
  }
};

int hostWaveSize() {
  hipDeviceProp_t p;
  return hipGetDeviceProperties(&p, 0) == hipSuccess ? p.warpSize : 32;
}

template <class G>
uint64_t unitsOf(int blocks, int threads) {
  if (std::is_same<G, ThreadG>::value) return uint64_t(blocks) * threads;
  if (std::is_same<G, BlockG>::value) return uint64_t(blocks);
  return uint64_t(blocks) * (threads / hostWaveSize());
}

uint64_t seedOf(const char* name) {
  const char* env = getenv("MORI_TEST_SEED");
  const uint64_t seed = env ? strtoull(env, nullptr, 0) : 0x5d3a25ull;
  printf("[%s] seed 0x%llx (set MORI_TEST_SEED to replay)\n", name, static_cast<unsigned long long>(seed));
  return seed;
}

template <class G>
void runPutQuiet(const char* name, int blocks, int threads, uint64_t stride, uint32_t perPeer, uint32_t slots) {
  const uint64_t seed = seedOf(name);
  ModelQueues mq;
  mq.create(perPeer, slots);
  const uint64_t units = unitsOf<G>(blocks, threads);
  Buffers b;
  b.create(units * stride, seed);
  putQuietCheck<G><<<blocks, threads>>>(mq.peer, b.dst, b.src, seed, stride, b.counters);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  EXPECT_EQ(b.counter(0), 0ull) << name << ": bytes wrong after quiet";
  EXPECT_EQ(b.touchedOutside(seed, units, stride), 0ull) << name << ": bytes written outside the puts";
  mq.expectNoModelErrors();
  printf("[%s] %llu bytes through the model in %llu model launches\n", name,
         static_cast<unsigned long long>(mq.model->bytesConsumed()),
         static_cast<unsigned long long>(mq.model->launches()));
}

TEST(SdmaModel, PutThenQuietThreadScope) { runPutQuiet<ThreadG>("PutThenQuietThreadScope", 8, 128, 512, 2, 256); }
TEST(SdmaModel, PutThenQuietWarpScope) { runPutQuiet<WarpG>("PutThenQuietWarpScope", 8, 128, 300 * 1024, 2, 256); }
TEST(SdmaModel, PutThenQuietBlockScopeLargeSplitAcrossQueues) {
  // 64 MiB strides: chunked by 4 MiB, split over 4 queues, through 64-slot rings.
  runPutQuiet<BlockG>("PutThenQuietBlockScopeLarge", 3, 256, 64ull << 20, 4, 64);
}

// 132 x 256 threads, each a thread-scope put, into 64-slot rings: hundreds of laps per queue.
TEST(SdmaModel, RingWrapStress) { runPutQuiet<ThreadG>("RingWrapStress", 132, 256, 64, 2, 64); }

template <class G>
void runGet(const char* name, int blocks, int threads, uint64_t stride) {
  const uint64_t seed = seedOf(name);
  ModelQueues mq;
  mq.create(2, 128);
  const uint64_t units = unitsOf<G>(blocks, threads);
  Buffers b;
  b.create(units * stride, seed);
  getCheck<G><<<blocks, threads>>>(mq.peer, b.dst, b.src, seed, stride, b.counters);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  EXPECT_EQ(b.counter(0), 0ull) << name << ": bytes wrong after get";
  EXPECT_EQ(b.touchedOutside(seed, units, stride), 0ull);
  mq.expectNoModelErrors();
}

TEST(SdmaModel, GetAllScopes) {
  runGet<ThreadG>("GetThread", 4, 64, 1024);
  runGet<WarpG>("GetWarp", 4, 64, 64 * 1024);
  runGet<BlockG>("GetBlock", 4, 128, 5 << 20);
}

template <class G, bool kOrderedSignal = false>
void runPutSignal(const char* name, int blocks, int threads, uint64_t stride, uint32_t perPeer = 2,
                  uint64_t firstSlot = 0) {
  const uint64_t seed = seedOf(name);
  ModelQueues mq;
  mq.create(perPeer, 128, firstSlot);
  const uint64_t units = unitsOf<G>(blocks, threads);
  Buffers b;
  b.create(units * stride, seed);
  uint64_t* sig = nullptr;
  HIP_OK(hipMalloc(&sig, units * sizeof(uint64_t)));
  HIP_OK(hipMemset(sig, 0, units * sizeof(uint64_t)));
  hipStream_t consumer, producer;
  HIP_OK(hipStreamCreateWithFlags(&consumer, hipStreamNonBlocking));
  HIP_OK(hipStreamCreateWithFlags(&producer, hipStreamNonBlocking));
  waitThenCheck<<<8, 128, 0, consumer>>>(b.dst, b.src, seed, stride, sig, units, b.counters, b.counters + 1);
  HIP_OK(hipGetLastError());
  if constexpr (kOrderedSignal) {
    putThenOrderedSignalKernel<G><<<blocks, threads, 0, producer>>>(mq.peer, b.dst, b.src, seed, stride, sig);
    HIP_OK(hipGetLastError());
  } else {
    putSignalKernel<G><<<blocks, threads, 0, producer>>>(mq.peer, b.dst, b.src, seed, stride, sig);
    HIP_OK(hipGetLastError());
  }
  HIP_OK(hipDeviceSynchronize());
  EXPECT_EQ(b.counter(1), 0ull) << name << ": signals never arrived";
  EXPECT_EQ(b.counter(0), 0ull) << name << ": data not there when its signal was";
  EXPECT_EQ(b.touchedOutside(seed, units, stride), 0ull);
  mq.expectNoModelErrors();
  HIP_OK(hipStreamDestroy(consumer));
  HIP_OK(hipStreamDestroy(producer));
  HIP_OK(hipFree(sig));
}

TEST(SdmaModel, PutSignalOrderedInTheQueue) {
  runPutSignal<ThreadG>("PutSignalThread", 4, 128, 2048);
  runPutSignal<WarpG>("PutSignalWarp", 8, 128, 256 * 1024);
  runPutSignal<BlockG>("PutSignalBlock", 6, 256, 9 << 20);
}

// Block puts of up to 9 MiB split over 4 queues, warp puts over 2, thread puts on their wave's
// queue, each followed by an ordered signal on one queue: the data is there when it arrives.
TEST(SdmaModel, OrderedSignalWaitsForEveryQueue) {
  runPutSignal<ThreadG, true>("OrderedSignalThread", 4, 128, 2048, 4);
  runPutSignal<WarpG, true>("OrderedSignalWarp", 8, 128, 256 * 1024, 4);
  runPutSignal<BlockG, true>("OrderedSignalBlock", 6, 256, 9 << 20, 4);
}

// The same with every queue's slot count starting below 2^32 by less than the slots each queue
// takes (thread scope: 256 per queue; warp scope: about 40), so the 32-bit completion words wrap
// mid-run, under the ordered signals' POLL_REGMEMs (unsigned compares: sdma_flow.hpp pollTarget).
// A poll across the wrap on the completion word alone never ends (the model reports it after
// 10 s) or passes before the copies (late data).
TEST(SdmaModel, OrderedSignalAcrossTheCompletionWrap) {
  const uint64_t wrap = uint64_t{1} << 32;
  runPutSignal<ThreadG, true>("OrderedSignalWrapThread", 4, 128, 2048, 4, wrap - 200);
  runPutSignal<WarpG, true>("OrderedSignalWrapWarp", 8, 128, 256 * 1024, 4, wrap - 16);
}

TEST(SdmaModel, SignalOpAloneAddsOnce) {
  ModelQueues mq;
  mq.create(2, 64);
  Buffers b;
  b.create(64, 1);
  signalAddKernel<ThreadG><<<4, 64>>>(mq.peer, reinterpret_cast<uint64_t*>(b.counters));
  HIP_OK(hipGetLastError());
  signalAddKernel<WarpG><<<4, 64>>>(mq.peer, reinterpret_cast<uint64_t*>(b.counters));
  HIP_OK(hipGetLastError());
  signalAddKernel<BlockG><<<4, 64>>>(mq.peer, reinterpret_cast<uint64_t*>(b.counters));
  HIP_OK(hipGetLastError());
  quietKernel<<<1, 64>>>(mq.peer);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  const unsigned long long calls = 4 * 64 + 4 * (64 / hostWaveSize()) + 4;
  EXPECT_EQ(b.counter(0), 3ull * calls) << "one ADD of 3 per calling thread / warp / block";
  mq.expectNoModelErrors();
}

// The entry point init will call: queues exactly for the SDMA entries of the transport row.
TEST(SdmaModel, OpenForTheTransportRowThenPut) {
  using shmem::Transport;
  const uint64_t seed = seedOf("OpenForTheTransportRowThenPut");
  sdma::SdmaOpenArgs a;
  a.myPe = 0;
  a.nPes = 4;
  a.table = {Transport::P2P, Transport::Sdma, Transport::P2P, Transport::Sdma};
  a.xgmi = {0, 1, 0, 0};
  a.queuesPerPeer = 3;
  a.ringSlots = 64;
  a.timeoutTicks = gpu::nsToWallTicks(60'000'000'000ull);
  auto engine = std::make_unique<DmaModelEngine>();
  DmaModelEngine* model = engine.get();
  a.engine = std::move(engine);
  std::unique_ptr<sdma::SdmaQueues> q;
  ASSERT_EQ(sdma::openSdmaQueues(std::move(a), &q), Status::Success);
  const std::vector<SdmaPeerDevice>& peers = q->devicePeers();
  ASSERT_EQ(peers.size(), 4u);
  EXPECT_EQ(peers[0].count, 0u);
  EXPECT_EQ(peers[1].count, 3u);
  EXPECT_EQ(peers[2].count, 0u);
  EXPECT_EQ(peers[3].count, 3u);
  EXPECT_EQ(q->describe().size(), 6u);
  for (const std::string& line : q->describe()) printf("  %s\n", line.c_str());
  Buffers b;
  b.create(8 * (1 << 20), seed);
  putQuietCheck<BlockG><<<8, 256>>>(peers[3], b.dst, b.src, seed, 1 << 20, b.counters);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  EXPECT_EQ(b.counter(0), 0ull);
  for (const std::string& e : model->errors()) ADD_FAILURE() << "DMA model: " << e;
}

// The model consumes only what the doorbell announced: a write pointer stored without ringing
// is not acted on; ringing later executes the slot.
TEST(SdmaModel, OnlyTheDoorbellAnnounces) {
  ModelQueues mq;
  mq.create(1, 64);
  Buffers b;
  b.create(4096, 7);
  announceKernel<<<1, 1>>>(mq.peer, b.dst, b.src, 4096, 0, 0);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(mq.model->bytesConsumed(), 0ull) << "the model read past the doorbell";
  EXPECT_EQ(b.touchedOutside(0, 0, 1), 0ull) << "copied without a doorbell";
  // Ring for a second slot: the doorbell now covers both.
  announceKernel<<<1, 1>>>(mq.peer, b.dst, b.src, 4096, 1, 0);
  HIP_OK(hipGetLastError());
  quietKernel<<<1, 32>>>(mq.peer);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  // The model counts a launch's bytes after its kernel ends, which may be just after quiet returns.
  for (int i = 0; i < 100 && mq.model->bytesConsumed() < 2ull * sdma::kSlotBytes; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(mq.model->bytesConsumed(), 2ull * sdma::kSlotBytes);
  std::vector<uint8_t> s(4096), d(4096);
  HIP_OK(hipMemcpy(s.data(), b.src, 4096, hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(d.data(), b.dst, 4096, hipMemcpyDeviceToHost));
  EXPECT_EQ(s, d);
  mq.expectNoModelErrors();
}

// A packet the engine does not know stops that queue and is reported with its position.
TEST(SdmaModel, BadPacketIsReported) {
  ModelQueues mq;
  mq.create(1, 64);
  Buffers b;
  b.create(256, 9);
  announceKernel<<<1, 1>>>(mq.peer, b.dst, b.src, 256, 1, 0x000000FFu);  // opcode 255
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipGetLastError());
  std::vector<std::string> errs;
  for (int i = 0; i < 200 && errs.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    errs = mq.model->errors();
  }
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].find("a packet the model cannot execute (header 0x000000ff) at ring byte 0"), std::string::npos)
      << errs[0];
}

}  // namespace
}  // namespace mori::test::dma
