#include "tests/support/nic_model/model_endpoint.hpp"

#include <string.h>

#include <vector>

#include "mori/transport/rdma/providers/provider.hpp"

namespace mori::test::nicmodel {
namespace {

// Host-mapped words of one endpoint, each on its own cache line.
constexpr size_t kSqDoorbellOffset = 0;
constexpr size_t kCqDoorbellOffset = 64;
constexpr size_t kStatusOffset = 128;
constexpr size_t kRegisterBytes = 256;
static_assert(kStatusOffset + sizeof(ModelQpStatus) <= kRegisterBytes, "register page layout");

// Inside the doorbell-record line, as transport/rdma/mlx5/mlx5_device.cpp lays it out: the QP
// record (word 0 RQ counter, word 1 SQ counter), then the CQ record (word 0 consumer index).
constexpr size_t kCqDbrecOffset = 8;
constexpr uint32_t kSndDbrWord = 1;  // MLX5_SND_DBR

// EndpointWireInfo::opaque[0] of a model endpoint ("NICMODEL").
constexpr uint64_t kWireMagic = 0x4c45444f4d43494eull;

// enum ibv_mtu of a path MTU of 2^shift bytes (IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5).
uint8_t ibvMtu(uint32_t shift) { return static_cast<uint8_t>(shift - 7); }

}  // namespace

Status ModelEndpoint::create() {
  const ModelConfig& mc = dev_.config();
  const rdma::Provider provider = mc.provider;
  MORI_TRY(rdma::endpointLayout(provider, cfg_.sqDepth, rdma::kNicPageBytes, &layout_));
  MORI_TRY(rdma::GpuBuffer::create(layout_.allocBytes, rdma::kNicPageBytes, &buf_));
  uint8_t* base = buf_.data();
  uint8_t* sq = base + layout_.sqOffset;
  uint8_t* cq = base + layout_.cqOffset;
  if (layout_.queuesFromProvider) {
    MORI_TRY(rdma::GpuBuffer::create(layout_.sqBytes + layout_.cqBytes, rdma::kNicPageBytes, &queues_));
    sq = queues_.data();
    cq = queues_.data() + layout_.sqBytes;
  }
  MORI_TRY(registers_.create(kRegisterBytes));
  uint8_t* regs = static_cast<uint8_t*>(registers_.device());

  const uint32_t qpn = dev_.allocQpn(), cqn = dev_.allocCqn();
  // bnxt: the initial send PSN (attr.sq_psn) seeds the retransmission table; not zero, so that a
  // table that ignores it is caught.
  const uint32_t initialPsn = (qpn * 0x9e3779b1u) & 0xffffff;
  uint32_t providerWord = 0;
  if (provider == rdma::Provider::Bnxt)
    providerWord = rdma::Bnxt::makeProviderWord(1u << mc.bnxtMtuShift, mc.bnxtPsnSearchExt);
  if (provider == rdma::Provider::Ionic) providerWord = mc.ionicFirmware;

  handle_.provider = provider;
  handle_.qpn = qpn;
  handle_.sq = sq;
  handle_.sqDepth = layout_.sqDepth;
  handle_.sqSlotShift = layout_.sqSlotShift;
  handle_.sqDoorbell = reinterpret_cast<uint64_t*>(regs + kSqDoorbellOffset);
  handle_.cq = cq;
  handle_.cqDepth = layout_.cqDepth;
  handle_.cqn = cqn;
  if (provider == rdma::Provider::Mlx5) {
    handle_.sqDbrec = reinterpret_cast<uint32_t*>(base + layout_.dbrecOffset) + kSndDbrWord;
    handle_.cqDbrec = reinterpret_cast<uint32_t*>(base + layout_.dbrecOffset + kCqDbrecOffset);
  } else {
    handle_.cqDoorbell = reinterpret_cast<uint64_t*>(regs + kCqDoorbellOffset);
  }
  handle_.atomicResults = reinterpret_cast<uint64_t*>(base + layout_.atomicOffset);
  handle_.slotState = reinterpret_cast<uint32_t*>(base + layout_.slotStateOffset);
  handle_.providerWord = providerWord;
  handle_.state = reinterpret_cast<rdma::EndpointState*>(base + layout_.stateOffset);
  handle_.peer = cfg_.peer;
  handle_.qpIndex = cfg_.qpIndex;
  MORI_TRY(initQueues(sq, cq, providerWord, initialPsn));
  // The fetched-results words are "registered": the lkey is one the model recognises.
  MORI_TRY(dev_.addLocalKey(handle_.atomicResults, layout_.atomicBytes, &handle_.atomicLkey, &resultKeyEntry_));

  ModelQp qp;
  memset(&qp, 0, sizeof(qp));
  qp.ep = handle_;
  qp.status = reinterpret_cast<ModelQpStatus*>(regs + kStatusOffset);
  qp.peerPe = cfg_.peer;
  qp.mtuShift = mc.bnxtMtuShift;
  qp.psnSearchExt = mc.bnxtPsnSearchExt ? 1 : 0;
  qp.firmware = mc.ionicFirmware;
  qp.initialPsn = initialPsn;
  qp.errorAt = mc.error.at(dev_.myPe(), cfg_.qpIndex);
  qp.stallAfter = mc.stall.at(dev_.myPe(), cfg_.qpIndex);
  const uint8_t* hostRegs = static_cast<const uint8_t*>(registers_.host());
  QpHostWords words;
  words.sqDoorbell = reinterpret_cast<const volatile uint64_t*>(hostRegs + kSqDoorbellOffset);
  words.status = reinterpret_cast<const volatile ModelQpStatus*>(hostRegs + kStatusOffset);
  MORI_TRY(dev_.addQp(qp, words, &slot_));

  local_.qpn = qpn;
  local_.psn = initialPsn;
  local_.portNum = 1;
  local_.mtu = ibvMtu(mc.bnxtMtuShift);
  local_.provider = static_cast<uint8_t>(provider);
  local_.opaque[0] = kWireMagic;
  local_.opaque[1] = static_cast<uint64_t>(dev_.myPe());
  local_.opaque[2] = static_cast<uint64_t>(cfg_.peer);
  local_.opaque[3] = cfg_.qpIndex;
  MORI_LOG_DEBUG(log::kRdma, "NIC model PE %d: QP 0x%x (CQ 0x%x) to PE %d #%u, depth %u, %zu bytes of GPU memory",
                 dev_.myPe(), qpn, cqn, cfg_.peer, cfg_.qpIndex, cfg_.sqDepth, layout_.totalBytes);
  return Status::Success;
}

// The bytes the provider's queues hold before first use, as the real host code writes them.
Status ModelEndpoint::initQueues(uint8_t* sq, uint8_t* cq, uint32_t providerWord, uint32_t initialPsn) {
  std::vector<uint8_t> image(layout_.cqBytes, 0);
  switch (layout_.provider) {
    case rdma::Provider::Mlx5: rdma::Mlx5::initCompletionQueue(image.data(), layout_.cqDepth); break;
    case rdma::Provider::Bnxt: rdma::Bnxt::initCompletionQueue(image.data(), layout_.cqDepth); break;
    default: rdma::Ionic::initCompletionQueue(image.data(), layout_.cqDepth); break;
  }
  const rdma::GpuBuffer& owner = layout_.queuesFromProvider ? queues_ : buf_;
  MORI_TRY(owner.upload(static_cast<size_t>(cq - owner.data()), image.data(), image.size()));
  if (layout_.provider == rdma::Provider::Bnxt) {
    std::vector<uint8_t> table(rdma::Bnxt::psnTableBytes(layout_.sqDepth, providerWord));
    rdma::Bnxt::initPsnTable(table.data(), layout_.sqDepth, providerWord, initialPsn);
    const size_t at =
        static_cast<size_t>(sq - owner.data()) + static_cast<size_t>(layout_.sqDepth) * rdma::Bnxt::kSlotBytes;
    MORI_TRY(owner.upload(at, table.data(), table.size()));
  }
  return Status::Success;
}

Status ModelEndpoint::connect(const rdma::EndpointWireInfo& remote) {
  const int me = dev_.myPe();
  if (connected_)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "NIC model PE %d: QP 0x%x (PE %d #%u) is already connected", me,
                     handle_.qpn, cfg_.peer, cfg_.qpIndex);
  if (remote.opaque[0] != kWireMagic)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "NIC model PE %d: PE %d's endpoint is not a NIC model endpoint: every PE must load the same "
                     "MORI_SHMEM_RDMA_PLUGIN",
                     me, cfg_.peer);
  if (remote.provider != local_.provider)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "NIC model PE %d plays %s but PE %d plays provider %u: set the same MORI_NIC_MODEL_PROVIDER on "
                     "every PE",
                     me, providerName(dev_.config().provider), cfg_.peer, remote.provider);
  if (remote.opaque[1] != static_cast<uint64_t>(cfg_.peer) || remote.opaque[2] != static_cast<uint64_t>(me) ||
      remote.opaque[3] != cfg_.qpIndex)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "NIC model PE %d: QP #%u towards PE %d was handed the endpoint of PE %llu towards PE %llu #%llu",
                     me, cfg_.qpIndex, cfg_.peer, static_cast<unsigned long long>(remote.opaque[1]),
                     static_cast<unsigned long long>(remote.opaque[2]),
                     static_cast<unsigned long long>(remote.opaque[3]));
  MORI_TRY(dev_.connectQp(slot_, cfg_.peer, remote.qpn));
  connected_ = true;
  return Status::Success;
}

ModelEndpoint::~ModelEndpoint() {
  // The model stops reading the queues before their memory goes away.
  if (slot_ != ~0u) dev_.removeQp(slot_);
  if (resultKeyEntry_ != ~0u) dev_.removeLocalKey(resultKeyEntry_);
}

}  // namespace mori::test::nicmodel
