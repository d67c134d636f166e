#include "transport/rdma/core/device_discovery.hpp"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fstream>

#include "transport/rdma/core/rdma_device.hpp"

namespace mori::rdma {
namespace {

std::string realPath(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string linkBasename(const std::string& p) {
  char buf[PATH_MAX];
  ssize_t n = readlink(p.c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) return std::string();
  buf[n] = '\0';
  const char* slash = strrchr(buf, '/');
  return slash ? std::string(slash + 1) : std::string(buf);
}

GidType sysfsGidType(const std::string& device, int port, int index) {
  std::ifstream f("/sys/class/infiniband/" + device + "/ports/" + std::to_string(port) + "/gid_attrs/types/" +
                  std::to_string(index));
  std::string line;
  std::getline(f, line);
  if (line.find("RoCE v2") != std::string::npos) return GidType::RoceV2;
  if (line.find("RoCE") != std::string::npos) return GidType::RoceV1;
  return GidType::Ib;
}

}  // namespace

const char* portStateName(int state) {
  switch (state) {
    case IBV_PORT_NOP: return "NOP";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
    default: return "UNKNOWN";
  }
}

const char* linkLayerName(int linkLayer) {
  switch (linkLayer) {
    case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
    case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
    default: return "unspecified";
  }
}

std::string pciPathOfBusId(const std::string& busId) {
  std::string id = normalizePciBusId(busId);
  return id.empty() ? std::string() : realPath("/sys/bus/pci/devices/" + id);
}

Status readGidTable(const VerbsApi& api, ibv_context* ctx, const std::string& device, int port, int tableLen,
                    std::vector<GidEntry>* out) {
  out->clear();
  for (int i = 0; i < tableLen; ++i) {
    GidEntry e;
    e.index = i;
    if (api.queryGidEx) {
      ibv_gid_entry entry{};
      if (api.queryGidEx(ctx, static_cast<uint32_t>(port), static_cast<uint32_t>(i), &entry, 0, sizeof(entry)) != 0)
        continue;  // empty slot (ENODATA)
      memcpy(e.gid, entry.gid.raw, 16);
      e.type = entry.gid_type == IBV_GID_TYPE_ROCE_V2   ? GidType::RoceV2
               : entry.gid_type == IBV_GID_TYPE_ROCE_V1 ? GidType::RoceV1
                                                        : GidType::Ib;
    } else {
      ibv_gid gid{};
      if (api.queryGid(ctx, static_cast<uint8_t>(port), i, &gid) != 0) continue;
      memcpy(e.gid, gid.raw, 16);
      e.type = sysfsGidType(device, port, i);
    }
    if (!gidIsZero(e.gid)) out->push_back(e);
  }
  return Status::Success;
}

DeviceList::~DeviceList() {
  if (list_) api_.freeDeviceList(list_);
}

Status DeviceList::probe(bool withGids, std::string* whyNone) {
  int n = 0;
  errno = 0;
  list_ = api_.getDeviceList(&n);
  if (!list_) {
    const int err = errno ? errno : EIO;
    // rdma-core reports a kernel without RDMA (no uverbs class in sysfs) as ENOSYS.
    if (err == ENOSYS) {
      if (whyNone) *whyNone = "the kernel has no RDMA support (ibv_get_device_list: Function not implemented)";
      return Status::Success;
    }
    return MORI_FAIL(Status::System, log::kRdma, "ibv_get_device_list failed: %s", strerror(err));
  }
  for (int i = 0; i < n; ++i) {
    ProbedDevice d;
    d.device = list_[i];
    d.name = api_.getDeviceName(list_[i]) ? api_.getDeviceName(list_[i]) : "?";
    d.pciPath = realPath("/sys/class/infiniband/" + d.name + "/device");
    d.pciDriver = linkBasename("/sys/class/infiniband/" + d.name + "/device/driver");
    d.provider = providerFor(d.name, d.pciDriver);
    errno = 0;
    ibv_context* ctx = api_.openDevice(list_[i]);
    if (!ctx) {
      d.error = std::string("ibv_open_device failed: ") + strerror(errno ? errno : EIO);
      devices_.push_back(std::move(d));
      continue;
    }
    ibv_device_attr attr{};
    int rc = api_.queryDevice(ctx, &attr);
    if (rc != 0) {
      d.error = std::string("ibv_query_device failed: ") + strerror(rc);
    } else {
      for (int p = 1; p <= attr.phys_port_cnt; ++p) {
        ProbedPort port;
        port.port = p;
        rc = queryPort(api_, ctx, static_cast<uint8_t>(p), &port.attr);
        if (rc != 0) {
          d.error += "ibv_query_port(" + std::to_string(p) + ") failed: " + strerror(rc) + "; ";
          continue;
        }
        if (withGids) readGidTable(api_, ctx, d.name, p, port.attr.gid_tbl_len, &port.gids);
        d.ports.push_back(std::move(port));
      }
    }
    api_.closeDevice(ctx);
    devices_.push_back(std::move(d));
  }
  return Status::Success;
}

Status listDevices(std::vector<DeviceInfo>* out, std::string* why) {
  out->clear();
  std::string reason;
  const VerbsApi* api = verbsApi(&reason);
  if (!api) {
    if (why) *why = "RDMA unavailable: " + reason;
    return Status::Success;
  }
  DeviceList list(*api);
  std::string none;
  MORI_TRY(list.probe(/*withGids=*/true, &none));
  if (list.devices().empty()) {
    if (why)
      *why = "libibverbs found no RDMA devices: " +
             (none.empty() ? std::string("no kernel RDMA driver is bound (/sys/class/infiniband is empty)") : none);
    return Status::Success;
  }
  for (const ProbedDevice& d : list.devices()) {
    DeviceInfo info;
    info.name = d.name;
    info.provider = d.provider;
    const size_t slash = d.pciPath.rfind('/');
    info.pciBusId = slash == std::string::npos ? std::string() : d.pciPath.substr(slash + 1);
    for (const ProbedPort& p : d.ports) {
      PortInfo pi;
      pi.port = p.port;
      pi.state = portStateName(p.attr.state);
      pi.linkLayer = linkLayerName(p.attr.link_layer);
      pi.activeMtu = mtuBytes(p.attr.active_mtu);
      for (const GidEntry& g : p.gids)
        pi.gids.push_back(std::to_string(g.index) + ": " + gidToString(g.gid) + " (" + gidTypeName(g.type) + ")");
      info.ports.push_back(std::move(pi));
    }
    out->push_back(std::move(info));
  }
  if (why) why->clear();
  return Status::Success;
}

}  // namespace mori::rdma
