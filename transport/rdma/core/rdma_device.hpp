// Host side of the RDMA transport: a Device (one opened NIC, or a provider plugin such as the
// test NIC model) registers memory and creates Endpoints (one RC QP + CQ towards one peer) whose
// queues live in GPU memory; Endpoint::deviceHandle() is what GPU threads post through.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "src/common/env.hpp"
#include "src/common/status.hpp"

namespace mori::rdma {

struct MemoryRegistration {
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  void* handle = nullptr;  // backend's own (ibv_mr*, ...)
};

// What one endpoint tells its peer so that the two can connect (exchanged by AllToAll).
struct EndpointWireInfo {
  uint32_t qpn;
  uint32_t psn;
  uint8_t gid[16];
  uint16_t lid;
  uint8_t portNum;
  uint8_t mtu;        // enum ibv_mtu of the local port
  uint8_t linkLayer;  // IBV_LINK_LAYER_*
  uint8_t provider;   // Provider
  uint8_t reserved[2];
  uint64_t opaque[4];  // backend-specific
};
static_assert(sizeof(EndpointWireInfo) == 64, "EndpointWireInfo is exchanged as raw bytes (and crosses rdma_plugin.h)");

struct EndpointConfig {
  int peer = -1;
  uint32_t qpIndex = 0;
  uint32_t sqDepth = 1024;  // power of two
};

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual EndpointWireInfo localInfo() const = 0;
  // RESET -> INIT -> RTR -> RTS towards the peer described by `remote`.
  virtual Status connect(const EndpointWireInfo& remote) = 0;
  // Borrowed view for GPU threads; valid while this Endpoint lives.
  virtual const EndpointDevice& deviceHandle() const = 0;
  // GPU memory this endpoint holds: SQ + CQ + doorbell records + atomic scratch + state.
  virtual size_t deviceMemoryBytes() const = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const char* name() const = 0;
  virtual Provider provider() const = 0;
  // Registers GPU memory for local and remote access (dmabuf first, then ibv_reg_mr).
  // Called collectively: every PE registers its corresponding region in the same order.
  virtual Status registerMemory(void* ptr, size_t bytes, MemoryRegistration* out) = 0;
  virtual Status deregisterMemory(const MemoryRegistration& reg) = 0;
  virtual Status createEndpoint(const EndpointConfig& cfg, std::unique_ptr<Endpoint>* out) = 0;
};

// One port of a discovered device, as mori-shmem-info prints it.
struct PortInfo {
  int port = 0;
  std::string state;              // "ACTIVE", "DOWN", ...
  std::string linkLayer;          // "Ethernet" (RoCE) or "InfiniBand"
  int activeMtu = 0;              // bytes
  std::vector<std::string> gids;  // "index: gid (type)"
};
struct DeviceInfo {
  std::string name;  // e.g. mlx5_0
  Provider provider = Provider::None;
  std::string pciBusId;  // domain:bus:dev.fn, empty if unknown
  std::vector<PortInfo> ports;
};

// Lists RDMA devices through libibverbs loaded with dlopen. No libibverbs or no devices: an
// empty list and Success, with `why` saying which.
Status listDevices(std::vector<DeviceInfo>* out, std::string* why);

// This PE's place among the PEs and one collective over them: what the RDMA transport needs from
// the layer above (application/context builds it from its Bootstrap). allGather: out[r * bytes ..)
// receives PE r's `in`; collective, same order on every PE.
struct PeGroup {
  int rank = 0;
  int size = 1;
  int localRank = 0;  // among the PEs on this host
  int localSize = 1;
  std::function<Status(const void* in, void* out, size_t bytes)> allGather;
};

// Opens the device serving `gpuPciBusId` best (PCI distance; ties spread by pes.localRank),
// honouring MORI_SHMEM_RDMA_DEVICES, or the provider plugin named by MORI_SHMEM_RDMA_PLUGIN (C
// interface: rdma_plugin.h). NotSupported (with the reason logged) when there is none.
Status openDevice(const std::string& gpuPciBusId, const env::Config& cfg, const PeGroup& pes,
                  std::unique_ptr<Device>* out);

// openDevice that hands NotSupported's reason to the caller (the Context words its own message
// about which transports remain) instead of logging it at WARN.
Status openDevice(const std::string& gpuPciBusId, const env::Config& cfg, const PeGroup& pes,
                  std::unique_ptr<Device>* out, std::string* whyNotSupported);

}  // namespace mori::rdma
