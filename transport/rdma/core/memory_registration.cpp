#include "transport/rdma/core/memory_registration.hpp"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "src/platform_host/gpu_memory_export.hpp"

namespace mori::rdma {

Status registerGpuMemory(const VerbsApi& api, ibv_pd* pd, const char* device, void* ptr, size_t bytes, int access,
                         ibv_mr** out, bool* viaDmabuf) {
  if (!ptr || bytes == 0)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "register %p (%zu bytes) with %s: null or empty range", ptr,
                     bytes, device);
  std::string dmabufNote;
  if (!api.regDmabufMr) {
    dmabufNote = "libibverbs has no ibv_reg_dmabuf_mr";
  } else {
    int fd = -1;
    uint64_t offset = 0;
    Status s = platform::exportDmabuf(ptr, bytes, &fd, &offset);
    if (!ok(s)) {
      dmabufNote = "the GPU driver exported no dma-buf";
    } else {
      errno = 0;
      ibv_mr* mr = api.regDmabufMr(pd, offset, bytes, reinterpret_cast<uintptr_t>(ptr), fd, access);
      const int err = errno;
      close(fd);  // the MR holds its own reference to the dma-buf
      if (mr) {
        *out = mr;
        if (viaDmabuf) *viaDmabuf = true;
        MORI_LOG_DEBUG(log::kMem, "%s: registered %p (%zu bytes) via dma-buf: lkey 0x%x rkey 0x%x", device, ptr, bytes,
                       mr->lkey, mr->rkey);
        return Status::Success;
      }
      dmabufNote = std::string("ibv_reg_dmabuf_mr failed: ") + strerror(err);
      MORI_LOG_INFO(log::kMem, "ibv_reg_dmabuf_mr(%s, %p, %zu bytes, offset %llu) failed: %s; trying ibv_reg_mr",
                    device, ptr, bytes, static_cast<unsigned long long>(offset), strerror(err));
    }
  }
  errno = 0;
  ibv_mr* mr = api.regMr(pd, ptr, bytes, access);
  const int err = errno;
  if (!mr)
    return MORI_FAIL(Status::System, log::kMem,
                     "ibv_reg_mr(%s, %p, %zu bytes) failed: %s (errno %d); dma-buf path: %s. GPU memory needs a "
                     "dma-buf capable GPU driver and kernel, or the peer-memory module (nvidia-peermem / amdgpu "
                     "peer-direct)",
                     device, ptr, bytes, err ? strerror(err) : "no errno", err, dmabufNote.c_str());
  *out = mr;
  if (viaDmabuf) *viaDmabuf = false;
  MORI_LOG_DEBUG(log::kMem, "%s: registered %p (%zu bytes) via ibv_reg_mr (%s): lkey 0x%x rkey 0x%x", device, ptr,
                 bytes, dmabufNote.c_str(), mr->lkey, mr->rkey);
  return Status::Success;
}

Status deregisterGpuMemory(const VerbsApi& api, const char* device, ibv_mr* mr) {
  if (!mr) return Status::Success;
  void* addr = mr->addr;
  int rc = api.deregMr(mr);
  if (rc != 0)
    return MORI_FAIL(Status::System, log::kMem, "ibv_dereg_mr(%s, %p) failed: %s", device, addr, strerror(rc));
  return Status::Success;
}

}  // namespace mori::rdma
