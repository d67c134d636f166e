// Socket plumbing of the TCP bootstrap: owned descriptors, listening, one bounded connect
// attempt, and the one byte-moving engine every exchange goes through (many peers at once,
// both directions, non-blocking, bounded by a Deadline).
#pragma once

#include <stddef.h>
#include <sys/uio.h>

#include <functional>
#include <vector>

#include "application/bootstrap/deadline.hpp"
#include "application/bootstrap/socket_address.hpp"
#include "src/common/status.hpp"

namespace mori::bootstrap {

// Owns one file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Non-blocking listening socket bound to exactly `addr` (never the wildcard address), with
// SO_REUSEADDR so that a fixed port is free again while old connections linger in TIME_WAIT.
// `bound` receives the address with the port the kernel chose (addr's port 0: ephemeral).
// Failures name `what` (e.g. "the unique-ID root") and the address.
Status listenOn(const SockAddr& addr, const char* what, Fd* out, SockAddr* bound);

// One connect attempt, waiting at most maxWaitMs and never past `dl`. Returns 0 and a
// non-blocking, TCP_NODELAY socket in *out, or the errno that ended the attempt (ETIMEDOUT if
// the wait ran out).
int connectOnce(const SockAddr& addr, const Deadline& dl, int maxWaitMs, Fd* out);

// Makes an accepted or connected socket non-blocking with TCP_NODELAY; returns 0 or errno.
int prepareStreamSocket(int fd);

// What to move over one connection: `send` goes out, `recv` is filled, both in order.
struct Transfer {
  int fd = -1;
  std::vector<iovec> send;
  std::vector<iovec> recv;
  // Complete once `recv` is filled even if `send` is not (a non-root stops sending its payload
  // when the root's verdict arrives early: the root has given up on this collective).
  bool recvEnds = false;

  // Set by moveBytes().
  bool done = false;
  bool eof = false;  // the peer closed the connection before `recv` was filled
  int err = 0;       // errno of a failed send/recv

  void addSend(const void* p, size_t n);
  void addRecv(void* p, size_t n);
  bool sendComplete() const { return sendIdx_ == send.size(); }
  bool recvComplete() const { return recvIdx_ == recv.size(); }

  // internal: progress through the iovec lists
  size_t sendIdx_ = 0, sendOff_ = 0, recvIdx_ = 0, recvOff_ = 0;
};

enum class IoResult { Done, TimedOut, Failed, Ended };

// Moves every transfer's bytes concurrently until all are done, one fails (its index in
// *failed; -1 with *sysErr when poll() itself failed), or the deadline passes (then the
// transfers still pending have done == false). `endsWhen`, if given, is asked about each
// transfer as it completes: true ends the wait at once with Ended (its index in *failed).
IoResult moveBytes(std::vector<Transfer>& xs, const Deadline& dl, int* failed, int* sysErr,
                   const std::function<bool(const Transfer&)>& endsWhen = nullptr);

// Fills buf with exactly n bytes from fd within `dl`; false on timeout, error or end of stream.
bool recvAll(int fd, void* buf, size_t n, const Deadline& dl);

// Sends `bytes` to each socket, concurrently; best effort within `dl` (a socket that fails is
// dropped and the others go on).
void sendToEach(const std::vector<int>& fds, const std::vector<iovec>& bytes, const Deadline& dl);

// Reads and discards what arrives on each socket until every one has been closed by its peer
// (or failed), or `dl` passes. Nothing unread is left behind to turn this side's close into a
// reset, which could cost the peer what was sent to it last.
void drainUntilClosed(const std::vector<int>& fds, const Deadline& dl);

}  // namespace mori::bootstrap
