// Socket addresses of the TCP bootstrap: formatting, resolving MASTER_ADDR, and choosing the
// interface a unique-ID root listens on.
#pragma once

#include <stdint.h>
#include <sys/socket.h>

#include <string>
#include <vector>

#include "src/common/status.hpp"

namespace mori::bootstrap {

struct SockAddr {
  sockaddr_storage storage{};
  socklen_t len = 0;

  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  sockaddr* get() { return reinterpret_cast<sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
  uint16_t port() const;
  void setPort(uint16_t port);
  bool isLoopback() const;
  // "10.1.2.3:41234", "[fe80::1%eth0]:41234"; "?" when empty.
  std::string str() const;
};

// Address the unique-ID root listens on: the first address of interface `ifname`
// (MORI_SHMEM_SOCKET_IFNAME; an exact name, else the first interface whose name starts with it),
// else of the first non-loopback interface that is up and running, else loopback. IPv4 is
// preferred over IPv6 on one interface; IPv6 link-local addresses are skipped. Port 0.
Status chooseListenAddress(const std::string& ifname, SockAddr* out, std::string* ifUsed);

// Resolves a host name or literal address (IPv4 first) to addresses with `port`. `what` names
// the source in errors, e.g. "MASTER_ADDR".
Status resolveHost(const std::string& host, uint16_t port, const char* what, std::vector<SockAddr>* out);

}  // namespace mori::bootstrap
