// bnxt_re (Broadcom NetXtreme-E / Thor) through its direct verbs: the SQ (with its retransmission
// search table), a minimal RQ and the CQ live in one GPU buffer registered as a bnxt_re umem
// (dma-buf first); the context's doorbell page is mapped for GPU stores. QP state changes go
// through bnxt_re_dv_modify_qp with ibv_modify_qp semantics.
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "mori/transport/rdma/providers/provider.hpp"
#include "transport/rdma/bnxt/bnxt_dv_abi.hpp"
#include "transport/rdma/core/device_selection.hpp"
#include "transport/rdma/core/gpu_queue_endpoint.hpp"
#include "transport/rdma/core/verbs_device.hpp"
#include "transport/rdma/core/verbs_qp_connect.hpp"

namespace mori::rdma {
namespace {

constexpr const char* kLib = "libbnxt_re";  // as loaded by libibverbs, or by soname

// Resolves Broadcom's ABI, or says why this library cannot serve GPU-resident queues.
Status loadBroadcomApi(bnxt_dv::BroadcomApi* api, std::string* why) {
  void* lib = loadProviderLibrary(kLib, {"libbnxt_re.so.1", "libbnxt_re.so"}, why);
  if (!lib) return Status::NotSupported;
  if (!dlsym(lib, "bnxt_re_dv_umem_reg")) {
    if (dlvsym(lib, "bnxt_re_dv_create_qp", "BNXT_RE_1.1")) {
      *why = std::string(kLib) +
             " has rdma-core's bnxt_re direct verbs (BNXT_RE_1.1): they create CQs and QPs on application buffers "
             "(ibv_alloc_user_buf), but no call returns a CQ's hardware id, which the GPU needs to ring the CQ "
             "doorbell; Broadcom's libbnxt_re (bnxt_re_dv_umem_reg, bnxt_re_dv_init_obj) is required";
    } else {
      *why = std::string(kLib) + " has no bnxt_re direct verbs (bnxt_re_dv_umem_reg): install Broadcom's libbnxt_re";
    }
    return Status::NotSupported;
  }
  const std::string missing =
      bindSymbols(lib, {
                           {"bnxt_re_dv_umem_reg", reinterpret_cast<void**>(&api->umemReg)},
                           {"bnxt_re_dv_umem_dereg", reinterpret_cast<void**>(&api->umemDereg)},
                           {"bnxt_re_dv_create_cq", reinterpret_cast<void**>(&api->createCq)},
                           {"bnxt_re_dv_destroy_cq", reinterpret_cast<void**>(&api->destroyCq)},
                           {"bnxt_re_dv_create_qp", reinterpret_cast<void**>(&api->createQp)},
                           {"bnxt_re_dv_destroy_qp", reinterpret_cast<void**>(&api->destroyQp)},
                           {"bnxt_re_dv_modify_qp", reinterpret_cast<void**>(&api->modifyQp)},
                           {"bnxt_re_dv_init_obj", reinterpret_cast<void**>(&api->initObj)},
                           {"bnxt_re_dv_get_default_db_region", reinterpret_cast<void**>(&api->getDefaultDbRegion)},
                       });
  if (!missing.empty()) {
    *why = std::string(kLib) + " lacks " + missing;
    return Status::NotSupported;
  }
  return Status::Success;
}

class BnxtDevice;

class BnxtEndpoint final : public GpuQueueEndpoint {
 public:
  BnxtEndpoint(BnxtDevice& dev, const EndpointConfig& cfg);
  ~BnxtEndpoint() override;

 private:
  Status checkDeviceLimits() override;
  Status createQueues() override;
  Status connectQueuePair(const EndpointWireInfo& remote, int pathMtu) override;

  Status registerUmem();
  Status createCq();
  Status createQp();
  Status mapDoorbellPage();

  BnxtDevice& dev_;
  void* umem_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
};

class BnxtDevice final : public VerbsDevice {
 public:
  Status open(const VerbsApi& api, const bnxt_dv::BroadcomApi& dv, const DeviceTarget& target, const env::Config& cfg) {
    dv_ = dv;
    MORI_TRY(openAndInit(api, target, cfg));
    return Status::Success;
  }
  Status createEndpoint(const EndpointConfig& cfg, std::unique_ptr<Endpoint>* out) override {
    return GpuQueueEndpoint::make<BnxtEndpoint>(*this, cfg, out);
  }
  const bnxt_dv::BroadcomApi& dv() const { return dv_; }

 private:
  bnxt_dv::BroadcomApi dv_{};
};

BnxtEndpoint::BnxtEndpoint(BnxtDevice& dev, const EndpointConfig& cfg) : GpuQueueEndpoint(dev, cfg), dev_(dev) {}

Status BnxtEndpoint::checkDeviceLimits() {
  if (static_cast<int64_t>(cfg_.sqDepth) > dev_.deviceAttr().max_qp_wr)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "MORI_SHMEM_QP_DEPTH=%u exceeds %s's max_qp_wr %d", cfg_.sqDepth,
                     dev_.name(), dev_.deviceAttr().max_qp_wr);
  return Status::Success;
}

Status BnxtEndpoint::createQueues() {
  MORI_TRY(registerUmem());
  MORI_TRY(createCq());
  MORI_TRY(createQp());
  MORI_TRY(mapDoorbellPage());
  handle_.qpn = qp_->qp_num;
  handle_.sqDbrec = nullptr;
  handle_.sqDoorbell = doorbell();
  handle_.cqDbrec = nullptr;
  handle_.cqDoorbell = doorbell();
  handle_.providerWord = 0;  // path MTU known at connect()
  return Status::Success;
}

Status BnxtEndpoint::registerUmem() {
  const bnxt_dv::BroadcomApi& dv = dev_.dv();
  auto reg = [&](int fd, uint64_t) -> void* {
    bnxt_dv::UmemRegAttr in{};
    in.addr = buf_.data();
    in.size = buf_.size();
    in.access_flags = IBV_ACCESS_LOCAL_WRITE;
    in.dmabuf_fd = fd;
    if (fd >= 0) {
      in.pgsz_bitmap = ~uint64_t{0} & ~(uint64_t{dev_.pageBytes()} - 1);
      in.comp_mask = bnxt_dv::kUmemFlagDmabuf;
    }
    return dv.umemReg(dev_.context(), &in);
  };
  return registerQueueUmem("bnxt_re_dv_umem_reg", "bnxt_re_dv_umem_reg", nullptr, reg, &umem_);
}

// The CQ over buf_, and its hardware id (what the GPU's CQ doorbell carries).
Status BnxtEndpoint::createCq() {
  const bnxt_dv::BroadcomApi& dv = dev_.dv();
  const char* dev = dev_.name();
  bnxt_dv::CqInitAttr cqAttr{};
  cqAttr.umem_handle = umem_;
  cqAttr.cq_umem_offset = layout_.cqOffset;
  cqAttr.ncqe = layout_.cqDepth;
  errno = 0;
  cq_ = dv.createCq(dev_.context(), &cqAttr);
  if (!cq_)
    return MORI_FAIL(Status::System, log::kRdma, "bnxt_re_dv_create_cq(%s, %u entries in GPU memory) failed: %s", dev,
                     layout_.cqDepth, errno ? strerror(errno) : "no errno");
  bnxt_dv::DvCq dvCq{};
  bnxt_dv::DvObj obj{};
  obj.cq.in = cq_;
  obj.cq.out = &dvCq;
  int rc = dv.initObj(&obj, bnxt_dv::kObjCq);
  if (rc != 0)
    return MORI_FAIL(Status::System, log::kRdma, "bnxt_re_dv_init_obj(%s, CQ) failed: %s", dev, strerror(rc));
  if (dvCq.cqe_size != Bnxt::kCqeBytes)
    return MORI_FAIL(Status::NotSupported, log::kRdma, "%s: CQE size %u, the bnxt completion format reads %u-byte CQEs",
                     dev, dvCq.cqe_size, Bnxt::kCqeBytes);
  handle_.cqn = dvCq.cqn;
  return Status::Success;
}

Status BnxtEndpoint::createQp() {
  bnxt_dv::QpInitAttr q{};
  q.qp_type = IBV_QPT_RC;
  q.max_send_wr = layout_.sqDepth;
  q.max_recv_wr = 1;
  q.max_send_sge = 1;
  q.max_recv_sge = 1;
  q.max_inline_data = Bnxt::kMaxInline;
  q.send_cq = cq_;
  q.recv_cq = cq_;
  q.sq_umem_handle = umem_;
  q.sq_umem_offset = layout_.sqOffset;
  // Ring plus an MSN table of exactly sq_npsn entries: the table then sits both right after the
  // ring and at the end of sq_len, wherever the library expects it.
  q.sq_len = static_cast<uint32_t>((size_t{layout_.sqDepth} << layout_.sqSlotShift) +
                                   size_t{layout_.psnEntries} * bnxt::kMsnEntryBytes);
  q.sq_slots = layout_.sqHwSlots;
  q.sq_wqe_sz = Bnxt::kSlotBytes;
  q.sq_psn_sz = bnxt::kMsnEntryBytes;  // MSN table format (providerWord without kWordPsnSearchExt)
  q.sq_npsn = layout_.psnEntries;
  q.rq_umem_handle = umem_;
  q.rq_umem_offset = layout_.rqOffset;
  q.rq_len = static_cast<uint32_t>(layout_.rqBytes);
  q.rq_slots = Bnxt::kSlotBytes / bnxt::kHwSlotBytes;
  q.rq_wqe_sz = Bnxt::kSlotBytes;
  errno = 0;
  qp_ = dev_.dv().createQp(dev_.pd(), &q);
  if (!qp_)
    return MORI_FAIL(Status::System, log::kRdma, "bnxt_re_dv_create_qp(%s, RC, %u WQEs in GPU memory) failed: %s",
                     dev_.name(), layout_.sqDepth, errno ? strerror(errno) : "no errno");
  return Status::Success;
}

// The context's default doorbell page carries both the SQ and the CQ doorbells.
Status BnxtEndpoint::mapDoorbellPage() {
  bnxt_dv::DbRegionAttr db{};
  const int rc = dev_.dv().getDefaultDbRegion(dev_.context(), &db);
  if (rc != 0 || !db.dbr)
    return MORI_FAIL(Status::System, log::kRdma, "bnxt_re_dv_get_default_db_region(%s) failed: %s", dev_.name(),
                     strerror(rc ? rc : EIO));
  return mapDoorbell(db.dbr, sizeof(uint64_t));
}

int modifyThroughDv(ibv_qp* qp, ibv_qp_attr* attr, int mask, void* cookie) {
  const bnxt_dv::BroadcomApi* dv = static_cast<const bnxt_dv::BroadcomApi*>(cookie);
  return dv->modifyQp(qp, attr, mask, 0, 0);
}

Status BnxtEndpoint::connectQueuePair(const EndpointWireInfo& remote, int mtu) {
  // The search table starts from this QP's first send PSN, in the path MTU's packet units.
  handle_.providerWord = Bnxt::makeProviderWord(static_cast<uint32_t>(mtuBytes(mtu)), /*psnSearchExtFormat=*/false);
  std::vector<uint8_t> table(Bnxt::psnTableBytes(layout_.sqDepth, handle_.providerWord));
  Bnxt::initPsnTable(table.data(), layout_.sqDepth, handle_.providerWord, local_.psn);
  MORI_TRY(
      buf_.upload(layout_.sqOffset + (size_t{layout_.sqDepth} << layout_.sqSlotShift), table.data(), table.size()));
  return connectRcQp(dev_, modifyThroughDv, const_cast<bnxt_dv::BroadcomApi*>(&dev_.dv()), qp_, local_.psn, remote, mtu,
                     cfg_.peer, cfg_.qpIndex);
}

BnxtEndpoint::~BnxtEndpoint() {
  const bnxt_dv::BroadcomApi& dv = dev_.dv();
  const char* dev = dev_.name();
  if (qp_ && dv.destroyQp(qp_) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: bnxt_re_dv_destroy_qp failed: %s", dev, strerror(errno));
  if (cq_ && dv.destroyCq(cq_) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: bnxt_re_dv_destroy_cq failed: %s", dev, strerror(errno));
  if (umem_ && dv.umemDereg(umem_) != 0)
    MORI_LOG_WARN(log::kRdma, "%s: bnxt_re_dv_umem_dereg failed: %s", dev, strerror(errno));
}

}  // namespace

Status openBnxtDevice(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg,
                      std::unique_ptr<Device>* out) {
  return openDirectVerbsDevice<BnxtDevice>(api, target, cfg, loadBroadcomApi, "a bnxt_re", out);
}

}  // namespace mori::rdma
