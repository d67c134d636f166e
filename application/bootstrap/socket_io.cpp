#include "application/bootstrap/socket_io.hpp"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace mori::bootstrap {

void Fd::reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

int prepareStreamSocket(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return errno;
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) return errno;
  return 0;
}

Status listenOn(const SockAddr& addr, const char* what, Fd* out, SockAddr* bound) {
  Fd fd(socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid())
    return MORI_FAIL(Status::System, log::kBootstrap, "%s: socket() for %s failed: %s", what, addr.str().c_str(),
                     strerror(errno));
  int one = 1;
  if (setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
    return MORI_FAIL(Status::System, log::kBootstrap, "%s: setsockopt(SO_REUSEADDR) failed: %s", what, strerror(errno));
  if (bind(fd.get(), addr.get(), addr.len) < 0) {
    int e = errno;
    const char* hint = e == EADDRINUSE      ? " (the port is taken: another job or a previous run still holds it)"
                       : e == EADDRNOTAVAIL ? " (the address is not one of this host's)"
                                            : "";
    return MORI_FAIL(e == EADDRINUSE || e == EADDRNOTAVAIL ? Status::InvalidUsage : Status::System, log::kBootstrap,
                     "%s cannot listen on %s: bind: %s%s", what, addr.str().c_str(), strerror(e), hint);
  }
  if (listen(fd.get(), SOMAXCONN) < 0)
    return MORI_FAIL(Status::System, log::kBootstrap, "%s: listen on %s failed: %s", what, addr.str().c_str(),
                     strerror(errno));
  SockAddr b;
  b.len = sizeof(b.storage);
  if (getsockname(fd.get(), b.get(), &b.len) < 0)
    return MORI_FAIL(Status::System, log::kBootstrap, "%s: getsockname failed: %s", what, strerror(errno));
  *out = std::move(fd);
  if (bound) *bound = b;
  return Status::Success;
}

int connectOnce(const SockAddr& addr, const Deadline& dl, int maxWaitMs, Fd* out) {
  Fd fd(socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return errno;
  if (connect(fd.get(), addr.get(), addr.len) < 0) {
    if (errno != EINPROGRESS) return errno;
    pollfd p{fd.get(), POLLOUT, 0};
    for (;;) {
      int ms = std::min(dl.pollMs(maxWaitMs), maxWaitMs);
      int n = poll(&p, 1, ms);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno;
      if (n == 0) return ETIMEDOUT;
      break;
    }
    int soErr = 0;
    socklen_t len = sizeof(soErr);
    if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &soErr, &len) < 0) return errno;
    if (soErr != 0) return soErr;
  }
  // TCP simultaneous open lets a socket connect to itself when the root's port is not listening
  // yet and the kernel happens to pick that same port as our ephemeral one: it looks connected,
  // and our hello would come back to us. Treat it as refused.
  SockAddr local, peer;
  local.len = peer.len = sizeof(local.storage);
  if (getsockname(fd.get(), local.get(), &local.len) == 0 && getpeername(fd.get(), peer.get(), &peer.len) == 0 &&
      local.len == peer.len && memcmp(&local.storage, &peer.storage, local.len) == 0)
    return ECONNREFUSED;
  if (int e = prepareStreamSocket(fd.get())) return e;
  *out = std::move(fd);
  return 0;
}

void Transfer::addSend(const void* p, size_t n) {
  if (n) send.push_back(iovec{const_cast<void*>(p), n});
}

void Transfer::addRecv(void* p, size_t n) {
  if (n) recv.push_back(iovec{p, n});
}

namespace {

constexpr int kIovPerCall = 64;

// Gathers up to kIovPerCall iovecs from position (idx, off).
int window(const std::vector<iovec>& list, size_t idx, size_t off, iovec* v) {
  int cnt = 0;
  for (size_t i = idx; i < list.size() && cnt < kIovPerCall; ++i, ++cnt) {
    size_t skip = i == idx ? off : 0;
    v[cnt].iov_base = static_cast<char*>(list[i].iov_base) + skip;
    v[cnt].iov_len = list[i].iov_len - skip;
  }
  return cnt;
}

void advance(const std::vector<iovec>& list, size_t* idx, size_t* off, size_t n) {
  while (n > 0 && *idx < list.size()) {
    size_t left = list[*idx].iov_len - *off;
    if (n < left) {
      *off += n;
      return;
    }
    n -= left;
    ++*idx;
    *off = 0;
  }
}

// false: the transfer failed (err or eof set).
bool pumpSend(Transfer& t) {
  while (!t.sendComplete()) {
    iovec v[kIovPerCall];
    msghdr m{};
    m.msg_iov = v;
    m.msg_iovlen = window(t.send, t.sendIdx_, t.sendOff_, v);
    ssize_t n = sendmsg(t.fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      t.err = errno;
      return false;
    }
    advance(t.send, &t.sendIdx_, &t.sendOff_, static_cast<size_t>(n));
  }
  return true;
}

bool pumpRecv(Transfer& t) {
  while (!t.recvComplete()) {
    iovec v[kIovPerCall];
    msghdr m{};
    m.msg_iov = v;
    m.msg_iovlen = window(t.recv, t.recvIdx_, t.recvOff_, v);
    ssize_t n = recvmsg(t.fd, &m, MSG_DONTWAIT);
    if (n == 0) {
      t.eof = true;
      return false;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      t.err = errno;
      return false;
    }
    advance(t.recv, &t.recvIdx_, &t.recvOff_, static_cast<size_t>(n));
  }
  return true;
}

bool finished(const Transfer& t) { return t.recvComplete() && (t.sendComplete() || t.recvEnds); }

}  // namespace

IoResult moveBytes(std::vector<Transfer>& xs, const Deadline& dl, int* failed, int* sysErr,
                   const std::function<bool(const Transfer&)>& endsWhen) {
  std::vector<pollfd> pfds;
  std::vector<size_t> owner;
  *failed = -1;
  *sysErr = 0;
  for (;;) {
    pfds.clear();
    owner.clear();
    for (size_t i = 0; i < xs.size(); ++i) {
      Transfer& t = xs[i];
      t.done = finished(t);
      if (t.done) continue;
      short ev = 0;
      if (!t.sendComplete()) ev |= POLLOUT;
      if (!t.recvComplete()) ev |= POLLIN;
      pfds.push_back(pollfd{t.fd, ev, 0});
      owner.push_back(i);
    }
    if (pfds.empty()) return IoResult::Done;
    if (dl.expired()) return IoResult::TimedOut;
    int n = poll(pfds.data(), pfds.size(), dl.pollMs());
    if (n < 0) {
      if (errno == EINTR) continue;
      *sysErr = errno;
      return IoResult::Failed;
    }
    for (size_t k = 0; k < pfds.size() && n > 0; ++k) {
      if (!pfds[k].revents) continue;
      Transfer& t = xs[owner[k]];
      bool good = true;
      // Errors and hang-ups are left for the syscalls to report with their errno.
      if (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)) good = pumpRecv(t);
      if (good && (pfds[k].revents & (POLLOUT | POLLHUP | POLLERR))) good = pumpSend(t);
      if (!good) {
        *failed = static_cast<int>(owner[k]);
        return IoResult::Failed;
      }
      if (endsWhen && finished(t) && endsWhen(t)) {
        *failed = static_cast<int>(owner[k]);
        return IoResult::Ended;
      }
    }
  }
}

bool recvAll(int fd, void* buf, size_t n, const Deadline& dl) {
  std::vector<Transfer> xs(1);
  xs[0].fd = fd;
  xs[0].addRecv(buf, n);
  int failed = -1, sysErr = 0;
  return moveBytes(xs, dl, &failed, &sysErr) == IoResult::Done;
}

void sendToEach(const std::vector<int>& fds, const std::vector<iovec>& bytes, const Deadline& dl) {
  std::vector<Transfer> xs;
  for (int fd : fds) {
    if (fd < 0) continue;
    xs.emplace_back();
    xs.back().fd = fd;
    for (const iovec& v : bytes) xs.back().addSend(v.iov_base, v.iov_len);
  }
  while (!xs.empty()) {
    int failed = -1, sysErr = 0;
    IoResult r = moveBytes(xs, dl, &failed, &sysErr);
    if (r != IoResult::Failed || failed < 0) return;
    xs.erase(xs.begin() + failed);
  }
}

void drainUntilClosed(const std::vector<int>& fds, const Deadline& dl) {
  std::vector<pollfd> open;
  for (int fd : fds)
    if (fd >= 0) open.push_back(pollfd{fd, POLLIN, 0});
  char scratch[4096];
  while (!open.empty() && !dl.expired()) {
    int n = poll(open.data(), open.size(), dl.pollMs());
    if (n < 0 && errno != EINTR) return;
    for (size_t i = 0; i < open.size() && n > 0;) {
      if (!open[i].revents) {
        ++i;
        continue;
      }
      ssize_t got = recv(open[i].fd, scratch, sizeof(scratch), MSG_DONTWAIT);
      const bool closed = got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
      open[i].revents = 0;
      if (closed)
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
      else
        ++i;
    }
  }
}

}  // namespace mori::bootstrap
