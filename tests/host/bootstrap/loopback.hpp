// 127.0.0.1 with a given port (0: the kernel picks one), for tests that run socket bootstraps on
// this host.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>

#include "application/bootstrap/socket_address.hpp"

namespace mori::test {

inline bootstrap::SockAddr loopback(uint16_t port) {
  bootstrap::SockAddr a;
  auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
  in->sin_family = AF_INET;
  in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.len = sizeof(sockaddr_in);
  a.setPort(port);
  return a;
}

}  // namespace mori::test
