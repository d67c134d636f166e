#include "transport/sdma/kfd_engine.hpp"

#include <stdio.h>
#include <string.h>

#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/log.hpp"
#include "transport/sdma/hsakmt_loader.hpp"

namespace mori::sdma {
namespace {

uint32_t readU32(const std::vector<unsigned char>& props, size_t off) {
  uint32_t v;
  memcpy(&v, props.data() + off, sizeof(v));
  return v;
}

class KfdEngine final : public QueueEngine {
 public:
  KfdEngine(const HsakmtApi* api, uint32_t node, EngineInventory inv) : api_(api), node_(node), inv_(std::move(inv)) {}
  ~KfdEngine() override { api_->closeKfd(); }

  EngineInventory inventory() const override { return inv_; }

  Status create(const QueueRequest& r, QueueHandles* out) override {
    if (r.firstOffset != 0)
      return MORI_FAIL(Status::NotSupported, log::kInit,
                       "PE %d: SDMA queue %u to PE %d: KFD queues start at ring offset 0, not %llu", r.myPe,
                       r.queueIndex, r.peer, static_cast<unsigned long long>(r.firstOffset));
    kmt::QueueResource res{};
    kmt::Status s;
    const char* call;
    if (r.queueType == kmt::kQueueSdmaByEngineId) {
      call = "hsaKmtCreateQueueExt(SDMA_BY_ENG_ID)";
      s = api_->createQueueExt(node_, r.queueType, 100, kmt::kPriorityNormal, r.engineId, r.ring, r.ringBytes, nullptr,
                               &res);
    } else {
      call = r.queueType == kmt::kQueueSdmaXgmi ? "hsaKmtCreateQueue(SDMA_XGMI)" : "hsaKmtCreateQueue(SDMA)";
      s = api_->createQueue(node_, r.queueType, 100, kmt::kPriorityNormal, r.ring, r.ringBytes, nullptr, &res);
    }
    if (s != kmt::kSuccess)
      return MORI_FAIL(
          Status::System, log::kInit,
          "PE %d: SDMA queue %u to PE %d: %s on KFD node %u (engine %u, ring %p, %llu bytes) failed: %s (%d)", r.myPe,
          r.queueIndex, r.peer, call, node_, r.engineId, r.ring, static_cast<unsigned long long>(r.ringBytes),
          kmt::statusName(s), s);
    if (res.doorbell == nullptr || res.readPtr == nullptr || res.writePtr == nullptr) {
      api_->destroyQueue(res.queueId);
      return MORI_FAIL(Status::Internal, log::kInit,
                       "PE %d: SDMA queue %u to PE %d: %s returned no doorbell/read/write pointer (%p/%p/%p)", r.myPe,
                       r.queueIndex, r.peer, call, static_cast<void*>(res.doorbell), static_cast<void*>(res.readPtr),
                       static_cast<void*>(res.writePtr));
    }
    // libhsakmt maps the doorbell page into the GPU's address space at its CPU address (dGPUs)
    // and keeps the read/write pointers in GPU-mapped host memory, so GPU threads use them as is.
    out->readPtr = res.readPtr;
    out->writePtr = res.writePtr;
    out->doorbell = res.doorbell;
    out->id = res.queueId;
    out->engine = r.queueType == kmt::kQueueSdmaByEngineId ? r.engineId : ~0u;
    return Status::Success;
  }

  Status destroy(const QueueRequest& r, const QueueHandles& h) override {
    const kmt::Status s = api_->destroyQueue(h.id);
    if (s != kmt::kSuccess)
      return MORI_FAIL(Status::System, log::kInit, "PE %d: SDMA queue %u to PE %d: hsaKmtDestroyQueue failed: %s (%d)",
                       r.myPe, r.queueIndex, r.peer, kmt::statusName(s), s);
    return Status::Success;
  }

 private:
  const HsakmtApi* api_;
  uint32_t node_;
  EngineInventory inv_;
};

}  // namespace

int matchKfdNode(const char* busId, const KfdNodeLocation* nodes, int nNodes) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (busId == nullptr || sscanf(busId, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4 || bus > 0xFF || dev > 0x1F ||
      fn > 7)
    return -1;
  const uint32_t location = bus << 8 | dev << 3 | fn;
  for (int i = 0; i < nNodes; ++i)
    if (nodes[i].isGpu && nodes[i].locationId == location && nodes[i].domain == domain) return i;
  return -1;
}

Status openKfdEngine(int myPe, int hipDevice, std::unique_ptr<QueueEngine>* out, const char* soname) {
  std::string why;
  const HsakmtApi* api = soname ? loadHsakmt(&why, soname) : loadHsakmt(&why);
  if (api == nullptr)
    return MORI_FAIL(Status::NotSupported, log::kInit, "PE %d: SDMA transport unavailable: %s", myPe, why.c_str());
  kmt::Status s = api->openKfd();
  if (s != kmt::kSuccess)
    return MORI_FAIL(Status::System, log::kInit,
                     "PE %d: SDMA transport: hsaKmtOpenKFD failed: %s (%d) (is /dev/kfd present and accessible?)", myPe,
                     kmt::statusName(s), s);
  kmt::SystemProperties sys{};
  s = api->acquireSystemProperties(&sys);
  if (s != kmt::kSuccess) {
    api->closeKfd();
    return MORI_FAIL(Status::System, log::kInit, "PE %d: SDMA transport: hsaKmtAcquireSystemProperties failed: %s (%d)",
                     myPe, kmt::statusName(s), s);
  }
  std::vector<KfdNodeLocation> nodes(sys.numNodes);
  std::vector<std::vector<unsigned char>> props(sys.numNodes, std::vector<unsigned char>(kmt::kNodePropertiesBytes));
  for (uint32_t n = 0; n < sys.numNodes; ++n) {
    s = api->getNodeProperties(n, props[n].data());
    if (s != kmt::kSuccess) {
      api->releaseSystemProperties();
      api->closeKfd();
      return MORI_FAIL(Status::System, log::kInit,
                       "PE %d: SDMA transport: hsaKmtGetNodeProperties(node %u) failed: %s (%d)", myPe, n,
                       kmt::statusName(s), s);
    }
    nodes[n] = {readU32(props[n], kmt::kNodeDomainOffset), readU32(props[n], kmt::kNodeLocationIdOffset),
                readU32(props[n], kmt::kNodeNumFComputeOffset) != 0};
  }
  api->releaseSystemProperties();
  char busId[32] = {};
  const hipError_t e = hipDeviceGetPCIBusId(busId, sizeof(busId), hipDevice);
  const int node = e == hipSuccess ? matchKfdNode(busId, nodes.data(), static_cast<int>(nodes.size())) : -1;
  if (node < 0) {
    api->closeKfd();
    return MORI_FAIL(Status::NotSupported, log::kInit,
                     "PE %d: SDMA transport: no KFD GPU node at the PCI location of GPU %d (%s) among %u nodes", myPe,
                     hipDevice, e == hipSuccess ? busId : hipGetErrorString(e), sys.numNodes);
  }
  EngineInventory inv;
  inv.pcieEngines = readU32(props[node], kmt::kNodeNumSdmaOffset);
  inv.xgmiEngines = readU32(props[node], kmt::kNodeNumSdmaXgmiOffset);
  inv.engineById = api->createQueueExt != nullptr;
  inv.driver = std::string("KFD node ") + std::to_string(node) + " via " + (soname ? soname : "libhsakmt.so.1");
  *out = std::make_unique<KfdEngine>(api, static_cast<uint32_t>(node), std::move(inv));
  return Status::Success;
}

}  // namespace mori::sdma
