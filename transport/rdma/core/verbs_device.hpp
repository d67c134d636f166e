// What every provider's Device shares: the opened verbs context, its protection domain, the port
// and GID connections use, memory registration, and the common part of an endpoint's wire info.
// Providers derive from it and add createEndpoint (mlx5/, bnxt/, ionic/).
#pragma once

#include <infiniband/verbs.h>
#include <stdint.h>

#include <string>

#include "transport/rdma/core/rdma_device.hpp"
#include "transport/rdma/core/verbs_loader.hpp"

namespace mori::rdma {

// The device and port openDevice chose.
struct DeviceTarget {
  ibv_device* device = nullptr;
  std::string name;
  Provider provider = Provider::None;
  int port = 0;
};

class VerbsDevice : public Device {
 public:
  ~VerbsDevice() override;
  const char* name() const override { return name_.c_str(); }
  Provider provider() const override { return provider_; }
  Status registerMemory(void* ptr, size_t bytes, MemoryRegistration* out) override;
  Status deregisterMemory(const MemoryRegistration& reg) override;

  const VerbsApi& api() const { return *api_; }
  ibv_context* context() const { return ctx_; }
  ibv_pd* pd() const { return pd_; }
  int port() const { return port_; }
  const ibv_port_attr& portAttr() const { return portAttr_; }
  const ibv_device_attr& deviceAttr() const { return deviceAttr_; }
  bool ethernet() const { return portAttr_.link_layer == IBV_LINK_LAYER_ETHERNET; }
  int gidIndex() const { return gidIndex_; }
  const uint8_t* gid() const { return gid_; }
  const env::Config& config() const { return config_; }
  // Alignment of NIC-visible queue memory: the host page size, at least the adapter's 4 KiB.
  size_t pageBytes() const { return pageBytes_; }

  // qpn, a fresh random PSN, GID, LID, port, active MTU, link layer and provider.
  EndpointWireInfo wireInfo(uint32_t qpn) const;
  // Checks that `remote` can talk to this port (same link layer, valid MTU) and returns the path
  // MTU of the connection (enum ibv_mtu).
  Status checkRemote(const EndpointWireInfo& remote, uint32_t localQpn, int* pathMtuOut) const;
  // log2 of the RDMA READ / atomic depth a QP may use as requester and responder.
  uint32_t logRdAtomic() const;

 protected:
  VerbsDevice() = default;
  // Takes ownership of `ctx` (closed on failure too): allocates the PD, queries the device and
  // port, selects the GID (MORI_SHMEM_IB_GID_INDEX honoured).
  Status init(const VerbsApi& api, ibv_context* ctx, const DeviceTarget& target, const env::Config& cfg);
  // ibv_open_device, then init() (providers without a vendor open call).
  Status openAndInit(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg);

 private:
  const VerbsApi* api_ = nullptr;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  std::string name_;
  Provider provider_ = Provider::None;
  int port_ = 0;
  ibv_port_attr portAttr_{};
  ibv_device_attr deviceAttr_{};
  int gidIndex_ = 0;
  uint8_t gid_[16] = {};
  env::Config config_;
  size_t pageBytes_ = 0;
};

// The entry point of a provider whose Device D needs the vendor's direct-verbs table Dv first
// (bnxt_re, ionic): `load` fills it or says why not (then NotSupported naming the device as
// `family`, e.g. "a bnxt_re"), and D::open(api, dv, target, cfg) opens the device on it.
template <class D, class Dv>
Status openDirectVerbsDevice(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg,
                             Status (*load)(Dv*, std::string*), const char* family, std::unique_ptr<Device>* out) {
  std::string why;
  Dv dv{};
  if (!ok(load(&dv, &why)))
    return MORI_FAIL(Status::NotSupported, log::kRdma, "%s is %s device but GPU-resident queues are unavailable: %s",
                     target.name.c_str(), family, why.c_str());
  auto dev = std::make_unique<D>();
  MORI_TRY(dev->open(api, dv, target, cfg));
  *out = std::move(dev);
  return Status::Success;
}

// Provider entry points used by openDevice (defined in mlx5/, bnxt/, ionic/).
Status openMlx5Device(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg,
                      std::unique_ptr<Device>* out);
Status openBnxtDevice(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg,
                      std::unique_ptr<Device>* out);
Status openIonicDevice(const VerbsApi& api, const DeviceTarget& target, const env::Config& cfg,
                       std::unique_ptr<Device>* out);

}  // namespace mori::rdma
