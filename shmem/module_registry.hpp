// The GPU modules that include the device API, each with the binder that copies GpuStates into
// its own __constant__ state (mori/shmem/impl/module_binding.hpp).
#pragma once

#include "mori/shmem/device_host/gpu_states.hpp"
#include "src/common/status.hpp"

namespace mori::shmem {

// Binds `states` into every registered module and remembers it for modules registered later.
Status bindAllModules(const GpuStates& states);
// Clears every module's state (device calls then trap as "not initialised").
void unbindAllModules();

}  // namespace mori::shmem
