// The device state of a GPU module and its binder: one of each per program or shared library
// that links libmori_shmem_device.a (the device link resolves every kernel's reference to this
// one definition; the device link's registration of this object makes the host linker keep it,
// and with it the binder). The binder registers with the runtime when the module loads; mori_shmem_init
// copies GpuStates into every registered module, mori_shmem_finalize clears them. A module loaded
// at run time (a JIT's) is bound by copying GpuStates into its mori_shmem_device_states by name.
#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem/impl/device_library.hpp"

extern "C" {
__constant__ mori::shmem::GpuStates mori_shmem_device_states;
}

namespace {

int bindModuleStates(const void* states, size_t bytes) {
  return static_cast<int>(
      hipMemcpyToSymbol(HIP_SYMBOL(mori_shmem_device_states), states, bytes, 0, hipMemcpyHostToDevice));
}

struct ModuleRegistrar {
  ModuleRegistrar() {
    mori_shmemi_register_module(&bindModuleStates, mori::shmem::kDeviceAbiVersion, sizeof(mori::shmem::GpuStates));
  }
  ~ModuleRegistrar() { mori_shmemi_unregister_module(&bindModuleStates); }
};
ModuleRegistrar moduleRegistrar;

}  // namespace
