// What the machine has: RDMA devices through libibverbs, their ports and GIDs, and where they and
// the GPU sit on the PCI tree (sysfs). Decisions over this data live in device_selection.hpp.
#pragma once

#include <infiniband/verbs.h>

#include <string>
#include <vector>

#include "src/common/status.hpp"
#include "transport/rdma/core/device_selection.hpp"
#include "transport/rdma/core/verbs_loader.hpp"

namespace mori::rdma {

struct ProbedPort {
  int port = 0;
  ibv_port_attr attr{};
  std::vector<GidEntry> gids;  // valid (non-zero) entries; filled when asked for
};

struct ProbedDevice {
  ibv_device* device = nullptr;  // valid while the device list lives
  std::string name;
  std::string pciPath;    // resolved sysfs path of the PCI function, empty if unknown
  std::string pciDriver;  // e.g. mlx5_core, empty if unknown
  Provider provider = Provider::None;
  std::vector<ProbedPort> ports;
  std::string error;  // why the device could not be opened or queried (then ports is empty)
};

// The device list from ibv_get_device_list; freed on destruction.
class DeviceList {
 public:
  explicit DeviceList(const VerbsApi& api) : api_(api) {}
  ~DeviceList();
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;
  // Lists and queries every device (opening each briefly). A kernel without RDMA support is no
  // error: the list is empty and *whyNone (optional) says so. Fails only if listing fails otherwise.
  Status probe(bool withGids, std::string* whyNone = nullptr);
  const std::vector<ProbedDevice>& devices() const { return devices_; }

 private:
  const VerbsApi& api_;
  ibv_device** list_ = nullptr;
  std::vector<ProbedDevice> devices_;
};

// The port's valid GIDs with their types (_ibv_query_gid_ex where available, else ibv_query_gid
// and the type from sysfs).
Status readGidTable(const VerbsApi& api, ibv_context* ctx, const std::string& device, int port, int tableLen,
                    std::vector<GidEntry>* out);

// Resolved sysfs path of a PCI function ("0000:1b:00.0"), empty if absent.
std::string pciPathOfBusId(const std::string& busId);

const char* portStateName(int state);
const char* linkLayerName(int linkLayer);

}  // namespace mori::rdma
