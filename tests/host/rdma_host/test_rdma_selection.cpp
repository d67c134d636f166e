// Device-selection logic over synthetic data (no NIC needed): MORI_SHMEM_RDMA_DEVICES, GID choice,
// PCI-distance pairing, path MTU, provider detection, queue depth and the per-endpoint footprint.
#include <gtest/gtest.h>
#include <string.h>

#include <string>
#include <vector>

#include "mori/transport/rdma/providers/provider.hpp"
#include "transport/rdma/core/device_selection.hpp"
#include "transport/rdma/core/endpoint_layout.hpp"

using namespace mori;
using namespace mori::rdma;

namespace {

GidEntry gid(int index, GidType type, std::vector<uint8_t> bytes) {
  GidEntry e;
  e.index = index;
  e.type = type;
  memcpy(e.gid, bytes.data(), 16);
  return e;
}
// fe80::1 (link-local), ::ffff:10.0.0.5 (IPv4-mapped), 2001:db8::7 (global IPv6)
const std::vector<uint8_t> kLinkLocal = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
const std::vector<uint8_t> kIpv4 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 5};
const std::vector<uint8_t> kGlobal6 = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};

}  // namespace

TEST(RdmaDeviceFilter, EmptyAllowsEverything) {
  DeviceFilter f;
  ASSERT_EQ(parseDeviceFilter("", &f), Status::Success);
  EXPECT_TRUE(f.allows("mlx5_0", 1));
  EXPECT_TRUE(f.allows("bnxt_re3", 2));
  ASSERT_EQ(parseDeviceFilter("   ", &f), Status::Success);
  EXPECT_TRUE(f.entries.empty());
}

TEST(RdmaDeviceFilter, IncludeList) {
  DeviceFilter f;
  ASSERT_EQ(parseDeviceFilter("mlx5_0, mlx5_1:2", &f), Status::Success);
  EXPECT_FALSE(f.exclude);
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_TRUE(f.allows("mlx5_0", 1));
  EXPECT_TRUE(f.allows("mlx5_0", 2));
  EXPECT_FALSE(f.allows("mlx5_1", 1));  // only port 2 of mlx5_1
  EXPECT_TRUE(f.allows("mlx5_1", 2));
  EXPECT_FALSE(f.allows("mlx5_2", 1));
  EXPECT_FALSE(f.allows("mlx5_00", 1));  // exact names, no prefix match
  EXPECT_TRUE(f.names("mlx5_1"));
  EXPECT_FALSE(f.names("mlx5_2"));
}

TEST(RdmaDeviceFilter, ExcludeList) {
  DeviceFilter f;
  ASSERT_EQ(parseDeviceFilter("^mlx5_2,ionic_0:1", &f), Status::Success);
  EXPECT_TRUE(f.exclude);
  EXPECT_TRUE(f.allows("mlx5_0", 1));
  EXPECT_FALSE(f.allows("mlx5_2", 1));
  EXPECT_FALSE(f.allows("ionic_0", 1));
  EXPECT_TRUE(f.allows("ionic_0", 2));
}

TEST(RdmaDeviceFilter, MalformedIsAnErrorNamingTheVariable) {
  DeviceFilter f;
  for (const char* bad : {"^", "mlx5_0,", ",mlx5_0", "mlx5_0:", "mlx5_0:x", "mlx5_0:0", "mlx5_0:256", "mlx 5", "a;b"}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(parseDeviceFilter(bad, &f), Status::InvalidUsage) << "accepted '" << bad << "'";
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("MORI_SHMEM_RDMA_DEVICES"), std::string::npos) << err;
  }
}

TEST(RdmaGidSelection, RoceV2PreferredIpv4First) {
  std::vector<GidEntry> t = {gid(0, GidType::RoceV1, kLinkLocal), gid(1, GidType::RoceV2, kLinkLocal),
                             gid(2, GidType::RoceV1, kIpv4), gid(3, GidType::RoceV2, kIpv4),
                             gid(4, GidType::RoceV2, kGlobal6)};
  int idx = -1;
  std::string note;
  ASSERT_EQ(selectGidIndex(t, /*ethernet=*/true, -1, &idx, &note), Status::Success);
  EXPECT_EQ(idx, 3) << note;
  // Without the IPv4 one: global IPv6 RoCE v2 beats link-local RoCE v2.
  t.erase(t.begin() + 3);
  ASSERT_EQ(selectGidIndex(t, true, -1, &idx, &note), Status::Success);
  EXPECT_EQ(idx, 4);
  // Only link-local RoCE v2 left among v2: still v2 over any v1.
  t.pop_back();
  ASSERT_EQ(selectGidIndex(t, true, -1, &idx, &note), Status::Success);
  EXPECT_EQ(idx, 1);
}

TEST(RdmaGidSelection, NoRoceV2FallsBackToFirstValid) {
  std::vector<GidEntry> t = {gid(2, GidType::RoceV1, kIpv4), gid(0, GidType::RoceV1, kLinkLocal)};
  int idx = -1;
  std::string note;
  ASSERT_EQ(selectGidIndex(t, true, -1, &idx, &note), Status::Success);
  EXPECT_EQ(idx, 0);
  EXPECT_NE(note.find("no RoCE v2"), std::string::npos) << note;
}

TEST(RdmaGidSelection, InfiniBandTakesFirstValid) {
  std::vector<GidEntry> t = {gid(1, GidType::Ib, kGlobal6), gid(0, GidType::Ib, kLinkLocal)};
  int idx = -1;
  ASSERT_EQ(selectGidIndex(t, /*ethernet=*/false, -1, &idx, nullptr), Status::Success);
  EXPECT_EQ(idx, 0);
}

TEST(RdmaGidSelection, OverrideHonouredAndInvalidRejected) {
  std::vector<GidEntry> t = {gid(0, GidType::RoceV1, kLinkLocal), gid(1, GidType::RoceV2, kLinkLocal),
                             gid(3, GidType::RoceV2, kIpv4)};
  int idx = -1;
  ASSERT_EQ(selectGidIndex(t, true, 0, &idx, nullptr), Status::Success);
  EXPECT_EQ(idx, 0);  // honoured even though it is RoCE v1
  for (int64_t bad : {int64_t{2}, int64_t{7}, int64_t{-2}}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(selectGidIndex(t, true, bad, &idx, nullptr), Status::InvalidUsage) << bad;
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("MORI_SHMEM_IB_GID_INDEX"), std::string::npos) << err;
    EXPECT_NE(err.find("3 (RoCE v2"), std::string::npos) << "lists the valid entries: " << err;
  }
}

TEST(RdmaGidSelection, EmptyTableIsNotSupported) {
  std::vector<GidEntry> t = {gid(0, GidType::RoceV2, std::vector<uint8_t>(16, 0))};
  int idx = -1;
  EXPECT_EQ(selectGidIndex(t, true, -1, &idx, nullptr), Status::NotSupported);
}

TEST(RdmaMtu, PathMtuIsTheSmallerActiveMtu) {
  // enum ibv_mtu: 1 = 256 ... 3 = 1024 (a 1500-byte Ethernet), 5 = 4096
  int mtu = 0;
  ASSERT_EQ(pathMtu(5, 3, &mtu), Status::Success);
  EXPECT_EQ(mtu, 3);
  EXPECT_EQ(mtuBytes(mtu), 1024);
  ASSERT_EQ(pathMtu(3, 5, &mtu), Status::Success);
  EXPECT_EQ(mtu, 3);
  ASSERT_EQ(pathMtu(5, 5, &mtu), Status::Success);
  EXPECT_EQ(mtuBytes(mtu), 4096);
  ASSERT_EQ(pathMtu(1, 4, &mtu), Status::Success);
  EXPECT_EQ(mtuBytes(mtu), 256);
  testing::internal::CaptureStderr();
  EXPECT_EQ(pathMtu(0, 5, &mtu), Status::InvalidUsage);
  EXPECT_EQ(pathMtu(5, 6, &mtu), Status::InvalidUsage);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(mtuBytes(0), 0);
  EXPECT_EQ(mtuBytes(2), 512);
}

TEST(RdmaPci, NormalizeBusId) {
  EXPECT_EQ(normalizePciBusId("0000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(normalizePciBusId("00000000:1b:00.1"), "0000:1b:00.1");
  EXPECT_EQ(normalizePciBusId("0001:c1:1f.7"), "0001:c1:1f.7");
  for (const char* bad : {"", "1b:00.0", "0000:1b:00", "0000:1g:00.0", "0000:1b:20.0", "0000:1b:00.8", "0000:1b:00.0x"})
    EXPECT_EQ(normalizePciBusId(bad), "") << bad;
}

TEST(RdmaPci, DistanceOverSysfsPaths) {
  const std::string gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
  const std::string nicSameSwitch = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0";
  const std::string nicSameRoot = "/sys/devices/pci0000:00/0000:00:02.0/0000:05:00.0";
  const std::string nicOtherSocket = "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0";
  EXPECT_EQ(pciDistance(gpu, gpu), 0);
  EXPECT_EQ(pciDistance(gpu, nicSameSwitch), 4);                           // up to 0000:01:00.0 (2 hops) and down (2)
  EXPECT_EQ(pciDistance(gpu, nicSameRoot), 6);                             // meet at pci0000:00
  EXPECT_EQ(pciDistance(gpu, nicOtherSocket), 5 + 3 + kCrossRootPenalty);  // meet at /sys/devices only
  EXPECT_EQ(pciDistance(nicSameSwitch, gpu), pciDistance(gpu, nicSameSwitch));
  EXPECT_EQ(pciDistance("", nicSameRoot), kUnknownDistance);
}

TEST(RdmaPci, PairsEachGpuWithItsClosestNic) {
  // Two sockets, each with two GPU+NIC switches (an 8-GPU node, halved).
  std::vector<NicCandidate> nics = {
      {"mlx5_0", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0"},
      {"mlx5_1", "/sys/devices/pci0000:00/0000:00:03.0/0000:11:00.0/0000:12:01.0/0000:14:00.0"},
      {"mlx5_2", "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:01.0/0000:84:00.0"},
      {"mlx5_3", "/sys/devices/pci0000:80/0000:80:03.0/0000:91:00.0/0000:92:01.0/0000:94:00.0"},
  };
  const char* gpus[] = {
      "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0",
      "/sys/devices/pci0000:00/0000:00:03.0/0000:11:00.0/0000:12:00.0/0000:13:00.0",
      "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:00.0/0000:83:00.0",
      "/sys/devices/pci0000:80/0000:80:03.0/0000:91:00.0/0000:92:00.0/0000:93:00.0",
  };
  for (int g = 0; g < 4; ++g)
    for (int localRank : {0, 1, 5}) EXPECT_EQ(pickClosestNic(gpus[g], nics, localRank), g) << "GPU " << g;
}

TEST(RdmaPci, TiesAreSharedOutByLocalRank) {
  // Two ports of one card under the GPU's switch: equally close.
  std::vector<NicCandidate> nics = {
      {"mlx5_0", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0"},
      {"mlx5_1", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.1"},
      {"mlx5_2", "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0"},
  };
  const std::string gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
  EXPECT_EQ(pickClosestNic(gpu, nics, 0), 0);
  EXPECT_EQ(pickClosestNic(gpu, nics, 1), 1);
  EXPECT_EQ(pickClosestNic(gpu, nics, 2), 0);
  // Unknown GPU position: every NIC ties, round-robin over all.
  EXPECT_EQ(pickClosestNic("", nics, 2), 2);
  EXPECT_EQ(pickClosestNic(gpu, {}, 0), -1);
}

TEST(RdmaProvider, ByDriverThenByName) {
  EXPECT_EQ(providerFor("mlx5_0", "mlx5_core"), Provider::Mlx5);
  EXPECT_EQ(providerFor("rdma0", "mlx5_core"), Provider::Mlx5);  // renamed device
  EXPECT_EQ(providerFor("bnxt_re0", "bnxt_en"), Provider::Bnxt);
  EXPECT_EQ(providerFor("ionic_0", "ionic"), Provider::Ionic);
  EXPECT_EQ(providerFor("irdma0", "ice"), Provider::None);
  EXPECT_EQ(providerFor("mlx5_3", ""), Provider::Mlx5);
  EXPECT_EQ(providerFor("bnxt_re1", ""), Provider::Bnxt);
  EXPECT_EQ(providerFor("rxe0", ""), Provider::None);
}

TEST(RdmaQpDepth, PowerOfTwoWithinBounds) {
  for (int64_t ok : {64, 128, 1024, 32768}) EXPECT_EQ(validateQpDepth(ok), Status::Success) << ok;
  for (int64_t bad : {0, 32, 63, 100, 1000, 65536, -1024}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(validateQpDepth(bad), Status::InvalidUsage) << bad;
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("MORI_SHMEM_QP_DEPTH=" + std::to_string(bad)), std::string::npos) << err;
  }
}

TEST(RdmaFootprint, EveryProviderFitsTheBudgetAtDepth1024) {
  for (Provider p : {Provider::Mlx5, Provider::Bnxt, Provider::Ionic}) {
    EndpointLayout l;
    ASSERT_EQ(endpointLayout(p, 1024, kNicPageBytes, &l), Status::Success);
    EXPECT_LE(l.totalBytes, kEndpointBudgetBytes) << providerName(p) << ": " << l.totalBytes;
    EXPECT_EQ(l.cqDepth, l.sqDepth) << providerName(p);
    printf("  %-8s depth 1024: %zu bytes per endpoint (budget %zu)\n", providerName(p), l.totalBytes,
           kEndpointBudgetBytes);
  }
}

TEST(RdmaFootprint, LayoutMatchesTheProviderFormats) {
  EndpointLayout l;
  ASSERT_EQ(endpointLayout(Provider::Mlx5, 1024, 4096, &l), Status::Success);
  EXPECT_EQ(1u << l.sqSlotShift, Mlx5::kSlotBytes);
  EXPECT_EQ(l.cqeBytes, Mlx5::kCqeBytes);
  EXPECT_EQ(l.sqBytes, 1024u * 64);
  EXPECT_EQ(l.cqBytes, 1024u * 64);
  EXPECT_GE(l.dbrecBytes, 16u);               // QP record (8) + CQ record (8)
  EXPECT_EQ(l.atomicBytes, (1024u + 1) * 8);  // a result word per slot + the discard word
  // Regions do not overlap and NIC-visible ones start on pages.
  EXPECT_EQ(l.sqOffset % 4096, 0u);
  EXPECT_EQ(l.cqOffset % 4096, 0u);
  EXPECT_EQ(l.atomicOffset % 4096, 0u);
  EXPECT_LE(l.sqOffset + l.sqBytes, l.cqOffset);
  EXPECT_LE(l.cqOffset + l.cqBytes, l.dbrecOffset);
  EXPECT_LE(l.dbrecOffset + l.dbrecBytes, l.stateOffset);
  EXPECT_LE(l.stateOffset + sizeof(EndpointState), l.slotStateOffset);
  EXPECT_LE(l.slotStateOffset + 1024u * 4, l.atomicOffset);
  EXPECT_EQ(l.allocBytes, l.atomicOffset + 12288);  // 8200 bytes of results, page-rounded

  ASSERT_EQ(endpointLayout(Provider::Bnxt, 1024, 4096, &l), Status::Success);
  EXPECT_EQ(1u << l.sqSlotShift, Bnxt::kSlotBytes);
  EXPECT_EQ(l.sqHwSlots, 1024u * Bnxt::kSlotBytes / 16);
  EXPECT_EQ(l.psnEntries, 1024u);
  EXPECT_GE(l.sqBytes, 1024u * Bnxt::kSlotBytes + Bnxt::psnTableBytes(1024, bnxt::kWordPsnSearchExt));
  EXPECT_EQ(l.cqeBytes, Bnxt::kCqeBytes);
  EXPECT_LE(l.sqOffset + l.sqBytes, l.rqOffset);
  EXPECT_LE(l.rqOffset + l.rqBytes, l.cqOffset);

  ASSERT_EQ(endpointLayout(Provider::Ionic, 1024, 4096, &l), Status::Success);
  EXPECT_TRUE(l.queuesFromProvider);
  EXPECT_EQ(1u << l.sqSlotShift, Ionic::kSlotBytes);
  EXPECT_EQ(l.totalBytes, l.allocBytes + l.sqBytes + l.cqBytes);

  testing::internal::CaptureStderr();
  EXPECT_EQ(endpointLayout(Provider::Mlx5, 1000, 4096, &l), Status::InvalidUsage);
  EXPECT_EQ(endpointLayout(Provider::None, 1024, 4096, &l), Status::InvalidUsage);
  testing::internal::GetCapturedStderr();
}
