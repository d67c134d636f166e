// The GPU-platform helpers the RDMA host code relies on, on a real GPU (skipped without one):
// queue buffers are page-aligned and zeroed, device memory exports as a dma-buf at the right
// offset, and MMIO mappings are reference counted per page.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "src/platform_host/gpu_memory_export.hpp"
#include "tests/support/test_env.hpp"
#include "transport/rdma/core/gpu_buffer.hpp"

using mori::Status;
namespace platform = mori::platform;
namespace rdma = mori::rdma;

MORI_TEST_REQUIRES_GPU(1, 0)

TEST(RdmaGpuMemory, QueueBufferIsPageAlignedAndZeroed) {
  rdma::GpuBuffer b;
  ASSERT_EQ(rdma::GpuBuffer::create(3 * 4096, 4096, &b), Status::Success);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 4096, 0u);
  std::vector<uint8_t> host(b.size(), 0xaa);
  ASSERT_EQ(hipMemcpy(host.data(), b.data(), b.size(), hipMemcpyDeviceToHost), hipSuccess);
  for (size_t i = 0; i < host.size(); ++i) ASSERT_EQ(host[i], 0) << "byte " << i;
  const uint8_t pattern[4] = {1, 2, 3, 4};
  ASSERT_EQ(b.upload(4096 + 8, pattern, sizeof(pattern)), Status::Success);
  ASSERT_EQ(hipMemcpy(host.data(), b.data(), b.size(), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(host[4096 + 8], 1);
  EXPECT_EQ(host[4096 + 11], 4);
  testing::internal::CaptureStderr();
  EXPECT_NE(b.upload(b.size() - 2, pattern, sizeof(pattern)), Status::Success);  // overrun refused
  testing::internal::GetCapturedStderr();
}

TEST(RdmaGpuMemory, DmabufExportGivesTheOffsetOfThePointer) {
  rdma::GpuBuffer b;
  ASSERT_EQ(rdma::GpuBuffer::create(16 * 4096, 4096, &b), Status::Success);
  int fd = -1;
  uint64_t offset = 99;
  Status s = platform::exportDmabuf(b.data(), b.size(), &fd, &offset);
  if (s == Status::NotSupported) GTEST_SKIP() << "this GPU driver exports no dma-buf (see the INFO log)";
  ASSERT_EQ(s, Status::Success);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(offset, 0u);
  off_t end = lseek(fd, 0, SEEK_END);  // a dma-buf reports its size this way
  EXPECT_GE(end, static_cast<off_t>(b.size()));
  close(fd);

  // A pointer inside a page: the export widens to whole pages and reports where the pointer is.
  ASSERT_EQ(platform::exportDmabuf(b.data() + 4096 + 256, 1000, &fd, &offset), Status::Success);
  EXPECT_EQ(offset, 256u);
  close(fd);
  printf("  dma-buf export of GPU memory works here\n");

  testing::internal::CaptureStderr();
  EXPECT_EQ(platform::exportDmabuf(nullptr, 16, &fd, &offset), Status::InvalidUsage);
  testing::internal::GetCapturedStderr();
}

TEST(RdmaGpuMemory, MmioMappingIsCountedPerPage) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* host = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(host, MAP_FAILED);
  void* d0 = nullptr;
  void* d1 = nullptr;
  testing::internal::CaptureStderr();
  Status s = platform::mapMmioForGpu(static_cast<char*>(host) + 8, 8, &d0);
  std::string err = testing::internal::GetCapturedStderr();
  if (s != Status::Success) {
    munmap(host, page);
    GTEST_SKIP() << "the runtime maps only real device registers as I/O memory: " << err;
  }
  ASSERT_EQ(platform::mapMmioForGpu(static_cast<char*>(host) + 64, 8, &d1), Status::Success);
  EXPECT_EQ(static_cast<char*>(d1) - static_cast<char*>(d0), 56);
  EXPECT_EQ(platform::unmapMmioForGpu(static_cast<char*>(host) + 64), Status::Success);
  EXPECT_EQ(platform::unmapMmioForGpu(static_cast<char*>(host) + 8), Status::Success);
  testing::internal::CaptureStderr();
  EXPECT_EQ(platform::unmapMmioForGpu(host), Status::InvalidUsage);  // already gone
  testing::internal::GetCapturedStderr();
  munmap(host, page);
}
