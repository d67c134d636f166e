// Rendezvous of the TCP bootstrap: the root admits every other PE through its listening socket;
// each PE connects (retrying until the deadline, since the root may start later), presents the
// hello (magic, version, rank, nranks, secret) and waits to be admitted. Strangers - a wrong or
// missing secret, not our protocol - are refused and logged while the root keeps waiting for the
// real PEs; duplicate ranks and nranks mismatches fail the rendezvous, saying so.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "application/bootstrap/secret.hpp"
#include "application/bootstrap/socket_address.hpp"
#include "application/bootstrap/socket_io.hpp"

namespace mori::bootstrap {

struct SocketParams {
  int rank = -1;
  int nranks = 0;
  double timeoutS = 0;
  Secret secret;
  std::string kind;        // "socket-uid" or "socket-env": Bootstrap::name()
  std::string secretHint;  // appended to secret-mismatch messages: where the secret comes from
};

struct PeerLink {
  Fd fd;
  int pe = -1;
  std::string addr;  // the peer's address as "ip:port"
};

// Root (rank 0): admits PEs 1..nranks-1; (*links)[pe] is PE pe's connection (index 0 unused).
// `listener` is closed on return: nobody else may join.
Status acceptPeers(const SocketParams& p, Fd listener, const SockAddr& listenAddr, std::vector<PeerLink>* links);

// Non-root: connects to the first of rootAddrs that answers and is admitted.
Status joinRoot(const SocketParams& p, const std::vector<SockAddr>& rootAddrs, PeerLink* root);

}  // namespace mori::bootstrap
