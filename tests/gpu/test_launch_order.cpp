// A receiver kernel launched before its sender, in the same process (2 PEs): each PE first
// launches a kernel that spins until the peer's put-with-signal has landed, then, on another
// stream, the kernel that puts to the peer. The sender calls the device API, whose general paths
// use device printf, and the receiver does not; on NVIDIA the first launch of a kernel with printf
// waits until every running kernel has ended, so without init's warm-up kernel (MORI_SHMEM_WARMUP,
// shmem/runtime.hpp) both senders wait for their receivers, which give up after their bound.
// Checked: each receiver saw the signal within its bound, and the data is the peer's, byte for
// byte.
#include "mori/platform/clock.hpp"
#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);  // both PEs' receivers spin while the senders run: MPS on one GPU
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;
namespace g = mori::gpu;

constexpr uint64_t kWaitNs = 10'000'000'000ull;

// Thread 0 spins until *sig == 1 or kWaitNs pass; result[0] = 1 if it saw it, result[1] = the
// wait's length in wall-clock ticks. No calls, no stack.
__global__ void receiver(const uint64_t* sig, unsigned long long* result) {
  if (threadIdx.x != 0) return;
  const uint64_t start = g::wallClock(), bound = g::nsToWallTicks(kWaitNs);
  uint64_t now = start;
  bool seen = false;
  while (!(seen = g::atomicLoad<g::Order::Acquire, g::Scope::System>(sig) == 1) && now - start <= bound)
    now = g::wallClock();
  result[0] = seen;
  result[1] = now - start;
}

__global__ void sender(uint8_t* dst, const uint8_t* src, size_t bytes, uint64_t* sig, int peer) {
  mori_shmem_putmem_signal_nbi_block(dst, src, bytes, sig, 1, MORI_SHMEM_SIGNAL_SET, peer);
  mori_shmem_quiet_block();
}

TEST(LaunchOrder, ReceiverLaunchedBeforeItsSender) {
  const int me = mori_shmem_my_pe(), peer = 1 - me;
  ASSERT_EQ(mori_shmem_n_pes(), 2) << "run with 2 PEs";
  hipFuncAttributes recvAttr, sendAttr;
  HIP_OK(hipFuncGetAttributes(&recvAttr, reinterpret_cast<const void*>(&receiver)));
  HIP_OK(hipFuncGetAttributes(&sendAttr, reinterpret_cast<const void*>(&sender)));
  // Kernels that call the device API have stack (its calls) and printf (its error reports); the
  // receiver has neither. (The attribute queries also load both kernels under lazy loading.)
  ASSERT_GT(sendAttr.localSizeBytes, recvAttr.localSizeBytes) << "the sender no longer calls the device library";
  const size_t bytes = (1 << 20) + 3;
  const uint64_t seed = 4242;
  auto* dst = static_cast<uint8_t*>(mori_shmem_malloc(bytes));
  auto* src = static_cast<uint8_t*>(mori_shmem_malloc(bytes));
  auto* sig = static_cast<uint64_t*>(mori_shmem_malloc(sizeof(uint64_t)));
  ASSERT_TRUE(dst && src && sig);
  unsigned long long* result = nullptr;
  HIP_OK(hipMalloc(&result, 2 * sizeof(unsigned long long)));
  HIP_OK(hipMemset(result, 0, 2 * sizeof(unsigned long long)));
  HIP_OK(hipMemset(sig, 0, sizeof(uint64_t)));
  HIP_OK(hipMemset(dst, 0, bytes));
  fill(src, bytes, seed, me);
  HIP_OK(hipDeviceSynchronize());
  hipStream_t recvStream, sendStream;
  HIP_OK(hipStreamCreateWithFlags(&recvStream, hipStreamNonBlocking));
  HIP_OK(hipStreamCreateWithFlags(&sendStream, hipStreamNonBlocking));
  MPI_Barrier(MPI_COMM_WORLD);  // the host's barrier: no kernel runs before the receiver

  receiver<<<1, 32, 0, recvStream>>>(sig, result);
  HIP_OK(hipGetLastError());
  sender<<<4, 1024, 0, sendStream>>>(dst, src, bytes, sig, peer);
  HIP_OK(hipGetLastError());
  HIP_OK(hipStreamSynchronize(sendStream));
  HIP_OK(hipStreamSynchronize(recvStream));

  unsigned long long h[2] = {0, 0};
  HIP_OK(hipMemcpy(h, result, sizeof(h), hipMemcpyDeviceToHost));
  const double waitedS = static_cast<double>(h[1]) / static_cast<double>(g::kWallClockHz);
  EXPECT_EQ(h[0], 1ull) << "PE " << me << ": the receiver, launched before this PE's sender, did not see PE " << peer
                        << "'s signal within " << kWaitNs / 1e9 << " s (sender stack " << sendAttr.localSizeBytes
                        << " B, receiver " << recvAttr.localSizeBytes << " B): PE " << peer
                        << "'s sender waited for its receiver to end";
  EXPECT_LT(waitedS, 5.0) << "PE " << me << ": the signal came after " << waitedS << " s";
  MPI_Barrier(MPI_COMM_WORLD);
  const CheckResult r = checkAll(dst, bytes, seed, peer);
  EXPECT_EQ(r.mismatches, 0ull) << "PE " << me << ": data from PE " << peer << ": " << describe(r);
  HIP_OK(hipStreamDestroy(recvStream));
  HIP_OK(hipStreamDestroy(sendStream));
  HIP_OK(hipFree(result));
  mori_shmem_free(sig);
  mori_shmem_free(src);
  mori_shmem_free(dst);
}

}  // namespace
