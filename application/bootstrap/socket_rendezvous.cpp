#include "application/bootstrap/socket_rendezvous.hpp"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "application/bootstrap/format.hpp"
#include "application/bootstrap/socket_wire.hpp"

namespace mori::bootstrap {
namespace {

// Connections that have not (yet) completed a hello; beyond this many the oldest is dropped so
// that a flood of strangers cannot exhaust the root's descriptors.
constexpr size_t kMaxPending = 4096;

struct Pending {
  Fd fd;
  std::string addr;
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

class RootRendezvous {
 public:
  RootRendezvous(const SocketParams& p, const SockAddr& listenAddr, std::vector<PeerLink>* links)
      : p_(p), where_(listenAddr.str()), links_(links) {}

  Status run(int listenFd);

 private:
  // Reads what `c` sent; true when the connection is finished with (admitted, refused, closed).
  bool readHello(Pending& c, Status* fatal);
  // Judges a complete hello: admits, refuses (and keeps waiting) or fails the rendezvous.
  Status evaluate(Pending& c);
  // Tells every admitted PE (and `offenderFd`, if any) why the rendezvous failed, then fails.
  Status fail(Status st, const std::string& msg, int offenderFd);
  void closePending(const char* why);

  const SocketParams& p_;
  std::string where_;
  std::vector<PeerLink>* links_;
  std::vector<Pending> pending_;
  int admitted_ = 0;
  int refused_ = 0;
  bool acceptFailed_ = false;
};

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
    MORI_LOG_WARN(log::kBootstrap,
                  "bootstrap root (PE 0) at %s: connection from %s sent %zu of %zu hello bytes before %s; closed "
                  "(not a mori-shmem PE of this job)",
                  where_.c_str(), c.addr.c_str(), c.got, wire::kHelloBytes, why);
  }
  pending_.clear();
}

Status RootRendezvous::evaluate(Pending& c) {
  wire::Hello h = wire::decodeHello(c.buf);
  if (h.magic != wire::kHelloMagic) {
    ++refused_;
    MORI_LOG_WARN(log::kBootstrap,
                  "bootstrap root (PE 0) at %s: refused a connection from %s: it is not a mori-shmem bootstrap hello "
                  "(missing secret)",
                  where_.c_str(), c.addr.c_str());
    refuse(c, "not a mori-shmem bootstrap hello");
    return Status::Success;
  }
  if (h.version != wire::kProtocolVersion) {
    ++refused_;
    MORI_LOG_WARN(log::kBootstrap,
                  "bootstrap root (PE 0) at %s: refused a connection from %s (claims PE %d): bootstrap protocol "
                  "version %u, this root speaks %u (mixed mori-shmem installations?)",
                  where_.c_str(), c.addr.c_str(), h.rank, h.version, wire::kProtocolVersion);
    refuse(c, strprintf("bootstrap protocol version %u, the root speaks %u", h.version, wire::kProtocolVersion));
    return Status::Success;
  }
  if (!secretsEqual(h.secret, p_.secret)) {
    ++refused_;
    MORI_LOG_WARN(log::kBootstrap,
                  "bootstrap root (PE 0) at %s: refused a connection from %s (claims PE %d of %d): wrong secret%s",
                  where_.c_str(), c.addr.c_str(), h.rank, h.nranks, p_.secretHint.c_str());
    refuse(c, "wrong secret: this PE does not belong to the job of this root" + p_.secretHint);
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
    ++refused_;
    MORI_LOG_WARN(log::kBootstrap,
                  "bootstrap root (PE 0) at %s: connection from %s %s after %zu of %zu hello bytes; ignored (missing "
                  "secret: not a PE of this job)",
                  where_.c_str(), c.addr.c_str(), n == 0 ? "closed" : strerror(errno), c.got, wire::kHelloBytes);
    return true;
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
      if (refused_) msg += strprintf("; %d stranger connection(s) refused, see the warnings above", refused_);
      return fail(Status::Timeout, msg + ")", -1);
    }
    pfds.assign(1, pollfd{listenFd, POLLIN, 0});
    for (const auto& c : pending_) pfds.push_back(pollfd{c.fd.get(), POLLIN, 0});
    int n = poll(pfds.data(), pfds.size(), dl.pollMs());
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
    if (pfds[0].revents) {
      for (;;) {
        SockAddr peer;
        peer.len = sizeof(peer.storage);
        int fd = accept4(listenFd, peer.get(), &peer.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
          if (errno == EINTR || errno == ECONNABORTED) continue;
          if (errno != EAGAIN && errno != EWOULDBLOCK) {
            // Out of descriptors, say: the listener stays readable, so pause instead of spinning,
            // and say so once.
            if (!acceptFailed_)
              MORI_LOG_WARN(log::kBootstrap, "bootstrap root (PE 0) at %s: accept() failed: %s; retrying",
                            where_.c_str(), strerror(errno));
            acceptFailed_ = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          break;
        }
        Pending c;
        c.fd.reset(fd);
        c.addr = peer.str();
        if (int e = prepareStreamSocket(fd)) {
          MORI_LOG_WARN(log::kBootstrap, "bootstrap root (PE 0): cannot configure the connection from %s: %s",
                        c.addr.c_str(), strerror(e));
          continue;
        }
        if (pending_.size() >= kMaxPending) {
          MORI_LOG_WARN(log::kBootstrap,
                        "bootstrap root (PE 0) at %s: %zu connections without a hello; dropping the oldest, from %s",
                        where_.c_str(), pending_.size(), pending_.front().addr.c_str());
          pending_.erase(pending_.begin());
        }
        pending_.push_back(std::move(c));
      }
    }
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
  MORI_LOG_INFO(log::kBootstrap, "bootstrap root (PE 0) at %s: all %d PEs joined in %.3f s%s", where_.c_str(),
                p_.nranks, dl.elapsed(),
                refused_ ? strprintf(" (%d stranger connection(s) refused)", refused_).c_str() : "");
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

Status joinRoot(const SocketParams& p, const std::vector<SockAddr>& rootAddrs, PeerLink* root) {
  Deadline dl(p.timeoutS);
  Fd fd;
  int lastErr = 0;
  SockAddr target = rootAddrs.front();
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
    }
    if (fd.valid()) break;
    if (dl.expired())
      return MORI_FAIL(Status::Timeout, log::kBootstrap,
                       "PE %d could not reach the bootstrap root at %s within %.1f s: %s", p.rank, target.str().c_str(),
                       dl.seconds(), strerror(lastErr));
    // The root may not be listening yet: back off, a little longer each time.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(backoffMs, dl.pollMs(backoffMs))));
    backoffMs = std::min(backoffMs * 2, 200);
  }
  const std::string where = target.str();
  wire::Hello h;
  h.rank = p.rank;
  h.nranks = p.nranks;
  h.secret = p.secret;
  h.pid = static_cast<uint32_t>(getpid());
  uint8_t hello[wire::kHelloBytes], verdict[wire::kVerdictBytes];
  wire::encode(h, hello);
  std::vector<Transfer> xs(1);
  xs[0].fd = fd.get();
  xs[0].addSend(hello, sizeof(hello));
  xs[0].addRecv(verdict, sizeof(verdict));
  xs[0].recvEnds = true;
  // The root answers once every PE has joined, within its own timeout.
  Deadline admission = dl.extendedBy(rootReportGrace(p.timeoutS));
  int failed = -1, sysErr = 0;
  IoResult r = moveBytes(xs, admission, &failed, &sysErr);
  if (r == IoResult::TimedOut)
    return MORI_FAIL(Status::Timeout, log::kBootstrap,
                     "PE %d reached the bootstrap root at %s but was not admitted within %.1f s: rank 0 has not "
                     "started its rendezvous, or still waits for other PEs (its log names them)",
                     p.rank, where.c_str(), dl.seconds());
  if (r == IoResult::Failed)
    return MORI_FAIL(Status::Remote, log::kBootstrap,
                     "PE %d: the bootstrap root at %s %s during the rendezvous (the root exited or crashed?)", p.rank,
                     where.c_str(), xs[0].eof ? "closed the connection" : strerror(xs[0].err ? xs[0].err : sysErr));
  wire::Verdict v;
  if (!wire::decode(verdict, &v))
    return MORI_FAIL(Status::Remote, log::kBootstrap,
                     "PE %d: %s answered the bootstrap hello with something that is not a mori-shmem verdict (another "
                     "service on that port?)",
                     p.rank, where.c_str());
  if (v.status != 0) {
    std::string text;
    if (!wire::readVerdictText(fd.get(), v.textLen, admission, &text)) text = "(reason lost)";
    return MORI_FAIL(static_cast<Status>(v.status), log::kBootstrap,
                     "PE %d was not admitted by the bootstrap root at %s: %s", p.rank, where.c_str(), text.c_str());
  }
  root->fd = std::move(fd);
  root->pe = 0;
  root->addr = where;
  return Status::Success;
}

}  // namespace mori::bootstrap
