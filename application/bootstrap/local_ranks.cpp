// Which PEs share this host: an allGather of host identities (boot id + hostname).
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"

namespace mori::bootstrap {
namespace {
// Fixed width on the wire; longer identities are cut (a boot id is 36 characters, a hostname at
// most 64 on Linux).
constexpr size_t kIdentityBytes = 256;
}  // namespace

std::string hostIdentity() {
  std::string id;
  if (FILE* f = fopen("/proc/sys/kernel/random/boot_id", "re")) {
    char buf[64] = "";
    if (fgets(buf, sizeof(buf), f)) id = buf;
    fclose(f);
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  }
  char host[256] = "";
  if (gethostname(host, sizeof(host) - 1) != 0) snprintf(host, sizeof(host), "unknown-host");
  // Containers on one machine share the boot id; the hostname tells them apart.
  return id + "/" + host;
}

Status Bootstrap::discoverLocalRanks() {
  const int n = size(), me = rank();
  std::vector<char> all(kIdentityBytes * n, 0);
  std::string id = hostIdentity();
  memcpy(&all[kIdentityBytes * me], id.data(), id.size() < kIdentityBytes ? id.size() : kIdentityBytes - 1);
  MORI_TRY(allGather(&all[kIdentityBytes * me], all.data(), kIdentityBytes));
  int local = 0, count = 0;
  for (int r = 0; r < n; ++r) {
    if (memcmp(&all[kIdentityBytes * r], &all[kIdentityBytes * me], kIdentityBytes) != 0) continue;
    if (r < me) ++local;
    ++count;
  }
  localRank_ = local;
  localSize_ = count;
  return Status::Success;
}

}  // namespace mori::bootstrap
