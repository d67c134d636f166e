#include "application/bootstrap/socket_address.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>

#include <algorithm>

namespace mori::bootstrap {

uint16_t SockAddr::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  return 0;
}

void SockAddr::setPort(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = htons(port);
}

bool SockAddr::isLoopback() const {
  if (family() == AF_INET) return (ntohl(reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr.s_addr) >> 24) == 127;
  if (family() == AF_INET6) return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr);
  return false;
}

std::string SockAddr::str() const {
  char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2] = "?";
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, host, sizeof(host));
    return std::string(host) + ":" + std::to_string(port());
  }
  if (family() == AF_INET6) {
    const auto* a6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof(host));
    std::string h = host;
    char ifn[IF_NAMESIZE];
    if (a6->sin6_scope_id && if_indextoname(a6->sin6_scope_id, ifn)) h += std::string("%") + ifn;
    return "[" + h + "]:" + std::to_string(port());
  }
  return "?";
}

namespace {

struct Candidate {
  std::string ifname;
  SockAddr addr;
  bool loopback;
  unsigned flags;
};

bool usableAddress(const sockaddr* sa) {
  if (!sa) return false;
  if (sa->sa_family == AF_INET) return true;
  if (sa->sa_family == AF_INET6) return !IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  return false;
}

}  // namespace

Status chooseListenAddress(const std::string& ifname, SockAddr* out, std::string* ifUsed) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0)
    return MORI_FAIL(Status::System, log::kBootstrap, "getifaddrs() failed while choosing the bootstrap interface: %s",
                     strerror(errno));
  std::vector<Candidate> all;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!usableAddress(i->ifa_addr)) continue;
    Candidate c;
    c.ifname = i->ifa_name;
    c.addr.len = i->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    memcpy(&c.addr.storage, i->ifa_addr, c.addr.len);
    c.addr.setPort(0);
    c.loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
    c.flags = i->ifa_flags;
    all.push_back(c);
  }
  freeifaddrs(list);
  // IPv4 before IPv6, keeping the kernel's interface order otherwise.
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    return a.addr.family() == AF_INET && b.addr.family() != AF_INET;
  });
  auto pick = [&](const Candidate& c) {
    *out = c.addr;
    if (ifUsed) *ifUsed = c.ifname;
    return Status::Success;
  };
  if (!ifname.empty()) {
    for (const auto& c : all)
      if (c.ifname == ifname) return pick(c);
    for (const auto& c : all)
      if (c.ifname.compare(0, ifname.size(), ifname) == 0) return pick(c);
    std::vector<std::string> seen;
    std::string names;
    for (const auto& c : all) {
      if (std::find(seen.begin(), seen.end(), c.ifname) != seen.end()) continue;
      seen.push_back(c.ifname);
      names += (names.empty() ? "" : ", ") + c.ifname;
    }
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "MORI_SHMEM_SOCKET_IFNAME='%s' matches no interface with an IPv4 or global IPv6 address "
                     "(this host has: %s)",
                     ifname.c_str(), names.empty() ? "none" : names.c_str());
  }
  // Bridges of local containers and VMs are up on many hosts but reach no other host.
  auto hostOnlyBridge = [](const std::string& n) { return n.rfind("docker", 0) == 0 || n.rfind("virbr", 0) == 0; };
  for (const auto& c : all)
    if (!c.loopback && (c.flags & IFF_UP) && (c.flags & IFF_RUNNING) && !hostOnlyBridge(c.ifname)) return pick(c);
  for (const auto& c : all)
    if (c.loopback && (c.flags & IFF_UP)) return pick(c);
  return MORI_FAIL(Status::System, log::kBootstrap,
                   "no network interface is up (not even loopback): the socket bootstrap cannot listen");
}

Status resolveHost(const std::string& host, uint16_t port, const char* what, std::vector<SockAddr>* out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "%s='%s' does not resolve to an address: %s", what,
                     host.c_str(), rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
  out->clear();
  for (addrinfo* a = res; a; a = a->ai_next) {
    if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
    SockAddr s;
    s.len = a->ai_addrlen;
    memcpy(&s.storage, a->ai_addr, a->ai_addrlen);
    s.setPort(port);
    bool dup = false;
    for (const auto& o : *out) dup |= o.len == s.len && memcmp(&o.storage, &s.storage, s.len) == 0;
    if (!dup) out->push_back(s);
  }
  freeaddrinfo(res);
  std::stable_sort(out->begin(), out->end(),
                   [](const SockAddr& a, const SockAddr& b) { return a.family() == AF_INET && b.family() != AF_INET; });
  if (out->empty())
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "%s='%s' resolves to no IPv4 or IPv6 address", what,
                     host.c_str());
  return Status::Success;
}

}  // namespace mori::bootstrap
