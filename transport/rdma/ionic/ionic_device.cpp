// ionic (AMD Pensando Pollara) through verbs plus direct verbs: the provider allocates its SQ and
// CQ rings through a parent domain whose allocator hands out GPU memory (controller-memory bar
// off), AMD's libionic reports the rings' geometry and the doorbell page, which is mapped for GPU
// stores. QPs are standard verbs objects: ibv_modify_qp connects them.
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "mori/transport/rdma/providers/provider.hpp"
#include "transport/rdma/core/gpu_queue_endpoint.hpp"
#include "transport/rdma/core/verbs_device.hpp"
#include "transport/rdma/core/verbs_qp_connect.hpp"
#include "transport/rdma/ionic/ionic_dv_abi.hpp"

namespace mori::rdma {
namespace {

constexpr const char* kLib = "libionic";  // as loaded by libibverbs, or by soname
// Firmware RDMA version of the context (Ionic providerWord). No ABI reports it (it lives in
// libionic's private context); Pollara, the part with GPU-initiated RDMA, runs version 2, which
// is also what MORI's ionic path hard-codes.
constexpr uint32_t kIonicRdmaVersion = 2;

Status loadIonicApi(ionic_dv::Api* api, std::string* why) {
  void* lib = loadProviderLibrary(kLib, {"libionic.so.1", "libionic.so"}, why);
  if (!lib) return Status::NotSupported;
  const std::string missing =
      bindSymbols(lib, {
                           {"ionic_dv_pd_set_sqcmb", reinterpret_cast<void**>(&api->pdSetSqCmb)},
                           {"ionic_dv_pd_set_rqcmb", reinterpret_cast<void**>(&api->pdSetRqCmb)},
                           {"ionic_dv_get_ctx", reinterpret_cast<void**>(&api->getCtx)},
                           {"ionic_dv_get_cq", reinterpret_cast<void**>(&api->getCq)},
                           {"ionic_dv_get_qp", reinterpret_cast<void**>(&api->getQp)},
                           {"ionic_dv_qp_get_udma_idx", reinterpret_cast<void**>(&api->qpGetUdmaIdx)},
                       });
  if (!missing.empty()) {
    *why = std::string(kLib) + " lacks " + missing +
           ": rdma-core's ionic can place rings in GPU memory (parent-domain allocator) but does not report the "
           "doorbell page, queue types or ring geometry the GPU needs; AMD's libionic provides them";
    return Status::NotSupported;
  }
  return Status::Success;
}

class IonicDevice;

class IonicEndpoint final : public GpuQueueEndpoint {
 public:
  IonicEndpoint(IonicDevice& dev, const EndpointConfig& cfg);
  ~IonicEndpoint() override;
  // The endpoint's own buffer plus the rings libionic allocated through allocRing.
  size_t deviceMemoryBytes() const override { return buf_.size() + ringBytes_; }

 private:
  Status createQueues() override;
  Status connectQueuePair(const EndpointWireInfo& remote, int pathMtu) override;

  Status allocParent();
  Status createCq();
  Status createQp();
  Status adoptRings();
  Status mapDoorbellPage();

  static void* allocRing(ibv_pd* pd, void* self, size_t size, size_t alignment, uint64_t type);
  static void freeRing(ibv_pd* pd, void* self, void* ptr, uint64_t type);
  bool ownsRing(const void* p) const;

  IonicDevice& dev_;
  std::vector<GpuBuffer> rings_;  // what libionic allocated through us
  std::string allocError_;
  size_t ringBytes_ = 0;
  ibv_pd* parent_ = nullptr;
  ibv_cq_ex* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
};

class IonicDevice final : public VerbsDevice {
 public:
  Status open(const VerbsApi& api, const ionic_dv::Api& dv, const DeviceTarget& target, const env::Config& cfg) {
    dv_ = dv;
    MORI_TRY(openAndInit(api, target, cfg));
    int rc = dv_.getCtx(&ctx_, context());
    if (rc != 0 || !ctx_.db_ptr)
      return MORI_FAIL(Status::System, log::kRdma, "ionic_dv_get_ctx(%s) failed: %s", name(), strerror(rc ? rc : EIO));
    return Status::Success;
  }
  Status createEndpoint(const EndpointConfig& cfg, std::unique_ptr<Endpoint>* out) override {
    return GpuQueueEndpoint::make<IonicEndpoint>(*this, cfg, out);
  }
  const ionic_dv::Api& dv() const { return dv_; }
  const ionic_dv::DvCtx& dvCtx() const { return ctx_; }

 private:
  ionic_dv::Api dv_{};
  ionic_dv::DvCtx ctx_{};
};

void* IonicEndpoint::allocRing(ibv_pd*, void* self, size_t size, size_t alignment, uint64_t type) {
  IonicEndpoint* ep = static_cast<IonicEndpoint*>(self);
  if (type != ionic_dv::kPdTagSq && type != ionic_dv::kPdTagCq) return IBV_ALLOCATOR_USE_DEFAULT;  // RQ: host memory
  const size_t page = std::max(ep->dev_.pageBytes(), alignment);
  GpuBuffer b;
  if (!ok(GpuBuffer::create((size + page - 1) / page * page, page, &b))) {
    ep->allocError_ = "GPU allocation of a " + std::to_string(size) + "-byte ring failed";
    errno = ENOMEM;
    return nullptr;
  }
  void* p = b.data();
  ep->ringBytes_ += b.size();
  ep->rings_.push_back(std::move(b));
  return p;
}

void IonicEndpoint::freeRing(ibv_pd*, void* self, void* ptr, uint64_t) {
  IonicEndpoint* ep = static_cast<IonicEndpoint*>(self);
  for (auto it = ep->rings_.begin(); it != ep->rings_.end(); ++it) {
    if (it->data() == ptr) {
      ep->ringBytes_ -= it->size();
      ep->rings_.erase(it);
      return;
    }
  }
}

bool IonicEndpoint::ownsRing(const void* p) const {
  for (const GpuBuffer& b : rings_)
    if (b.data() == p) return true;
  return false;
}

IonicEndpoint::IonicEndpoint(IonicDevice& dev, const EndpointConfig& cfg) : GpuQueueEndpoint(dev, cfg), dev_(dev) {}

Status IonicEndpoint::createQueues() {
  MORI_TRY(allocParent());
  MORI_TRY(createCq());
  MORI_TRY(createQp());
  MORI_TRY(adoptRings());
  MORI_TRY(mapDoorbellPage());
  handle_.qpn = qp_->qp_num;
  handle_.providerWord = kIonicRdmaVersion;
  return Status::Success;
}

// A parent domain whose allocator hands libionic GPU memory for the SQ and CQ rings.
Status IonicEndpoint::allocParent() {
  const char* dev = dev_.name();
  ibv_parent_domain_init_attr pattr{};
  pattr.pd = dev_.pd();
  pattr.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
  pattr.alloc = &IonicEndpoint::allocRing;
  pattr.free = &IonicEndpoint::freeRing;
  pattr.pd_context = this;
  errno = 0;
  parent_ = allocParentDomain(dev_.context(), &pattr);
  if (!parent_)
    return MORI_FAIL(Status::System, log::kRdma, "ibv_alloc_parent_domain(%s, GPU ring allocator) failed: %s", dev,
                     strerror(errno ? errno : EIO));
  // Rings in the controller memory bar would not be GPU memory, and express doorbells take the
  // last 8 bytes of each WQE, which the ionic format uses.
  const ionic_dv::Api& dv = dev_.dv();
  int rc = dv.pdSetSqCmb(parent_, false, false, false);
  if (rc == 0) rc = dv.pdSetRqCmb(parent_, false, false, false);
  if (rc != 0)
    return MORI_FAIL(Status::System, log::kRdma, "ionic_dv_pd_set_sqcmb/rqcmb(%s, off) failed: %s", dev, strerror(rc));
  return Status::Success;
}

Status IonicEndpoint::createCq() {
  ibv_cq_init_attr_ex cqAttr{};
  cqAttr.cqe = layout_.cqDepth;
  cqAttr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
  cqAttr.parent_domain = parent_;
  errno = 0;
  cq_ = createCqEx(dev_.context(), &cqAttr);
  if (!cq_)
    return MORI_FAIL(Status::System, log::kRdma, "ibv_create_cq_ex(%s, %u entries in GPU memory) failed: %s%s%s",
                     dev_.name(), cqAttr.cqe, strerror(errno ? errno : EIO), allocError_.empty() ? "" : ": ",
                     allocError_.c_str());
  return Status::Success;
}

Status IonicEndpoint::createQp() {
  ibv_qp_init_attr_ex qpAttr{};
  qpAttr.qp_type = IBV_QPT_RC;
  qpAttr.send_cq = ibv_cq_ex_to_cq(cq_);
  qpAttr.recv_cq = ibv_cq_ex_to_cq(cq_);
  qpAttr.cap.max_send_wr = layout_.sqDepth - 1;  // libionic rounds depth + 1 up to a power of two
  qpAttr.cap.max_recv_wr = 1;
  qpAttr.cap.max_send_sge = 1;
  qpAttr.cap.max_recv_sge = 1;
  qpAttr.cap.max_inline_data = Ionic::kMaxInline;
  qpAttr.comp_mask = IBV_QP_INIT_ATTR_PD;
  qpAttr.pd = parent_;
  errno = 0;
  qp_ = createQpEx(dev_.context(), &qpAttr);
  if (!qp_)
    return MORI_FAIL(Status::System, log::kRdma, "ibv_create_qp_ex(%s, RC, %u WQEs in GPU memory) failed: %s%s%s",
                     dev_.name(), layout_.sqDepth, strerror(errno ? errno : EIO), allocError_.empty() ? "" : ": ",
                     allocError_.c_str());
  return Status::Success;
}

// The rings libionic placed: checked to be ours and of the ionic format's strides, then handed
// to the GPU (sq, cq, depths, CQ id).
Status IonicEndpoint::adoptRings() {
  const char* dev = dev_.name();
  const ionic_dv::Api& dv = dev_.dv();
  ionic_dv::DvQp dvQp{};
  ionic_dv::DvCq dvCq{};
  int rc = dv.getQp(&dvQp, qp_);
  if (rc == 0) rc = dv.getCq(&dvCq, ibv_cq_ex_to_cq(cq_), dv.qpGetUdmaIdx(qp_));
  if (rc != 0)
    return MORI_FAIL(Status::System, log::kRdma, "ionic_dv_get_qp/get_cq(%s, QP 0x%x) failed: %s", dev, qp_->qp_num,
                     strerror(rc));
  if (!ownsRing(dvQp.sq.ptr) || !ownsRing(dvCq.q.ptr))
    return MORI_FAIL(
        Status::NotSupported, log::kRdma,
        "%s placed QP 0x%x's rings outside GPU memory (SQ %p, CQ %p): the controller-memory bar or another "
        "allocator is in use",
        dev, qp_->qp_num, dvQp.sq.ptr, dvCq.q.ptr);
  if ((1u << dvQp.sq.stride_log2) != Ionic::kSlotBytes || (1u << dvCq.q.stride_log2) != Ionic::kCqeBytes)
    return MORI_FAIL(Status::NotSupported, log::kRdma,
                     "%s QP 0x%x: SQ stride %u and CQE stride %u bytes, the ionic format needs %u and %u", dev,
                     qp_->qp_num, 1u << dvQp.sq.stride_log2, 1u << dvCq.q.stride_log2, Ionic::kSlotBytes,
                     Ionic::kCqeBytes);
  const uint32_t sqDepth = static_cast<uint32_t>(dvQp.sq.mask) + 1;
  const uint32_t cqDepth = static_cast<uint32_t>(dvCq.q.mask) + 1;
  if (sqDepth < layout_.sqDepth || cqDepth < sqDepth)
    return MORI_FAIL(Status::Internal, log::kRdma, "%s QP 0x%x: rings of %u (SQ) and %u (CQ) entries for depth %u", dev,
                     qp_->qp_num, sqDepth, cqDepth, layout_.sqDepth);
  handle_.sq = static_cast<uint8_t*>(dvQp.sq.ptr);
  handle_.sqDepth = sqDepth;
  handle_.sqSlotShift = dvQp.sq.stride_log2;
  handle_.cq = static_cast<uint8_t*>(dvCq.q.ptr);
  handle_.cqDepth = cqDepth;
  handle_.cqn = static_cast<uint32_t>((dvCq.q.db_val >> ionic::kDbQidShift) & ionic::kDbQidMask);
  return Status::Success;
}

// The context's doorbell page: one 64-bit register per queue type.
Status IonicEndpoint::mapDoorbellPage() {
  const ionic_dv::DvCtx& c = dev_.dvCtx();
  const uint8_t maxType = std::max({c.sq_qtype, c.rq_qtype, c.cq_qtype});
  MORI_TRY(mapDoorbell(c.db_ptr, (size_t{maxType} + 1) * sizeof(uint64_t)));
  handle_.sqDbrec = nullptr;
  handle_.sqDoorbell = doorbell() + c.sq_qtype;
  handle_.cqDbrec = nullptr;
  handle_.cqDoorbell = doorbell() + c.cq_qtype;
  return Status::Success;
}

int modifyThroughVerbs(ibv_qp* qp, ibv_qp_attr* attr, int mask, void* cookie) {
  return static_cast<const VerbsApi*>(cookie)->modifyQp(qp, attr, mask);
}

Status IonicEndpoint::connectQueuePair(const EndpointWireInfo& remote, int mtu) {
  return connectRcQp(dev_, modifyThroughVerbs, const_cast<VerbsApi*>(&dev_.api()), qp_, local_.psn, remote, mtu,
                     cfg_.peer, cfg_.qpIndex);
}

IonicEndpoint::~IonicEndpoint() {
  const VerbsApi& api = dev_.api();
  const char* dev = dev_.name();
  int rc;
  if (qp_ && (rc = api.destroyQp(qp_)) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: ibv_destroy_qp failed: %s", dev, strerror(rc));
  if (cq_ && (rc = api.destroyCq(ibv_cq_ex_to_cq(cq_))) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: ibv_destroy_cq failed: %s", dev, strerror(rc));
  if (parent_ && (rc = api.deallocPd(parent_)) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: ibv_dealloc_pd(parent domain) failed: %s", dev, strerror(rc));
}

}  // namespace

Status openIonicDevice(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg,
                       std::unique_ptr<Device>* out) {
  return openDirectVerbsDevice<IonicDevice>(api, target, cfg, loadIonicApi, "an ionic", out);
}

}  // namespace mori::rdma
