// Pure decision logic behind device discovery, over data rather than the live system so that it
// is tested without NICs: which devices MORI_SHMEM_RDMA_DEVICES allows, which NIC is closest to a
// GPU on the PCI tree, which GID a port uses, which MTU a connection uses, which provider drives
// a device.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "src/common/status.hpp"

namespace mori::rdma {

// ---- MORI_SHMEM_RDMA_DEVICES: "mlx5_0,mlx5_1:1" (use only these; ":port" narrows to one port)
// or "^mlx5_2" (use all but these). Names match exactly. Empty: every device.
struct DeviceFilter {
  struct Entry {
    std::string name;
    int port = 0;  // 0: every port
  };
  bool exclude = false;
  std::vector<Entry> entries;

  bool allows(const std::string& device, int port) const;
  // The include list names this device (used to report names that match nothing).
  bool names(const std::string& device) const;
};
// InvalidUsage (naming the variable and the bad item) on malformed text.
Status parseDeviceFilter(const std::string& text, DeviceFilter* out);

// ---- GIDs
enum class GidType : uint8_t { Ib = 0, RoceV1 = 1, RoceV2 = 2 };
struct GidEntry {
  int index = 0;
  uint8_t gid[16] = {};
  GidType type = GidType::Ib;
};
const char* gidTypeName(GidType t);
std::string gidToString(const uint8_t gid[16]);  // "fe80:0000:...:0001" (8 groups)
bool gidIsZero(const uint8_t gid[16]);

// Chooses the GID index of a port. `overrideIndex` is MORI_SHMEM_IB_GID_INDEX: >= 0 must name a
// non-zero entry of `table` (InvalidUsage otherwise, listing the valid ones); -1 chooses: on
// Ethernet the best RoCE v2 entry (IPv4-mapped, then global IPv6, then link-local; lowest index
// within a class), else the first valid entry; on InfiniBand the first valid entry. NotSupported
// when the port has no valid GID. *note says what was chosen and why (for the log).
Status selectGidIndex(const std::vector<GidEntry>& table, bool ethernet, int64_t overrideIndex, int* out,
                      std::string* note);

// ---- MTU (enum ibv_mtu values: 1 = 256 B ... 5 = 4096 B)
int mtuBytes(int ibvMtu);  // 0 for a value outside 1..5
// The path MTU of a connection: the smaller of the two ports' active MTUs, never a constant
// (a 4K MTU on a 1500-byte Ethernet fabric drops every full-size packet). InvalidUsage when
// either value is not a valid ibv_mtu.
Status pathMtu(int localActiveMtu, int remoteActiveMtu, int* out);

// ---- PCI topology
// "0000:1B:00.0", "00000000:1b:00.0" -> "0000:1b:00.0"; empty when malformed.
std::string normalizePciBusId(const std::string& busId);
// Hops between two devices given their resolved sysfs paths
// (/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0): up from each to the deepest common
// bridge, plus kCrossRootPenalty when they hang under different root complexes (the path then
// crosses the CPU interconnect). kUnknownDistance when either path is empty.
constexpr int kCrossRootPenalty = 100;
constexpr int kUnknownDistance = 1 << 20;
int pciDistance(const std::string& pathA, const std::string& pathB);

struct NicCandidate {
  std::string name;
  std::string pciPath;  // resolved sysfs path, empty if unknown
};
// Index of the candidate closest to the GPU at `gpuPath`. Equally close candidates (two ports
// of one card, or an unknown GPU path) are shared out by `localRank` so that PEs on one host
// spread over them. -1 when `nics` is empty.
int pickClosestNic(const std::string& gpuPath, const std::vector<NicCandidate>& nics, int localRank);

// ---- provider of a device: by its PCI driver (mlx5_core, bnxt_en, ionic), else by the usual
// device-name prefix (mlx5_, bnxt_re, ionic). Provider::None for everything else.
Provider providerFor(const std::string& deviceName, const std::string& pciDriver);
const char* providerName(Provider p);

}  // namespace mori::rdma
