#include "transport/rdma/core/device_selection.hpp"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

namespace mori::rdma {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

bool validDeviceName(const std::string& n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

// Preference of a RoCE v2 GID: IPv4-mapped (::ffff:a.b.c.d) first (what RoCE fabrics route),
// then global IPv6, then link-local fe80::/10 (never routed).
int roceV2Class(const uint8_t g[16]) {
  static const uint8_t v4prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (memcmp(g, v4prefix, sizeof(v4prefix)) == 0) return 0;
  if (g[0] == 0xfe && (g[1] & 0xc0) == 0x80) return 2;
  return 1;
}

}  // namespace

// ---- filter

bool DeviceFilter::names(const std::string& device) const {
  for (const Entry& e : entries)
    if (e.name == device) return true;
  return false;
}

bool DeviceFilter::allows(const std::string& device, int port) const {
  if (entries.empty()) return true;
  bool listed = false;
  for (const Entry& e : entries)
    if (e.name == device && (e.port == 0 || e.port == port)) listed = true;
  return exclude ? !listed : listed;
}

Status parseDeviceFilter(const std::string& text, DeviceFilter* out) {
  DeviceFilter f;
  std::string body = trim(text);
  if (body.empty()) {
    *out = f;
    return Status::Success;
  }
  if (body[0] == '^') {
    f.exclude = true;
    body = trim(body.substr(1));
    if (body.empty())
      return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                       "MORI_SHMEM_RDMA_DEVICES='%s' is not valid: '^' must be followed by device names", text.c_str());
  }
  for (const std::string& raw : split(body, ',')) {
    std::string item = trim(raw);
    DeviceFilter::Entry e;
    size_t colon = item.find(':');
    e.name = trim(item.substr(0, colon));
    bool ok = validDeviceName(e.name);
    if (ok && colon != std::string::npos) {
      std::string port = trim(item.substr(colon + 1));
      char* end = nullptr;
      long p = port.empty() ? 0 : strtol(port.c_str(), &end, 10);
      ok = !port.empty() && *end == '\0' && p >= 1 && p <= 255;
      e.port = static_cast<int>(p);
    }
    if (!ok)
      return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                       "MORI_SHMEM_RDMA_DEVICES='%s' is not valid: item '%s' is not a device name with an optional "
                       ":port (e.g. mlx5_0 or mlx5_0:1)",
                       text.c_str(), item.c_str());
    f.entries.push_back(e);
  }
  *out = std::move(f);
  return Status::Success;
}

// ---- GIDs

const char* gidTypeName(GidType t) {
  switch (t) {
    case GidType::Ib: return "IB";
    case GidType::RoceV1: return "RoCE v1";
    case GidType::RoceV2: return "RoCE v2";
  }
  return "?";
}

std::string gidToString(const uint8_t g[16]) {
  char buf[40];
  snprintf(buf, sizeof(buf), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1],
           g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
  return buf;
}

bool gidIsZero(const uint8_t g[16]) {
  for (int i = 0; i < 16; ++i)
    if (g[i]) return false;
  return true;
}

Status selectGidIndex(const std::vector<GidEntry>& table, bool ethernet, int64_t overrideIndex, int* out,
                      std::string* note) {
  std::string valid;
  for (const GidEntry& e : table) {
    if (gidIsZero(e.gid)) continue;
    valid += (valid.empty() ? "" : ", ") + std::to_string(e.index) + " (" + gidTypeName(e.type) + " " +
             gidToString(e.gid) + ")";
  }
  if (overrideIndex < -1)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_IB_GID_INDEX=%lld is not valid: expected -1 (choose) or a GID index; valid: %s",
                     static_cast<long long>(overrideIndex), valid.empty() ? "none" : valid.c_str());
  if (overrideIndex >= 0) {
    for (const GidEntry& e : table) {
      if (e.index == overrideIndex && !gidIsZero(e.gid)) {
        *out = e.index;
        if (note)
          *note =
              "GID index " + std::to_string(e.index) + " (" + gidTypeName(e.type) + ") from MORI_SHMEM_IB_GID_INDEX";
        return Status::Success;
      }
    }
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "MORI_SHMEM_IB_GID_INDEX=%lld names no valid GID of this port; valid: %s",
                     static_cast<long long>(overrideIndex), valid.empty() ? "none" : valid.c_str());
  }
  const GidEntry* best = nullptr;
  int bestClass = 0;
  if (ethernet) {
    for (const GidEntry& e : table) {
      if (gidIsZero(e.gid) || e.type != GidType::RoceV2) continue;
      int c = roceV2Class(e.gid);
      if (!best || c < bestClass || (c == bestClass && e.index < best->index)) best = &e, bestClass = c;
    }
  }
  if (!best) {
    for (const GidEntry& e : table)
      if (!gidIsZero(e.gid) && (!best || e.index < best->index)) best = &e;
  }
  if (!best) return Status::NotSupported;
  *out = best->index;
  if (note) {
    *note = "GID index " + std::to_string(best->index) + " (" + gidTypeName(best->type) + " " + gidToString(best->gid) +
            ")";
    if (ethernet && best->type != GidType::RoceV2) *note += ", no RoCE v2 GID on this port";
  }
  return Status::Success;
}

// ---- MTU

int mtuBytes(int ibvMtu) { return ibvMtu >= 1 && ibvMtu <= 5 ? 128 << ibvMtu : 0; }

Status pathMtu(int localActiveMtu, int remoteActiveMtu, int* out) {
  if (!mtuBytes(localActiveMtu) || !mtuBytes(remoteActiveMtu))
    return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                     "invalid active MTU (ibv_mtu local %d, remote %d): expected 1..5", localActiveMtu,
                     remoteActiveMtu);
  *out = std::min(localActiveMtu, remoteActiveMtu);
  return Status::Success;
}

// ---- PCI

std::string normalizePciBusId(const std::string& busId) {
  // domain:bus:device.function, hex digits only (the domain may have 4 or 8 digits).
  const std::string s = trim(busId);
  const size_t c1 = s.find(':'), c2 = s.find(':', c1 == std::string::npos ? 0 : c1 + 1), dot = s.rfind('.');
  if (c1 == std::string::npos || c2 == std::string::npos || dot == std::string::npos || dot < c2) return std::string();
  const std::string parts[4] = {s.substr(0, c1), s.substr(c1 + 1, c2 - c1 - 1), s.substr(c2 + 1, dot - c2 - 1),
                                s.substr(dot + 1)};
  const size_t maxLen[4] = {8, 2, 2, 1};
  unsigned long v[4];
  for (int i = 0; i < 4; ++i) {
    if (parts[i].empty() || parts[i].size() > maxLen[i]) return std::string();
    for (char ch : parts[i])
      if (!isxdigit(static_cast<unsigned char>(ch))) return std::string();
    v[i] = strtoul(parts[i].c_str(), nullptr, 16);
  }
  if (v[0] > 0xffff || v[2] > 0x1f || v[3] > 7) return std::string();
  char buf[16];
  snprintf(buf, sizeof(buf), "%04lx:%02lx:%02lx.%lx", v[0], v[1], v[2], v[3]);
  return buf;
}

int pciDistance(const std::string& pathA, const std::string& pathB) {
  if (pathA.empty() || pathB.empty()) return kUnknownDistance;
  auto components = [](const std::string& p) {
    std::vector<std::string> c;
    for (const std::string& s : split(p, '/'))
      if (!s.empty()) c.push_back(s);
    return c;
  };
  std::vector<std::string> a = components(pathA), b = components(pathB);
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  int hops = static_cast<int>(a.size() - common + b.size() - common);
  // Root complexes appear as "pciDDDD:BB" components; sharing none means crossing sockets.
  bool sharedRoot = false;
  for (size_t i = 0; i < common; ++i)
    if (a[i].compare(0, 3, "pci") == 0) sharedRoot = true;
  return sharedRoot ? hops : hops + kCrossRootPenalty;
}

int pickClosestNic(const std::string& gpuPath, const std::vector<NicCandidate>& nics, int localRank) {
  if (nics.empty()) return -1;
  int best = kUnknownDistance + 1;
  std::vector<int> ties;
  for (size_t i = 0; i < nics.size(); ++i) {
    int d = pciDistance(gpuPath, nics[i].pciPath);
    if (d < best) {
      best = d;
      ties.assign(1, static_cast<int>(i));
    } else if (d == best) {
      ties.push_back(static_cast<int>(i));
    }
  }
  return ties[static_cast<size_t>(localRank < 0 ? 0 : localRank) % ties.size()];
}

// ---- providers

Provider providerFor(const std::string& deviceName, const std::string& pciDriver) {
  if (pciDriver == "mlx5_core") return Provider::Mlx5;
  if (pciDriver == "bnxt_en") return Provider::Bnxt;
  if (pciDriver == "ionic") return Provider::Ionic;
  if (!pciDriver.empty()) return Provider::None;
  if (deviceName.compare(0, 5, "mlx5_") == 0) return Provider::Mlx5;
  if (deviceName.compare(0, 7, "bnxt_re") == 0) return Provider::Bnxt;
  if (deviceName.compare(0, 5, "ionic") == 0) return Provider::Ionic;
  return Provider::None;
}

const char* providerName(Provider p) {
  switch (p) {
    case Provider::None: return "none";
    case Provider::Mlx5: return "mlx5";
    case Provider::Bnxt: return "bnxt_re";
    case Provider::Ionic: return "ionic";
  }
  return "?";
}

}  // namespace mori::rdma
