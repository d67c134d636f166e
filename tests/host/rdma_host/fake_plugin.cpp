// Fake RDMA provider plugins for test_rdma_open, written against the C interface alone
// (transport/rdma/core/rdma_plugin.h): one source, four libraries.
//   FAKE_PLUGIN_GOOD           interface MORI_RDMA_PLUGIN_INTERFACE; a device whose endpoints
//                              connect to nothing but themselves; logs through the runtime
//   FAKE_PLUGIN_WRONG_VERSION  interface 999
//   FAKE_PLUGIN_NO_INTERFACE   an open entry point but no interface function (interface 1 had none)
//   FAKE_PLUGIN_NO_ENTRY       neither entry point
#include <stdio.h>
#include <string.h>

#include "mori/shmem.h"
#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "transport/rdma/core/rdma_plugin.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

#if defined(FAKE_PLUGIN_NO_ENTRY)
FAKE_EXPORT int some_other_entry_point() { return 0; }
#else
namespace {

constexpr uint32_t kFakeQpn = 0x123;

const mori_rdma_plugin_host_t* gHost = nullptr;

void say(const char* what, int value) {
  char line[128];
  snprintf(line, sizeof(line), "fake_nic0: %s %d", what, value);
  gHost->log(/*WARN*/ 2, /*RDMA*/ 1u << 4, __FILE__, __LINE__, line);
}

struct FakeEndpoint {
  mori_rdma_plugin_endpoint_t table;
  mori::rdma::EndpointDevice handle;
};

int fakeConnect(mori_rdma_plugin_endpoint_t* self, const uint8_t* remote) {
  uint32_t qpn;
  memcpy(&qpn, remote, sizeof(qpn));  // EndpointWireInfo::qpn comes first
  return qpn == static_cast<FakeEndpoint*>(self->internal)->handle.qpn ? MORI_SHMEM_SUCCESS : MORI_SHMEM_ERROR_REMOTE;
}

void fakeDestroy(mori_rdma_plugin_endpoint_t* self) {
  FakeEndpoint* e = static_cast<FakeEndpoint*>(self->internal);
  say("endpoint destroyed, peer", e->handle.peer);
  delete e;
}

int fakeRegister(mori_rdma_plugin_device_t*, void* ptr, size_t bytes, mori_rdma_plugin_mr_t* out) {
  if (!ptr || !bytes) return MORI_SHMEM_ERROR_INVALID_USAGE;
  out->lkey = 1;
  out->rkey = 2;
  out->handle = ptr;
  return MORI_SHMEM_SUCCESS;
}

int fakeDeregister(mori_rdma_plugin_device_t*, const mori_rdma_plugin_mr_t* mr) {
  return mr->rkey == 2 ? MORI_SHMEM_SUCCESS : MORI_SHMEM_ERROR_INVALID_USAGE;
}

int fakeCreateEndpoint(mori_rdma_plugin_device_t*, const mori_rdma_plugin_endpoint_config_t* cfg,
                       mori_rdma_plugin_endpoint_t** out) {
  if (cfg->peer < 0) return MORI_SHMEM_ERROR_INVALID_USAGE;
  FakeEndpoint* e = new FakeEndpoint{};
  e->handle.provider = mori::rdma::Provider::Mlx5;
  e->handle.qpn = kFakeQpn + cfg->qp_index;
  e->handle.sqDepth = cfg->sq_depth;
  e->handle.peer = cfg->peer;
  e->handle.qpIndex = cfg->qp_index;
  mori_rdma_plugin_endpoint_t& t = e->table;
  t.interface_version = MORI_RDMA_PLUGIN_INTERFACE;
  t.device_handle = &e->handle;
  t.device_handle_bytes = sizeof(e->handle);
  t.device_memory_bytes = 4096;
  memcpy(t.local_info, &e->handle.qpn, sizeof(e->handle.qpn));
  t.connect = fakeConnect;
  t.destroy = fakeDestroy;
  t.internal = e;
  *out = &t;
  return MORI_SHMEM_SUCCESS;
}

void fakeClose(mori_rdma_plugin_device_t* self) {
  say("device closed, provider", static_cast<int>(self->provider));
  delete self;
}

}  // namespace

#if defined(FAKE_PLUGIN_GOOD)
FAKE_EXPORT int mori_shmem_rdma_plugin_interface(void) { return MORI_RDMA_PLUGIN_INTERFACE; }
#elif defined(FAKE_PLUGIN_WRONG_VERSION)
FAKE_EXPORT int mori_shmem_rdma_plugin_interface(void) { return 999; }
#endif

FAKE_EXPORT int mori_shmem_rdma_plugin_open(const mori_rdma_plugin_host_t* host, mori_rdma_plugin_device_t** out) {
  if (!host || host->interface_version != MORI_RDMA_PLUGIN_INTERFACE || host->size != sizeof(*host))
    return MORI_SHMEM_ERROR_NOT_SUPPORTED;
  gHost = host;
  // The runtime's collective: every PE's rank comes back in rank order.
  int ranks[64] = {};
  if (host->nranks > 64) return MORI_SHMEM_ERROR_NOT_SUPPORTED;
  int rc = host->allgather(host, &host->rank, ranks, sizeof(int));
  if (rc != MORI_SHMEM_SUCCESS) return rc;
  for (int r = 0; r < host->nranks; ++r)
    if (ranks[r] != r) return MORI_SHMEM_ERROR_INTERNAL;
  mori_rdma_plugin_device_t* d = new mori_rdma_plugin_device_t{};
  d->interface_version = MORI_RDMA_PLUGIN_INTERFACE;
  snprintf(d->name, sizeof(d->name), "fake_nic0");
  d->provider = static_cast<uint32_t>(mori::rdma::Provider::Mlx5);
  d->register_memory = fakeRegister;
  d->deregister_memory = fakeDeregister;
  d->create_endpoint = fakeCreateEndpoint;
  d->close = fakeClose;
  say("opened by PE", host->rank);
  *out = d;
  return MORI_SHMEM_SUCCESS;
}
#endif  // FAKE_PLUGIN_NO_ENTRY
