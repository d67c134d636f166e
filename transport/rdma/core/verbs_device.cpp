#include "transport/rdma/core/verbs_device.hpp"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <vector>

#include "transport/rdma/core/device_discovery.hpp"
#include "transport/rdma/core/device_selection.hpp"
#include "transport/rdma/core/endpoint_layout.hpp"
#include "transport/rdma/core/memory_registration.hpp"

namespace mori::rdma {

VerbsDevice::~VerbsDevice() {
  if (pd_) {
    int rc = api_->deallocPd(pd_);
    if (rc) MORI_LOG_WARN(log::kRdma, "ibv_dealloc_pd(%s) failed: %s", name_.c_str(), strerror(rc));
  }
  if (ctx_) {
    int rc = api_->closeDevice(ctx_);
    if (rc) MORI_LOG_WARN(log::kRdma, "ibv_close_device(%s) failed: %s", name_.c_str(), strerror(errno));
  }
}

Status VerbsDevice::openAndInit(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg) {
  errno = 0;
  ibv_context* ctx = api.openDevice(target.device);
  if (!ctx)
    return MORI_FAIL(Status::System, log::kRdma, "ibv_open_device(%s) failed: %s", target.name.c_str(),
                     strerror(errno ? errno : EIO));
  return init(api, ctx, target, cfg);
}

Status VerbsDevice::init(const VerbsApi& api, ibv_context* ctx, const DeviceTarget& target, const env::Config& cfg) {
  api_ = &api;
  ctx_ = ctx;
  name_ = target.name;
  provider_ = target.provider;
  port_ = target.port;
  config_ = cfg;
  pageBytes_ = std::max<size_t>(kNicPageBytes, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  const char* dev = name_.c_str();
  int rc = api.queryDevice(ctx_, &deviceAttr_);
  if (rc != 0) return MORI_FAIL(Status::System, log::kRdma, "ibv_query_device(%s) failed: %s", dev, strerror(rc));
  rc = queryPort(api, ctx_, static_cast<uint8_t>(port_), &portAttr_);
  if (rc != 0)
    return MORI_FAIL(Status::System, log::kRdma, "ibv_query_port(%s, port %d) failed: %s", dev, port_, strerror(rc));
  // Providers predating link-layer reporting leave it unspecified: those ports are InfiniBand.
  if (portAttr_.link_layer == IBV_LINK_LAYER_UNSPECIFIED) portAttr_.link_layer = IBV_LINK_LAYER_INFINIBAND;
  if (portAttr_.state != IBV_PORT_ACTIVE)
    return MORI_FAIL(Status::NotSupported, log::kRdma, "%s port %d is %s, not ACTIVE", dev, port_,
                     portStateName(portAttr_.state));
  if (!mtuBytes(portAttr_.active_mtu))
    return MORI_FAIL(Status::System, log::kRdma, "%s port %d reports an invalid active MTU (%d)", dev, port_,
                     static_cast<int>(portAttr_.active_mtu));
  std::vector<GidEntry> gids;
  MORI_TRY(readGidTable(api, ctx_, name_, port_, portAttr_.gid_tbl_len, &gids));
  std::string note;
  Status s = selectGidIndex(gids, ethernet(), cfg.ibGidIndex, &gidIndex_, &note);
  if (s == Status::NotSupported)
    return MORI_FAIL(Status::NotSupported, log::kRdma,
                     "%s port %d has no valid GID (is the interface up with an "
                     "address?)",
                     dev, port_);
  MORI_TRY(s);
  for (const GidEntry& g : gids)
    if (g.index == gidIndex_) memcpy(gid_, g.gid, 16);
  errno = 0;
  pd_ = api.allocPd(ctx_);
  if (!pd_)
    return MORI_FAIL(Status::System, log::kRdma, "ibv_alloc_pd(%s) failed: %s", dev, strerror(errno ? errno : ENOMEM));
  MORI_LOG_INFO(log::kRdma, "%s (%s) port %d: %s, %s, active MTU %d, %s", dev, providerName(provider_), port_,
                portStateName(portAttr_.state), linkLayerName(portAttr_.link_layer), mtuBytes(portAttr_.active_mtu),
                note.c_str());
  return Status::Success;
}

Status VerbsDevice::registerMemory(void* ptr, size_t bytes, MemoryRegistration* out) {
  ibv_mr* mr = nullptr;
  MORI_TRY(registerGpuMemory(*api_, pd_, name_.c_str(), ptr, bytes, kHeapAccess, &mr));
  out->lkey = mr->lkey;
  out->rkey = mr->rkey;
  out->handle = mr;
  return Status::Success;
}

Status VerbsDevice::deregisterMemory(const MemoryRegistration& reg) {
  return deregisterGpuMemory(*api_, name_.c_str(), static_cast<ibv_mr*>(reg.handle));
}

EndpointWireInfo VerbsDevice::wireInfo(uint32_t qpn) const {
  // A random initial PSN keeps packets of an earlier incarnation of a QP number from being
  // accepted by the new connection.
  static thread_local std::mt19937 rng{std::random_device{}()};
  EndpointWireInfo w;
  memset(&w, 0, sizeof(w));
  w.qpn = qpn;
  w.psn = rng() & 0xffffff;
  memcpy(w.gid, gid_, 16);
  w.lid = portAttr_.lid;
  w.portNum = static_cast<uint8_t>(port_);
  w.mtu = static_cast<uint8_t>(portAttr_.active_mtu);
  w.linkLayer = portAttr_.link_layer;
  w.provider = static_cast<uint8_t>(provider_);
  return w;
}

Status VerbsDevice::checkRemote(const EndpointWireInfo& remote, uint32_t localQpn, int* pathMtuOut) const {
  if (remote.linkLayer != portAttr_.link_layer)
    return MORI_FAIL(Status::Remote, log::kRdma,
                     "%s QP 0x%x: peer QP 0x%x is on a %s port, this port is %s; RDMA needs one fabric", name_.c_str(),
                     localQpn, remote.qpn, linkLayerName(remote.linkLayer), linkLayerName(portAttr_.link_layer));
  if (remote.qpn == 0 || remote.qpn > 0xffffff)
    return MORI_FAIL(Status::Remote, log::kRdma, "%s QP 0x%x: peer sent an invalid QP number 0x%x", name_.c_str(),
                     localQpn, remote.qpn);
  if (ethernet() && gidIsZero(remote.gid))
    return MORI_FAIL(Status::Remote, log::kRdma, "%s QP 0x%x: peer QP 0x%x sent no GID (RoCE needs one)", name_.c_str(),
                     localQpn, remote.qpn);
  return pathMtu(portAttr_.active_mtu, remote.mtu, pathMtuOut);
}

uint32_t VerbsDevice::logRdAtomic() const {
  uint32_t n = deviceAttr_.max_qp_rd_atom > 0 ? static_cast<uint32_t>(deviceAttr_.max_qp_rd_atom) : 1;
  uint32_t log = 0;
  while ((2u << log) <= n) ++log;  // floor(log2(n))
  return log;
}

}  // namespace mori::rdma
