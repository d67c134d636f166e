// Host side of the SDMA transport without an AMD GPU: libhsakmt absent or without a KFD (clear
// errors, never a crash), our libhsakmt declarations against the installed hsakmttypes.h, KFD
// node matching by PCI location, engine choice, queue-set argument checks, the engine's ring
// limit, the SDMA plugin loader's refusals, the model plugin's own variables, the SDMA
// environment variables, and the transport table's SDMA rows (forced and by policy).
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "application/context/transport_table.hpp"
#include "mori/platform/gpu_runtime.hpp"
#include "src/common/env.hpp"
#include "tests/support/dma_model/engine_pes.hpp"
#include "transport/sdma/engine_choice.hpp"
#include "transport/sdma/hsakmt_loader.hpp"
#include "transport/sdma/kfd_engine.hpp"
#include "transport/sdma/sdma_plugin.hpp"
#include "transport/sdma/sdma_queues.hpp"
#include "transport/sdma/sdma_transport.hpp"

#if __has_include(<hsakmttypes.h>)
#include <hsakmttypes.h>
#define MORI_TEST_HAVE_HSAKMT_HEADERS 1
#else
#define MORI_TEST_HAVE_HSAKMT_HEADERS 0
#endif

namespace mori::sdma {
namespace {

TEST(SdmaHost, MissingLibhsakmtIsAClearError) {
  std::string why;
  EXPECT_EQ(loadHsakmt(&why, "libmori-no-such-hsakmt.so.1"), nullptr);
  EXPECT_NE(why.find("cannot load libmori-no-such-hsakmt.so.1"), std::string::npos) << why;
  EXPECT_NE(why.find("libhsakmt"), std::string::npos) << "says what the library is for: " << why;

  std::unique_ptr<QueueEngine> engine;
  EXPECT_EQ(openKfdEngine(3, 0, &engine, "libmori-no-such-hsakmt.so.1"), Status::NotSupported);
  EXPECT_FALSE(engine);
}

TEST(SdmaHost, NotTheThunkIsAClearError) {
  // A library that loads but lacks the entry points (libc) is refused by name.
  std::string why;
  EXPECT_EQ(loadHsakmt(&why, "libc.so.6"), nullptr);
  EXPECT_NE(why.find("lacks hsaKmtOpenKFD"), std::string::npos) << why;
}

TEST(SdmaHost, InstalledThunkWithoutKfdFailsCleanly) {
  std::string why;
  const HsakmtApi* api = loadHsakmt(&why);
  if (api == nullptr) GTEST_SKIP() << "libhsakmt.so.1 not installed: " << why;
  EXPECT_NE(api->openKfd, nullptr);
  EXPECT_NE(api->createQueue, nullptr);
  EXPECT_NE(api->destroyQueue, nullptr);
  if (access("/dev/kfd", F_OK) == 0) GTEST_SKIP() << "/dev/kfd exists: the no-KFD error path cannot be shown here";
  std::unique_ptr<QueueEngine> engine;
  const Status s = openKfdEngine(1, 0, &engine);
  EXPECT_NE(s, Status::Success) << "no /dev/kfd, yet an SDMA engine opened";
  EXPECT_FALSE(engine);
}

#if MORI_TEST_HAVE_HSAKMT_HEADERS
TEST(SdmaHost, DeclarationsMatchTheInstalledHeaders) {
  EXPECT_EQ(sizeof(kmt::QueueResource), sizeof(HsaQueueResource));
  EXPECT_EQ(offsetof(kmt::QueueResource, doorbell), offsetof(HsaQueueResource, Queue_DoorBell_aql));
  EXPECT_EQ(offsetof(kmt::QueueResource, writePtr), offsetof(HsaQueueResource, Queue_write_ptr_aql));
  EXPECT_EQ(offsetof(kmt::QueueResource, readPtr), offsetof(HsaQueueResource, Queue_read_ptr_aql));
  EXPECT_EQ(offsetof(kmt::QueueResource, errorReason), offsetof(HsaQueueResource, ErrorReason));
  EXPECT_EQ(sizeof(kmt::SystemProperties), sizeof(HsaSystemProperties));
  EXPECT_EQ(offsetof(kmt::SystemProperties, numNodes), offsetof(HsaSystemProperties, NumNodes));
  EXPECT_GE(kmt::kNodePropertiesBytes, sizeof(HsaNodeProperties));
  EXPECT_EQ(kmt::kNodeNumFComputeOffset, offsetof(HsaNodeProperties, NumFComputeCores));
  EXPECT_EQ(kmt::kNodeLocationIdOffset, offsetof(HsaNodeProperties, LocationId));
  EXPECT_EQ(kmt::kNodeNumSdmaOffset, offsetof(HsaNodeProperties, NumSdmaEngines));
  EXPECT_EQ(kmt::kNodeNumSdmaXgmiOffset, offsetof(HsaNodeProperties, NumSdmaXgmiEngines));
  EXPECT_EQ(kmt::kNodeDomainOffset, offsetof(HsaNodeProperties, Domain));
  EXPECT_EQ(static_cast<uint32_t>(kmt::kQueueSdma), static_cast<uint32_t>(HSA_QUEUE_SDMA));
  EXPECT_EQ(static_cast<uint32_t>(kmt::kQueueSdmaXgmi), static_cast<uint32_t>(HSA_QUEUE_SDMA_XGMI));
  EXPECT_EQ(static_cast<int32_t>(kmt::kPriorityNormal), static_cast<int32_t>(HSA_QUEUE_PRIORITY_NORMAL));
  EXPECT_EQ(static_cast<int32_t>(kmt::kPriorityMaximum), static_cast<int32_t>(HSA_QUEUE_PRIORITY_MAXIMUM));
  EXPECT_EQ(kmt::kSuccess, static_cast<int32_t>(HSAKMT_STATUS_SUCCESS));
  EXPECT_STREQ(kmt::statusName(HSAKMT_STATUS_OUT_OF_RESOURCES), "HSAKMT_STATUS_OUT_OF_RESOURCES");
}
#endif

TEST(SdmaHost, KfdNodeMatchesPciLocation) {
  const KfdNodeLocation nodes[] = {
      {0, 0, false},                         // CPU node
      {0, 0xc1u << 8 | 0 << 3 | 0, true},    // 0000:c1:00.0
      {1, 0xc1u << 8 | 0 << 3 | 0, true},    // 0001:c1:00.0: same bus, other domain
      {0, 0x23u << 8 | 0x1f << 3 | 7, true}  // 0000:23:1f.7
  };
  EXPECT_EQ(matchKfdNode("0000:c1:00.0", nodes, 4), 1);
  EXPECT_EQ(matchKfdNode("0001:C1:00.0", nodes, 4), 2);
  EXPECT_EQ(matchKfdNode("0000:23:1f.7", nodes, 4), 3);
  EXPECT_EQ(matchKfdNode("0000:00:00.0", nodes, 4), -1) << "a CPU node never matches";
  EXPECT_EQ(matchKfdNode("0000:c2:00.0", nodes, 4), -1);
  for (const char* bad : {"", "c1:00.0", "0000:c1:00", "0000:c1:20.0", "0000:c1:00.8", "0000:100:00.0", "junk"})
    EXPECT_EQ(matchKfdNode(bad, nodes, 4), -1) << "'" << bad << "'";
  EXPECT_EQ(matchKfdNode(nullptr, nodes, 4), -1);
}

TEST(SdmaHost, EngineChoiceSpreadsQueuesOverEngines) {
  std::mt19937 rng(25);
  for (int it = 0; it < 2000; ++it) {
    EngineInventory inv;
    inv.pcieEngines = rng() % 4;
    inv.xgmiEngines = rng() % 16;
    inv.engineById = rng() % 2;
    const uint32_t q = 1 + rng() % 8, peers = 1 + rng() % 8;
    const bool xgmi = rng() % 2;
    std::vector<uint32_t> load(inv.pcieEngines + inv.xgmiEngines, 0);
    for (uint32_t p = 0; p < peers; ++p) {
      std::set<uint32_t> mine;
      for (uint32_t i = 0; i < q; ++i) {
        const EngineChoice c = chooseEngine(inv, p, i, q, xgmi);
        const bool useXgmi = xgmi && inv.xgmiEngines > 0;
        const uint32_t pool = useXgmi ? inv.xgmiEngines : inv.pcieEngines;
        if (inv.engineById && pool > 0) {
          ASSERT_EQ(c.queueType, static_cast<uint32_t>(kmt::kQueueSdmaByEngineId));
          if (useXgmi) {
            ASSERT_GE(c.engineId, inv.pcieEngines) << "an XGMI peer on an XGMI engine";
          } else {
            ASSERT_LT(c.engineId, inv.pcieEngines);
          }
          ASSERT_LT(c.engineId, inv.pcieEngines + inv.xgmiEngines);
          mine.insert(c.engineId);
          ++load[c.engineId];
        } else {
          ASSERT_EQ(c.queueType, static_cast<uint32_t>(useXgmi ? kmt::kQueueSdmaXgmi : kmt::kQueueSdma));
        }
      }
      if (inv.engineById && (xgmi && inv.xgmiEngines ? inv.xgmiEngines : inv.pcieEngines) >= q) {
        EXPECT_EQ(mine.size(), q) << "a peer's queues on distinct engines when there are enough";
      }
    }
    // Round robin: engines of the pool differ in load by at most one.
    uint32_t lo = UINT32_MAX, hi = 0;
    const bool useXgmi = xgmi && inv.xgmiEngines > 0;
    const uint32_t first = useXgmi ? inv.pcieEngines : 0, n = useXgmi ? inv.xgmiEngines : inv.pcieEngines;
    if (inv.engineById && n > 0) {
      for (uint32_t e = first; e < first + n; ++e) lo = std::min(lo, load[e]), hi = std::max(hi, load[e]);
      EXPECT_LE(hi - lo, 1u);
    }
  }
}

// A QueueEngine that must never be asked for a queue: argument errors come first.
class RefusingEngine final : public QueueEngine {
 public:
  EngineInventory inventory() const override { return {}; }
  Status create(const QueueRequest&, QueueHandles*) override {
    ADD_FAILURE() << "create called";
    return Status::Internal;
  }
  Status destroy(const QueueRequest&, const QueueHandles&) override { return Status::Success; }
};

TEST(SdmaHost, QueueSetRefusesBadArguments) {
  std::unique_ptr<SdmaQueues> q;
  SdmaQueuesConfig cfg;
  cfg.myPe = 0;
  cfg.nPes = 2;
  for (uint32_t bad : {0u, 65u}) {
    cfg.queuesPerPeer = bad;
    EXPECT_EQ(SdmaQueues::create(cfg, {{1, true}}, std::make_unique<RefusingEngine>(), &q), Status::InvalidUsage);
  }
  cfg.queuesPerPeer = 2;
  for (uint32_t bad : {0u, 2u, 3u, 100u, 1u << 21}) {
    cfg.ringSlots = bad;
    EXPECT_EQ(SdmaQueues::create(cfg, {{1, true}}, std::make_unique<RefusingEngine>(), &q), Status::InvalidUsage)
        << bad << " slots";
  }
  cfg.ringSlots = 64;
  for (int bad : {-1, 0, 2}) {
    EXPECT_EQ(SdmaQueues::create(cfg, {{bad, false}}, std::make_unique<RefusingEngine>(), &q), Status::InvalidUsage)
        << "peer " << bad;
  }
  EXPECT_EQ(SdmaQueues::create(cfg, {{1, false}}, nullptr, &q), Status::InvalidUsage);
  EXPECT_FALSE(q);
}

TEST(SdmaHost, OpenForTheTransportRow) {
  using shmem::Transport;
  std::unique_ptr<SdmaQueues> q;
  {  // No SDMA peer: an empty set, on any machine.
    SdmaOpenArgs a;
    a.nPes = 3;
    a.table = {Transport::P2P, Transport::P2P, Transport::Rdma};
    ASSERT_EQ(openSdmaQueues(std::move(a), &q), Status::Success);
    for (const SdmaPeerDevice& p : q->devicePeers()) EXPECT_EQ(p.count, 0u);
  }
  {  // Rows that do not fit nPes.
    SdmaOpenArgs a;
    a.nPes = 3;
    a.table = {Transport::P2P, Transport::Sdma};
    EXPECT_EQ(openSdmaQueues(std::move(a), &q), Status::InvalidUsage);
    SdmaOpenArgs b;
    b.nPes = 2;
    b.table = {Transport::P2P, Transport::Sdma};
    b.xgmi = {1};
    EXPECT_EQ(openSdmaQueues(std::move(b), &q), Status::InvalidUsage);
  }
  {  // SDMA peers and no engine handed in: NVIDIA says why; AMD without a KFD fails opening it.
    SdmaOpenArgs a;
    a.myPe = 0;
    a.nPes = 3;
    a.table = {Transport::P2P, Transport::Sdma, Transport::Sdma};
#if MORI_PLATFORM_NVIDIA
    EXPECT_EQ(openSdmaQueues(std::move(a), &q), Status::NotSupported);
#else
    if (access("/dev/kfd", F_OK) == 0) GTEST_SKIP() << "/dev/kfd exists: the no-KFD path cannot be shown here";
    EXPECT_NE(openSdmaQueues(std::move(a), &q), Status::Success);
#endif
  }
}

// No GPU here, and bus ids no GPU has: nothing is XGMI (its queues go to the PCIe engines).
TEST(SdmaHost, XgmiLinksWithoutVisiblePeers) {
  EXPECT_EQ(xgmiLinks(0, {"0000:e1:00.0", "not a bus id", ""}), (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_TRUE(xgmiLinks(0, {}).empty());
}

TEST(SdmaHost, PluginLoaderRefusesWhatIsNoPlugin) {
  std::unique_ptr<QueueEngine> e;
  EXPECT_EQ(openQueueEngine(3, 0, "/nonexistent/libmori_dma_model.so", &e), Status::NotSupported);
  EXPECT_FALSE(e);
  // A real library without the plugin's entry points.
  EXPECT_EQ(openQueueEngine(3, 0, "libc.so.6", &e), Status::NotSupported);
  EXPECT_FALSE(e);
#if MORI_PLATFORM_NVIDIA
  // No plugin on NVIDIA: no engines, said as such.
  EXPECT_EQ(openQueueEngine(3, 0, "", &e), Status::NotSupported);
  EXPECT_FALSE(e);
#endif
}

// The DMA-engine model's plugin through the runtime's loader: the interface matches, bad ring
// limits (MORI_DMA_MODEL_RING_SLOTS) are refused; with a GPU the engine reports itself and its
// limit, without one opening it fails saying it cannot select the GPU.
TEST(SdmaHost, ModelPluginLoads) {
  const char* path = getenv("MORI_TEST_SDMA_PLUGIN");
  ASSERT_NE(path, nullptr) << "MORI_TEST_SDMA_PLUGIN not set by ctest";
  std::unique_ptr<QueueEngine> e;
  for (const char* bad : {"48", "2", "lots", "64x"}) {
    setenv("MORI_DMA_MODEL_RING_SLOTS", bad, 1);
    EXPECT_EQ(openQueueEngine(0, 0, path, &e), Status::InvalidUsage) << bad;
    EXPECT_FALSE(e);
  }
  setenv("MORI_DMA_MODEL_RING_SLOTS", "64", 1);
  int gpus = 0;
  if (hipGetDeviceCount(&gpus) != hipSuccess || gpus == 0) {
    (void)hipGetLastError();
    EXPECT_EQ(openQueueEngine(0, 0, path, &e), Status::System);
    EXPECT_FALSE(e);
  } else {
    ASSERT_EQ(openQueueEngine(0, 0, path, &e), Status::Success);
    ASSERT_TRUE(e);
    const EngineInventory inv = e->inventory();
    EXPECT_NE(inv.driver.find("DMA-engine model"), std::string::npos) << inv.driver;
    EXPECT_EQ(inv.maxRingSlots, 64u);
  }
  unsetenv("MORI_DMA_MODEL_RING_SLOTS");
}

// MORI_DMA_MODEL_ON_PES: the list's reading, and the plugin's open refusing a malformed list and
// failing as a GPU without engines on a PE the list leaves out (before it looks for a GPU).
TEST(SdmaHost, ModelPluginEnginesOnSomePes) {
  bool valid = false;
  EXPECT_TRUE(mori::test::dma::listNamesPe("0,1", 1, &valid));
  EXPECT_TRUE(valid);
  EXPECT_FALSE(mori::test::dma::listNamesPe("0,1", 2, &valid));
  EXPECT_TRUE(valid);
  EXPECT_TRUE(mori::test::dma::listNamesPe("12", 12, &valid));
  EXPECT_FALSE(mori::test::dma::listNamesPe("1", 12, &valid));
  EXPECT_TRUE(valid);
  for (const char* bad : {"", ",", "0,", ",0", "0,,1", "-1", "a", "1x", "0;1"}) {
    EXPECT_FALSE(mori::test::dma::listNamesPe(bad, 0, &valid)) << "'" << bad << "'";
    EXPECT_FALSE(valid) << "'" << bad << "'";
  }
  const char* path = getenv("MORI_TEST_SDMA_PLUGIN");
  ASSERT_NE(path, nullptr) << "MORI_TEST_SDMA_PLUGIN not set by ctest";
  std::unique_ptr<QueueEngine> e;
  setenv("MORI_DMA_MODEL_ON_PES", "0,x", 1);
  EXPECT_EQ(openQueueEngine(0, 0, path, &e), Status::InvalidUsage);
  EXPECT_FALSE(e);
  setenv("MORI_DMA_MODEL_ON_PES", "1,2", 1);
  EXPECT_EQ(openQueueEngine(0, 0, path, &e), Status::NotSupported);
  EXPECT_FALSE(e);
  unsetenv("MORI_DMA_MODEL_ON_PES");
}

// An engine that caps the ring and counts what it was asked for.
class CappingEngine final : public QueueEngine {
 public:
  explicit CappingEngine(uint32_t cap) : cap_(cap) {}
  EngineInventory inventory() const override {
    EngineInventory inv;
    inv.maxRingSlots = cap_;
    inv.driver = "capping test engine";
    return inv;
  }
  Status create(const QueueRequest&, QueueHandles*) override { return Status::NotSupported; }
  Status destroy(const QueueRequest&, const QueueHandles&) override { return Status::Success; }

 private:
  uint32_t cap_;
};

TEST(SdmaHost, EngineRingLimitMustBeAPowerOfTwo) {
  SdmaQueuesConfig cfg;
  cfg.myPe = 0;
  cfg.nPes = 2;
  std::unique_ptr<SdmaQueues> q;
  for (uint32_t bad : {3u, 6u, 100u})
    EXPECT_EQ(SdmaQueues::create(cfg, {{1, false}}, std::make_unique<CappingEngine>(bad), &q), Status::Internal) << bad;
  // A fitting cap (or none) is taken; with no peer nothing is created.
  EXPECT_EQ(SdmaQueues::create(cfg, {}, std::make_unique<CappingEngine>(64), &q), Status::Success);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->describe().empty());
}

struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~ScopedEnv() { unsetenv(name); }
};

TEST(SdmaHost, EnvironmentVariables) {
  env::Config c;
  ASSERT_EQ(env::load(&c), Status::Success);
  EXPECT_EQ(c.sdmaQueues, 2);
  EXPECT_EQ(c.sdmaMinBytes, 0u);
  EXPECT_TRUE(c.sdmaPlugin.empty());
  {
    ScopedEnv q("MORI_SHMEM_SDMA_QUEUES", "16"), m("MORI_SHMEM_SDMA_MIN_BYTES", "64K");
    ASSERT_EQ(env::load(&c), Status::Success);
    EXPECT_EQ(c.sdmaQueues, 16);
    EXPECT_EQ(c.sdmaMinBytes, 64u << 10);
  }
  for (const char* bad : {"0", "17", "-1", "two"}) {
    ScopedEnv q("MORI_SHMEM_SDMA_QUEUES", bad);
    EXPECT_EQ(env::load(&c), Status::InvalidUsage) << "MORI_SHMEM_SDMA_QUEUES=" << bad;
  }
  for (const char* bad : {"-4", "1Q", "lots"}) {
    ScopedEnv m("MORI_SHMEM_SDMA_MIN_BYTES", bad);
    EXPECT_EQ(env::load(&c), Status::InvalidUsage) << "MORI_SHMEM_SDMA_MIN_BYTES=" << bad;
  }
}

namespace ctx = mori::context;

ctx::TransportInputs twoNodes(int nPes, int myPe) {
  ctx::TransportInputs in;
  in.myPe = myPe;
  in.nPes = nPes;
  for (int i = 0; i < nPes; ++i) in.hostIds.push_back(i < nPes / 2 ? "a" : "b");
  in.p2pMatrix.assign(nPes * nPes, 0);
  for (int a = 0; a < nPes; ++a)
    for (int b = 0; b < nPes; ++b) in.p2pMatrix[a * nPes + b] = in.hostIds[a] == in.hostIds[b];
  in.rdmaAvailable.assign(nPes, 1);
  in.forced = ctx::ForcedTransport::Sdma;
  return in;
}

TEST(SdmaHost, TransportTableSdmaRows) {
  using shmem::Transport;
  std::vector<Transport> t;
  std::string why;
  // No engines on some PE: refused with the reason, on every PE.
  ctx::TransportInputs in = twoNodes(2, 0);
  in.hostIds = {"a", "a"};
  in.p2pMatrix = {1, 1, 1, 1};
  EXPECT_FALSE(ctx::buildTransportTable(in, &t, &why));
  EXPECT_NE(why.find("PE 0 has no SDMA engines"), std::string::npos) << why;
  in.sdmaAvailable = {1, 0};
  EXPECT_FALSE(ctx::buildTransportTable(in, &t, &why));
  EXPECT_NE(why.find("PE 1 has no SDMA engines"), std::string::npos) << why;

  in.sdmaAvailable = {1, 1};
  ASSERT_TRUE(ctx::buildTransportTable(in, &t, &why)) << why;
  EXPECT_EQ(t, (std::vector<Transport>{Transport::P2P, Transport::Sdma}));
  in.disableP2P = true;  // small puts and single elements would be P2P stores: refused
  EXPECT_FALSE(ctx::buildTransportTable(in, &t, &why));
  EXPECT_NE(why.find("MORI_SHMEM_DISABLE_P2P"), std::string::npos) << why;

  // Policy (auto, MORI_SHMEM_SDMA_MIN_BYTES > 0): same-node peers go to SDMA where this PE has
  // engines, other nodes' to RDMA; without the policy, or without engines, P2P as before.
  in = twoNodes(4, 0);
  in.forced = ctx::ForcedTransport::Auto;
  in.sdmaAvailable = {1, 0, 1, 1};
  EXPECT_FALSE(ctx::sdmaWanted(in));
  ASSERT_TRUE(ctx::buildTransportTable(in, &t, &why)) << why;
  EXPECT_EQ(t, (std::vector<Transport>{Transport::P2P, Transport::P2P, Transport::Rdma, Transport::Rdma}));
  in.sdmaPolicy = true;
  EXPECT_TRUE(ctx::sdmaWanted(in));
  ASSERT_TRUE(ctx::buildTransportTable(in, &t, &why)) << why;
  EXPECT_EQ(t, (std::vector<Transport>{Transport::P2P, Transport::Sdma, Transport::Rdma, Transport::Rdma}));
  in.myPe = 1;  // PE 1 has no engines: its row stays P2P
  ASSERT_TRUE(ctx::buildTransportTable(in, &t, &why)) << why;
  EXPECT_EQ(t, (std::vector<Transport>{Transport::P2P, Transport::P2P, Transport::Rdma, Transport::Rdma}));
  in.myPe = 0;
  in.disableP2P = true;  // no loads/stores between the GPUs: no SDMA by policy either
  ASSERT_TRUE(ctx::buildTransportTable(in, &t, &why)) << why;
  EXPECT_EQ(t[1], Transport::Rdma);

  // Peers on another node: SDMA cannot reach them; the error names the pair.
  in = twoNodes(4, 1);
  in.sdmaAvailable.assign(4, 1);
  EXPECT_FALSE(ctx::buildTransportTable(in, &t, &why));
  EXPECT_NE(why.find("PE 0 cannot map PE 2"), std::string::npos) << why;
  EXPECT_NE(why.find("same-node peers only"), std::string::npos) << why;

  // Same node, no peer access one way.
  in = twoNodes(2, 1);
  in.hostIds = {"a", "a"};
  in.p2pMatrix = {1, 0, 1, 1};
  in.sdmaAvailable = {1, 1};
  EXPECT_FALSE(ctx::buildTransportTable(in, &t, &why));
  EXPECT_NE(why.find("no peer access"), std::string::npos) << why;
}

}  // namespace
}  // namespace mori::sdma
