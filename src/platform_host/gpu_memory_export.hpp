// What the RDMA host code needs from the GPU platform to let a NIC and the GPU share memory:
// GPU memory exported as a dma-buf (so the NIC can DMA to it without peer-memory kernel modules)
// and NIC registers (doorbell pages mapped into this process) made reachable by GPU stores.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "src/common/status.hpp"

namespace mori::platform {

// Exports the device memory range [gpuPtr, gpuPtr + bytes) as a dma-buf. On success *fd is a new
// file descriptor the caller closes, and *offset is where gpuPtr lies inside the dma-buf (what
// ibv_reg_dmabuf_mr and mlx5dv_devx_umem_reg_ex take as the start). Returns NotSupported, logging
// why at INFO only, when this driver, runtime or allocation cannot export (callers then fall
// back to registering the virtual address); System for an unexpected runtime failure.
// NVIDIA: cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD), reached through the
// runtime's driver entry point (libcuda is never linked). The exported range is widened to host
// pages, so it must lie inside one allocation once widened. AMD: hsa_amd_portable_export_dmabuf
// (ROCm >= 5.6; looked up at run time in the HSA runtime HIP has loaded).
Status exportDmabuf(void* gpuPtr, size_t bytes, int* fd, uint64_t* offset);

// Maps the host-mapped device registers [hostMmio, hostMmio + bytes) (e.g. an mmap()ed NIC
// doorbell page) for GPU stores and returns the GPU address of hostMmio in *devicePtr. Whole host
// pages are registered; mappings are reference counted per page, so several queues sharing one
// doorbell page may each map and unmap it. Thread-safe.
Status mapMmioForGpu(void* hostMmio, size_t bytes, void** devicePtr);

// Drops one reference taken by mapMmioForGpu(hostMmio, ...); the pages are unregistered with the
// last one. InvalidUsage if hostMmio was not mapped.
Status unmapMmioForGpu(void* hostMmio);

}  // namespace mori::platform
