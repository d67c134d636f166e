// Two PEs (processes), each with its own queue set and DMA-engine model, write into each other's
// GPU memory through the IPC mapping, as the SDMA transport will: block-, warp- and thread-scope
// put-with-signal (ADD) of random sizes into the peer's buffer, then each PE waits for the
// peer's signals and checks every byte it received. On one GPU (CUDA MPS) or two.
#include <gtest/gtest.h>
#include <mpi.h>
#include <string.h>

#include <memory>
#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"
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
                             uint64_t smallStride, unsigned long long* out) {
  __shared__ int ok;
  if (threadIdx.x == 0) {
    ok = 1;
    const uint64_t start = gpu::wallClock();
    while (gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(sig) < expect)
      if (gpu::wallClock() - start > gpu::nsToWallTicks(60'000'000'000ull)) {
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
  cfg.timeoutTicks = gpu::nsToWallTicks(60'000'000'000ull);
  std::unique_ptr<sdma::SdmaQueues> queues;
  ASSERT_EQ(sdma::SdmaQueues::create(cfg, {{peerPe, true}}, std::move(engine), &queues), Status::Success);

  hipStream_t sendStream, checkStream;
  HIP_OK(hipStreamCreateWithFlags(&sendStream, hipStreamNonBlocking));
  HIP_OK(hipStreamCreateWithFlags(&checkStream, hipStreamNonBlocking));
  MPI_Barrier(MPI_COMM_WORLD);
  waitAndCheck<<<blocks, 128, 0, checkStream>>>(sig, signals, recv, seed, peerPe, blocks, warps, threads, bigStride,
                                                smallStride, out);
  sendAll<<<blocks, threads, 0, sendStream>>>(queues->devicePeers()[peerPe], peerRecv, src,
                                              reinterpret_cast<uint64_t*>(peerRecv + bytes), seed, bigStride,
                                              smallStride);
  HIP_OK(hipStreamSynchronize(sendStream));
  HIP_OK(hipStreamSynchronize(checkStream));
  unsigned long long h[2] = {0, 0};
  HIP_OK(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  // Progress of this PE's engine: a stalled model and a slow one read differently.
  EXPECT_EQ(h[1], 0ull) << "PE " << me << ": the peer's signals never all arrived (this PE's model consumed "
                        << model->bytesConsumed() << " ring bytes in " << model->launches() << " launches)";
  EXPECT_EQ(h[0], 0ull) << "PE " << me << ": bytes from PE " << peerPe << " wrong when their signals had arrived";
  uint64_t got = 0;
  HIP_OK(hipMemcpy(&got, sig, sizeof(got), hipMemcpyDeviceToHost));
  EXPECT_EQ(got, signals) << "PE " << me << ": one ADD per put-with-signal";
  for (const std::string& e : model->errors()) ADD_FAILURE() << "PE " << me << " DMA model: " << e;
  // Where this PE's engine stood still (queue, read pointer, doorbell, the packet it was at).
  for (const std::string& st : model->stalls()) printf("PE %d DMA model stall: %s\n", me, st.c_str());

  MPI_Barrier(MPI_COMM_WORLD);  // the peer's engine no longer writes into recv
  queues.reset();
  HIP_OK(hipIpcCloseMemHandle(peerRecvV));
  HIP_OK(hipStreamDestroy(sendStream));
  HIP_OK(hipStreamDestroy(checkStream));
  HIP_OK(hipFree(src));
  HIP_OK(hipFree(recv));
  HIP_OK(hipFree(out));
}

}  // namespace
}  // namespace mori::test::dma
