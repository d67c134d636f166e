#include "application/bootstrap/uniqueid.hpp"

#include <netinet/in.h>
#include <string.h>

#include <mutex>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/socket_bootstrap.hpp"

namespace mori::bootstrap {
namespace {

constexpr uint32_t kUidMagic = 0x4955534du;  // "MSUI"
constexpr uint16_t kUidLayout = 1;
constexpr size_t kUidChecked = 48;

static_assert(sizeof(mori_shmem_uniqueid_t) == MORI_SHMEM_UNIQUEID_BYTES && MORI_SHMEM_UNIQUEID_BYTES >= 52,
              "the unique-ID layout needs 52 bytes");

void put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

// FNV-1a: catches a truncated or mangled ID, not tampering (the secret guards against strangers).
uint32_t checksum(const uint8_t* p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

// Root listeners made by generateUniqueId(), waiting for createUniqueId(rank 0).
struct PendingListener {
  UniqueIdInfo info;
  Fd fd;
};
std::mutex gMutex;
std::vector<PendingListener> gPending;

bool sameRoot(const UniqueIdInfo& a, const UniqueIdInfo& b) {
  return secretsEqual(a.secret, b.secret) && a.root.port() == b.root.port();
}

}  // namespace

void encodeUniqueId(const UniqueIdInfo& info, mori_shmem_uniqueid_t* uid) {
  uint8_t* p = uid->internal;
  memset(p, 0, sizeof(uid->internal));
  put32(p + 0, kUidMagic);
  put16(p + 4, kUidLayout);
  const uint16_t port = info.root.port();
  p[8] = static_cast<uint8_t>(port >> 8);
  p[9] = static_cast<uint8_t>(port);
  if (info.root.family() == AF_INET) {
    put16(p + 6, 4);
    memcpy(p + 16, &reinterpret_cast<const sockaddr_in*>(&info.root.storage)->sin_addr, 4);
  } else {
    const auto* a6 = reinterpret_cast<const sockaddr_in6*>(&info.root.storage);
    put16(p + 6, 6);
    put32(p + 12, a6->sin6_scope_id);
    memcpy(p + 16, &a6->sin6_addr, 16);
  }
  memcpy(p + 32, info.secret.bytes, 16);
  put32(p + kUidChecked, checksum(p, kUidChecked));
}

Status decodeUniqueId(const mori_shmem_uniqueid_t& uid, UniqueIdInfo* info) {
  const uint8_t* p = uid.internal;
  if (get32(p) != kUidMagic)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "the unique ID is not one made by mori_shmem_get_uniqueid() (bad magic: uninitialised or "
                     "overwritten?)");
  if (get16(p + 4) != kUidLayout)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "the unique ID has layout version %u; this mori-shmem reads version %u (mixed installations?)",
                     get16(p + 4), kUidLayout);
  if (get32(p + kUidChecked) != checksum(p, kUidChecked))
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "the unique ID is corrupt (checksum mismatch): it was changed or truncated on its way here");
  const uint16_t family = get16(p + 6), port = static_cast<uint16_t>((p[8] << 8) | p[9]);
  UniqueIdInfo out;
  if (family == 4) {
    auto* a = reinterpret_cast<sockaddr_in*>(&out.root.storage);
    a->sin_family = AF_INET;
    memcpy(&a->sin_addr, p + 16, 4);
    out.root.len = sizeof(sockaddr_in);
  } else if (family == 6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&out.root.storage);
    a->sin6_family = AF_INET6;
    a->sin6_scope_id = get32(p + 12);
    memcpy(&a->sin6_addr, p + 16, 16);
    out.root.len = sizeof(sockaddr_in6);
  } else {
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "the unique ID names address family %u (not 4 or 6)",
                     family);
  }
  if (port == 0) return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "the unique ID names port 0");
  out.root.setPort(port);
  memcpy(out.secret.bytes, p + 32, 16);
  *info = out;
  return Status::Success;
}

size_t pendingUniqueIdListeners() {
  std::lock_guard<std::mutex> lock(gMutex);
  return gPending.size();
}

Status generateUniqueId(const env::Config& cfg, mori_shmem_uniqueid_t* uid) {
  if (!uid) return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "mori_shmem_get_uniqueid: uid is NULL");
  SockAddr addr;
  std::string ifname;
  MORI_TRY(chooseListenAddress(cfg.socketIfname, &addr, &ifname));
  PendingListener pl;
  MORI_TRY(listenOn(addr, "the unique-ID bootstrap root", &pl.fd, &pl.info.root));
  MORI_TRY(randomSecret(&pl.info.secret));
  encodeUniqueId(pl.info, uid);
  MORI_LOG_INFO(log::kBootstrap, "unique ID created: the bootstrap root listens on %s (interface %s)",
                pl.info.root.str().c_str(), ifname.c_str());
  std::lock_guard<std::mutex> lock(gMutex);
  gPending.push_back(std::move(pl));
  return Status::Success;
}

Status createUniqueId(int rank, int nranks, const mori_shmem_uniqueid_t& uid, const env::Config& cfg,
                      std::unique_ptr<Bootstrap>* out) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "unique-ID bootstrap: rank %d of nranks %d is not valid (need 0 <= rank < nranks)", rank, nranks);
  UniqueIdInfo info;
  MORI_TRY(decodeUniqueId(uid, &info));
  SocketParams p;
  p.rank = rank;
  p.nranks = nranks;
  p.timeoutS = cfg.bootstrapTimeout;
  p.secret = info.secret;
  p.jobIdentity = "the unique ID's random secret";
  p.kind = "socket-uid";
  p.secretHint = " (every PE must be given the unique ID that rank 0's process created)";
  Fd listener;
  {
    std::lock_guard<std::mutex> lock(gMutex);
    for (auto it = gPending.begin(); it != gPending.end(); ++it) {
      if (!sameRoot(it->info, info)) continue;
      if (rank != 0)
        return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                         "PE %d: this process created the unique ID (root %s), so it must be rank 0: create the ID on "
                         "the process that passes rank 0",
                         rank, info.root.str().c_str());
      listener = std::move(it->fd);
      gPending.erase(it);
      break;
    }
  }
  if (rank != 0) return SocketBootstrap::createPeer(p, {info.root}, out);
  SockAddr bound = info.root;
  if (!listener.valid()) {
    // A unique ID made elsewhere (say, by a launcher process on this host): listen where it says.
    MORI_LOG_INFO(log::kBootstrap, "rank 0 did not create this unique ID; listening on %s as it names",
                  info.root.str().c_str());
    MORI_TRY(listenOn(info.root, "rank 0 (unique ID made by another process)", &listener, &bound));
  }
  return SocketBootstrap::createRoot(p, std::move(listener), bound, out);
}

}  // namespace mori::bootstrap
