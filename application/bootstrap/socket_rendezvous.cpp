#include "application/bootstrap/socket_rendezvous.hpp"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "application/bootstrap/format.hpp"
#include "application/bootstrap/remote_status.hpp"
#include "application/bootstrap/socket_wire.hpp"

namespace mori::bootstrap {
namespace {

using Clock = std::chrono::steady_clock;

// How many refused or dropped connections are logged one by one (the rest are counted and
// summed up), so that a flood cannot flood the log too.
constexpr int kStrangersLogged = 8;

struct Pending {
  Fd fd;
  std::string addr;
  Nonce nonce;
  Clock::time_point since;
  uint8_t buf[wire::kHelloBytes] = {};
  size_t got = 0;
};

// Tells a refused connection why (a misconfigured PE then fails at once instead of timing out),
// then closes it. Unread input would turn the close into a reset that can destroy the answer in
// flight, so what has arrived is read away first.
void refuse(Pending& c, const std::string& why) {
  wire::sendVerdicts({c.fd.get()}, Status::InvalidUsage, -1, why, Deadline(0.2));
  shutdown(c.fd.get(), SHUT_WR);
  char sink[4096];
  for (int i = 0; i < 16 && recv(c.fd.get(), sink, sizeof(sink), MSG_DONTWAIT) > 0; ++i) {
  }
  c.fd.reset();
}

// Descriptors this process has open now (/proc/self/fd), or -1 if that cannot be read.
long openDescriptors() {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  long n = 0;
  while (readdir(d)) ++n;
  closedir(d);
  return n - 3;  // ".", ".." and the directory's own descriptor
}

}  // namespace

size_t pendingCap(int nranks) {
  rlimit rl{};
  long limit = 1024;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
    limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20) ? (1 << 20) : static_cast<long>(rl.rlim_cur);
  long used = openDescriptors();
  if (used < 0) used = 64;
  // The admitted PEs need one descriptor each, and the process keeps some for everything else
  // (the GPU runtime, logs): half of what is left may wait for a hello.
  long spare = (limit - used - nranks - 16) / 2;
  return static_cast<size_t>(std::max(4L, std::min(spare, static_cast<long>(kMaxPendingJoins))));
}

namespace {

class RootRendezvous {
 public:
  RootRendezvous(const SocketParams& p, const SockAddr& listenAddr, std::vector<PeerLink>* links)
      : p_(p), where_(listenAddr.str()), links_(links), cap_(pendingCap(p.nranks)) {}

  Status run(int listenFd);

 private:
  // Reads what `c` sent; true when the connection is finished with (admitted, refused, closed).
  bool readHello(Pending& c, Status* fatal);
  // Judges a complete hello: admits, refuses (and keeps waiting) or fails the rendezvous.
  Status evaluate(Pending& c);
  // Tells every admitted PE (and `offenderFd`, if any) why the rendezvous failed, then fails.
  Status fail(Status st, const std::string& msg, int offenderFd);
  void closePending(const char* why);
  // Accepts what the listener holds, challenging each new connection.
  void acceptAll(int listenFd);
  // Closes connections whose hello window has passed; returns ms until the next one's does.
  int expireSlow();
  // Makes room for one more connection: drops the connection most likely a stranger's.
  void evictOne(const char* why);
  void strangerWarn(const std::string& msg);
  size_t pendingCount() const { return pending_.size(); }

  const SocketParams& p_;
  std::string where_;
  std::vector<PeerLink>* links_;
  std::vector<Pending> pending_;
  const size_t cap_;
  int admitted_ = 0;
  int refused_ = 0;  // complete hellos refused (wrong secret, other job, not our protocol)
  int dropped_ = 0;  // connections closed without a complete hello (silent, slow, evicted)
  int strangerLogs_ = 0;
  bool acceptFailed_ = false;
};

void RootRendezvous::strangerWarn(const std::string& msg) {
  if (strangerLogs_++ < kStrangersLogged)
    MORI_LOG_WARN(log::kBootstrap, "bootstrap root (PE 0) at %s: %s%s", where_.c_str(), msg.c_str(),
                  strangerLogs_ == kStrangersLogged ? " (further stranger connections are only counted)" : "");
  else
    MORI_LOG_DEBUG(log::kBootstrap, "bootstrap root (PE 0) at %s: %s", where_.c_str(), msg.c_str());
}

Status RootRendezvous::fail(Status st, const std::string& msg, int offenderFd) {
  std::vector<int> fds;
  for (const auto& l : *links_)
    if (l.fd.valid()) fds.push_back(l.fd.get());
  if (offenderFd >= 0) fds.push_back(offenderFd);
  std::string text = "bootstrap root (PE 0) at " + where_ + " reports: " + msg;
  wire::sendVerdicts(fds, st, -1, text, Deadline(1.0));
  closePending("the rendezvous failed");
  for (auto& l : *links_) l.fd.reset();
  return MORI_FAIL(st, log::kBootstrap, "bootstrap root (PE 0) at %s: %s", where_.c_str(), msg.c_str());
}

void RootRendezvous::closePending(const char* why) {
  for (auto& c : pending_) {
    if (!c.fd.valid() || c.got == wire::kHelloBytes) continue;  // already judged
    ++dropped_;
    strangerWarn(
        strprintf("connection from %s sent %zu of %zu hello bytes before %s; closed (not a mori-shmem PE of "
                  "this job)",
                  c.addr.c_str(), c.got, wire::kHelloBytes, why));
  }
  pending_.clear();
}

Status RootRendezvous::evaluate(Pending& c) {
  wire::Hello h = wire::decodeHello(c.buf);
  if (h.magic != wire::kHelloMagic) {
    ++refused_;
    strangerWarn(strprintf("refused a connection from %s: it is not a mori-shmem bootstrap hello%s", c.addr.c_str(),
                           h.magic == 0x3148736du ? " (a mori-shmem PE of bootstrap protocol version 1: mixed "
                                                    "installations?)"
                                                  : ""));
    refuse(c, "not a mori-shmem bootstrap hello (this root speaks bootstrap protocol version " +
                  std::to_string(wire::kProtocolVersion) + ")");
    return Status::Success;
  }
  if (h.version != wire::kProtocolVersion) {
    ++refused_;
    strangerWarn(
        strprintf("refused a connection from %s (claims PE %d): bootstrap protocol version %u, this root "
                  "speaks %u (mixed mori-shmem installations?)",
                  c.addr.c_str(), h.rank, h.version, wire::kProtocolVersion));
    refuse(c, strprintf("bootstrap protocol version %u, the root speaks %u", h.version, wire::kProtocolVersion));
    return Status::Success;
  }
  if (!wire::helloMacValid(c.buf, p_.secret, c.nonce)) {
    // The proof failed: a stranger. Say which kind, from what the hello shows in clear.
    ++refused_;
    std::string why;
    if (h.nranks != p_.nranks)
      why = strprintf("it belongs to a job of world size %d, and this job has %d PEs (another job on the same port?)",
                      h.nranks, p_.nranks);
    else if (!(h.jobTag == p_.jobTag))
      why = "it belongs to another job: its job identity differs from this root's (" + p_.jobIdentity + ")";
    else
      why = "wrong secret: this PE does not belong to the job of this root" + p_.secretHint;
    strangerWarn(strprintf("refused a connection from %s (claims PE %d of %d): %s", c.addr.c_str(), h.rank, h.nranks,
                           why.c_str()));
    refuse(c, why);
    return Status::Success;
  }
  if (h.nranks != p_.nranks)
    return fail(Status::InvalidUsage,
                strprintf("PE %d at %s was started with nranks=%d, but the root has nranks=%d", h.rank, c.addr.c_str(),
                          h.nranks, p_.nranks),
                c.fd.get());
  if (h.rank == 0)
    return fail(Status::InvalidUsage,
                strprintf("the PE at %s also claims rank 0: two processes were given rank 0", c.addr.c_str()),
                c.fd.get());
  if (h.rank < 0 || h.rank >= p_.nranks)
    return fail(Status::InvalidUsage,
                strprintf("the PE at %s claims rank %d, outside 0..%d", c.addr.c_str(), h.rank, p_.nranks - 1),
                c.fd.get());
  PeerLink& slot = (*links_)[h.rank];
  if (slot.fd.valid())
    return fail(Status::InvalidUsage,
                strprintf("rank %d was claimed twice, by %s and by %s: two processes were given the same rank", h.rank,
                          slot.addr.c_str(), c.addr.c_str()),
                c.fd.get());
  slot.fd = std::move(c.fd);
  slot.pe = h.rank;
  slot.addr = c.addr;
  ++admitted_;
  MORI_LOG_DEBUG(log::kBootstrap, "bootstrap root: PE %d joined from %s (pid %u), %d of %d", h.rank, c.addr.c_str(),
                 h.pid, admitted_ + 1, p_.nranks);
  return Status::Success;
}

bool RootRendezvous::readHello(Pending& c, Status* fatal) {
  for (;;) {
    ssize_t n = recv(c.fd.get(), c.buf + c.got, sizeof(c.buf) - c.got, MSG_DONTWAIT);
    if (n > 0) {
      c.got += static_cast<size_t>(n);
      if (c.got < sizeof(c.buf)) continue;
      *fatal = evaluate(c);
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    ++dropped_;
    strangerWarn(strprintf("connection from %s %s after %zu of %zu hello bytes; ignored (not a PE of this job)",
                           c.addr.c_str(), n == 0 ? "closed" : strerror(errno), c.got, wire::kHelloBytes));
    return true;
  }
}

int RootRendezvous::expireSlow() {
  const auto now = Clock::now();
  const auto window = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kHelloWindowS));
  int nextMs = 1000;
  for (size_t i = pending_.size(); i-- > 0;) {
    Pending& c = pending_[i];
    if (now - c.since >= window) {
      ++dropped_;
      strangerWarn(
          strprintf("connection from %s sent %zu of %zu hello bytes within %.1f s of being accepted; closed (a "
                    "PE answers the challenge at once: not a PE of this job, or one that stalled)",
                    c.addr.c_str(), c.got, wire::kHelloBytes, kHelloWindowS));
      pending_.erase(pending_.begin() + static_cast<long>(i));
      continue;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.since + window - now).count() + 1;
    nextMs = std::min(nextMs, static_cast<int>(left));
  }
  return nextMs;
}

void RootRendezvous::evictOne(const char* why) {
  if (pending_.empty()) return;
  // Strangers first: the oldest connection that has sent nothing (a PE answers the challenge
  // within a round trip), else the oldest.
  size_t victim = 0;
  for (size_t i = 0; i < pending_.size(); ++i)
    if (pending_[i].got == 0) {
      victim = i;
      break;
    }
  Pending& c = pending_[victim];
  ++dropped_;
  strangerWarn(strprintf("%s; dropped the connection from %s (%zu of %zu hello bytes after %.1f s)", why,
                         c.addr.c_str(), c.got, wire::kHelloBytes,
                         std::chrono::duration<double>(Clock::now() - c.since).count()));
  pending_.erase(pending_.begin() + static_cast<long>(victim));
}

void RootRendezvous::acceptAll(int listenFd) {
  for (;;) {
    SockAddr peer;
    peer.len = sizeof(peer.storage);
    int fd = accept4(listenFd, peer.get(), &peer.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        // Out of descriptors despite the cap (others in the process use them too): make room.
        if (!acceptFailed_)
          MORI_LOG_WARN(log::kBootstrap, "bootstrap root (PE 0) at %s: accept() failed: %s; dropping a stranger",
                        where_.c_str(), strerror(errno));
        acceptFailed_ = true;
        if (!pending_.empty()) {
          evictOne("out of descriptors");
          continue;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
        // The listener stays readable: pause instead of spinning, and say so once.
        if (!acceptFailed_)
          MORI_LOG_WARN(log::kBootstrap, "bootstrap root (PE 0) at %s: accept() failed: %s; retrying", where_.c_str(),
                        strerror(errno));
        acceptFailed_ = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return;
    }
    Pending c;
    c.fd.reset(fd);
    c.addr = peer.str();
    c.since = Clock::now();
    if (int e = prepareStreamSocket(fd)) {
      MORI_LOG_WARN(log::kBootstrap, "bootstrap root (PE 0): cannot configure the connection from %s: %s",
                    c.addr.c_str(), strerror(e));
      continue;
    }
    wire::Challenge ch;
    uint8_t frame[wire::kChallengeBytes];
    if (!ok(newNonce(&ch.nonce))) continue;  // logged; the PE reconnects
    wire::encode(ch, frame);
    // A fresh socket's send buffer takes 40 bytes at once; one that does not is not worth waiting for.
    if (send(fd, frame, sizeof(frame), MSG_DONTWAIT | MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof(frame))) {
      ++dropped_;
      continue;
    }
    c.nonce = ch.nonce;
    if (pending_.size() >= cap_)
      evictOne(strprintf("%zu connections are waiting for a hello (the cap, from the descriptor limit)", cap_).c_str());
    pending_.push_back(std::move(c));
  }
}

Status RootRendezvous::run(int listenFd) {
  Deadline dl(p_.timeoutS);
  std::vector<pollfd> pfds;
  while (admitted_ < p_.nranks - 1) {
    if (dl.expired()) {
      std::vector<int> missing;
      for (int r = 1; r < p_.nranks; ++r)
        if (!(*links_)[r].fd.valid()) missing.push_back(r);
      std::string msg = strprintf("%s did not connect within %.1f s (%d of %d PEs joined", peList(missing).c_str(),
                                  dl.seconds(), admitted_ + 1, p_.nranks);
      if (refused_) msg += strprintf("; %d stranger connection(s) refused", refused_);
      if (dropped_) msg += strprintf("; %d connection(s) closed without a complete hello", dropped_);
      if (refused_ || dropped_) msg += ", see the warnings above";
      return fail(Status::Timeout, msg + ")", -1);
    }
    const int expiryMs = expireSlow();
    pfds.assign(1, pollfd{listenFd, POLLIN, 0});
    for (const auto& c : pending_) pfds.push_back(pollfd{c.fd.get(), POLLIN, 0});
    int n = poll(pfds.data(), pfds.size(), std::min(dl.pollMs(), expiryMs));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(Status::System, strprintf("poll() failed: %s", strerror(errno)), -1);
    // Hellos first: `pending_` changes below.
    std::vector<size_t> finished;
    for (size_t k = 1; k < pfds.size(); ++k) {
      if (!pfds[k].revents) continue;
      Status fatal = Status::Success;
      if (readHello(pending_[k - 1], &fatal)) finished.push_back(k - 1);
      if (!ok(fatal)) return fatal;
    }
    for (auto it = finished.rbegin(); it != finished.rend(); ++it) pending_.erase(pending_.begin() + *it);
    if (pfds[0].revents) acceptAll(listenFd);
  }
  closePending("every PE had joined");
  // Admit everyone at once: a PE proceeds only when all have joined.
  std::vector<Transfer> xs;
  uint8_t ok[wire::kVerdictBytes];
  wire::encode(wire::Verdict{}, ok);
  for (int r = 1; r < p_.nranks; ++r) {
    Transfer t;
    t.fd = (*links_)[r].fd.get();
    t.addSend(ok, sizeof(ok));
    xs.push_back(std::move(t));
  }
  int failed = -1, sysErr = 0;
  IoResult res = moveBytes(xs, dl.extendedBy(rootReportGrace(p_.timeoutS)), &failed, &sysErr);
  if (res == IoResult::Failed && failed >= 0) {
    const PeerLink& l = (*links_)[failed + 1];
    return fail(Status::Remote,
                strprintf("PE %d at %s dropped its connection before the rendezvous completed: %s", l.pe,
                          l.addr.c_str(), strerror(xs[failed].err ? xs[failed].err : EPIPE)),
                -1);
  }
  if (res != IoResult::Done)
    return fail(res == IoResult::TimedOut ? Status::Timeout : Status::System,
                res == IoResult::TimedOut ? std::string("could not admit the PEs in time")
                                          : strprintf("poll() failed: %s", strerror(sysErr)),
                -1);
  MORI_LOG_INFO(
      log::kBootstrap, "bootstrap root (PE 0) at %s: all %d PEs joined in %.3f s%s", where_.c_str(), p_.nranks,
      dl.elapsed(),
      refused_ || dropped_
          ? strprintf(" (%d stranger connection(s) refused, %d closed without a hello)", refused_, dropped_).c_str()
          : "");
  return Status::Success;
}

bool retryable(int e) {
  return e == ECONNREFUSED || e == ETIMEDOUT || e == EHOSTUNREACH || e == ENETUNREACH || e == ECONNRESET ||
         e == ECONNABORTED || e == EAGAIN || e == EINTR || e == EADDRNOTAVAIL || e == ENETDOWN;
}

}  // namespace

Status acceptPeers(const SocketParams& p, Fd listener, const SockAddr& listenAddr, std::vector<PeerLink>* links) {
  links->clear();
  links->resize(p.nranks);
  (*links)[0].pe = 0;
  RootRendezvous rv(p, listenAddr, links);
  return rv.run(listener.get());
}

namespace {

// One join attempt over a connected socket: challenge in, signed hello out, verdict in.
// Not logged when the root closed the connection before its verdict (evicted under load, or
// gone): then *dropped says why, and the caller decides whether to reconnect.
Status joinOnce(const SocketParams& p, Fd& fd, const std::string& where, const Deadline& admission,
                std::string* dropped) {
  dropped->clear();
  uint8_t challenge[wire::kChallengeBytes], hello[wire::kHelloBytes], verdict[wire::kVerdictBytes];
  std::vector<Transfer> xs(1);
  xs[0].fd = fd.get();
  xs[0].addRecv(challenge, sizeof(challenge));
  int failed = -1, sysErr = 0;
  // The root challenges as soon as it accepts, which is once its rendezvous runs.
  IoResult r = moveBytes(xs, admission, &failed, &sysErr);
  if (r == IoResult::TimedOut)
    return MORI_FAIL(Status::Timeout, log::kBootstrap,
                     "PE %d reached the bootstrap root at %s but was not challenged within %.1f s: rank 0 has not "
                     "started its rendezvous",
                     p.rank, where.c_str(), admission.seconds());
  if (r == IoResult::Failed) {
    if (xs[0].eof || xs[0].err == ECONNRESET) {
      *dropped = strprintf("PE %d: the bootstrap root at %s closed the connection before its challenge", p.rank,
                           where.c_str());
      return Status::Remote;
    }
    return MORI_FAIL(Status::Remote, log::kBootstrap, "PE %d: connection to the bootstrap root at %s failed: %s",
                     p.rank, where.c_str(), strerror(xs[0].err ? xs[0].err : sysErr));
  }
  wire::Challenge ch = wire::decodeChallenge(challenge);
  if (ch.magic != wire::kChallengeMagic) {
    // A root of protocol 1 answers nothing until a hello; anything else is not a mori-shmem root.
    return MORI_FAIL(Status::Remote, log::kBootstrap,
                     "PE %d: %s is not a mori-shmem bootstrap root of protocol version %u (another service on that "
                     "port, or a different mori-shmem version?)",
                     p.rank, where.c_str(), wire::kProtocolVersion);
  }
  if (ch.version != wire::kProtocolVersion)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                     "PE %d: the bootstrap root at %s speaks protocol version %u, this PE %u (mixed mori-shmem "
                     "installations?)",
                     p.rank, where.c_str(), ch.version, wire::kProtocolVersion);
  wire::Hello h;
  h.rank = p.rank;
  h.nranks = p.nranks;
  h.pid = static_cast<uint32_t>(getpid());
  h.jobTag = p.jobTag;
  if (!wire::encodeSigned(h, p.secret, ch.nonce, hello))
    return MORI_FAIL(Status::System, log::kBootstrap, "PE %d: libcrypto could not compute the join's HMAC-SHA256",
                     p.rank);
  xs.assign(1, Transfer());
  xs[0].fd = fd.get();
  xs[0].addSend(hello, sizeof(hello));
  xs[0].addRecv(verdict, sizeof(verdict));
  xs[0].recvEnds = true;
  // The root answers once every PE has joined, within its own timeout.
  r = moveBytes(xs, admission, &failed, &sysErr);
  if (r == IoResult::TimedOut)
    return MORI_FAIL(Status::Timeout, log::kBootstrap,
                     "PE %d reached the bootstrap root at %s but was not admitted within %.1f s: rank 0 still waits "
                     "for other PEs (its log names them)",
                     p.rank, where.c_str(), admission.seconds());
  if (r == IoResult::Failed) {
    if (xs[0].eof || xs[0].err == ECONNRESET || xs[0].err == EPIPE) {
      *dropped = strprintf(
          "PE %d: the bootstrap root at %s closed the connection during the rendezvous (the root "
          "exited or crashed?)",
          p.rank, where.c_str());
      return Status::Remote;
    }
    return MORI_FAIL(Status::Remote, log::kBootstrap,
                     "PE %d: the bootstrap root at %s %s during the rendezvous (the root exited or crashed?)", p.rank,
                     where.c_str(), xs[0].eof ? "closed the connection" : strerror(xs[0].err ? xs[0].err : sysErr));
  }
  wire::Verdict v;
  if (!wire::decode(verdict, &v))
    return MORI_FAIL(Status::Remote, log::kBootstrap,
                     "PE %d: %s answered the bootstrap hello with something that is not a mori-shmem verdict (another "
                     "service on that port?)",
                     p.rank, where.c_str());
  if (v.status != 0) {
    std::string text;
    if (!wire::readVerdictText(fd.get(), v.textLen, admission, &text)) text = "(reason lost)";
    if (!isErrorCode(v.status))
      text = strprintf("status %d, which is not a mori-shmem error code (another program or version on that port?)%s%s",
                       v.status, text.empty() ? "" : ": ", text.c_str());
    return MORI_FAIL(remoteError(v.status), log::kBootstrap, "PE %d was not admitted by the bootstrap root at %s: %s",
                     p.rank, where.c_str(), text.c_str());
  }
  return Status::Success;
}

}  // namespace

Status joinRoot(const SocketParams& p, const std::vector<SockAddr>& rootAddrs, PeerLink* root) {
  Deadline dl(p.timeoutS);
  const Deadline admission = dl.extendedBy(rootReportGrace(p.timeoutS));
  int lastErr = 0;
  SockAddr target = rootAddrs.front();
  bool wasDropped = false;
  for (int attempt = 0;; ++attempt) {
    Fd fd;
    int backoffMs = 10;
    while (!fd.valid()) {
      for (const SockAddr& a : rootAddrs) {
        int e = connectOnce(a, dl, 2000, &fd);
        if (e == 0) {
          target = a;
          break;
        }
        lastErr = e;
        target = a;
        if (!retryable(e))
          return MORI_FAIL(Status::System, log::kBootstrap, "PE %d cannot connect to the bootstrap root at %s: %s",
                           p.rank, a.str().c_str(), strerror(e));
        // A root that dropped us and now refuses connections has gone away.
        if (wasDropped && e == ECONNREFUSED)
          return MORI_FAIL(Status::Remote, log::kBootstrap,
                           "PE %d: the bootstrap root at %s closed the connection during the rendezvous and now "
                           "refuses connections (the root exited or crashed?)",
                           p.rank, a.str().c_str());
      }
      if (fd.valid()) break;
      if (dl.expired())
        return MORI_FAIL(Status::Timeout, log::kBootstrap,
                         "PE %d could not reach the bootstrap root at %s within %.1f s: %s", p.rank,
                         target.str().c_str(), dl.seconds(), strerror(lastErr));
      // The root may not be listening yet: back off, a little longer each time.
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(backoffMs, dl.pollMs(backoffMs))));
      backoffMs = std::min(backoffMs * 2, 200);
    }
    const std::string where = target.str();
    std::string dropped;
    Status st = joinOnce(p, fd, where, admission, &dropped);
    if (ok(st)) {
      root->fd = std::move(fd);
      root->pe = 0;
      root->addr = where;
      return Status::Success;
    }
    // Dropped before the verdict: the root evicted this connection under a flood of strangers,
    // or it is gone. Reconnect while the deadline lasts; the connect says which.
    if (dropped.empty()) return st;
    if (dl.expired()) return MORI_FAIL(st, log::kBootstrap, "%s", dropped.c_str());
    wasDropped = true;
    MORI_LOG_WARN(log::kBootstrap,
                  "PE %d: the bootstrap root at %s dropped the connection before admitting it; "
                  "reconnecting (attempt %d)",
                  p.rank, where.c_str(), attempt + 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace mori::bootstrap
