// Text reports behind mori-shmem-info: what the runtime sees (environment,
// GPUs, P2P matrix, RDMA devices) and, once initialised, the transport this PE
// uses for every peer.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "application/context/transport_table.hpp"
#include "mori/platform/gpu_runtime.hpp"
#include "shmem/runtime.hpp"
#include "src/common/format.hpp"
#include "transport/rdma/core/rdma_device.hpp"
#include "transport/sdma/sdma_inventory.hpp"

namespace mori::shmem {
namespace {

std::string envReport() {
  std::string s = "environment (MORI_SHMEM_*):\n";
  for (const auto& v : env::table()) {
    const char* set = getenv(v.name);
    s += strprintf("  %-32s %-10s %s\n", v.name, set ? set : (std::string("(") + v.defaultValue + ")").c_str(), v.doc);
  }
  return s;
}

// Why no GPU is visible, in the words a user acts on: without any driver the runtime says "driver
// version is insufficient" (NVIDIA) or "no ROCm-capable device" (AMD), which reads as a version
// problem or a missing GPU.
std::string noGpuReason(hipError_t e) {
  int driver = 0;
  const bool driverMissing =
      MORI_PLATFORM_AMD ? access("/dev/kfd", F_OK) != 0 : hipDriverGetVersion(&driver) != hipSuccess || driver == 0;
  if (driverMissing && (e == hipErrorInsufficientDriver || e == hipErrorNoDevice))
    return MORI_PLATFORM_AMD ? "no GPU driver (/dev/kfd is missing)" : "no GPU driver";
  if (e == hipErrorInsufficientDriver) {
    int runtime = 0;
    (void)hipRuntimeGetVersion(&runtime);
    return strprintf("GPU driver too old for this build: driver %d, runtime %d", driver, runtime);
  }
  if (e == hipErrorNoDevice) return "the driver reports no GPU device";
  return hipGetErrorString(e);
}

std::string gpuReport() {
  int n = 0;
  hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess || n == 0)
    return "GPUs: none visible (" + noGpuReason(e == hipSuccess ? hipErrorNoDevice : e) +
           "); no GPU work can run here\n";
  std::string s = strprintf("GPUs: %d\n", n);
  for (int d = 0; d < n; ++d) {
    hipDeviceProp_t p;
    if (hipGetDeviceProperties(&p, d) != hipSuccess) continue;
    char bus[32] = "";
    (void)hipDeviceGetPCIBusId(bus, sizeof(bus), d);
    s += strprintf("  GPU %d: %s, %s, %d SMs/CUs, wave %d, %.1f GiB\n", d, p.name, bus, p.multiProcessorCount,
                   p.warpSize, static_cast<double>(p.totalGlobalMem) / (1u << 30));
  }
  s += "P2P access (row can map column):\n       ";
  for (int b = 0; b < n; ++b) s += strprintf(" GPU%-2d", b);
  s += "\n";
  for (int a = 0; a < n; ++a) {
    s += strprintf("  GPU%-2d", a);
    for (int b = 0; b < n; ++b) {
      int can = a == b;
      if (a != b && hipDeviceCanAccessPeer(&can, a, b) != hipSuccess) can = -1;
      s += strprintf(" %5s", can < 0 ? "?" : can ? "yes" : "no");
    }
    s += "\n";
  }
  return s;
}

std::string rdmaReport() {
  std::vector<rdma::DeviceInfo> devs;
  std::string why;
  if (!ok(rdma::listDevices(&devs, &why))) return "RDMA devices: listing failed (see log)\n";
  if (devs.empty()) return "RDMA devices: none (" + why + ")\n";
  std::string s = strprintf("RDMA devices: %zu\n", devs.size());
  for (const auto& d : devs) {
    s += strprintf("  %s (%s) pci %s\n", d.name.c_str(),
                   d.provider == rdma::Provider::Mlx5    ? "mlx5"
                   : d.provider == rdma::Provider::Bnxt  ? "bnxt_re"
                   : d.provider == rdma::Provider::Ionic ? "ionic"
                                                         : "no GPU-initiated provider",
                   d.pciBusId.empty() ? "?" : d.pciBusId.c_str());
    for (const auto& p : d.ports) {
      s += strprintf("    port %d: %s, %s, active MTU %d\n", p.port, p.state.c_str(), p.linkLayer.c_str(), p.activeMtu);
      for (const auto& g : p.gids) s += "      GID " + g + "\n";
    }
  }
  return s;
}

// The SDMA plan from the environment (as init would read it) and the engines per GPU.
std::string sdmaReport() {
  env::Config c;
  if (!ok(env::load(&c))) return "SDMA: the environment does not parse (see above)\n";
  mori::sdma::InventoryPlan plan;
  plan.queuesPerPeer = static_cast<uint32_t>(c.sdmaQueues);
  plan.minBytes = c.sdmaMinBytes;
  plan.plugin = c.sdmaPlugin;
  return mori::sdma::inventoryReport(plan);
}

// This PE's SDMA queues, once initialised.
std::string sdmaQueuesReport() {
  Runtime* r = Runtime::get("mori-shmem-info SDMA queues");
  if (!r) return "SDMA queues: not initialised\n";
  return strprintf("PE %d SDMA queues:\n", r->ctx().myPe()) + mori::sdma::queuesReport(r->ctx().sdmaQueues());
}

std::string transportReport() {
  Runtime* r = Runtime::get("mori-shmem-info transports");
  if (!r) return "transports: not initialised\n";
  std::string s =
      strprintf("PE %d (GPU %d, %s):", r->ctx().myPe(), r->ctx().gpu(), r->ctx().peers()[r->ctx().myPe()].pciBusId);
  for (int pe = 0; pe < r->ctx().nPes(); ++pe)
    s += strprintf(" %d:%s", pe, context::transportName(r->ctx().transport(pe)));
  return s + "\n";
}

}  // namespace
}  // namespace mori::shmem

// Writes the report `section` (env, gpus, rdma, sdma, sdma-queues, transports) into buf; returns
// its length (which may exceed len: call again with a larger buffer) or a
// negative status.
extern "C" __attribute__((visibility("default"))) int mori_shmemi_report(const char* section, char* buf, size_t len) {
  using namespace mori::shmem;
  std::string text;
  if (!section) return MORI_SHMEM_ERROR_INVALID_USAGE;
  if (!strcmp(section, "env"))
    text = envReport();
  else if (!strcmp(section, "gpus"))
    text = gpuReport();
  else if (!strcmp(section, "rdma"))
    text = rdmaReport();
  else if (!strcmp(section, "sdma"))
    text = sdmaReport();
  else if (!strcmp(section, "sdma-queues"))
    text = sdmaQueuesReport();
  else if (!strcmp(section, "transports"))
    text = transportReport();
  else
    return MORI_SHMEM_ERROR_INVALID_USAGE;
  if (buf && len) snprintf(buf, len, "%s", text.c_str());
  return static_cast<int>(text.size());
}
