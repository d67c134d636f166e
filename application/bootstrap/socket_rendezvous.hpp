// Rendezvous of the TCP bootstrap: the root admits every other PE through its listening socket;
// each PE connects (retrying until the deadline, since the root may start later), answers the
// root's challenge with its hello (rank, nranks, job tag and a MAC proving the secret,
// join_auth.hpp) and waits to be admitted. Strangers - a failed proof, another job, not our
// protocol, silence - are refused and logged while the root keeps waiting for the real PEs;
// duplicate ranks and nranks mismatches under the right secret fail the rendezvous, saying so.
//
// Under hostile load: every accepted connection has kHelloWindowS to deliver its hello; at most
// pendingCap() connections wait at once (below the descriptor limit), and at the cap the oldest
// connection that has sent nothing goes first. A PE whose connection is dropped before the
// root's verdict reconnects while its deadline lasts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "application/bootstrap/secret.hpp"
#include "application/bootstrap/socket_address.hpp"
#include "application/bootstrap/socket_io.hpp"

namespace mori::bootstrap {

// Seconds an accepted connection has to deliver its complete hello (a PE sends it within a
// round trip of the challenge).
constexpr double kHelloWindowS = 2.0;
// Upper bound of pendingCap().
constexpr size_t kMaxPendingJoins = 4096;

// How many connections may wait for their hello at once: half the descriptors this process has
// left under RLIMIT_NOFILE after the PEs' own, between 4 and kMaxPendingJoins.
size_t pendingCap(int nranks);

struct SocketParams {
  int rank = -1;
  int nranks = 0;
  double timeoutS = 0;
  Secret secret;
  JobTag jobTag;            // the job's tag (zero for a unique ID, whose secret is random)
  std::string jobIdentity;  // what the tag was made of, for messages ("SLURM_JOB_ID=7, ...")
  std::string kind;         // "socket-uid" or "socket-env": Bootstrap::name()
  std::string secretHint;   // appended to secret-mismatch messages: where the secret comes from
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
