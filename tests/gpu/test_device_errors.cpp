// Misuse of the device API stops the kernel with a message naming what/where, never a hang or a
// silent wrong answer. Each case poisons the GPU context, so ctest runs each in its own process
// (--gtest_filter) and also requires the device's own message in the output.
// Built with MORI_SHMEM_CHECKS=1 (argument checks on). The element cases report from the
// operations' inline fast path (PE) and from their out-of-line general path (address).
#include <string>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(1, 1);

namespace {

__global__ void putKernel(void* dest, const void* src, size_t bytes, int pe) {
  mori_shmem_putmem_nbi_thread(dest, src, bytes, pe);
}
__global__ void pKernel(uint64_t* dest, int pe) { mori_shmem_uint64_p(dest, 7, pe); }
__global__ void fetchAddKernel(uint64_t* dest, int pe) { (void)mori_shmem_uint64_atomic_fetch_add(dest, 1, pe); }
__global__ void iputKernel(uint64_t* dest, const uint64_t* src, ptrdiff_t dst, int pe) {
  mori_shmem_uint64_iput_thread(dest, src, dst, 1, 2, pe);
}

// Waits for a kernel that should have stopped and returns the recorded device error.
std::string deviceError() {
  hipError_t e = hipDeviceSynchronize();
  EXPECT_NE(e, hipSuccess) << "the kernel should have stopped";
  char msg[512] = "";
  EXPECT_EQ(mori_shmem_device_error(msg, sizeof(msg)), 1) << "no device error recorded";
  return msg;
}

// Launches putKernel, expects the launch to fail, and returns the recorded device error.
std::string expectDeviceError(void* dest, const void* src, size_t bytes, int pe) {
  putKernel<<<1, 1>>>(dest, src, bytes, pe);
  EXPECT_EQ(hipGetLastError(), hipSuccess) << "kernel launch";
  return deviceError();
}

std::string addressOf(const void* p) {
  char addr[32];
  snprintf(addr, sizeof(addr), "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
  return addr;
}

TEST(DeviceErrors, PeOutOfRange) {
  ASSERT_EQ(mori_shmem_init(), 0);
  char* buf = static_cast<char*>(mori_shmem_malloc(256));
  const int bad = mori_shmem_n_pes() + 2;
  std::string msg = expectDeviceError(buf, buf + 128, 64, bad);
  EXPECT_NE(msg.find("PE " + std::to_string(bad) + " is out of range"), std::string::npos) << msg;
  EXPECT_NE(msg.find("PE 0:"), std::string::npos) << "must name the reporting PE: " << msg;
  if (!HasFailure()) printf("DEVICE-ERROR-CHECK-PASSED\n");
}

TEST(DeviceErrors, DestinationNotSymmetric) {
  ASSERT_EQ(mori_shmem_init(), 0);
  char* heap = static_cast<char*>(mori_shmem_malloc(256));
  char* plain = nullptr;
  HIP_OK(hipMalloc(&plain, 256));
  std::string msg = expectDeviceError(plain, heap, 64, 0);
  EXPECT_NE(msg.find("not in the symmetric heap or a registered region"), std::string::npos) << msg;
  EXPECT_NE(msg.find(addressOf(plain)), std::string::npos)
      << "must name the address " << addressOf(plain) << ": " << msg;
  if (!HasFailure()) printf("DEVICE-ERROR-CHECK-PASSED\n");
}

TEST(DeviceErrors, ElementNotSymmetric) {
  ASSERT_EQ(mori_shmem_init(), 0);
  uint64_t* plain = nullptr;
  HIP_OK(hipMalloc(&plain, 256));
  pKernel<<<1, 1>>>(plain + 3, 0);
  HIP_OK(hipGetLastError());
  std::string msg = deviceError();
  EXPECT_NE(msg.find("not in the symmetric heap or a registered region"), std::string::npos) << msg;
  EXPECT_NE(msg.find(addressOf(plain + 3)), std::string::npos) << "must name the address: " << msg;
  if (!HasFailure()) printf("DEVICE-ERROR-CHECK-PASSED\n");
}

// A stride that walks off the heap: element 0 lands, element 1's address is reported.
TEST(DeviceErrors, StrideLeavesTheHeap) {
  ASSERT_EQ(mori_shmem_init(), 0);
  auto* buf = static_cast<uint64_t*>(mori_shmem_malloc(256));
  const ptrdiff_t dst = ptrdiff_t{1} << 40;  // 8 TiB: past any heap
  iputKernel<<<1, 1>>>(buf, buf + 16, dst, 0);
  HIP_OK(hipGetLastError());
  std::string msg = deviceError();
  EXPECT_NE(msg.find("not in the symmetric heap or a registered region"), std::string::npos) << msg;
  EXPECT_NE(msg.find(addressOf(buf + dst)), std::string::npos) << "must name element 1's address: " << msg;
  if (!HasFailure()) printf("DEVICE-ERROR-CHECK-PASSED\n");
}

TEST(DeviceErrors, AtomicPeOutOfRange) {
  ASSERT_EQ(mori_shmem_init(), 0);
  auto* word = static_cast<uint64_t*>(mori_shmem_calloc(1, sizeof(uint64_t)));
  const int bad = -1;
  fetchAddKernel<<<1, 1>>>(word, bad);
  HIP_OK(hipGetLastError());
  std::string msg = deviceError();
  EXPECT_NE(msg.find("PE " + std::to_string(bad) + " is out of range"), std::string::npos) << msg;
  if (!HasFailure()) printf("DEVICE-ERROR-CHECK-PASSED\n");
}

TEST(DeviceErrors, ObjectOverrunsItsRegion) {
  ASSERT_EQ(mori_shmem_init(), 0);
  // 64 bytes starting 16 bytes before the end of a 1 MiB registered buffer.
  char* base = nullptr;
  HIP_OK(hipMalloc(&base, 1 << 20));
  ASSERT_EQ(mori_shmem_register(base, 1 << 20), 0);
  char* heap = static_cast<char*>(mori_shmem_malloc(256));
  std::string msg = expectDeviceError(base + (1 << 20) - 16, heap, 64, 0);
  EXPECT_NE(msg.find("+64 bytes"), std::string::npos) << msg;
  if (!HasFailure()) printf("DEVICE-ERROR-CHECK-PASSED\n");
}

TEST(DeviceErrors, UsedWithoutInit) {
  // No mori_shmem_init in this process: the module's state was never bound.
  char* buf = nullptr;
  HIP_OK(hipMalloc(&buf, 256));
  putKernel<<<1, 1>>>(buf, buf + 128, 64, 0);
  HIP_OK(hipGetLastError());
  EXPECT_NE(hipDeviceSynchronize(), hipSuccess) << "a device call without init must stop the kernel";
  if (!HasFailure()) printf("DEVICE-ERROR-CHECK-PASSED\n");
}

}  // namespace
