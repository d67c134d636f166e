// What the runtime does on this machine, which has rdma-core but no RDMA device (and cannot have
// one): listDevices and openDevice fail cleanly with a reason; MORI_SHMEM_RDMA_PLUGIN loads a
// provider plugin or says exactly why it cannot.
#include <gtest/gtest.h>
#include <stddef.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include "transport/rdma/core/rdma_device.hpp"
#include "transport/rdma/core/rdma_plugin.h"
#include "transport/rdma/core/verbs_device.hpp"
#include "transport/rdma/core/verbs_loader.hpp"

using namespace mori;

namespace {

// A single-PE group: allGather copies this PE's contribution.
rdma::PeGroup onePe() {
  rdma::PeGroup g;
  g.allGather = [](const void* in, void* out, size_t bytes) {
    memcpy(out, in, bytes);
    return Status::Success;
  };
  return g;
}

env::Config defaults() {
  env::Config c;
  c.qpDepth = 1024;
  c.numQpPerPe = 2;
  c.ibGidIndex = -1;
  return c;
}

// openDevice with the plugin `path`; returns its status, *err the logged lines.
Status openWithPlugin(const std::string& path, std::unique_ptr<rdma::Device>* dev, std::string* err) {
  env::Config cfg = defaults();
  cfg.rdmaPlugin = path;
  testing::internal::CaptureStderr();
  Status s = rdma::openDevice("0000:00:00.0", cfg, onePe(), dev);
  *err = testing::internal::GetCapturedStderr();
  return s;
}

}  // namespace

TEST(RdmaOpen, ListDevicesIsEmptyWithAReason) {
  std::vector<rdma::DeviceInfo> devices;
  std::string why;
  ASSERT_EQ(rdma::listDevices(&devices, &why), Status::Success);
  if (!devices.empty()) GTEST_SKIP() << "this machine has RDMA devices (" << devices[0].name << ")";
  EXPECT_FALSE(why.empty());
  // Either rdma-core is absent, or it is present and lists nothing.
  EXPECT_TRUE(why.find("libibverbs") != std::string::npos) << why;
  printf("  listDevices: %s\n", why.c_str());
}

TEST(RdmaOpen, OpenDeviceWithoutDevicesIsNotSupported) {
  std::vector<rdma::DeviceInfo> devices;
  std::string why;
  ASSERT_EQ(rdma::listDevices(&devices, &why), Status::Success);
  if (!devices.empty()) GTEST_SKIP() << "this machine has RDMA devices";
  env::Config cfg = defaults();
  const rdma::PeGroup pes = onePe();
  std::unique_ptr<rdma::Device> dev;
  std::string reason;
  EXPECT_EQ(rdma::openDevice("0000:1b:00.0", cfg, pes, &dev, &reason), Status::NotSupported);
  EXPECT_FALSE(dev);
  EXPECT_NE(reason.find("RDMA"), std::string::npos) << reason;
  // The 4-argument form logs the reason itself.
  testing::internal::CaptureStderr();
  EXPECT_EQ(rdma::openDevice("0000:1b:00.0", cfg, pes, &dev), Status::NotSupported);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(reason), std::string::npos) << err;
  printf("  openDevice: %s\n", reason.c_str());
}

TEST(RdmaOpen, BadConfigurationIsRejectedFirst) {
  const rdma::PeGroup pes = onePe();
  std::unique_ptr<rdma::Device> dev;
  env::Config cfg = defaults();
  cfg.qpDepth = 1000;
  testing::internal::CaptureStderr();
  EXPECT_EQ(rdma::openDevice("", cfg, pes, &dev), Status::InvalidUsage);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("MORI_SHMEM_QP_DEPTH=1000"), std::string::npos) << err;
  cfg = defaults();
  cfg.numQpPerPe = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(rdma::openDevice("", cfg, pes, &dev), Status::InvalidUsage);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("MORI_SHMEM_NUM_QP_PER_PE=0"), std::string::npos) << err;
}

TEST(RdmaPlugin, MissingFile) {
  std::unique_ptr<rdma::Device> dev;
  std::string err;
  EXPECT_EQ(openWithPlugin("/nonexistent/libnic_model.so", &dev, &err), Status::InvalidUsage);
  EXPECT_FALSE(dev);
  EXPECT_NE(err.find("MORI_SHMEM_RDMA_PLUGIN=/nonexistent/libnic_model.so"), std::string::npos) << err;
  EXPECT_NE(err.find("No such file"), std::string::npos) << err;
}

TEST(RdmaPlugin, NotALibrary) {
  std::unique_ptr<rdma::Device> dev;
  std::string err;
  EXPECT_EQ(openWithPlugin(MORI_TEST_NOT_A_LIBRARY, &dev, &err), Status::InvalidUsage);
  EXPECT_NE(err.find(MORI_TEST_NOT_A_LIBRARY), std::string::npos) << err;
  EXPECT_NE(err.find("dlopen failed"), std::string::npos) << err;
}

TEST(RdmaPlugin, LibraryWithoutEntrySymbol) {
  std::unique_ptr<rdma::Device> dev;
  std::string err;
  EXPECT_EQ(openWithPlugin(MORI_TEST_PLUGIN_NO_ENTRY, &dev, &err), Status::InvalidUsage);
  EXPECT_NE(err.find(MORI_TEST_PLUGIN_NO_ENTRY), std::string::npos) << err;
  EXPECT_NE(err.find("exports no mori_shmem_rdma_plugin_open"), std::string::npos) << err;
}

TEST(RdmaPlugin, WrongInterfaceVersion) {
  std::unique_ptr<rdma::Device> dev;
  std::string err;
  EXPECT_EQ(openWithPlugin(MORI_TEST_PLUGIN_WRONG_VERSION, &dev, &err), Status::InvalidUsage);
  EXPECT_NE(err.find(MORI_TEST_PLUGIN_WRONG_VERSION), std::string::npos) << err;
  EXPECT_NE(err.find("interface version 999"), std::string::npos) << err;
  EXPECT_NE(err.find("needs version " + std::to_string(MORI_RDMA_PLUGIN_INTERFACE)), std::string::npos) << err;
}

// Interface 1 passed C++ objects and exported no interface function: refused before any call.
TEST(RdmaPlugin, PluginWithoutInterfaceFunction) {
  std::unique_ptr<rdma::Device> dev;
  std::string err;
  EXPECT_EQ(openWithPlugin(MORI_TEST_PLUGIN_NO_INTERFACE, &dev, &err), Status::InvalidUsage);
  EXPECT_FALSE(dev);
  EXPECT_NE(err.find(MORI_TEST_PLUGIN_NO_INTERFACE), std::string::npos) << err;
  EXPECT_NE(err.find("exports no mori_shmem_rdma_plugin_interface"), std::string::npos) << err;
  EXPECT_EQ(err.find("fake_nic0: opened"), std::string::npos) << "open() was called: " << err;
}

TEST(RdmaPlugin, GoodPluginProvidesTheDevice) {
  std::unique_ptr<rdma::Device> dev;
  std::string err;
  ASSERT_EQ(openWithPlugin(MORI_TEST_PLUGIN_GOOD, &dev, &err), Status::Success) << err;
  ASSERT_TRUE(dev);
  // The plugin logs through the runtime's logger: its line carries the runtime's tag.
  EXPECT_NE(err.find("] WARN RDMA fake_plugin.cpp:"), std::string::npos) << err;
  EXPECT_NE(err.find("fake_nic0: opened by PE 0"), std::string::npos) << err;
  EXPECT_STREQ(dev->name(), "fake_nic0");
  EXPECT_EQ(dev->provider(), rdma::Provider::Mlx5);
  rdma::MemoryRegistration reg;
  EXPECT_EQ(dev->registerMemory(&reg, sizeof(reg), &reg), Status::Success);
  EXPECT_EQ(reg.lkey, 1u);
  EXPECT_EQ(reg.rkey, 2u);
  EXPECT_EQ(reg.handle, static_cast<void*>(&reg));
  EXPECT_EQ(dev->deregisterMemory(reg), Status::Success);

  // Endpoints: the handle and wire info cross the C table unchanged.
  rdma::EndpointConfig cfg;
  cfg.peer = 0;
  cfg.qpIndex = 3;
  cfg.sqDepth = 256;
  std::unique_ptr<rdma::Endpoint> ep;
  ASSERT_EQ(dev->createEndpoint(cfg, &ep), Status::Success);
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->deviceHandle().qpn, 0x126u);
  EXPECT_EQ(ep->deviceHandle().sqDepth, 256u);
  EXPECT_EQ(ep->deviceHandle().qpIndex, 3u);
  EXPECT_EQ(ep->localInfo().qpn, 0x126u);
  EXPECT_EQ(ep->deviceMemoryBytes(), 4096u);
  EXPECT_EQ(ep->connect(ep->localInfo()), Status::Success);

  // Bad inputs: the plugin's status comes back, and the message names the device and the call.
  rdma::EndpointWireInfo other = ep->localInfo();
  other.qpn = 0x999;
  testing::internal::CaptureStderr();
  EXPECT_EQ(ep->connect(other), Status::Remote);
  rdma::MemoryRegistration bad;
  EXPECT_EQ(dev->registerMemory(nullptr, 0, &bad), Status::InvalidUsage);
  std::unique_ptr<rdma::Endpoint> none;
  cfg.peer = -1;
  EXPECT_EQ(dev->createEndpoint(cfg, &none), Status::InvalidUsage);
  EXPECT_FALSE(none);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("fake_nic0: connect(QP 0x126 to QP 0x999)"), std::string::npos) << err;
  EXPECT_NE(err.find("fake_nic0: register_memory"), std::string::npos) << err;
  EXPECT_NE(err.find("fake_nic0: create_endpoint(PE -1 #3"), std::string::npos) << err;

  // Endpoint and device go back to the plugin (destroy, close).
  testing::internal::CaptureStderr();
  ep.reset();
  dev.reset();
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("fake_nic0: endpoint destroyed, peer 0"), std::string::npos) << err;
  EXPECT_NE(err.find("fake_nic0: device closed, provider 1"), std::string::npos) << err;
}

extern "C" size_t mori_test_rdma_plugin_c_layout(int which);

// rdma_plugin.h is C: compiled as C (rdma_plugin_c.c), its tables have the layout C++ sees.
TEST(RdmaPlugin, InterfaceIsCWithTheSameLayout) {
  EXPECT_EQ(mori_test_rdma_plugin_c_layout(0), sizeof(mori_rdma_plugin_host_t));
  EXPECT_EQ(mori_test_rdma_plugin_c_layout(1), sizeof(mori_rdma_plugin_device_t));
  EXPECT_EQ(mori_test_rdma_plugin_c_layout(2), sizeof(mori_rdma_plugin_endpoint_t));
  EXPECT_EQ(mori_test_rdma_plugin_c_layout(3), offsetof(mori_rdma_plugin_endpoint_t, connect));
  EXPECT_EQ(mori_test_rdma_plugin_c_layout(4), 0u);
  EXPECT_EQ(sizeof(rdma::EndpointWireInfo), size_t{MORI_RDMA_PLUGIN_WIRE_INFO_BYTES});
}

TEST(RdmaProviders, LibrariesAreFoundOrExplained) {
  std::string why;
  EXPECT_EQ(rdma::loadProviderLibrary("libmori_no_such_provider", {"libmori_no_such_provider.so.1"}, &why), nullptr);
  EXPECT_NE(why.find("libmori_no_such_provider"), std::string::npos) << why;
  if (!rdma::verbsApi(&why)) GTEST_SKIP() << why;
  // rdma-core ships libmlx5 as a library of its own since v15.
  EXPECT_NE(rdma::mlx5Api(&why), nullptr) << why;
}

TEST(RdmaProviders, BnxtAndIonicWithoutTheirDirectVerbsAreNotSupported) {
  std::string why;
  const rdma::VerbsApi* api = rdma::verbsApi(&why);
  if (!api) GTEST_SKIP() << why;
  env::Config cfg = defaults();
  for (rdma::Provider p : {rdma::Provider::Bnxt, rdma::Provider::Ionic}) {
    rdma::DeviceTarget t;
    t.name = p == rdma::Provider::Bnxt ? "bnxt_re0" : "ionic_0";
    t.provider = p;
    t.port = 1;
    std::unique_ptr<rdma::Device> dev;
    testing::internal::CaptureStderr();
    Status s = p == rdma::Provider::Bnxt ? rdma::openBnxtDevice(*api, t, cfg, &dev)
                                         : rdma::openIonicDevice(*api, t, cfg, &dev);
    std::string err = testing::internal::GetCapturedStderr();
    if (s == Status::Success) continue;  // a machine with the vendor library and device
    EXPECT_EQ(s, Status::NotSupported) << err;
    EXPECT_NE(err.find(t.name + " is a"), std::string::npos) << err;
    EXPECT_NE(err.find("GPU-resident queues are unavailable"), std::string::npos) << err;
    printf("  %s\n", err.substr(err.find(t.name)).c_str());
  }
}
