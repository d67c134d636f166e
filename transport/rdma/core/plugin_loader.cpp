#include "transport/rdma/core/plugin_loader.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

namespace mori::rdma {
namespace {

bool isStatusCode(int rc) { return rc <= MORI_SHMEM_SUCCESS && rc >= MORI_SHMEM_ERROR_INTERNAL; }

}  // namespace

Status openPluginDevice(const std::string& path, bootstrap::Bootstrap& boot, const env::Config& cfg,
                        std::unique_ptr<Device>* out) {
  const char* p = path.c_str();
  struct stat st;
  if (stat(p, &st) != 0) {
    const int err = errno;
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: cannot use the plugin: %s", p,
                     strerror(err));
  }
  dlerror();
  // Kept loaded for the life of the process: the Device's code and vtable live in it.
  void* lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: dlopen failed: %s", p,
                     e ? e : "unknown error");
  }
  auto open = reinterpret_cast<PluginOpenFn>(dlsym(lib, kPluginOpenSymbol));
  if (!open)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_RDMA_PLUGIN=%s: the library exports no %s: it is not a mori-shmem RDMA plugin", p,
                     kPluginOpenSymbol);
  const int* version = static_cast<const int*>(dlsym(lib, kPluginVersionSymbol));
  if (version && *version != kPluginInterfaceVersion)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_RDMA_PLUGIN=%s: the plugin implements RDMA plugin interface version %d, this runtime "
                     "needs version %d: rebuild the plugin against this mori-shmem",
                     p, *version, kPluginInterfaceVersion);
  Device* dev = nullptr;
  const int rc = open(kPluginInterfaceVersion, &boot, &cfg, &dev);
  if (rc != MORI_SHMEM_SUCCESS) {
    delete dev;
    const Status s = isStatusCode(rc) ? static_cast<Status>(rc) : Status::Internal;
    return MORI_FAIL(s, log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: %s(version %d) returned %d (%s)%s", p,
                     kPluginOpenSymbol, kPluginInterfaceVersion, rc, mori_shmem_status_string(rc),
                     version ? "" : "; the plugin exports no interface version, it may implement another one");
  }
  if (!dev)
    return MORI_FAIL(Status::Internal, log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: %s succeeded but returned no device", p,
                     kPluginOpenSymbol);
  out->reset(dev);
  MORI_LOG_INFO(log::kRdma, "RDMA provider plugin %s: device %s", p, dev->name());
  return Status::Success;
}

}  // namespace mori::rdma
