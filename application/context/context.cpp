#include "application/context/context.hpp"

#include <string.h>
#include <unistd.h>

#include "application/context/gpu_sharing.hpp"
#include "application/context/transport_table.hpp"
#include "mori/platform/clock.hpp"
#include "mori/platform/gpu_runtime.hpp"
#include "src/common/gpu_check.hpp"
#include "src/platform_host/gpu_context.hpp"
#include "transport/sdma/sdma_plugin.hpp"
#include "transport/sdma/sdma_transport.hpp"

namespace mori::context {

Context::~Context() = default;

Status Context::create(bootstrap::Bootstrap& boot, const env::Config& cfg, std::unique_ptr<Context>* out) {
  std::unique_ptr<Context> c(new Context(boot));
  c->myPe_ = boot.rank();
  c->nPes_ = boot.size();

  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess || count == 0)
    return MORI_FAIL(Status::NotSupported, log::kInit, "PE %d sees no GPU (%s)", c->myPe_,
                     err != hipSuccess ? hipGetErrorString(err) : "device count is 0");
  if (!platform::hasCurrentContext()) MORI_HIP_TRY(hipSetDevice(boot.localRank() % count), log::kInit);
  MORI_HIP_TRY(hipGetDevice(&c->gpu_), log::kInit);

  MORI_TRY(c->gatherIdentities());

  TransportInputs in;
  in.myPe = c->myPe_;
  in.nPes = c->nPes_;
  in.disableP2P = cfg.disableP2P;
  in.sdmaPolicy = cfg.sdmaMinBytes > 0;
  if (!parseForcedTransport(cfg.transport, &in.forced))
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "MORI_SHMEM_TRANSPORT='%s' is not one of auto, p2p, rdma, sdma",
                     cfg.transport.c_str());
  for (const PeInfo& p : c->peers_) in.hostIds.emplace_back(p.hostId);
  const TransportSettings mySettings = transportSettings(in, static_cast<int>(cfg.numQpPerPe));
  std::vector<TransportSettings> settings(static_cast<size_t>(c->nPes_));
  MORI_TRY(boot.allGather(&mySettings, settings.data(), sizeof(TransportSettings)));
  const std::string differ = transportSettingsDiffer(settings);
  if (!differ.empty()) return MORI_FAIL(Status::InvalidUsage, log::kInit, "PE %d: %s", c->myPe_, differ.c_str());

  std::vector<uint8_t> row;
  MORI_TRY(c->probeP2P(&row));
  in.p2pMatrix.resize(static_cast<size_t>(c->nPes_) * c->nPes_);
  MORI_TRY(boot.allGather(row.data(), in.p2pMatrix.data(), c->nPes_));

  // Every PE opens a device when any pair needs RDMA, so that registration stays collective.
  uint8_t haveRdma = 0;
  if (rdmaNeeded(in)) {
    // The RDMA transport sees the bootstrap only as a PE group (it lives below application/);
    // the device may keep it (a plugin's collectives), and the bootstrap outlives the Context.
    rdma::PeGroup pes;
    pes.rank = boot.rank();
    pes.size = boot.size();
    pes.localRank = boot.localRank();
    pes.localSize = boot.localSize();
    pes.allGather = [&boot](const void* in, void* out, size_t bytes) { return boot.allGather(in, out, bytes); };
    Status s = rdma::openDevice(c->peers_[c->myPe_].pciBusId, cfg, pes, &c->rdma_);
    if (ok(s))
      haveRdma = 1;
    else
      MORI_LOG_WARN(log::kInit, "PE %d has no usable RDMA device (see above); peers it cannot map are unreachable",
                    c->myPe_);
  }
  in.rdmaAvailable.resize(c->nPes_);
  MORI_TRY(boot.allGather(&haveRdma, in.rdmaAvailable.data(), 1));

  // SDMA engines: opened when the transport or the policy may use them; every PE says whether it
  // has them, so that all PEs reason over the same table.
  std::unique_ptr<sdma::QueueEngine> sdmaEngine;
  uint8_t haveSdma = 0;
  if (sdmaWanted(in)) {
    if (ok(sdma::openQueueEngine(c->myPe_, c->gpu_, cfg.sdmaPlugin, &sdmaEngine)))
      haveSdma = 1;
    else
      MORI_LOG_WARN(log::kInit, "PE %d has no usable SDMA engines (see above)", c->myPe_);
  }
  in.sdmaAvailable.resize(c->nPes_);
  MORI_TRY(boot.allGather(&haveSdma, in.sdmaAvailable.data(), 1));

  std::string why;
  if (!buildTransportTable(in, &c->transports_, &why))
    return MORI_FAIL(Status::NotSupported, log::kInit, "PE %d: %s", c->myPe_, why.c_str());
  if (sdmaEngine) {
    sdma::SdmaOpenArgs sa;
    sa.myPe = c->myPe_;
    sa.nPes = c->nPes_;
    sa.hipDevice = c->gpu_;
    sa.table = c->transports_;
    std::vector<std::string> busIds;
    for (const PeInfo& p : c->peers_) busIds.emplace_back(p.pciBusId);
    sa.xgmi = sdma::xgmiLinks(c->gpu_, busIds);
    sa.queuesPerPeer = static_cast<uint32_t>(cfg.sdmaQueues);
    sa.timeoutTicks = static_cast<uint64_t>(cfg.timeout * static_cast<double>(gpu::kWallClockHz));
    sa.engine = std::move(sdmaEngine);
    MORI_TRY(sdma::openSdmaQueues(std::move(sa), &c->sdma_));
    for (const std::string& line : c->sdma_->describe()) MORI_LOG_INFO(log::kInit, "SDMA %s", line.c_str());
  }
  bool anyRdma = false;
  for (shmem::Transport t : c->transports_) anyRdma |= t == shmem::Transport::Rdma;
  if (!anyRdma) c->rdma_.reset();

  for (int pe = 0; pe < c->nPes_; ++pe)
    if (in.hostIds[pe] == in.hostIds[c->myPe_]) {
      if (pe == c->myPe_) c->nodeRank_ = static_cast<int>(c->nodePes_.size());
      c->nodePes_.push_back(pe);
    }
  c->warnIfGpuSharedWithoutConcurrency();
  for (int pe = 0; pe < c->nPes_; ++pe)
    MORI_LOG_DEBUG(log::kInit, "transport to PE %d: %s", pe, transportName(c->transports_[pe]));
  *out = std::move(c);
  return Status::Success;
}

// PEs of this host that use the same GPU (same UUID) can only wait for each other inside kernels
// if the GPU runs their kernels concurrently; say so once, at init, on the node's first PE.
void Context::warnIfGpuSharedWithoutConcurrency() {
  const PeInfo& me = peers_[myPe_];
  std::string sharing;
  int count = 0;
  for (int pe : nodePes_)
    if (memcmp(peers_[pe].uuid, me.uuid, sizeof(me.uuid)) == 0) {
      sharing += (count ? "," : "") + std::to_string(pe);
      ++count;
    }
  sharedGpuPes_ = count;
  if (count <= 1) return;
  const GpuSharing s = gpuSharing(gpu_, count);
  if (s.concurrent) {
    MORI_LOG_INFO(log::kInit, "PE %d: PEs %s share GPU %s; %s", myPe_, sharing.c_str(), me.pciBusId, s.how.c_str());
    return;
  }
  if (sharing.rfind(std::to_string(myPe_), 0) != 0) return;  // the sharing set's first PE reports
  MORI_LOG_WARN(log::kInit,
                "PEs %s share GPU %s and their kernels cannot run at the same time (%s): device-side waits "
                "between them (signals, barriers, RDMA completions) will not complete; run them with CUDA MPS "
                "(docs/MULTIPLE_PES_PER_GPU.md) or one PE per GPU",
                sharing.c_str(), me.pciBusId, s.how.c_str());
}

Status Context::gatherIdentities() {
  PeInfo me;
  memset(&me, 0, sizeof(me));
  snprintf(me.hostId, sizeof(me.hostId), "%s", bootstrap::hostIdentity().c_str());
  MORI_HIP_TRY(hipDeviceGetPCIBusId(me.pciBusId, sizeof(me.pciBusId), gpu_), log::kInit);
  MORI_TRY(platform::deviceUuid(gpu_, me.uuid));
  me.pid = static_cast<int32_t>(getpid());
  me.gpu = gpu_;
  peers_.resize(nPes_);
  return boot_.allGather(&me, peers_.data(), sizeof(PeInfo));
}

// Which peers' GPU memory this PE can map. A peer GPU this process cannot see (e.g. hidden by
// CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES) cannot be probed; it is assumed mappable and the
// IPC mapping at heap setup confirms it or fails naming the peer.
Status Context::probeP2P(std::vector<uint8_t>* row) const {
  row->assign(nPes_, 0);
  const PeInfo& me = peers_[myPe_];
  for (int pe = 0; pe < nPes_; ++pe) {
    const PeInfo& p = peers_[pe];
    if (pe == myPe_) {
      (*row)[pe] = 1;
      continue;
    }
    if (strcmp(p.hostId, me.hostId) != 0) continue;
    int dev = -1;
    if (hipDeviceGetByPCIBusId(&dev, p.pciBusId) != hipSuccess) {
      (void)hipGetLastError();
      MORI_LOG_INFO(log::kInit, "PE %d's GPU %s is not visible to this process; assuming IPC can map it", pe,
                    p.pciBusId);
      (*row)[pe] = 1;
      continue;
    }
    int can = dev == gpu_ ? 1 : 0;
    if (!can) MORI_HIP_TRY(hipDeviceCanAccessPeer(&can, gpu_, dev), log::kInit);
    (*row)[pe] = can ? 1 : 0;
  }
  return Status::Success;
}

Status Context::connectEndpoints(const env::Config& cfg) {
  if (!rdma_) return Status::Success;
  if (cfg.numQpPerPe < 1 || cfg.numQpPerPe > 64)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "MORI_SHMEM_NUM_QP_PER_PE=%lld is outside 1..64",
                     static_cast<long long>(cfg.numQpPerPe));
  numQp_ = static_cast<uint32_t>(cfg.numQpPerPe);
  endpoints_.resize(static_cast<size_t>(nPes_) * numQp_);
  std::vector<rdma::EndpointWireInfo> mine(endpoints_.size()), theirs(endpoints_.size());
  memset(mine.data(), 0, mine.size() * sizeof(rdma::EndpointWireInfo));
  for (int pe = 0; pe < nPes_; ++pe) {
    if (transports_[pe] != shmem::Transport::Rdma) continue;
    for (uint32_t q = 0; q < numQp_; ++q) {
      rdma::EndpointConfig ec;
      ec.peer = pe;
      ec.qpIndex = q;
      ec.sqDepth = static_cast<uint32_t>(cfg.qpDepth);
      auto& ep = endpoints_[pe * numQp_ + q];
      MORI_TRY(rdma_->createEndpoint(ec, &ep));
      mine[pe * numQp_ + q] = ep->localInfo();
    }
  }
  MORI_TRY(boot_.allToAll(mine.data(), theirs.data(), numQp_ * sizeof(rdma::EndpointWireInfo)));
  for (int pe = 0; pe < nPes_; ++pe) {
    if (transports_[pe] != shmem::Transport::Rdma) continue;
    for (uint32_t q = 0; q < numQp_; ++q) {
      Status s = endpoints_[pe * numQp_ + q]->connect(theirs[pe * numQp_ + q]);
      if (!ok(s)) return MORI_FAIL(s, log::kRdma, "PE %d: connecting QP %u to PE %d failed", myPe_, q, pe);
    }
  }
  size_t bytes = 0;
  for (const auto& ep : endpoints_)
    if (ep) bytes += ep->deviceMemoryBytes();
  MORI_LOG_INFO(log::kRdma, "PE %d: %zu RDMA endpoints, %zu bytes of GPU memory", myPe_, endpoints_.size(), bytes);
  return Status::Success;
}

}  // namespace mori::context
