// Registration of GPU memory with a NIC protection domain: dma-buf first (the GPU driver exports
// the pages, no peer-memory kernel module needed), then classic ibv_reg_mr on the virtual
// address (needs nvidia-peermem / amdgpu peer-direct). A failure names the device, the call, the
// range and errno of each attempt; a NULL ibv_mr is never returned as success.
#pragma once

#include <infiniband/verbs.h>
#include <stddef.h>

#include "src/common/status.hpp"
#include "transport/rdma/core/verbs_loader.hpp"

namespace mori::rdma {

// Access for symmetric-heap memory: peers write, read and apply atomics to it. No relaxed
// ordering: put-with-signal relies on the NIC writing the data before the signal word.
constexpr int kHeapAccess =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

// Registers [ptr, ptr + bytes) of GPU memory. *viaDmabuf (optional) says which path succeeded.
Status registerGpuMemory(const VerbsApi& api, ibv_pd* pd, const char* device, void* ptr, size_t bytes, int access,
                         ibv_mr** out, bool* viaDmabuf = nullptr);
Status deregisterGpuMemory(const VerbsApi& api, const char* device, ibv_mr* mr);

}  // namespace mori::rdma
