// Stores to device registers (NIC doorbells mapped into the GPU's address space) and the trap.
// A doorbell store must be a single, uncached, untorn 64-bit write issued after every earlier
// store of the thread is visible system-wide; callers fence first (see rdma doorbell code).
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::gpu {

#if MORI_GPU_COMPILER
MORI_DEVICE_INLINE void mmioStore64(uint64_t* reg, uint64_t v) {
#if MORI_PLATFORM_AMD
  __hip_atomic_store(reg, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
#else
  asm volatile("st.mmio.relaxed.sys.global.b64 [%0], %1;" ::"l"(reg), "l"(v) : "memory");
#endif
}

MORI_DEVICE_INLINE void mmioStore32(uint32_t* reg, uint32_t v) {
#if MORI_PLATFORM_AMD
  __hip_atomic_store(reg, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
#else
  asm volatile("st.mmio.relaxed.sys.global.b32 [%0], %1;" ::"l"(reg), "r"(v) : "memory");
#endif
}

// Stops the kernel; the caller prints why first.
[[noreturn]] MORI_DEVICE_INLINE void trap() {
#if MORI_PLATFORM_AMD
  __builtin_trap();
#else
  __trap();
#endif
  __builtin_unreachable();
}
#endif

}  // namespace mori::gpu
