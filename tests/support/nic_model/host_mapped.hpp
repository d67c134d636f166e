// Host memory the GPU reaches at a device address (pinned, mapped): the NIC model's doorbell
// "registers", per-QP status words and control block. The GPU stores doorbells there with its
// MMIO stores as it would to a NIC page; the model's host thread reads them with plain loads.
#pragma once

#include <stddef.h>

#include "src/common/status.hpp"

namespace mori::test::nicmodel {

class HostMapped {
 public:
  HostMapped() = default;
  ~HostMapped();
  HostMapped(const HostMapped&) = delete;
  HostMapped& operator=(const HostMapped&) = delete;

  // `bytes` of zeroed, pinned host memory mapped for the current device.
  Status create(size_t bytes);

  void* host() const { return host_; }
  void* device() const { return device_; }

 private:
  void* host_ = nullptr;
  void* device_ = nullptr;
};

}  // namespace mori::test::nicmodel
