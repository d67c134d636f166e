// Which PEs share this host: an allGather of host-identity digests.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/secret.hpp"

namespace mori::bootstrap {

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
  // Only equality matters: a 16-byte digest instead of the identity keeps this allGather (every
  // init does it, through a star at rank 0 for the socket bootstraps) small at scale.
  const int n = size(), me = rank();
  const Secret mine = digestSecret("mori-shmem host identity", hostIdentity());
  std::vector<Secret> all(n);
  MORI_TRY(allGather(&mine, all.data(), sizeof(Secret)));
  int local = 0, count = 0;
  for (int r = 0; r < n; ++r) {
    if (!secretsEqual(all[r], mine)) continue;
    if (r < me) ++local;
    ++count;
  }
  localRank_ = local;
  localSize_ = count;
  return Status::Success;
}

}  // namespace mori::bootstrap
