// Fake RDMA provider plugins for test_rdma_open: one source, three libraries.
//   FAKE_PLUGIN_GOOD           exports the current interface version and opens a do-nothing Device
//   FAKE_PLUGIN_WRONG_VERSION  exports interface version 999
//   FAKE_PLUGIN_NO_ENTRY       exports no mori_shmem_rdma_plugin_open
#include "transport/rdma/core/rdma_device.hpp"

namespace {

class FakeDevice final : public mori::rdma::Device {
 public:
  const char* name() const override { return "fake_nic0"; }
  mori::rdma::Provider provider() const override { return mori::rdma::Provider::Mlx5; }
  mori::Status registerMemory(void*, size_t, mori::rdma::MemoryRegistration* out) override {
    out->lkey = 1;
    out->rkey = 2;
    return mori::Status::Success;
  }
  mori::Status deregisterMemory(const mori::rdma::MemoryRegistration&) override { return mori::Status::Success; }
  mori::Status createEndpoint(const mori::rdma::EndpointConfig&, std::unique_ptr<mori::rdma::Endpoint>*) override {
    return mori::Status::NotSupported;
  }
};

}  // namespace

#if defined(FAKE_PLUGIN_GOOD)
extern "C" __attribute__((visibility("default"))) const int mori_shmem_rdma_plugin_version =
    mori::rdma::kPluginInterfaceVersion;
#elif defined(FAKE_PLUGIN_WRONG_VERSION)
extern "C" __attribute__((visibility("default"))) const int mori_shmem_rdma_plugin_version = 999;
#endif

#if defined(FAKE_PLUGIN_GOOD) || defined(FAKE_PLUGIN_WRONG_VERSION)
extern "C" __attribute__((visibility("default"))) int mori_shmem_rdma_plugin_open(int version,
                                                                                  mori::bootstrap::Bootstrap*,
                                                                                  const mori::env::Config*,
                                                                                  mori::rdma::Device** out) {
  if (version != mori::rdma::kPluginInterfaceVersion) return MORI_SHMEM_ERROR_NOT_SUPPORTED;
  *out = new FakeDevice();
  return MORI_SHMEM_SUCCESS;
}
#else
extern "C" __attribute__((visibility("default"))) int some_other_entry_point() { return 0; }
#endif
