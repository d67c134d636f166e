#include "transport/p2p/ipc_handles.hpp"

#include <string.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "src/common/gpu_check.hpp"
#include "src/platform_host/gpu_context.hpp"

namespace mori::p2p {

Status exportRange(void* ptr, uint64_t size, IpcExport* out) {
  memset(out, 0, sizeof(*out));
  uint64_t base = 0, allocSize = 0;
  MORI_TRY(platform::allocationRange(ptr, &base, &allocSize));
  const uint64_t addr = reinterpret_cast<uint64_t>(ptr);
  if (addr + size > base + allocSize)
    return MORI_FAIL(Status::InvalidUsage, log::kP2P,
                     "range %p + %llu bytes runs past the end of its allocation (%p + %llu bytes)", ptr,
                     static_cast<unsigned long long>(size), reinterpret_cast<void*>(base),
                     static_cast<unsigned long long>(allocSize));
  MORI_HIP_TRY(hipIpcGetMemHandle(&out->handle, reinterpret_cast<void*>(base)), log::kP2P);
  out->address = addr;
  out->offset = addr - base;
  out->size = size;
  return Status::Success;
}

namespace {
// An allocation may back several exported ranges (e.g. two registered buffers carved from one
// framework allocation) but a process may open its IPC handle only once: share the mapping.
struct OpenMapping {
  void* base;
  int refs;
};
std::mutex& cacheMutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, OpenMapping>& cache() {
  static std::map<std::string, OpenMapping> c;
  return c;
}
std::string keyOf(const hipIpcMemHandle_t& h) { return std::string(reinterpret_cast<const char*>(&h), sizeof(h)); }
}  // namespace

Status openRange(const IpcExport& e, int peer, void** mapped, void** mapping) {
  std::lock_guard<std::mutex> lock(cacheMutex());
  auto it = cache().find(keyOf(e.handle));
  if (it != cache().end()) {
    ++it->second.refs;
    *mapping = it->second.base;
    *mapped = static_cast<char*>(it->second.base) + e.offset;
    return Status::Success;
  }
  void* base = nullptr;
  hipError_t err = hipIpcOpenMemHandle(&base, e.handle, hipIpcMemLazyEnablePeerAccess);
  if (err != hipSuccess)
    return MORI_FAIL(Status::System, log::kP2P,
                     "cannot map PE %d's GPU memory (hipIpcOpenMemHandle: %s: %s); set MORI_SHMEM_DISABLE_P2P=1 to "
                     "reach it over RDMA instead",
                     peer, hipGetErrorName(err), hipGetErrorString(err));
  cache()[keyOf(e.handle)] = OpenMapping{base, 1};
  *mapping = base;
  *mapped = static_cast<char*>(base) + e.offset;
  return Status::Success;
}

void closeRange(void* mapping) {
  if (!mapping) return;
  std::lock_guard<std::mutex> lock(cacheMutex());
  for (auto it = cache().begin(); it != cache().end(); ++it) {
    if (it->second.base != mapping) continue;
    if (--it->second.refs > 0) return;
    cache().erase(it);
    break;
  }
  hipError_t err = hipIpcCloseMemHandle(mapping);
  if (err != hipSuccess) MORI_LOG_WARN(log::kP2P, "hipIpcCloseMemHandle(%p): %s", mapping, hipGetErrorString(err));
}

}  // namespace mori::p2p
