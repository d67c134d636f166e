#include "transport/sdma/sdma_plugin.hpp"

#include <dlfcn.h>

#include "src/common/log.hpp"
#include "transport/sdma/kfd_engine.hpp"

namespace mori::sdma {

namespace {

Status openPlugin(int myPe, int hipDevice, const std::string& path, std::unique_ptr<QueueEngine>* out) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return MORI_FAIL(Status::NotSupported, log::kInit, "PE %d: MORI_SHMEM_SDMA_PLUGIN=%s cannot be loaded: %s", myPe,
                     path.c_str(), dlerror());
  const auto iface = reinterpret_cast<SdmaPluginInterfaceFn>(dlsym(lib, "mori_shmem_sdma_plugin_interface"));
  const auto open = reinterpret_cast<SdmaPluginOpenFn>(dlsym(lib, "mori_shmem_sdma_plugin_open"));
  if (!iface || !open)
    return MORI_FAIL(Status::NotSupported, log::kInit,
                     "PE %d: MORI_SHMEM_SDMA_PLUGIN=%s does not export mori_shmem_sdma_plugin_interface and "
                     "mori_shmem_sdma_plugin_open",
                     myPe, path.c_str());
  if (iface() != kSdmaPluginInterface)
    return MORI_FAIL(Status::NotSupported, log::kInit,
                     "PE %d: MORI_SHMEM_SDMA_PLUGIN=%s implements SDMA plugin interface %d, this runtime %d", myPe,
                     path.c_str(), iface(), kSdmaPluginInterface);
  QueueEngine* engine = nullptr;
  const int rc = open(myPe, hipDevice, &engine);
  if (rc != 0 || !engine)
    return MORI_FAIL(rc != 0 ? static_cast<Status>(rc) : Status::Internal, log::kInit,
                     "PE %d: MORI_SHMEM_SDMA_PLUGIN=%s: opening its engines for GPU %d failed (%d)", myPe, path.c_str(),
                     hipDevice, rc);
  out->reset(engine);
  return Status::Success;
}

}  // namespace

Status openQueueEngine(int myPe, int hipDevice, const std::string& pluginPath, std::unique_ptr<QueueEngine>* out) {
  if (!pluginPath.empty()) return openPlugin(myPe, hipDevice, pluginPath, out);
#if MORI_PLATFORM_NVIDIA
  return MORI_FAIL(Status::NotSupported, log::kInit,
                   "PE %d: SDMA engines exist only on AMD GPUs and this is an NVIDIA build (the test-only DMA-engine "
                   "model plays them through MORI_SHMEM_SDMA_PLUGIN: docs/SDMA.md)",
                   myPe);
#else
  return openKfdEngine(myPe, hipDevice, out);
#endif
}

}  // namespace mori::sdma
