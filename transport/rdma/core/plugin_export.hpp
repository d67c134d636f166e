// The plugin's side of rdma_plugin.h for a provider written against rdma::Device in C++ (the NIC
// model in tests/support/nic_model): the runtime's host table becomes a PeGroup and this
// library's logger forwards to the runtime's; a Device becomes the ops table the runtime calls.
// Linked into the plugin (target mori_rdma_plugin_export), never into the runtime.
#pragma once

#include <memory>

#include "transport/rdma/core/rdma_device.hpp"
#include "transport/rdma/core/rdma_plugin.h"

namespace mori::rdma {

// Checks `host` (interface version, size) and points this library's logger at the runtime's
// (log::forwardTo, with the runtime's level and mask). *pes is the runtime's PE group; its
// allGather calls back into the runtime. InvalidUsage on a null or mismatched table.
Status adoptPluginHost(const mori_rdma_plugin_host_t* host, PeGroup* pes);

// The ops table over `dev`, which the table owns: close() deletes both. Endpoints it creates
// are tables over the Device's Endpoints, deleted by their destroy().
mori_rdma_plugin_device_t* exportPluginDevice(std::unique_ptr<Device> dev);

}  // namespace mori::rdma
