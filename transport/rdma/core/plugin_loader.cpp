#include "transport/rdma/core/plugin_loader.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "transport/rdma/core/rdma_plugin.h"

namespace mori::rdma {
namespace {

static_assert(sizeof(EndpointWireInfo) == MORI_RDMA_PLUGIN_WIRE_INFO_BYTES, "rdma_plugin.h carries EndpointWireInfo");

bool isStatusCode(int rc) { return rc <= MORI_SHMEM_SUCCESS && rc >= MORI_SHMEM_ERROR_INTERNAL; }
Status pluginStatus(int rc) { return isStatusCode(rc) ? static_cast<Status>(rc) : Status::Internal; }

bool knownProvider(uint32_t p) {
  return p == static_cast<uint32_t>(Provider::Mlx5) || p == static_cast<uint32_t>(Provider::Bnxt) ||
         p == static_cast<uint32_t>(Provider::Ionic);
}

// The runtime's half of the host table: the table the plugin reads and the PE group behind it.
struct HostSide {
  mori_rdma_plugin_host_t table{};
  PeGroup pes;
};

int hostAllGather(const mori_rdma_plugin_host_t* self, const void* in, void* out, size_t bytes) {
  const HostSide* h = static_cast<const HostSide*>(self->internal);
  return static_cast<int>(h->pes.allGather(in, out, bytes));
}

void hostLog(int level, uint32_t subsys, const char* file, int line, const char* message) {
  if (level < static_cast<int>(log::Level::Error)) level = static_cast<int>(log::Level::Error);
  if (level > static_cast<int>(log::Level::Trace)) level = static_cast<int>(log::Level::Trace);
  const auto l = static_cast<log::Level>(level);
  if (log::enabled(l, subsys)) log::write(l, subsys, file ? file : "?", line, "%s", message ? message : "");
}

class PluginEndpoint final : public Endpoint {
 public:
  PluginEndpoint(const std::string& device, mori_rdma_plugin_endpoint_t* ep) : device_(device), ep_(ep) {
    memcpy(&local_, ep->local_info, sizeof(local_));
  }
  ~PluginEndpoint() override { ep_->destroy(ep_); }

  EndpointWireInfo localInfo() const override { return local_; }
  Status connect(const EndpointWireInfo& remote) override {
    const int rc = ep_->connect(ep_, reinterpret_cast<const uint8_t*>(&remote));
    if (rc == MORI_SHMEM_SUCCESS) return Status::Success;
    return MORI_FAIL(pluginStatus(rc), log::kRdma,
                     "  <- RDMA plugin device %s: connect(QP 0x%x to QP 0x%x) returned %d", device_.c_str(), local_.qpn,
                     remote.qpn, rc);
  }
  const EndpointDevice& deviceHandle() const override {
    return *static_cast<const EndpointDevice*>(ep_->device_handle);
  }
  size_t deviceMemoryBytes() const override { return ep_->device_memory_bytes; }

 private:
  std::string device_;
  mori_rdma_plugin_endpoint_t* ep_;
  EndpointWireInfo local_{};
};

class PluginDevice final : public Device {
 public:
  PluginDevice(std::unique_ptr<HostSide> host, mori_rdma_plugin_device_t* dev)
      : host_(std::move(host)), dev_(dev), name_(dev->name, strnlen(dev->name, sizeof(dev->name))) {}
  // The plugin closes its device while the host table it was lent still lives.
  ~PluginDevice() override { dev_->close(dev_); }

  const char* name() const override { return name_.c_str(); }
  Provider provider() const override { return static_cast<Provider>(dev_->provider); }

  Status registerMemory(void* ptr, size_t bytes, MemoryRegistration* out) override {
    mori_rdma_plugin_mr_t mr{};
    const int rc = dev_->register_memory(dev_, ptr, bytes, &mr);
    if (rc != MORI_SHMEM_SUCCESS)
      return MORI_FAIL(pluginStatus(rc), log::kRdma,
                       "  <- RDMA plugin device %s: register_memory(%p, %zu bytes) returned %d", name(), ptr, bytes,
                       rc);
    out->lkey = mr.lkey;
    out->rkey = mr.rkey;
    out->handle = mr.handle;
    return Status::Success;
  }

  Status deregisterMemory(const MemoryRegistration& reg) override {
    mori_rdma_plugin_mr_t mr{reg.lkey, reg.rkey, reg.handle};
    const int rc = dev_->deregister_memory(dev_, &mr);
    if (rc != MORI_SHMEM_SUCCESS)
      return MORI_FAIL(pluginStatus(rc), log::kRdma,
                       "  <- RDMA plugin device %s: deregister_memory(rkey 0x%x) returned %d", name(), reg.rkey, rc);
    return Status::Success;
  }

  Status createEndpoint(const EndpointConfig& cfg, std::unique_ptr<Endpoint>* out) override {
    mori_rdma_plugin_endpoint_config_t c{cfg.peer, cfg.qpIndex, cfg.sqDepth};
    mori_rdma_plugin_endpoint_t* ep = nullptr;
    const int rc = dev_->create_endpoint(dev_, &c, &ep);
    if (rc != MORI_SHMEM_SUCCESS)
      return MORI_FAIL(pluginStatus(rc), log::kRdma,
                       "  <- RDMA plugin device %s: create_endpoint(PE %d #%u, depth %u) returned %d", name(), cfg.peer,
                       cfg.qpIndex, cfg.sqDepth, rc);
    if (!ep)
      return MORI_FAIL(Status::Internal, log::kRdma,
                       "RDMA plugin device %s: create_endpoint(PE %d #%u) succeeded but returned no endpoint", name(),
                       cfg.peer, cfg.qpIndex);
    Status s = Status::Success;
    if (ep->interface_version != MORI_RDMA_PLUGIN_INTERFACE)
      s = MORI_FAIL(Status::InvalidUsage, log::kRdma,
                    "RDMA plugin device %s: endpoint of interface version %u, this runtime needs %d", name(),
                    ep->interface_version, MORI_RDMA_PLUGIN_INTERFACE);
    else if (!ep->device_handle || ep->device_handle_bytes != sizeof(EndpointDevice))
      s = MORI_FAIL(Status::InvalidUsage, log::kRdma,
                    "RDMA plugin device %s: endpoint handle %p of %u bytes, this runtime's EndpointDevice has %zu: "
                    "rebuild the plugin against this mori-shmem",
                    name(), ep->device_handle, ep->device_handle_bytes, sizeof(EndpointDevice));
    if (!ok(s)) {
      ep->destroy(ep);
      return s;
    }
    out->reset(new PluginEndpoint(name_, ep));
    return Status::Success;
  }

 private:
  std::unique_ptr<HostSide> host_;
  mori_rdma_plugin_device_t* dev_;
  std::string name_;
};

}  // namespace

Status openPluginDevice(const std::string& path, const PeGroup& pes, std::unique_ptr<Device>* out) {
  const char* p = path.c_str();
  struct stat st;
  if (stat(p, &st) != 0) {
    const int err = errno;
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: cannot use the plugin: %s", p,
                     strerror(err));
  }
  dlerror();
  // Kept loaded for the life of the process: the device's code lives in it.
  void* lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: dlopen failed: %s", p,
                     e ? e : "unknown error");
  }
  auto open = reinterpret_cast<mori_rdma_plugin_open_fn>(dlsym(lib, MORI_RDMA_PLUGIN_OPEN_SYMBOL));
  auto version = reinterpret_cast<mori_rdma_plugin_interface_fn>(dlsym(lib, MORI_RDMA_PLUGIN_INTERFACE_SYMBOL));
  if (!open)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_RDMA_PLUGIN=%s: the library exports no %s: it is not a mori-shmem RDMA plugin", p,
                     MORI_RDMA_PLUGIN_OPEN_SYMBOL);
  if (!version)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_RDMA_PLUGIN=%s: the library exports no %s: it predates RDMA plugin interface "
                     "version %d (C ops tables); rebuild the plugin against this mori-shmem",
                     p, MORI_RDMA_PLUGIN_INTERFACE_SYMBOL, MORI_RDMA_PLUGIN_INTERFACE);
  const int v = version();
  if (v != MORI_RDMA_PLUGIN_INTERFACE)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_RDMA_PLUGIN=%s: the plugin implements RDMA plugin interface version %d, this runtime "
                     "needs version %d: rebuild the plugin against this mori-shmem",
                     p, v, MORI_RDMA_PLUGIN_INTERFACE);

  auto host = std::make_unique<HostSide>();
  host->pes = pes;
  mori_rdma_plugin_host_t& t = host->table;
  t.interface_version = MORI_RDMA_PLUGIN_INTERFACE;
  t.size = sizeof(t);
  t.rank = pes.rank;
  t.nranks = pes.size;
  t.local_rank = pes.localRank;
  t.local_size = pes.localSize;
  t.allgather = hostAllGather;
  t.log = hostLog;
  t.log_level = static_cast<int>(log::level());
  t.log_subsys = log::mask();
  t.internal = host.get();

  mori_rdma_plugin_device_t* dev = nullptr;
  const int rc = open(&host->table, &dev);
  if (rc != MORI_SHMEM_SUCCESS)
    return MORI_FAIL(pluginStatus(rc), log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: %s returned %d (%s)", p,
                     MORI_RDMA_PLUGIN_OPEN_SYMBOL, rc, statusName(pluginStatus(rc)));
  if (!dev)
    return MORI_FAIL(Status::Internal, log::kRdma, "MORI_SHMEM_RDMA_PLUGIN=%s: %s succeeded but returned no device", p,
                     MORI_RDMA_PLUGIN_OPEN_SYMBOL);
  Status s = Status::Success;
  if (dev->interface_version != MORI_RDMA_PLUGIN_INTERFACE)
    s = MORI_FAIL(Status::InvalidUsage, log::kRdma,
                  "MORI_SHMEM_RDMA_PLUGIN=%s: the device's table has interface version %u, this runtime needs %d", p,
                  dev->interface_version, MORI_RDMA_PLUGIN_INTERFACE);
  else if (!knownProvider(dev->provider))
    s = MORI_FAIL(Status::InvalidUsage, log::kRdma,
                  "MORI_SHMEM_RDMA_PLUGIN=%s: the device names provider %u, not one of mlx5 (1), bnxt (2), ionic (3)",
                  p, dev->provider);
  if (!ok(s)) {
    dev->close(dev);
    return s;
  }
  out->reset(new PluginDevice(std::move(host), dev));
  MORI_LOG_INFO(log::kRdma, "RDMA provider plugin %s: device %s", p, (*out)->name());
  return Status::Success;
}

}  // namespace mori::rdma
