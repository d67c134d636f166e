// MORI_SHMEM_RDMA_PLUGIN: a shared library that provides the RDMA Device in place of the NICs
// (the test NIC model, or a provider built outside this project), through the versioned C
// interface of rdma_plugin.h. This is the runtime's side: it lends the plugin the PE group and
// its logger, and wraps the plugin's ops tables as a Device and its Endpoints.
#pragma once

#include <memory>
#include <string>

#include "transport/rdma/core/rdma_device.hpp"

namespace mori::rdma {

// Loads `path`, checks its interface version and opens its Device. Every failure is
// InvalidUsage (the variable names a library that is not a usable plugin) or the plugin's own
// status, and names the path and the problem. The library stays loaded for the process.
Status openPluginDevice(const std::string& path, const PeGroup& pes, std::unique_ptr<Device>* out);

}  // namespace mori::rdma
