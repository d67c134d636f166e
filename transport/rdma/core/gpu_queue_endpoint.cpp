#include "transport/rdma/core/gpu_queue_endpoint.hpp"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "mori/transport/rdma/providers/provider.hpp"
#include "src/platform_host/gpu_memory_export.hpp"
#include "transport/rdma/core/memory_registration.hpp"

namespace mori::rdma {

GpuQueueEndpoint::~GpuQueueEndpoint() {
  if (atomicMr_) (void)deregisterGpuMemory(verbs_.api(), verbs_.name(), atomicMr_);
  unmapDoorbell();
}

Status GpuQueueEndpoint::create() {
  const Provider provider = verbs_.provider();
  MORI_TRY(validateQpDepth(cfg_.sqDepth, "MORI_SHMEM_QP_DEPTH"));
  MORI_TRY(checkDeviceLimits());
  MORI_TRY(allocateQueueMemory());
  MORI_TRY(registerGpuMemory(verbs_.api(), verbs_.pd(), verbs_.name(), buf_.data() + layout_.atomicOffset,
                             layout_.atomicBytes, IBV_ACCESS_LOCAL_WRITE, &atomicMr_));
  MORI_TRY(createQueues());

  uint8_t* base = buf_.data();
  handle_.provider = provider;
  handle_.atomicResults = reinterpret_cast<uint64_t*>(base + layout_.atomicOffset);
  handle_.slotState = reinterpret_cast<uint32_t*>(base + layout_.slotStateOffset);
  handle_.atomicLkey = atomicMr_->lkey;
  handle_.state = reinterpret_cast<EndpointState*>(base + layout_.stateOffset);
  handle_.peer = cfg_.peer;
  handle_.qpIndex = cfg_.qpIndex;
  local_ = verbs_.wireInfo(handle_.qpn);
  MORI_LOG_DEBUG(log::kRdma, "%s: QP 0x%x (CQ 0x%x) for PE %d #%u: SQ %u, CQ %u entries, %zu bytes of GPU memory%s%s",
                 verbs_.name(), handle_.qpn, handle_.cqn, cfg_.peer, cfg_.qpIndex, handle_.sqDepth, handle_.cqDepth,
                 deviceMemoryBytes(), umemPath_ ? ", umem via " : "", umemPath_ ? umemPath_ : "");
  return Status::Success;
}

Status GpuQueueEndpoint::allocateQueueMemory() {
  const Provider provider = verbs_.provider();
  MORI_TRY(endpointLayout(provider, cfg_.sqDepth, verbs_.pageBytes(), &layout_));
  MORI_TRY(GpuBuffer::create(layout_.allocBytes, verbs_.pageBytes(), &buf_));
  if (layout_.queuesFromProvider) return Status::Success;
  std::vector<uint8_t> cqImage(layout_.cqBytes);
  withProvider(provider, [&](auto format) {
    decltype(format)::initCompletionQueue(cqImage.data(), layout_.cqDepth);
    return 0;
  });
  MORI_TRY(buf_.upload(layout_.cqOffset, cqImage.data(), cqImage.size()));
  handle_.sq = buf_.data() + layout_.sqOffset;
  handle_.sqDepth = layout_.sqDepth;
  handle_.sqSlotShift = layout_.sqSlotShift;
  handle_.cq = buf_.data() + layout_.cqOffset;
  handle_.cqDepth = layout_.cqDepth;
  return Status::Success;
}

Status GpuQueueEndpoint::connect(const EndpointWireInfo& remote) {
  if (connected_)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "%s QP 0x%x (PE %d #%u) is already connected", verbs_.name(),
                     handle_.qpn, cfg_.peer, cfg_.qpIndex);
  int mtu = 0;
  MORI_TRY(verbs_.checkRemote(remote, handle_.qpn, &mtu));
  MORI_TRY(connectQueuePair(remote, mtu));
  connected_ = true;
  return Status::Success;
}

Status GpuQueueEndpoint::registerQueueUmem(const char* dmabufCall, const char* vaCall, const char* noDmabuf,
                                           const UmemRegFn& reg, void** umem) {
  const char* dev = verbs_.name();
  std::string dmabufNote = dmabufCall ? "the GPU driver exported no dma-buf" : noDmabuf;
  int fd = -1;
  uint64_t offset = 0;
  if (dmabufCall && ok(platform::exportDmabuf(buf_.data(), buf_.size(), &fd, &offset))) {
    errno = 0;
    *umem = reg(fd, offset);
    const int err = errno;
    close(fd);  // the umem holds its own reference to the dma-buf
    if (*umem) {
      umemPath_ = "dma-buf";
      return Status::Success;
    }
    dmabufNote = std::string(dmabufCall) + "(dma-buf) failed: " + (err ? strerror(err) : "no errno");
    MORI_LOG_INFO(log::kRdma, "%s: %s; trying %s on the virtual address", dev, dmabufNote.c_str(), vaCall);
  }
  errno = 0;
  *umem = reg(-1, 0);
  if (!*umem) {
    const int err = errno;
    return MORI_FAIL(Status::System, log::kRdma, "%s(%s, %p, %zu bytes of GPU memory) failed: %s; dma-buf path: %s",
                     vaCall, dev, static_cast<void*>(buf_.data()), buf_.size(), err ? strerror(err) : "no errno",
                     dmabufNote.c_str());
  }
  umemPath_ = "virtual address";
  return Status::Success;
}

Status GpuQueueEndpoint::mapDoorbell(void* mmio, size_t bytes) {
  MORI_TRY(platform::mapMmioForGpu(mmio, bytes, &doorbellGpu_));
  doorbellHost_ = mmio;
  return Status::Success;
}

void GpuQueueEndpoint::unmapDoorbell() {
  if (doorbellHost_) (void)platform::unmapMmioForGpu(doorbellHost_);
  doorbellHost_ = nullptr;
  doorbellGpu_ = nullptr;
}

}  // namespace mori::rdma
