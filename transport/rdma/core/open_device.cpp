// openDevice: the provider plugin if MORI_SHMEM_RDMA_PLUGIN names one; else the allowed NIC port
// closest to the GPU, opened by its provider; else NotSupported with the reason.
#include <string>
#include <vector>

#include "transport/rdma/core/device_discovery.hpp"
#include "transport/rdma/core/device_selection.hpp"
#include "transport/rdma/core/endpoint_layout.hpp"
#include "transport/rdma/core/plugin_loader.hpp"
#include "transport/rdma/core/rdma_device.hpp"
#include "transport/rdma/core/verbs_device.hpp"

namespace mori::rdma {
namespace {

Status notSupported(std::string* why, const std::string& reason) {
  *why = reason;
  return Status::NotSupported;
}

}  // namespace

Status openDevice(const std::string& gpuPciBusId, const env::Config& cfg, const PeGroup& pes,
                  std::unique_ptr<Device>* out, std::string* why) {
  MORI_TRY(validateQpDepth(cfg.qpDepth));
  if (cfg.numQpPerPe < 1 || cfg.numQpPerPe > 64)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "MORI_SHMEM_NUM_QP_PER_PE=%lld is not valid: expected 1..64",
                     static_cast<long long>(cfg.numQpPerPe));
  if (!cfg.rdmaPlugin.empty()) return openPluginDevice(cfg.rdmaPlugin, pes, out);

  DeviceFilter filter;
  MORI_TRY(parseDeviceFilter(cfg.rdmaDevices, &filter));
  std::string reason;
  const VerbsApi* api = verbsApi(&reason);
  if (!api) return notSupported(why, "RDMA unavailable: " + reason);
  DeviceList list(*api);
  std::string none;
  MORI_TRY(list.probe(/*withGids=*/false, &none));
  if (list.devices().empty())
    return notSupported(why,
                        "no RDMA devices: " +
                            (none.empty() ? std::string("libibverbs lists none (no kernel RDMA driver bound)") : none));

  // Every device named by an include list must exist: a typo must not silently pick another NIC.
  if (!filter.exclude) {
    for (const DeviceFilter::Entry& e : filter.entries) {
      bool found = false;
      for (const ProbedDevice& d : list.devices()) found = found || d.name == e.name;
      if (!found) {
        std::string names;
        for (const ProbedDevice& d : list.devices()) names += (names.empty() ? "" : ", ") + d.name;
        return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                         "MORI_SHMEM_RDMA_DEVICES='%s' names %s, which does not exist; devices here: %s",
                         cfg.rdmaDevices.c_str(), e.name.c_str(), names.c_str());
      }
    }
  }

  // One candidate per device: its first allowed ACTIVE port.
  std::vector<NicCandidate> candidates;
  std::vector<DeviceTarget> targets;
  std::string skipped;
  for (const ProbedDevice& d : list.devices()) {
    std::string note;
    if (!d.error.empty()) {
      note = d.error;
    } else if (d.provider == Provider::None) {
      note = "driver " + (d.pciDriver.empty() ? std::string("unknown") : d.pciDriver) +
             " has no GPU-initiated path (supported: mlx5, bnxt_re, ionic)";
    } else {
      int chosen = 0;
      for (const ProbedPort& p : d.ports) {
        if (!filter.allows(d.name, p.port)) {
          note += "port " + std::to_string(p.port) + " excluded by MORI_SHMEM_RDMA_DEVICES; ";
        } else if (p.attr.state != IBV_PORT_ACTIVE) {
          note += "port " + std::to_string(p.port) + " " + portStateName(p.attr.state) + "; ";
        } else if (p.attr.link_layer != IBV_LINK_LAYER_INFINIBAND && p.attr.link_layer != IBV_LINK_LAYER_ETHERNET &&
                   p.attr.link_layer != IBV_LINK_LAYER_UNSPECIFIED) {  // unspecified: InfiniBand (old providers)
          note += "port " + std::to_string(p.port) + " has link layer " + linkLayerName(p.attr.link_layer) + "; ";
        } else if (!chosen) {
          chosen = p.port;
        }
      }
      if (d.ports.empty()) note = "no ports";
      if (chosen) {
        candidates.push_back(NicCandidate{d.name, d.pciPath});
        targets.push_back(DeviceTarget{d.device, d.name, d.provider, chosen});
        continue;
      }
    }
    skipped += (skipped.empty() ? "" : "; ") + d.name + ": " + note;
  }
  if (candidates.empty()) return notSupported(why, "no usable RDMA port (" + skipped + ")");

  const std::string gpuPath = pciPathOfBusId(gpuPciBusId);
  const int pick = pickClosestNic(gpuPath, candidates, pes.localRank);
  const DeviceTarget& t = targets[static_cast<size_t>(pick)];
  MORI_LOG_INFO(log::kRdma, "GPU %s: using %s port %d (%s; PCI distance %d)", gpuPciBusId.c_str(), t.name.c_str(),
                t.port, providerName(t.provider), pciDistance(gpuPath, candidates[static_cast<size_t>(pick)].pciPath));
  switch (t.provider) {
    case Provider::Mlx5: return openMlx5Device(*api, t, cfg, out);
    case Provider::Bnxt: return openBnxtDevice(*api, t, cfg, out);
    case Provider::Ionic: return openIonicDevice(*api, t, cfg, out);
    case Provider::None: break;
  }
  return MORI_FAIL(Status::Internal, log::kRdma, "openDevice: %s has no provider", t.name.c_str());
}

Status openDevice(const std::string& gpuPciBusId, const env::Config& cfg, const PeGroup& pes,
                  std::unique_ptr<Device>* out) {
  std::string why;
  Status s = openDevice(gpuPciBusId, cfg, pes, out, &why);
  if (s == Status::NotSupported && !why.empty())
    MORI_LOG_WARN(log::kRdma, "RDMA transport not available: %s", why.c_str());
  return s;
}

}  // namespace mori::rdma
