// Device state binding. Each GPU module (translation unit) that includes the device API owns one
// `__constant__ GpuStates` and registers a binder with the host runtime when the module is
// loaded (static constructor). mori_shmem_init copies the state into every registered module;
// mori_shmem_finalize clears it. No relocatable device code is needed: the symbol never crosses
// a module boundary.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mori/shmem/device_host/gpu_states.hpp"

extern "C" {
// Copies `bytes` of GpuStates into the module; returns 0 or the GPU runtime's error code.
typedef int (*mori_shmemi_module_binder_t)(const void* states, size_t bytes);
// Returns 0, or a mori_shmem_status_t when the module's ABI does not match the runtime.
int mori_shmemi_register_module(mori_shmemi_module_binder_t bind, uint32_t abiVersion, size_t statesBytes);
void mori_shmemi_unregister_module(mori_shmemi_module_binder_t bind);
}

#if MORI_GPU_COMPILER
#include "mori/platform/gpu_runtime.hpp"
#include "mori/platform/mmio.hpp"

namespace mori::shmem::impl {
namespace {  // one of each per module, by design

// `static` as well as unnamed: clang 15 (ROCm) otherwise drops the variable and folds its loads
// to zero, so every AMD kernel would trap as "not bound".
static __constant__ GpuStates moduleStates;

int bindModuleStates(const void* states, size_t bytes) {
  return static_cast<int>(hipMemcpyToSymbol(HIP_SYMBOL(moduleStates), states, bytes, 0, hipMemcpyHostToDevice));
}

struct ModuleRegistrar {
  ModuleRegistrar() { mori_shmemi_register_module(&bindModuleStates, kDeviceAbiVersion, sizeof(GpuStates)); }
  ~ModuleRegistrar() { mori_shmemi_unregister_module(&bindModuleStates); }
};
ModuleRegistrar moduleRegistrar;

}  // namespace

[[noreturn]] inline MORI_DEVICE_NOINLINE void failNotInitialized() {
  printf(
      "mori-shmem: device API called in a GPU module that mori_shmem_init() has not bound "
      "(init not called, or already finalized) [block %d thread %d]\n",
      static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  gpu::trap();
}

// The module's state; traps with a message if init never bound this module.
MORI_DEVICE_INLINE const GpuStates& states() {
  if (MORI_UNLIKELY(moduleStates.magic != kGpuStatesMagic)) failNotInitialized();
  return moduleStates;
}

}  // namespace mori::shmem::impl
#endif
