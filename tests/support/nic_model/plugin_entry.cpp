// The NIC model as an RDMA provider plugin (MORI_SHMEM_RDMA_PLUGIN; C interface in
// transport/rdma/core/rdma_plugin.h): the only symbols the library exports.
#include "tests/support/nic_model/model_config.hpp"
#include "tests/support/nic_model/model_device.hpp"
#include "transport/rdma/core/plugin_export.hpp"

extern "C" __attribute__((visibility("default"))) int mori_shmem_rdma_plugin_interface(void) {
  return MORI_RDMA_PLUGIN_INTERFACE;
}

extern "C" __attribute__((visibility("default"))) int mori_shmem_rdma_plugin_open(const mori_rdma_plugin_host_t* host,
                                                                                  mori_rdma_plugin_device_t** out) {
  using namespace mori;
  using namespace mori::test::nicmodel;
  if (!out) return MORI_SHMEM_ERROR_INVALID_USAGE;
  *out = nullptr;
  // From here on this library logs through the runtime's logger.
  rdma::PeGroup pes;
  Status s = rdma::adoptPluginHost(host, &pes);
  if (!ok(s)) return static_cast<int>(s);
  ModelConfig mc;
  s = loadModelConfig(&mc);
  if (!ok(s)) return static_cast<int>(s);
  std::unique_ptr<ModelDevice> dev;
  s = ModelDevice::open(pes, mc, &dev);
  if (!ok(s)) return static_cast<int>(s);
  *out = rdma::exportPluginDevice(std::move(dev));
  return MORI_SHMEM_SUCCESS;
}
