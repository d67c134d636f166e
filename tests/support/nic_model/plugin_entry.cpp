// The NIC model as an RDMA provider plugin (MORI_SHMEM_RDMA_PLUGIN, ABI in
// transport/rdma/core/rdma_device.hpp): the only symbols the library exports.
#include "tests/support/nic_model/model_config.hpp"
#include "tests/support/nic_model/model_device.hpp"

extern "C" __attribute__((visibility("default"))) const int mori_shmem_rdma_plugin_version =
    mori::rdma::kPluginInterfaceVersion;

extern "C" __attribute__((visibility("default"))) int mori_shmem_rdma_plugin_open(int version,
                                                                                  mori::bootstrap::Bootstrap* boot,
                                                                                  const mori::env::Config* cfg,
                                                                                  mori::rdma::Device** out) {
  using namespace mori;
  using namespace mori::test::nicmodel;
  (void)cfg;  // the runtime's settings reach the model through its calls (QP depth, ...)
  if (!boot || !out) return MORI_SHMEM_ERROR_INVALID_USAGE;
  *out = nullptr;
  // This library carries its own copy of the logger: same settings, same PE tag.
  log::configureFromEnv();
  log::setPe(boot->rank());
  if (version != rdma::kPluginInterfaceVersion)
    return static_cast<int>(MORI_FAIL(Status::NotSupported, log::kRdma,
                                      "NIC model implements RDMA plugin interface %d, the runtime asks for %d",
                                      rdma::kPluginInterfaceVersion, version));
  ModelConfig mc;
  Status s = loadModelConfig(&mc);
  if (!ok(s)) return static_cast<int>(s);
  std::unique_ptr<ModelDevice> dev;
  s = ModelDevice::open(*boot, mc, &dev);
  if (!ok(s)) return static_cast<int>(s);
  *out = dev.release();
  return MORI_SHMEM_SUCCESS;
}
