#include "transport/sdma/sdma_transport.hpp"

#include <string>

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/log.hpp"
#include "transport/sdma/sdma_plugin.hpp"

namespace mori::sdma {

std::vector<uint8_t> xgmiLinks(int hipDevice, const std::vector<std::string>& busIds) {
  std::vector<uint8_t> out(busIds.size(), 0);
#if MORI_PLATFORM_AMD
  constexpr uint32_t kHsaLinkXgmi = 4;  // HSA_AMD_LINK_INFO_TYPE_XGMI (hsa_ext_amd.h)
  for (size_t pe = 0; pe < busIds.size(); ++pe) {
    int dev = -1;
    if (hipDeviceGetByPCIBusId(&dev, busIds[pe].c_str()) != hipSuccess) {
      (void)hipGetLastError();
      continue;
    }
    uint32_t type = 0, hops = 0;
    if (dev != hipDevice && hipExtGetLinkTypeAndHopCount(hipDevice, dev, &type, &hops) == hipSuccess)
      out[pe] = type == kHsaLinkXgmi ? 1 : 0;
    else
      (void)hipGetLastError();
  }
#else
  (void)hipDevice;
#endif
  return out;
}

Status openSdmaQueues(SdmaOpenArgs a, std::unique_ptr<SdmaQueues>* out) {
  if (static_cast<int>(a.table.size()) != a.nPes || (!a.xgmi.empty() && static_cast<int>(a.xgmi.size()) != a.nPes))
    return MORI_FAIL(Status::InvalidUsage, log::kInit,
                     "PE %d: SDMA: transport row has %zu entries, xgmi %zu, for %d PEs", a.myPe, a.table.size(),
                     a.xgmi.size(), a.nPes);
  std::vector<SdmaPeerSpec> peers;
  std::string list;
  for (int pe = 0; pe < a.nPes; ++pe)
    if (a.table[pe] == shmem::Transport::Sdma) {
      peers.push_back({pe, !a.xgmi.empty() && a.xgmi[pe] != 0});
      list += (list.empty() ? "" : ", ") + std::to_string(pe);
    }
  SdmaQueuesConfig cfg;
  cfg.myPe = a.myPe;
  cfg.nPes = a.nPes;
  cfg.queuesPerPeer = a.queuesPerPeer;
  cfg.ringSlots = a.ringSlots;
  cfg.timeoutTicks = a.timeoutTicks;
  if (!a.engine && !peers.empty()) {
    MORI_LOG_INFO(log::kInit, "PE %d: SDMA queues to peers %s", a.myPe, list.c_str());
    MORI_TRY(openQueueEngine(a.myPe, a.hipDevice, "", &a.engine));
  }
  if (!a.engine) {  // no SDMA peer and no engine: an empty set
    class NoEngine final : public QueueEngine {
     public:
      EngineInventory inventory() const override { return {}; }
      Status create(const QueueRequest& r, QueueHandles*) override {
        return MORI_FAIL(Status::Internal, log::kInit, "PE %d: SDMA queue to PE %d without an engine", r.myPe, r.peer);
      }
      Status destroy(const QueueRequest&, const QueueHandles&) override { return Status::Success; }
    };
    a.engine = std::make_unique<NoEngine>();
  }
  return SdmaQueues::create(cfg, peers, std::move(a.engine), out);
}

}  // namespace mori::sdma
