#include "transport/rdma/core/plugin_export.hpp"

#include <stdio.h>
#include <string.h>

namespace mori::rdma {
namespace {

static_assert(sizeof(EndpointWireInfo) == MORI_RDMA_PLUGIN_WIRE_INFO_BYTES, "rdma_plugin.h carries EndpointWireInfo");

struct ExportedEndpoint {
  mori_rdma_plugin_endpoint_t table{};
  std::unique_ptr<Endpoint> ep;
};

struct ExportedDevice {
  mori_rdma_plugin_device_t table{};
  std::unique_ptr<Device> dev;
};

Device& deviceOf(mori_rdma_plugin_device_t* self) { return *static_cast<ExportedDevice*>(self->internal)->dev; }

int connectEndpoint(mori_rdma_plugin_endpoint_t* self, const uint8_t* remoteInfo) {
  EndpointWireInfo remote;
  memcpy(&remote, remoteInfo, sizeof(remote));
  return static_cast<int>(static_cast<ExportedEndpoint*>(self->internal)->ep->connect(remote));
}

void destroyEndpoint(mori_rdma_plugin_endpoint_t* self) { delete static_cast<ExportedEndpoint*>(self->internal); }

int registerMemory(mori_rdma_plugin_device_t* self, void* ptr, size_t bytes, mori_rdma_plugin_mr_t* out) {
  MemoryRegistration reg;
  const Status s = deviceOf(self).registerMemory(ptr, bytes, &reg);
  if (ok(s)) *out = mori_rdma_plugin_mr_t{reg.lkey, reg.rkey, reg.handle};
  return static_cast<int>(s);
}

int deregisterMemory(mori_rdma_plugin_device_t* self, const mori_rdma_plugin_mr_t* mr) {
  MemoryRegistration reg;
  reg.lkey = mr->lkey;
  reg.rkey = mr->rkey;
  reg.handle = mr->handle;
  return static_cast<int>(deviceOf(self).deregisterMemory(reg));
}

int createEndpoint(mori_rdma_plugin_device_t* self, const mori_rdma_plugin_endpoint_config_t* cfg,
                   mori_rdma_plugin_endpoint_t** out) {
  EndpointConfig c;
  c.peer = cfg->peer;
  c.qpIndex = cfg->qp_index;
  c.sqDepth = cfg->sq_depth;
  std::unique_ptr<Endpoint> ep;
  const Status s = deviceOf(self).createEndpoint(c, &ep);
  if (!ok(s)) return static_cast<int>(s);
  auto* e = new ExportedEndpoint;
  e->ep = std::move(ep);
  mori_rdma_plugin_endpoint_t& t = e->table;
  t.interface_version = MORI_RDMA_PLUGIN_INTERFACE;
  t.device_handle = &e->ep->deviceHandle();
  t.device_handle_bytes = sizeof(EndpointDevice);
  t.device_memory_bytes = e->ep->deviceMemoryBytes();
  const EndpointWireInfo local = e->ep->localInfo();
  memcpy(t.local_info, &local, sizeof(local));
  t.connect = connectEndpoint;
  t.destroy = destroyEndpoint;
  t.internal = e;
  *out = &t;
  return MORI_SHMEM_SUCCESS;
}

void closeDevice(mori_rdma_plugin_device_t* self) { delete static_cast<ExportedDevice*>(self->internal); }

}  // namespace

Status adoptPluginHost(const mori_rdma_plugin_host_t* host, PeGroup* pes) {
  if (!host || host->interface_version != MORI_RDMA_PLUGIN_INTERFACE || host->size != sizeof(*host) || !host->log ||
      !host->allgather)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "RDMA plugin: the runtime's host table is %s (interface version %u, %u bytes); this plugin "
                     "implements interface version %d (%zu bytes): rebuild it against this mori-shmem",
                     host ? "of another build" : "missing", host ? host->interface_version : 0u, host ? host->size : 0u,
                     MORI_RDMA_PLUGIN_INTERFACE, sizeof(mori_rdma_plugin_host_t));
  log::forwardTo(host->log, static_cast<log::Level>(host->log_level), host->log_subsys);
  log::setPe(host->rank);
  pes->rank = host->rank;
  pes->size = host->nranks;
  pes->localRank = host->local_rank;
  pes->localSize = host->local_size;
  pes->allGather = [host](const void* in, void* out, size_t bytes) {
    const int rc = host->allgather(host, in, out, bytes);
    return rc == MORI_SHMEM_SUCCESS ? Status::Success
                                    : MORI_FAIL(static_cast<Status>(rc), log::kRdma, "  <- the runtime's allgather");
  };
  return Status::Success;
}

mori_rdma_plugin_device_t* exportPluginDevice(std::unique_ptr<Device> dev) {
  auto* d = new ExportedDevice;
  d->dev = std::move(dev);
  mori_rdma_plugin_device_t& t = d->table;
  t.interface_version = MORI_RDMA_PLUGIN_INTERFACE;
  snprintf(t.name, sizeof(t.name), "%s", d->dev->name());
  t.provider = static_cast<uint32_t>(d->dev->provider());
  t.register_memory = registerMemory;
  t.deregister_memory = deregisterMemory;
  t.create_endpoint = createEndpoint;
  t.close = closeDevice;
  t.internal = d;
  return &t;
}

}  // namespace mori::rdma
