#include "shmem/module_registry.hpp"

#include <string.h>

#include <mutex>
#include <vector>

#include "mori/shmem/impl/device_library.hpp"
#include "src/common/log.hpp"

namespace mori::shmem {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<mori_shmemi_module_binder_t> modules;
  bool bound = false;
  GpuStates states{};
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: modules unregister during exit
  return *r;
}

int bindOne(mori_shmemi_module_binder_t bind, const GpuStates& s, size_t index) {
  const int err = bind(&s, sizeof(s));
  if (err != 0)
    MORI_LOG_WARN(log::kInit,
                  "could not bind the device state into GPU module #%zu (runtime error %d): kernels of that module "
                  "that use the device API will stop with 'not bound' (was it built for this GPU's architecture?)",
                  index, err);
  return err;
}

}  // namespace

Status bindAllModules(const GpuStates& states) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.states = states;
  r.bound = true;
  size_t failed = 0;
  for (size_t i = 0; i < r.modules.size(); ++i) failed += bindOne(r.modules[i], states, i) != 0;
  MORI_LOG_DEBUG(log::kInit, "bound device state into %zu GPU module(s), %zu failed", r.modules.size(), failed);
  return Status::Success;
}

void unbindAllModules() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  GpuStates zero;
  memset(&zero, 0, sizeof(zero));
  for (auto bind : r.modules) (void)bind(&zero, sizeof(zero));
  r.bound = false;
}

}  // namespace mori::shmem

extern "C" __attribute__((visibility("default"))) int mori_shmemi_register_module(mori_shmemi_module_binder_t bind,
                                                                                  uint32_t abiVersion,
                                                                                  size_t statesBytes) {
  using namespace mori::shmem;
  if (abiVersion != kDeviceAbiVersion || statesBytes != sizeof(GpuStates)) {
    MORI_LOG_ERROR(mori::log::kInit,
                   "a GPU module was compiled against mori-shmem device ABI %u (%zu-byte state) but this runtime has "
                   "ABI %u (%zu bytes): rebuild it against the installed headers",
                   abiVersion, statesBytes, kDeviceAbiVersion, sizeof(GpuStates));
    return MORI_SHMEM_ERROR_INVALID_USAGE;
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.modules.push_back(bind);
  if (r.bound) bindOne(bind, r.states, r.modules.size() - 1);
  return MORI_SHMEM_SUCCESS;
}

extern "C" __attribute__((visibility("default"))) void mori_shmemi_unregister_module(mori_shmemi_module_binder_t bind) {
  using namespace mori::shmem;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.modules.begin(); it != r.modules.end(); ++it)
    if (*it == bind) {
      r.modules.erase(it);
      return;
    }
}
