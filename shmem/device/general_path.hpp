// What every general path of the device library shares: the module's state, and the stop for a
// PE reached by no transport the operation supports.
#pragma once

#include "mori/shmem/impl/address.hpp"
#include "mori/shmem/impl/device_library.hpp"

// The device library's functions that stay calls: its entry points (C names) and the RDMA and
// SDMA operations under them. ROCm before 6.0 defines __noinline__ as nothing
// (hip/amd_detail/host_defines.h), so the attribute is spelled out: without it the inliner merged
// callees into the entry points' frames, and a kernel's scratch is its deepest chain of frames
// (gfx90a: a put-with-signal kernel 1248 bytes instead of 960, docs/DEVICE_API_FOOTPRINT.md).
#define MORI_LIB_NOINLINE __device__ __attribute__((noinline))

namespace mori::shmem::impl {

// The general paths read the state without the bound test: the inline caller made it.
MORI_DEVICE_INLINE const GpuStates& libStates() { return mori_shmem_device_states; }

[[noreturn]] MORI_DEVICE_INLINE void failTransport(const GpuStates& s, int pe, const char* where) {
  device::fail(s, static_cast<uint32_t>(DeviceErrorCode::Unsupported), ErrorSite{pe, -1, 0},
               static_cast<uint64_t>(transportTo(s, pe)), 0, 0, 0, __LINE__, where);
}

}  // namespace mori::shmem::impl
