// One page-aligned, zeroed device allocation holding an endpoint's queues (see
// endpoint_layout.hpp). Page alignment lets the whole buffer be exported as a dma-buf and
// registered as one NIC umem / memory region.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "src/common/status.hpp"

namespace mori::rdma {

class GpuBuffer {
 public:
  GpuBuffer() = default;
  ~GpuBuffer();
  GpuBuffer(GpuBuffer&& other) noexcept;
  GpuBuffer& operator=(GpuBuffer&& other) noexcept;
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;

  // `bytes` (a multiple of `pageBytes`) of zeroed queue memory starting on a `pageBytes` boundary.
  static Status create(size_t bytes, size_t pageBytes, GpuBuffer* out);

  uint8_t* data() const { return data_; }
  size_t size() const { return bytes_; }
  // Copies host bytes to data() + offset.
  Status upload(size_t offset, const void* src, size_t n) const;

 private:
  void* raw_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace mori::rdma
