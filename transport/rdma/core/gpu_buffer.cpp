#include "transport/rdma/core/gpu_buffer.hpp"

#include <utility>

#include "mori/platform/gpu_runtime.hpp"
#include "src/platform_host/gpu_queue_memory.hpp"

namespace mori::rdma {

GpuBuffer::~GpuBuffer() { platform::freeQueueMemory(raw_); }

GpuBuffer::GpuBuffer(GpuBuffer&& other) noexcept
    : raw_(std::exchange(other.raw_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

GpuBuffer& GpuBuffer::operator=(GpuBuffer&& other) noexcept {
  if (this != &other) {
    platform::freeQueueMemory(raw_);
    raw_ = std::exchange(other.raw_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Status GpuBuffer::create(size_t bytes, size_t pageBytes, GpuBuffer* out) {
  if (bytes == 0 || bytes % pageBytes != 0)
    return MORI_FAIL(Status::Internal, log::kRdma, "GpuBuffer::create(%zu bytes): not a multiple of the %zu-byte page",
                     bytes, pageBytes);
  // One extra page lets the buffer start on a page boundary whatever the allocator's alignment.
  void* raw = nullptr;
  MORI_TRY(platform::allocQueueMemory(bytes + pageBytes, &raw));
  GpuBuffer b;
  b.raw_ = raw;
  b.data_ =
      reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(raw) + pageBytes - 1) & ~(uintptr_t{pageBytes} - 1));
  b.bytes_ = bytes;
  *out = std::move(b);
  return Status::Success;
}

Status GpuBuffer::upload(size_t offset, const void* src, size_t n) const {
  if (offset + n > bytes_)
    return MORI_FAIL(Status::Internal, log::kRdma, "GpuBuffer::upload: %zu bytes at %zu overrun a %zu-byte buffer", n,
                     offset, bytes_);
  hipError_t e = hipMemcpy(data_ + offset, src, n, hipMemcpyHostToDevice);
  if (e != hipSuccess)
    return MORI_FAIL(Status::System, log::kRdma, "hipMemcpy(%p, %zu bytes, HostToDevice) failed: %s (%s)",
                     static_cast<void*>(data_ + offset), n, hipGetErrorName(e), hipGetErrorString(e));
  return Status::Success;
}

}  // namespace mori::rdma
