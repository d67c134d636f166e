// A free TCP port on 127.0.0.1 for a test's socket bootstrap.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>

namespace mori::test {

// A port on 127.0.0.1 that was free a moment ago (bound, then released), or 0. It lies below the
// kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range), so that no bind(0) or
// outgoing connection of a test running beside this one is handed it before our bootstrap binds
// it (a root may bind seconds later). Ports 10000 and up only, so that port - 1 is a valid port
// too (MASTER_PORT + 1).
inline int freeLoopbackPort() {
  int ephemeralLow = 32768, ephemeralHigh = 60999;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeralLow >> ephemeralHigh;
  const bool below = ephemeralLow > 11000;
  const int lo = below ? 10000 : ephemeralHigh + 1;
  const int hi = below ? ephemeralLow - 1 : 65535;
  if (lo > hi) return 0;
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pick(lo, hi);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = pick(rng);
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool free = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    close(fd);
    if (free) return port;
  }
  return 0;
}

}  // namespace mori::test
