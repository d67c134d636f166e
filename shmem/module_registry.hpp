// The GPU modules that link the device library, each with the binder that copies GpuStates into
// its mori_shmem_device_states (shmem/device/device_states.cpp).
#pragma once

#include "mori/shmem/device_host/gpu_states.hpp"
#include "src/common/status.hpp"

namespace mori::shmem {

// Binds `states` into every registered module and remembers it for modules registered later.
Status bindAllModules(const GpuStates& states);
// Clears every module's state (device calls then trap as "not initialised").
void unbindAllModules();

}  // namespace mori::shmem
