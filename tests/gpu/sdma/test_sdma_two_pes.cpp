// Two PEs (processes), each with its own queue set and DMA-engine model, write into each other's
// GPU memory through the IPC mapping, as the SDMA transport will: block-, warp- and thread-scope
// put-with-signal (ADD) of random sizes into the peer's buffer, then each PE waits for the
// peer's signals and checks every byte it received. On one GPU (CUDA MPS) or two. Each PE prints
// how long its producers and receivers took; on a failure also a timeline of its queues' counters
// (reserved, posted, doorbell, read pointer, completion), its model's progress and the signals it
// got, and which of producers or engine held slots at the end.
#include <gtest/gtest.h>
#include <mpi.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"
#include "shmem/runtime.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/gpu/sdma/sdma_test_scopes.hpp"
#include "tests/support/dma_model/dma_model.hpp"
#include "tests/support/test_env.hpp"
#include "transport/sdma/sdma_queues.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);

namespace mori::test::dma {
namespace {

using sdma::AtomicOp;
using sdma::SdmaPeerDevice;

// Unit u of `units` owns [u * stride, u * stride + len(u)) with len(u) in 1..stride.
__host__ __device__ inline uint64_t lenOf(uint64_t seed, uint64_t u, uint64_t stride) {
  const uint64_t r = (seed ^ (u * 0x2545F4914F6CDD1Dull)) * 0x9e3779b97f4a7c15ull;
  return (r >> 40) % 3 == 0 ? stride : 1 + (r >> 20) % stride;
}

// Block b: a block-scope put-with-signal of unit b, then each warp one of units
// blocks + b * warps + w, then each thread one small unit; each adds 1 to the peer's signal.
__global__ void sendAll(SdmaPeerDevice peer, uint8_t* peerRecv, const uint8_t* src, uint64_t* peerSig, uint64_t seed,
                        uint64_t bigStride, uint64_t smallStride) {
  const uint64_t b = blockIdx.x;
  {
    const uint64_t len = lenOf(seed, b, bigStride);
    sdma::putSignal<BlockG>(peer, peerRecv + b * bigStride, src + b * bigStride, len, peerSig, 1, AtomicOp::Add64);
  }
  const uint64_t warps = blockDim.x / gpu::waveSize();
  const uint64_t w = threadIdx.x / gpu::waveSize();
  const uint64_t base = gridDim.x * bigStride;
  {
    const uint64_t u = b * warps + w;
    const uint64_t len = lenOf(seed, 1000 + u, bigStride);
    sdma::putSignal<WarpG>(peer, peerRecv + base + u * bigStride, src + base + u * bigStride, len, peerSig, 1,
                           AtomicOp::Add64);
  }
  const uint64_t base2 = base + gridDim.x * warps * bigStride;
  const uint64_t t = b * blockDim.x + threadIdx.x;
  const uint64_t len = lenOf(seed, 100000 + t, smallStride);
  sdma::putSignal<ThreadG>(peer, peerRecv + base2 + t * smallStride, src + base2 + t * smallStride, len, peerSig, 1,
                           AtomicOp::Add64);
}

// One byte through an L1-bypassing load (the engine wrote it from another context).
__device__ uint8_t loadByte(const uint8_t* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uint32_t w =
      gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::System>(reinterpret_cast<const uint32_t*>(a & ~uintptr_t{3}));
  return static_cast<uint8_t>(w >> (8 * (a & 3)));
}

// Waits until `sig` reaches `expect` (bounded), then counts bytes of recv differing from the
// sender's pattern over every unit's range.
__global__ void waitAndCheck(const uint64_t* sig, uint64_t expect, const uint8_t* recv, uint64_t seed, int sender,
                             uint64_t blocks, uint64_t warps, uint64_t threads, uint64_t bigStride,
                             uint64_t smallStride, uint64_t waitNs, unsigned long long* out) {
  __shared__ int ok;
  if (threadIdx.x == 0) {
    ok = 1;
    const uint64_t start = gpu::wallClock();
    while (gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(sig) < expect)
      if (gpu::wallClock() - start > gpu::nsToWallTicks(waitNs)) {
        ok = 0;
        atomicAdd(out + 1, 1ull);
        break;
      }
  }
  __syncthreads();
  if (!ok) return;
  auto check = [&](uint64_t off, uint64_t len) {
    for (uint64_t i = threadIdx.x; i < len; i += blockDim.x)
      if (loadByte(recv + off + i) != patternByte(seed, sender, off + i)) atomicAdd(out, 1ull);
  };
  const uint64_t b = blockIdx.x;
  check(b * bigStride, lenOf(seed, b, bigStride));
  const uint64_t base = blocks * bigStride;
  for (uint64_t w = 0; w < warps; ++w) {
    const uint64_t u = b * warps + w;
    check(base + u * bigStride, lenOf(seed, 1000 + u, bigStride));
  }
  const uint64_t base2 = base + blocks * warps * bigStride;
  for (uint64_t k = 0; k < threads; ++k) {
    const uint64_t t = b * threads + k;
    check(base2 + t * smallStride, lenOf(seed, 100000 + t, smallStride));
  }
}

// The counters of one queue at one moment: the producers' (reserved, posted), the engine's
// (doorbell, read pointer, write-pointer shadow: bytes) and the completion word (slots).
struct QueueCounters {
  uint64_t reserved = 0, posted = 0, doorbell = 0, readPtr = 0, writePtr = 0;
  uint32_t completion = 0;
  bool operator==(const QueueCounters& o) const {
    return reserved == o.reserved && posted == o.posted && doorbell == o.doorbell && readPtr == o.readPtr &&
           writePtr == o.writePtr && completion == o.completion;
  }
};

// One reading of this PE's queues to the peer, its model and the signal word it receives.
struct Sample {
  double t = 0;  // seconds since sendAll's launch
  bool sendDone = false;
  uint64_t sigGot = 0, consumed = 0, launches = 0;
  std::vector<QueueCounters> q;
  bool sameCounters(const Sample& o) const {
    return sendDone == o.sendDone && sigGot == o.sigGot && consumed == o.consumed && launches == o.launches && q == o.q;
  }
};

// Reads the counters through async copies on its own stream, each reading bounded by 1 s (a
// wedged GPU must not wedge the report); after one that does not complete it reads no more.
class QueueProbe {
 public:
  QueueProbe(const SdmaPeerDevice& peer, const uint64_t* sig) : sig_(sig) {
    queues_.resize(peer.count);
    ok_ = hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking) == hipSuccess &&
          hipHostMalloc(reinterpret_cast<void**>(&buf_), (kWords * peer.count + 1) * sizeof(uint64_t),
                        hipHostMallocDefault) == hipSuccess &&
          hipMemcpy(queues_.data(), peer.queues, peer.count * sizeof(sdma::SdmaQueueDevice), hipMemcpyDefault) ==
              hipSuccess;
    if (!ok_) (void)hipGetLastError();
  }
  ~QueueProbe() {
    if (stream_ && ok_) (void)hipStreamSynchronize(stream_);
    if (stream_) (void)hipStreamDestroy(stream_);
    if (buf_) (void)hipHostFree(buf_);
  }
  bool read(Sample* s) {
    if (!ok_) return false;
    for (size_t i = 0; i < queues_.size(); ++i) {
      const sdma::SdmaQueueDevice& q = queues_[i];
      uint64_t* w = buf_ + kWords * i;
      ok_ = ok_ && hipMemcpyAsync(w, q.state, 16, hipMemcpyDefault, stream_) == hipSuccess;
      ok_ = ok_ && hipMemcpyAsync(w + 2, q.doorbell, 8, hipMemcpyDefault, stream_) == hipSuccess;
      ok_ = ok_ && hipMemcpyAsync(w + 3, q.readPtr, 8, hipMemcpyDefault, stream_) == hipSuccess;
      ok_ = ok_ && hipMemcpyAsync(w + 4, q.writePtr, 8, hipMemcpyDefault, stream_) == hipSuccess;
      ok_ = ok_ && hipMemcpyAsync(w + 5, q.completion, 4, hipMemcpyDefault, stream_) == hipSuccess;
    }
    ok_ = ok_ && hipMemcpyAsync(buf_ + kWords * queues_.size(), sig_, 8, hipMemcpyDefault, stream_) == hipSuccess;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    hipError_t e = hipErrorNotReady;
    while (ok_ && (e = hipStreamQuery(stream_)) == hipErrorNotReady && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    ok_ = ok_ && e == hipSuccess;
    if (!ok_) {
      (void)hipGetLastError();
      return false;
    }
    s->q.resize(queues_.size());
    for (size_t i = 0; i < queues_.size(); ++i) {
      const uint64_t* w = buf_ + kWords * i;
      s->q[i] = QueueCounters{w[0], w[1], w[2], w[3], w[4], static_cast<uint32_t>(w[5])};
    }
    s->sigGot = buf_[kWords * queues_.size()];
    return true;
  }

 private:
  static constexpr size_t kWords = 6;
  const uint64_t* sig_;
  std::vector<sdma::SdmaQueueDevice> queues_;
  hipStream_t stream_ = nullptr;
  uint64_t* buf_ = nullptr;
  bool ok_ = false;
};

std::string describe(int pe, const Sample& s) {
  char buf[256];
  std::string line;
  snprintf(buf, sizeof(buf), "PE %d t=%6.2fs sendAll %s, signals got %llu, model %llu B in %llu launches", pe, s.t,
           s.sendDone ? "done   " : "running", static_cast<unsigned long long>(s.sigGot),
           static_cast<unsigned long long>(s.consumed), static_cast<unsigned long long>(s.launches));
  line = buf;
  for (size_t i = 0; i < s.q.size(); ++i) {
    const QueueCounters& c = s.q[i];
    // Slots throughout: doorbell, read pointer and write pointer are bytes of kSlotBytes slots.
    snprintf(buf, sizeof(buf), " | q%zu reserved %llu posted %llu doorbell %.2f read %.2f wshadow %.2f completion %u",
             i, static_cast<unsigned long long>(c.reserved), static_cast<unsigned long long>(c.posted),
             static_cast<double>(c.doorbell) / sdma::kSlotBytes, static_cast<double>(c.readPtr) / sdma::kSlotBytes,
             static_cast<double>(c.writePtr) / sdma::kSlotBytes, c.completion);
    line += buf;
  }
  return line;
}

// What the last reading says stopped the run: producers holding unannounced slots, an engine
// with announced work it does not finish, or neither (a slow engine: compare the timeline's rates).
std::string verdict(const Sample& s) {
  std::string v;
  char buf[256];
  for (size_t i = 0; i < s.q.size(); ++i) {
    const QueueCounters& c = s.q[i];
    if (c.reserved != c.posted) {
      snprintf(buf, sizeof(buf), "q%zu: slots [%llu, %llu) reserved but not announced (a producer waits for %s); ", i,
               static_cast<unsigned long long>(c.posted), static_cast<unsigned long long>(c.reserved),
               c.completion == static_cast<uint32_t>(c.posted) ? "something the idle engine cannot give: deadlock"
                                                               : "room or its turn");
      v += buf;
    }
    if (c.completion != static_cast<uint32_t>(c.posted)) {
      snprintf(buf, sizeof(buf), "q%zu: engine at completion %u of %llu announced (read pointer %.2f slots); ", i,
               c.completion, static_cast<unsigned long long>(c.posted),
               static_cast<double>(c.readPtr) / sdma::kSlotBytes);
      v += buf;
    }
  }
  return v.empty() ? "every reserved slot announced and completed" : v;
}

TEST(SdmaTwoPes, PutSignalIntoEachOthersMemory) {
  int me = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  ASSERT_EQ(n, 2) << "run with 2 PEs";
  const int peerPe = 1 - me;
  const uint64_t seed = 0x7e57ull;
  hipDeviceProp_t prop;
  HIP_OK(hipGetDeviceProperties(&prop, 0));
  const int threads = 128, blocks = 6;
  const uint64_t warps = threads / prop.warpSize;
  const uint64_t bigStride = 5ull << 20, smallStride = 777;
  const uint64_t bytes = blocks * bigStride + blocks * warps * bigStride + uint64_t{blocks} * threads * smallStride;
  const uint64_t signals = blocks + blocks * warps + uint64_t{blocks} * threads;

  uint8_t *src = nullptr, *recv = nullptr;
  uint64_t* sig = nullptr;
  unsigned long long* out = nullptr;
  HIP_OK(hipMalloc(&src, bytes));
  HIP_OK(hipMalloc(&recv, bytes + 256));  // the signal word lives after the data
  HIP_OK(hipMalloc(&out, 16));
  HIP_OK(hipMemset(recv, 0, bytes + 256));
  HIP_OK(hipMemset(out, 0, 16));
  sig = reinterpret_cast<uint64_t*>(recv + bytes);
  fillKernel<><<<64, 256>>>(src, bytes, seed, me);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());

  hipIpcMemHandle_t mine, theirs;
  HIP_OK(hipIpcGetMemHandle(&mine, recv));
  std::vector<hipIpcMemHandle_t> all(2);
  MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE, MPI_COMM_WORLD);
  theirs = all[peerPe];
  void* peerRecvV = nullptr;
  HIP_OK(hipIpcOpenMemHandle(&peerRecvV, theirs, hipIpcMemLazyEnablePeerAccess));
  auto* peerRecv = static_cast<uint8_t*>(peerRecvV);

  auto engine = std::make_unique<DmaModelEngine>();
  DmaModelEngine* model = engine.get();
  sdma::SdmaQueuesConfig cfg;
  cfg.myPe = me;
  cfg.nPes = 2;
  cfg.queuesPerPeer = 2;
  cfg.ringSlots = 64;
  // A producer's wait (ring space, its turn, completion) past 20 s prints its queue's counters
  // and traps ("timed out waiting for ..."); the receivers give up at 30 s.
  constexpr uint64_t kProducerWaitNs = 20'000'000'000ull, kCheckWaitNs = 30'000'000'000ull;
  cfg.timeoutTicks = gpu::nsToWallTicks(kProducerWaitNs);
  std::unique_ptr<sdma::SdmaQueues> queues;
  ASSERT_EQ(sdma::SdmaQueues::create(cfg, {{peerPe, true}}, std::move(engine), &queues), Status::Success);

  hipStream_t sendStream, checkStream;
  hipEvent_t sendDone;
  HIP_OK(hipStreamCreateWithFlags(&sendStream, hipStreamNonBlocking));
  HIP_OK(hipStreamCreateWithFlags(&checkStream, hipStreamNonBlocking));
  HIP_OK(hipEventCreateWithFlags(&sendDone, hipEventDisableTiming));
  QueueProbe probe(queues->devicePeers()[peerPe], sig);  // before the kernels: it allocates and copies
  // The warm-up kernel mori_shmem_init runs (this test does not init): sendAll uses printf (the
  // producers' timeout reports) and waitAndCheck, launched first, does not; without it sendAll
  // waits until waitAndCheck gives up (shmem/runtime.hpp says why).
  HIP_OK(shmem::launchWarmupKernel(nullptr));
  HIP_OK(hipDeviceSynchronize());
  MPI_Barrier(MPI_COMM_WORLD);
  waitAndCheck<<<blocks, 128, 0, checkStream>>>(sig, signals, recv, seed, peerPe, blocks, warps, threads, bigStride,
                                                smallStride, kCheckWaitNs, out);
  HIP_OK(hipGetLastError());
  const auto t0 = std::chrono::steady_clock::now();
  const auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  sendAll<<<blocks, threads, 0, sendStream>>>(queues->devicePeers()[peerPe], peerRecv, src,
                                              reinterpret_cast<uint64_t*>(peerRecv + bytes), seed, bigStride,
                                              smallStride);
  HIP_OK(hipGetLastError());
  HIP_OK(hipEventRecord(sendDone, sendStream));

  // The timeline printed on failure: a reading every 250 ms, kept when something moved (or 5 s
  // after the last kept one), while the kernels run.
  std::vector<Sample> timeline;
  std::atomic<bool> stopSampling{false};
  std::thread sampler([&] {
    double lastKept = -10;
    while (!stopSampling.load()) {
      Sample smp;
      smp.t = since();
      smp.sendDone = hipEventQuery(sendDone) == hipSuccess;
      smp.consumed = model->bytesConsumed();
      smp.launches = model->launches();
      if (!probe.read(&smp)) break;
      if (timeline.empty() || !smp.sameCounters(timeline.back()) || smp.t - lastKept >= 5) {
        timeline.push_back(smp);
        lastKept = smp.t;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  });
  const hipError_t sendErr = hipStreamSynchronize(sendStream);
  const double sendSecs = since();
  const hipError_t checkErr = hipStreamSynchronize(checkStream);
  const double checkSecs = since();
  stopSampling.store(true);
  sampler.join();
  Sample last;
  last.t = since();
  last.sendDone = sendErr == hipSuccess;
  last.consumed = model->bytesConsumed();
  last.launches = model->launches();
  const bool lastRead = sendErr == hipSuccess && probe.read(&last);
  unsigned long long h[2] = {~0ull, ~0ull};
  if (sendErr == hipSuccess && checkErr == hipSuccess) HIP_OK(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  uint64_t got = 0;
  if (sendErr == hipSuccess) HIP_OK(hipMemcpy(&got, sig, sizeof(got), hipMemcpyDeviceToHost));
  const bool failed = sendErr != hipSuccess || checkErr != hipSuccess || h[0] != 0 || h[1] != 0 || got != signals;
  if (failed || !model->stalls().empty()) {
    for (const Sample& smp : timeline) printf("%s\n", describe(me, smp).c_str());
    if (lastRead) printf("%s (after both kernels)\n", describe(me, last).c_str());
  }
  const Sample& v = lastRead ? last : timeline.empty() ? last : timeline.back();
  printf("PE %d: sendAll %s after %.2f s, waitAndCheck ended after %.2f s; last reading: %s\n", me,
         sendErr == hipSuccess ? "returned" : "FAILED", sendSecs, checkSecs, verdict(v).c_str());
  // A producer's timed-out wait traps: the kernel fails, and its "timed out waiting for" line
  // above names the queue, the wait, its slot target and the queue's counters.
  EXPECT_EQ(sendErr, hipSuccess) << "PE " << me << ": sendAll failed after " << sendSecs
                                 << " s: a producer's wait timed out (see its 'timed out waiting for' line): "
                                 << hipGetErrorString(sendErr);
  EXPECT_EQ(checkErr, hipSuccess) << "PE " << me << ": waitAndCheck failed: " << hipGetErrorString(checkErr);
  if (sendErr != hipSuccess || checkErr != hipSuccess) {
    MPI_Barrier(MPI_COMM_WORLD);  // the peer is not left waiting; this context is gone, nothing to free
    return;
  }
  // Progress of this PE's engine: a stalled model and a slow one read differently.
  EXPECT_EQ(h[1], 0ull) << "PE " << me << ": PE " << peerPe << "'s signals never all arrived within "
                        << kCheckWaitNs / 1e9 << " s (" << got << " of " << signals << "; PE " << peerPe
                        << "'s producers post them and its model applies them: its timeline says whose counters "
                           "stopped). This PE's own producers all posted (sendAll returned after "
                        << sendSecs << " s); its model consumed " << model->bytesConsumed() << " ring bytes in "
                        << model->launches() << " launches";
  EXPECT_EQ(h[0], 0ull) << "PE " << me << ": bytes from PE " << peerPe << " wrong when their signals had arrived";
  EXPECT_EQ(got, signals) << "PE " << me << ": one ADD per put-with-signal";
  for (const std::string& e : model->errors()) ADD_FAILURE() << "PE " << me << " DMA model: " << e;
  // Where this PE's engine stood still (queue, read pointer, doorbell, the packet it was at).
  for (const std::string& st : model->stalls()) printf("PE %d DMA model stall: %s\n", me, st.c_str());

  MPI_Barrier(MPI_COMM_WORLD);  // the peer's engine no longer writes into recv
  queues.reset();
  HIP_OK(hipIpcCloseMemHandle(peerRecvV));
  HIP_OK(hipStreamDestroy(sendStream));
  HIP_OK(hipStreamDestroy(checkStream));
  HIP_OK(hipEventDestroy(sendDone));
  HIP_OK(hipFree(src));
  HIP_OK(hipFree(recv));
  HIP_OK(hipFree(out));
}

}  // namespace
}  // namespace mori::test::dma
