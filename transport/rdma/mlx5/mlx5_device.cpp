// mlx5 (ConnectX) through DevX: the CQ and RC QP are created by PRM commands whose queues and
// doorbell records live in one umem over GPU memory (dma-buf first), and whose doorbell register
// (a UAR page) is mapped for GPU stores. GPU threads then build WQEs, update the doorbell record
// and ring the doorbell without the CPU.
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "mori/transport/rdma/providers/provider.hpp"
#include "transport/rdma/core/device_selection.hpp"
#include "transport/rdma/core/gpu_queue_endpoint.hpp"
#include "transport/rdma/core/verbs_device.hpp"
#include "transport/rdma/mlx5/mlx5_commands.hpp"

namespace mori::rdma {
namespace {

using namespace mlx5;

constexpr uint32_t kLogMsgMax = 30;  // 1 GiB per WQE (Mlx5::kMaxMessageBytes)
// Inside the endpoint's doorbell-record line: the QP record (word 0 RQ counter, word 1 SQ
// counter), then the CQ record (word 0 consumer index, word 1 arm).
constexpr size_t kQpDbrecOffset = 0;
constexpr size_t kCqDbrecOffset = 8;

uint32_t log2u(uint32_t v) {
  uint32_t l = 0;
  while ((1u << l) < v) ++l;
  return l;
}

class Mlx5Device;

class Mlx5Endpoint final : public GpuQueueEndpoint {
 public:
  Mlx5Endpoint(Mlx5Device& dev, const EndpointConfig& cfg);
  ~Mlx5Endpoint() override;

 private:
  Status checkDeviceLimits() override;
  Status createQueues() override;
  Status connectQueuePair(const EndpointWireInfo& remote, int pathMtu) override;

  Status registerUmem();
  Status allocUar();
  Status createCq();
  Status createQp();
  Status modify(const ModifyQpIn& in, const char* step);
  Status resolveNextHopMac(const EndpointWireInfo& remote, uint8_t mac[6]);

  Mlx5Device& dev_;
  mlx5dv_devx_umem* umem_ = nullptr;
  mlx5dv_devx_uar* uar_ = nullptr;
  mlx5dv_devx_obj* cq_ = nullptr;
  mlx5dv_devx_obj* qp_ = nullptr;
  uint32_t cqn_ = 0;
  uint32_t qpn_ = 0;
};

class Mlx5Device final : public VerbsDevice {
 public:
  Status open(const VerbsApi& api, const Mlx5Api& m, const DeviceTarget& target, const env::Config& cfg);
  Status createEndpoint(const EndpointConfig& cfg, std::unique_ptr<Endpoint>* out) override;

  const Mlx5Api& mlx5() const { return *mlx5_; }
  uint32_t pdn() const { return pdn_; }
  uint32_t eqn() const { return eqn_; }
  const HcaCaps& caps() const { return caps_; }
  // Sends a general command and checks both errno and the command's status.
  Status generalCmd(const void* in, size_t inLen, uint8_t* out, size_t outLen, const char* what) const;

 private:
  const Mlx5Api* mlx5_ = nullptr;
  uint32_t pdn_ = 0;
  uint32_t eqn_ = 0;
  HcaCaps caps_;
};

// ---- device

Status Mlx5Device::generalCmd(const void* in, size_t inLen, uint8_t* out, size_t outLen, const char* what) const {
  memset(out, 0, outLen);
  int rc = mlx5_->generalCmd(context(), in, inLen, out, outLen);
  if (rc != 0 || outStatus(out) != 0)
    return MORI_FAIL(Status::System, log::kRdma,
                     "mlx5dv_devx_general_cmd(%s, %s) failed: %s, status 0x%x syndrome 0x%x", name(), what,
                     strerror(rc ? (rc > 0 ? rc : errno) : EIO), outStatus(out), outSyndrome(out));
  return Status::Success;
}

Status Mlx5Device::open(const VerbsApi& api, const Mlx5Api& m, const DeviceTarget& target, const env::Config& cfg) {
  mlx5_ = &m;
  const char* dev = target.name.c_str();
  if (!m.isSupported(target.device))
    return MORI_FAIL(Status::NotSupported, log::kRdma, "%s: mlx5dv_is_supported says no (not an mlx5 device)", dev);
  // DevX commands need a context opened for them.
  mlx5dv_context_attr attr{};
  attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
  errno = 0;
  ibv_context* ctx = m.openDevice(target.device, &attr);
  if (!ctx) {
    const int err = errno ? errno : EIO;
    return MORI_FAIL(
        err == EOPNOTSUPP || err == EPERM ? Status::NotSupported : Status::System, log::kRdma,
        "mlx5dv_open_device(%s, DEVX) failed: %s%s", dev, strerror(err),
        err == EOPNOTSUPP || err == EPERM ? " (the kernel or firmware does not allow DevX for this user)" : "");
  }
  MORI_TRY(init(api, ctx, target, cfg));

  mlx5dv_pd dvPd{};
  mlx5dv_obj obj{};
  obj.pd.in = pd();
  obj.pd.out = &dvPd;
  int rc = m.initObj(&obj, MLX5DV_OBJ_PD);
  if (rc != 0) return MORI_FAIL(Status::System, log::kRdma, "mlx5dv_init_obj(%s, PD) failed: %s", dev, strerror(rc));
  pdn_ = dvPd.pdn;

  std::vector<uint8_t> general(query_hca_cap_out::kBytes), roce;
  QueryHcaCapIn q = buildQueryHcaCap(kHcaCapOpModGeneralCur);
  MORI_TRY(generalCmd(q.data(), q.size(), general.data(), general.size(), "QUERY_HCA_CAP general"));
  if (ethernet()) {
    roce.resize(query_hca_cap_out::kBytes);
    q = buildQueryHcaCap(kHcaCapOpModRoceCur);
    MORI_TRY(generalCmd(q.data(), q.size(), roce.data(), roce.size(), "QUERY_HCA_CAP RoCE"));
  }
  caps_ = parseHcaCaps(general.data(), roce.empty() ? nullptr : roce.data());
  if (caps_.cqeVersion != 1)
    return MORI_FAIL(Status::NotSupported, log::kRdma,
                     "%s reports CQE version %u; the GPU completion parser reads version 1", dev, caps_.cqeVersion);
  if (!caps_.atomic)
    return MORI_FAIL(Status::NotSupported, log::kRdma, "%s has no RDMA atomics (hca_cap.atomic = 0)", dev);
  rc = m.queryEqn(context(), 0, &eqn_);
  if (rc != 0)
    return MORI_FAIL(Status::System, log::kRdma, "mlx5dv_devx_query_eqn(%s, 0) failed: %s", dev,
                     strerror(rc > 0 ? rc : errno));
  MORI_LOG_INFO(log::kRdma, "%s: DevX ready (pdn 0x%x, eqn %u, log max QP %u, log max CQ %u, log max msg %u)", dev,
                pdn_, eqn_, caps_.logMaxQpSz, caps_.logMaxCqSz, caps_.logMaxMsg);
  return Status::Success;
}

Status Mlx5Device::createEndpoint(const EndpointConfig& cfg, std::unique_ptr<Endpoint>* out) {
  return GpuQueueEndpoint::make<Mlx5Endpoint>(*this, cfg, out);
}

// ---- endpoint

Mlx5Endpoint::Mlx5Endpoint(Mlx5Device& dev, const EndpointConfig& cfg) : GpuQueueEndpoint(dev, cfg), dev_(dev) {}

Status Mlx5Endpoint::checkDeviceLimits() {
  const uint32_t logDepth = log2u(cfg_.sqDepth);
  if (logDepth > dev_.caps().logMaxQpSz || logDepth > dev_.caps().logMaxCqSz)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_QP_DEPTH=%u exceeds what %s allows (QP 2^%u, CQ 2^%u entries)", cfg_.sqDepth,
                     dev_.name(), dev_.caps().logMaxQpSz, dev_.caps().logMaxCqSz);
  return Status::Success;
}

Status Mlx5Endpoint::createQueues() {
  MORI_TRY(registerUmem());
  MORI_TRY(allocUar());
  MORI_TRY(createCq());
  MORI_TRY(createQp());
  uint8_t* base = buf_.data();
  handle_.qpn = qpn_;
  handle_.sqDbrec = reinterpret_cast<uint32_t*>(base + layout_.dbrecOffset) + mlx5::kSndDbr;
  handle_.sqDoorbell = doorbell();
  handle_.cqn = cqn_;
  handle_.cqDbrec = reinterpret_cast<uint32_t*>(base + layout_.dbrecOffset + kCqDbrecOffset);
  handle_.cqDoorbell = nullptr;
  handle_.providerWord = 0;
  return Status::Success;
}

Status Mlx5Endpoint::registerUmem() {
  const Mlx5Api& m = dev_.mlx5();
  auto reg = [&](int fd, uint64_t offset) -> void* {
    if (fd < 0) return m.umemReg(dev_.context(), buf_.data(), buf_.size(), IBV_ACCESS_LOCAL_WRITE);
    mlx5dv_devx_umem_in in{};
    in.addr = reinterpret_cast<void*>(static_cast<uintptr_t>(offset));  // offset into the dma-buf
    in.size = buf_.size();
    in.access = IBV_ACCESS_LOCAL_WRITE;
    in.pgsz_bitmap = ~uint64_t{0} & ~(uint64_t{dev_.pageBytes()} - 1);
    in.comp_mask = MLX5DV_UMEM_MASK_DMABUF;
    in.dmabuf_fd = fd;
    return m.umemRegEx(dev_.context(), &in);
  };
  void* umem = nullptr;
  MORI_TRY(registerQueueUmem(m.umemRegEx ? "mlx5dv_devx_umem_reg_ex" : nullptr, "mlx5dv_devx_umem_reg",
                             "libmlx5 has no mlx5dv_devx_umem_reg_ex", reg, &umem));
  umem_ = static_cast<mlx5dv_devx_umem*>(umem);
  return Status::Success;
}

Status Mlx5Endpoint::allocUar() {
  const Mlx5Api& m = dev_.mlx5();
  // A non-cached doorbell page: the GPU rings with single 8-byte stores, never BlueFlame copies.
  errno = 0;
  uar_ = m.allocUar(dev_.context(), MLX5DV_UAR_ALLOC_TYPE_NC);
  const int ncErr = errno;
  if (!uar_) {
    errno = 0;
    uar_ = m.allocUar(dev_.context(), MLX5DV_UAR_ALLOC_TYPE_BF);
  }
  if (!uar_)
    return MORI_FAIL(Status::System, log::kRdma, "mlx5dv_devx_alloc_uar(%s) failed: NC: %s, BF: %s", dev_.name(),
                     strerror(ncErr ? ncErr : EIO), strerror(errno ? errno : EIO));
  return mapDoorbell(uar_->reg_addr, sizeof(uint64_t));
}

Status Mlx5Endpoint::createCq() {
  CqParams p;
  p.logSize = log2u(layout_.cqDepth);
  p.uarPage = uar_->page_id;
  p.eqn = dev_.eqn();
  p.umemId = umem_->umem_id;
  p.cqOffset = layout_.cqOffset;
  p.dbrecOffset = layout_.dbrecOffset + kCqDbrecOffset;
  CreateCqIn in = buildCreateCq(p);
  uint8_t out[create_cq_out::kBytes] = {};
  errno = 0;
  cq_ = dev_.mlx5().objCreate(dev_.context(), in.data(), in.size(), out, sizeof(out));
  if (!cq_)
    return MORI_FAIL(Status::System, log::kRdma,
                     "mlx5dv_devx_obj_create(%s, CREATE_CQ, 2^%u entries) failed: %s, status 0x%x syndrome 0x%x",
                     dev_.name(), p.logSize, strerror(errno ? errno : EIO), outStatus(out), outSyndrome(out));
  cqn_ = static_cast<uint32_t>(prmGet(out, create_cq_out::cqn));
  return Status::Success;
}

Status Mlx5Endpoint::createQp() {
  QpParams p;
  p.pdn = dev_.pdn();
  p.uarPage = uar_->page_id;
  p.cqn = cqn_;
  p.logSqSize = log2u(layout_.sqDepth);  // one 64-byte basic block per slot
  p.umemId = umem_->umem_id;
  p.wqOffset = layout_.sqOffset;
  p.dbrecOffset = layout_.dbrecOffset + kQpDbrecOffset;
  p.tsFormat = dev_.caps().qpTsFormat;
  CreateQpIn in = buildCreateQp(p);
  uint8_t out[create_qp_out::kBytes] = {};
  errno = 0;
  qp_ = dev_.mlx5().objCreate(dev_.context(), in.data(), in.size(), out, sizeof(out));
  if (!qp_)
    return MORI_FAIL(
        Status::System, log::kRdma,
        "mlx5dv_devx_obj_create(%s, CREATE_QP RC, CQ 0x%x, 2^%u WQEs) failed: %s, status 0x%x syndrome 0x%x",
        dev_.name(), cqn_, p.logSqSize, strerror(errno ? errno : EIO), outStatus(out), outSyndrome(out));
  qpn_ = static_cast<uint32_t>(prmGet(out, create_qp_out::qpn));
  return Status::Success;
}

Status Mlx5Endpoint::modify(const ModifyQpIn& in, const char* step) {
  uint8_t out[modify_qp_out::kBytes] = {};
  errno = 0;
  int rc = dev_.mlx5().objModify(qp_, in.data(), in.size(), out, sizeof(out));
  if (rc != 0 || outStatus(out) != 0)
    return MORI_FAIL(Status::System, log::kRdma,
                     "mlx5dv_devx_obj_modify(%s, QP 0x%x, %s) for PE %d #%u failed: %s, status 0x%x syndrome 0x%x",
                     dev_.name(), qpn_, step, cfg_.peer, cfg_.qpIndex, strerror(rc > 0 ? rc : (errno ? errno : EIO)),
                     outStatus(out), outSyndrome(out));
  return Status::Success;
}

// RoCE frames go to the next hop's MAC, which only the kernel's neighbour table knows: an address
// handle towards the peer's GID makes the kernel resolve it, and mlx5dv exposes the result.
Status Mlx5Endpoint::resolveNextHopMac(const EndpointWireInfo& remote, uint8_t mac[6]) {
  const VerbsApi& api = dev_.api();
  ibv_ah_attr attr{};
  attr.is_global = 1;
  attr.port_num = static_cast<uint8_t>(dev_.port());
  memcpy(attr.grh.dgid.raw, remote.gid, 16);
  attr.grh.sgid_index = static_cast<uint8_t>(dev_.gidIndex());
  attr.grh.hop_limit = 64;
  errno = 0;
  ibv_ah* ah = api.createAh(dev_.pd(), &attr);
  if (!ah)
    return MORI_FAIL(
        Status::System, log::kRdma,
        "ibv_create_ah(%s, GID index %d -> peer GID %s) failed: %s: cannot resolve the peer's next-hop MAC "
        "(is the peer's address reachable from this interface?)",
        dev_.name(), dev_.gidIndex(), gidToString(remote.gid).c_str(), strerror(errno ? errno : EIO));
  mlx5dv_ah dah{};
  mlx5dv_obj obj{};
  obj.ah.in = ah;
  obj.ah.out = &dah;
  int rc = dev_.mlx5().initObj(&obj, MLX5DV_OBJ_AH);
  if (rc == 0 && dah.av) memcpy(mac, dah.av->rmac, 6);
  api.destroyAh(ah);
  if (rc != 0 || !dah.av)
    return MORI_FAIL(Status::System, log::kRdma, "mlx5dv_init_obj(%s, AH) failed: %s", dev_.name(),
                     strerror(rc ? rc : EIO));
  return Status::Success;
}

Status Mlx5Endpoint::connectQueuePair(const EndpointWireInfo& remote, int mtu) {
  const HcaCaps& caps = dev_.caps();
  const uint32_t logRd = dev_.logRdAtomic();

  Rst2InitParams r2i;
  r2i.qpn = qpn_;
  r2i.port = static_cast<uint32_t>(dev_.port());
  MORI_TRY(modify(buildRst2Init(r2i), "RST2INIT"));

  Init2RtrParams i2r;
  i2r.qpn = qpn_;
  i2r.port = static_cast<uint32_t>(dev_.port());
  i2r.pathMtu = static_cast<uint32_t>(mtu);
  i2r.logMsgMax = caps.logMaxMsg ? std::min(kLogMsgMax, caps.logMaxMsg) : kLogMsgMax;
  i2r.remoteQpn = remote.qpn;
  i2r.remotePsn = remote.psn;
  i2r.logRraMax = std::min(logRd, caps.logMaxRaResQp);
  i2r.roce = dev_.ethernet();
  if (i2r.roce) {
    memcpy(i2r.remoteGid, remote.gid, 16);
    MORI_TRY(resolveNextHopMac(remote, i2r.remoteMac));
    i2r.sgidIndex = static_cast<uint32_t>(dev_.gidIndex());
    // Distinct UDP source ports spread a PE pair's QPs over ECMP paths.
    i2r.udpSport = 0xc000 | ((qpn_ ^ remote.qpn) & 0x3fff);
  } else {
    i2r.remoteLid = remote.lid;
  }
  MORI_TRY(modify(buildInit2Rtr(i2r), "INIT2RTR"));

  Rtr2RtsParams r2r;
  r2r.qpn = qpn_;
  r2r.localPsn = local_.psn;
  r2r.logSraMax = std::min(logRd, caps.logMaxRaReqQp);
  MORI_TRY(modify(buildRtr2Rts(r2r), "RTR2RTS"));
  MORI_LOG_DEBUG(log::kRdma, "%s: QP 0x%x connected to PE %d QP 0x%x (path MTU %d)", dev_.name(), qpn_, cfg_.peer,
                 remote.qpn, mtuBytes(mtu));
  return Status::Success;
}

Mlx5Endpoint::~Mlx5Endpoint() {
  const Mlx5Api& m = dev_.mlx5();
  const char* dev = dev_.name();
  // The NIC must stop using the queues before their memory goes away.
  if (qp_ && m.objDestroy(qp_) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: destroying QP 0x%x failed: %s", dev, qpn_, strerror(errno));
  if (cq_ && m.objDestroy(cq_) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: destroying CQ 0x%x failed: %s", dev, cqn_, strerror(errno));
  if (umem_ && m.umemDereg(umem_) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: mlx5dv_devx_umem_dereg failed: %s", dev, strerror(errno));
  unmapDoorbell();  // before the page goes away
  if (uar_) m.freeUar(uar_);
}

}  // namespace

Status openMlx5Device(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg,
                      std::unique_ptr<Device>* out) {
  std::string why;
  const Mlx5Api* m = mlx5Api(&why);
  if (!m)
    return MORI_FAIL(Status::NotSupported, log::kRdma, "%s is an mlx5 device but direct verbs are unavailable: %s",
                     target.name.c_str(), why.c_str());
  auto dev = std::make_unique<Mlx5Device>();
  MORI_TRY(dev->open(api, *m, target, cfg));
  *out = std::move(dev);
  return Status::Success;
}

}  // namespace mori::rdma
