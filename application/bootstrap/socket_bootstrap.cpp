#include "application/bootstrap/socket_bootstrap.hpp"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include <chrono>
#include <new>

#include "application/bootstrap/format.hpp"
#include "application/bootstrap/process_exit.hpp"
#include "application/bootstrap/remote_status.hpp"

namespace mori::bootstrap {

namespace {
// Global exit: how long the caller waits for another thread's collective, the root's
// acknowledgement, and the PEs' closing after the notice (peers with a monitor take 50 ms).
constexpr auto kExitLockWait = std::chrono::seconds(2);
constexpr double kExitSendS = 1.0, kExitWaitS = 5.0;

[[noreturn]] void exitOnNotice(int rank, const wire::ExitNote& e) {
  MORI_LOG_WARN(log::kBootstrap, "PE %d: exiting with status %d (%d to the launcher): PE %d called for a global exit",
                rank, e.status, e.status & 0xff, e.pe);
  exitProcess(e.status);
}
}  // namespace

Status SocketBootstrap::createRoot(const SocketParams& p, Fd listener, const SockAddr& listenAddr,
                                   std::unique_ptr<Bootstrap>* out) {
  std::unique_ptr<SocketBootstrap> b(new SocketBootstrap(p));
  MORI_TRY(acceptPeers(p, std::move(listener), listenAddr, &b->links_));
  MORI_TRY(b->finishCreate());
  *out = std::move(b);
  return Status::Success;
}

Status SocketBootstrap::createPeer(const SocketParams& p, const std::vector<SockAddr>& rootAddrs,
                                   std::unique_ptr<Bootstrap>* out) {
  std::unique_ptr<SocketBootstrap> b(new SocketBootstrap(p));
  b->links_.resize(1);
  MORI_TRY(joinRoot(p, rootAddrs, &b->links_[0]));
  MORI_TRY(b->finishCreate());
  *out = std::move(b);
  return Status::Success;
}

Status SocketBootstrap::finishCreate() {
  MORI_TRY(discoverLocalRanks());
  MORI_LOG_INFO(log::kBootstrap, "PE %d of %d: %s bootstrap ready (local rank %d of %d)", p_.rank, p_.nranks,
                p_.kind.c_str(), localRank(), localSize());
  return Status::Success;
}

SocketBootstrap::Plan SocketBootstrap::newPlan() const {
  Plan plan;
  if (p_.rank == 0) {
    plan.fromPe.resize(p_.nranks);
    plan.toPe.resize(p_.nranks);
  }
  return plan;
}

namespace {
void add(std::vector<iovec>* v, const void* p, size_t n) {
  if (n) v->push_back(iovec{const_cast<void*>(p), n});
}
}  // namespace

Status SocketBootstrap::allGather(const void* in, void* out, size_t bytes) {
  char* o = static_cast<char*>(out);
  const int n = p_.nranks;
  Plan plan = newPlan();
  if (p_.rank == 0) {
    if (in != o) memmove(o, in, bytes);
    for (int pe = 1; pe < n; ++pe) {
      add(&plan.fromPe[pe], o + pe * bytes, bytes);
      add(&plan.toPe[pe], o, n * bytes);
    }
  } else {
    // `in` may be out + rank*bytes: it is sent completely before anything is received.
    add(&plan.toRoot, in, bytes);
    add(&plan.fromRoot, o, n * bytes);
  }
  return run(wire::Op::AllGather, bytes, 0, plan);
}

Status SocketBootstrap::allToAll(const void* in, void* out, size_t bytes) {
  const int n = p_.nranks;
  char* o = static_cast<char*>(out);
  Plan plan = newPlan();
  if (p_.rank != 0) {
    add(&plan.toRoot, in, n * bytes);
    add(&plan.fromRoot, o, n * bytes);
    return run(wire::Op::AllToAll, bytes, 0, plan);
  }
  // Root: row s of `all` is what PE s sends (n blocks); PE d gets column d.
  std::vector<char> all;
  try {
    all.resize(static_cast<size_t>(n) * n * bytes);
  } catch (const std::bad_alloc&) {
    return MORI_FAIL(Status::OutOfMemory, log::kBootstrap,
                     "bootstrap root (PE 0): allToAll of %zu B per pair over %d PEs needs %zu B of staging memory",
                     bytes, n, static_cast<size_t>(n) * n * bytes);
  }
  const size_t row = n * bytes;
  if (bytes) memcpy(all.data(), in, row);
  for (int pe = 1; pe < n; ++pe) {
    add(&plan.fromPe[pe], all.data() + pe * row, row);
    for (int s = 0; s < n; ++s) add(&plan.toPe[pe], all.data() + s * row + pe * bytes, bytes);
  }
  MORI_TRY(run(wire::Op::AllToAll, bytes, 0, plan));
  for (int s = 0; s < n; ++s)
    if (bytes) memcpy(o + s * bytes, all.data() + s * row, bytes);
  return Status::Success;
}

Status SocketBootstrap::barrier() {
  Plan plan = newPlan();
  return run(wire::Op::Barrier, 0, 0, plan);
}

Status SocketBootstrap::broadcast(void* buf, size_t bytes, int root) {
  if (root < 0 || root >= p_.nranks)
    return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "PE %d: broadcast root %d is not a PE (0..%d)", p_.rank,
                     root, p_.nranks - 1);
  Plan plan = newPlan();
  if (p_.rank == 0) {
    if (root != 0) add(&plan.fromPe[root], buf, bytes);
    for (int pe = 1; pe < p_.nranks; ++pe)
      if (pe != root) add(&plan.toPe[pe], buf, bytes);
  } else if (p_.rank == root) {
    add(&plan.toRoot, buf, bytes);
  } else {
    add(&plan.fromRoot, buf, bytes);
  }
  return run(wire::Op::Broadcast, bytes, root, plan);
}

Status SocketBootstrap::run(wire::Op op, size_t bytes, int root, Plan& plan) {
  std::lock_guard<std::timed_mutex> lock(io_);
  wire::Call call;
  call.op = op;
  call.seq = ++seq_;
  call.bytes = bytes;
  call.root = root;
  if (!ok(failed_))
    return MORI_FAIL(failed_, log::kBootstrap,
                     "PE %d: %s: the bootstrap failed earlier and cannot be used (finalize and initialize again): %s",
                     p_.rank, call.describe().c_str(), failure_.c_str());
  if (p_.nranks == 1) return Status::Success;
  return p_.rank == 0 ? runRoot(call, plan) : runPeer(call, plan);
}

std::string SocketBootstrap::lostMessage(int pe, const Transfer& t, const wire::Call& call) const {
  const std::string& addr = links_[pe].addr;
  if (t.eof || t.err == ECONNRESET || t.err == EPIPE)
    return strprintf("PE %d (%s) closed its bootstrap connection during %s (the process exited or crashed?)", pe,
                     addr.c_str(), call.describe().c_str());
  return strprintf("PE %d (%s): connection failed during %s: %s", pe, addr.c_str(), call.describe().c_str(),
                   strerror(t.err));
}

Status SocketBootstrap::rootFail(Status st, int skipPe, const std::string& msg) {
  std::vector<int> fds;
  for (int pe = 1; pe < p_.nranks; ++pe)
    if (pe != skipPe && links_[pe].fd.valid()) fds.push_back(links_[pe].fd.get());
  wire::sendVerdicts(fds, st, skipPe, "bootstrap root (PE 0) reports: " + msg, Deadline(1.0));
  if (skipPe > 0) links_[skipPe].fd.reset();
  if (st == Status::Remote && skipPe > 0) deadPe_.store(skipPe);  // its connection dropped
  failed_ = st;
  failure_ = msg;
  return MORI_FAIL(st, log::kBootstrap, "bootstrap root (PE 0): %s", msg.c_str());
}

Status SocketBootstrap::peerFail(Status st, const std::string& msg) {
  failed_ = st;
  failure_ = msg;
  return MORI_FAIL(st, log::kBootstrap, "PE %d: %s", p_.rank, msg.c_str());
}

Status SocketBootstrap::rootStage(std::vector<Transfer>& xs, const std::vector<int>& pes, const wire::Call& call,
                                  const char* lateWhat, bool headers) {
  Deadline dl(p_.timeoutS);
  int failed = -1, sysErr = 0;
  auto isExitRequest = [](const Transfer& t) {
    return wire::frameMagic(static_cast<const uint8_t*>(t.recv[0].iov_base)) == wire::kExitRequestMagic;
  };
  IoResult r = moveBytes(xs, dl, &failed, &sysErr, headers ? isExitRequest : std::function<bool(const Transfer&)>());
  if (r == IoResult::Ended) rootExitFrom(pes[failed], static_cast<const uint8_t*>(xs[failed].recv[0].iov_base));
  if (r == IoResult::Done) return Status::Success;
  const std::string what = call.describe();
  if (r == IoResult::TimedOut) {
    std::vector<int> late;
    for (size_t i = 0; i < xs.size(); ++i)
      if (!xs[i].done) late.push_back(pes[i]);
    return rootFail(Status::Timeout, -1,
                    strprintf("%s: %s %s within %.1f s", what.c_str(), peList(late).c_str(), lateWhat, dl.seconds()));
  }
  if (failed < 0)
    return rootFail(Status::System, -1, strprintf("%s: poll() failed: %s", what.c_str(), strerror(sysErr)));
  return rootFail(Status::Remote, pes[failed], lostMessage(pes[failed], xs[failed], call));
}

Status SocketBootstrap::runRoot(const wire::Call& call, Plan& plan) {
  const int n = p_.nranks;
  std::vector<int> pes;
  std::vector<Transfer> xs;
  auto transferTo = [&](int pe) -> Transfer& {
    pes.push_back(pe);
    xs.emplace_back();
    xs.back().fd = links_[pe].fd.get();
    return xs.back();
  };
  // 1. Every PE's call header: who arrived, and did all call the same collective?
  std::vector<uint8_t> heads(n * wire::kCallBytes);
  for (int pe = 1; pe < n; ++pe) transferTo(pe).addRecv(&heads[pe * wire::kCallBytes], wire::kCallBytes);
  MORI_TRY(rootStage(xs, pes, call, "did not arrive", true));
  std::vector<int> odd;
  std::string oddCall;
  bool oddAlike = true;
  for (int pe = 1; pe < n; ++pe) {
    if (wire::frameMagic(&heads[pe * wire::kCallBytes]) == wire::kExitRequestMagic)
      rootExitFrom(pe, &heads[pe * wire::kCallBytes]);
    wire::Call theirs;
    if (!wire::decode(&heads[pe * wire::kCallBytes], &theirs))
      return rootFail(Status::Internal, pe,
                      strprintf("%s: PE %d (%s) sent something that is not a collective header (stream out of step)",
                                call.describe().c_str(), pe, links_[pe].addr.c_str()));
    if (!(theirs == call)) {
      if (odd.empty()) oddCall = theirs.describe();
      oddAlike &= theirs.describe() == oddCall;
      odd.push_back(pe);
    }
  }
  if (!odd.empty())
    return rootFail(Status::InvalidUsage, -1,
                    strprintf("collective mismatch: PE 0 called %s but %s called %s%s", call.describe().c_str(),
                              peList(odd).c_str(), oddCall.c_str(), oddAlike ? "" : " (the first of them)"));
  // 2. Payloads in.
  pes.clear();
  xs.clear();
  for (int pe = 1; pe < n; ++pe)
    if (!plan.fromPe[pe].empty()) transferTo(pe).recv = plan.fromPe[pe];
  MORI_TRY(rootStage(xs, pes, call, "did not deliver the payload"));
  // 3. Verdict and payload out.
  uint8_t okFrame[wire::kVerdictBytes];
  wire::encode(wire::Verdict{}, okFrame);
  pes.clear();
  xs.clear();
  for (int pe = 1; pe < n; ++pe) {
    Transfer& t = transferTo(pe);
    t.addSend(okFrame, sizeof(okFrame));
    t.send.insert(t.send.end(), plan.toPe[pe].begin(), plan.toPe[pe].end());
  }
  MORI_TRY(rootStage(xs, pes, call, "did not take the result"));
  return Status::Success;
}

Status SocketBootstrap::runPeer(const wire::Call& call, Plan& plan) {
  const std::string what = call.describe();
  const PeerLink& root = links_[0];
  uint8_t head[wire::kCallBytes], verdict[wire::kVerdictBytes];
  wire::encode(call, head);
  // Send header and payload; the root's verdict ends the wait, even one that comes early (then
  // the root has given up on this collective and says why).
  Deadline dl(p_.timeoutS);
  Deadline verdictDl = dl.extendedBy(rootReportGrace(p_.timeoutS));
  std::vector<Transfer> xs(1);
  xs[0].fd = root.fd.get();
  xs[0].addSend(head, sizeof(head));
  xs[0].send.insert(xs[0].send.end(), plan.toRoot.begin(), plan.toRoot.end());
  xs[0].addRecv(verdict, sizeof(verdict));
  xs[0].recvEnds = true;
  int failed = -1, sysErr = 0;
  IoResult r = moveBytes(xs, verdictDl, &failed, &sysErr);
  if (r == IoResult::TimedOut)
    return peerFail(Status::Timeout,
                    strprintf("%s: no answer from the bootstrap root (PE 0 at %s) within %.1f s; the root's log names "
                              "the PE it waits for",
                              what.c_str(), root.addr.c_str(), dl.seconds()));
  if (r == IoResult::Failed && failed >= 0 && (xs[0].eof || xs[0].err == ECONNRESET || xs[0].err == EPIPE))
    deadPe_.store(0);  // the root's connection dropped
  if (r == IoResult::Failed)
    return peerFail(Status::Remote,
                    failed < 0 ? strprintf("%s: poll() failed: %s", what.c_str(), strerror(sysErr))
                    : xs[0].eof || xs[0].err == ECONNRESET || xs[0].err == EPIPE
                        ? strprintf("%s: the bootstrap root (PE 0 at %s) closed the connection (the root exited or "
                                    "crashed?)",
                                    what.c_str(), root.addr.c_str())
                        : strprintf("%s: connection to the bootstrap root (PE 0 at %s) failed: %s", what.c_str(),
                                    root.addr.c_str(), strerror(xs[0].err)));
  wire::ExitNote exitNote;
  if (wire::decodeExitNotice(verdict, &exitNote)) exitOnNotice(p_.rank, exitNote);
  wire::Verdict v;
  if (!wire::decode(verdict, &v))
    return peerFail(Status::Internal, strprintf("%s: the bootstrap root (PE 0 at %s) sent something that is not a "
                                                "verdict (stream out of step)",
                                                what.c_str(), root.addr.c_str()));
  if (v.status != 0) {
    std::string text;
    if (!wire::readVerdictText(root.fd.get(), v.textLen, Deadline(1.0), &text)) text = "(reason lost)";
    if (!isErrorCode(v.status))
      return peerFail(Status::Remote, strprintf("%s: the bootstrap root (PE 0 at %s) answered with status %d, which is "
                                                "not a mori-shmem error code (%s)",
                                                what.c_str(), root.addr.c_str(), v.status, text.c_str()));
    // The root reports a PE whose connection dropped as Remote naming it.
    if (v.status == static_cast<int32_t>(Status::Remote) && v.pe > 0 && v.pe < p_.nranks) deadPe_.store(v.pe);
    return peerFail(static_cast<Status>(v.status), strprintf("%s failed: %s", what.c_str(), text.c_str()));
  }
  if (!xs[0].sendComplete())
    return peerFail(Status::Internal,
                    strprintf("%s: the bootstrap root answered before it had this PE's payload", what.c_str()));
  if (plan.fromRoot.empty()) return Status::Success;
  xs.assign(1, Transfer());
  xs[0].fd = root.fd.get();
  xs[0].recv = plan.fromRoot;
  Deadline data(p_.timeoutS);
  r = moveBytes(xs, data, &failed, &sysErr);
  if (r == IoResult::TimedOut)
    return peerFail(Status::Timeout, strprintf("%s: the result from the bootstrap root (PE 0 at %s) did not arrive "
                                               "within %.1f s",
                                               what.c_str(), root.addr.c_str(), data.seconds()));
  if (r == IoResult::Failed)
    return peerFail(
        Status::Remote,
        strprintf("%s: the bootstrap root (PE 0 at %s) %s while sending the result", what.c_str(), root.addr.c_str(),
                  xs[0].eof ? "closed the connection" : strerror(xs[0].err ? xs[0].err : sysErr)));
  return Status::Success;
}

int SocketBootstrap::failedPe() {
  if (deadPe_.load() >= 0 || p_.nranks == 1) return deadPe_.load();
  std::unique_lock<std::timed_mutex> lock(io_, std::try_to_lock);
  if (!lock.owns_lock() || !ok(failed_)) return deadPe_.load();  // a collective runs: it sees failures itself
  return p_.rank == 0 ? rootProbe() : peerProbe();
}

int SocketBootstrap::rootProbe() {
  std::vector<pollfd> pfds;
  std::vector<int> pes;
  for (int pe = 1; pe < p_.nranks; ++pe)
    if (links_[pe].fd.valid()) {
      pfds.push_back(pollfd{links_[pe].fd.get(), POLLIN | POLLRDHUP, 0});
      pes.push_back(pe);
    }
  if (poll(pfds.data(), pfds.size(), 0) <= 0) return -1;
  for (size_t i = 0; i < pfds.size(); ++i) {
    const int pe = pes[i];
    // Data is normally a PE's next call header, sent before the root calls; or an exit request.
    uint8_t frame[wire::kCallBytes];
    if ((pfds[i].revents & POLLIN) && recv(pfds[i].fd, frame, 4, MSG_PEEK | MSG_DONTWAIT) == 4 &&
        wire::frameMagic(frame) == wire::kExitRequestMagic) {
      if (recvAll(pfds[i].fd, frame, sizeof(frame), Deadline(kExitSendS))) rootExitFrom(pe, frame);
    }
    if (!(pfds[i].revents & (POLLRDHUP | POLLHUP | POLLERR))) continue;
    std::string msg = strprintf(
        "PE %d (%s) closed its bootstrap connection outside a collective (the process exited "
        "or crashed?)",
        pe, links_[pe].addr.c_str());
    (void)rootFail(Status::Remote, pe, msg);  // tells the others, sets deadPe_
    return pe;
  }
  return -1;
}

int SocketBootstrap::peerProbe() {
  const PeerLink& root = links_[0];
  pollfd pfd{root.fd.get(), POLLIN | POLLRDHUP, 0};
  if (poll(&pfd, 1, 0) <= 0) return -1;
  if (pfd.revents & POLLIN) {
    // Outside a collective the root sends nothing but a failure report or an exit notice.
    uint8_t head[wire::kVerdictBytes];
    wire::Verdict v;
    wire::ExitNote e;
    const bool got = recvAll(root.fd.get(), head, sizeof(head), Deadline(1.0));
    if (got && wire::decodeExitNotice(head, &e)) exitOnNotice(p_.rank, e);
    if (got && wire::decode(head, &v) && v.status != 0) {
      std::string text;
      if (!wire::readVerdictText(root.fd.get(), v.textLen, Deadline(1.0), &text)) text = "(reason lost)";
      const int pe = v.pe > 0 && v.pe < p_.nranks ? v.pe : 0;
      deadPe_.store(pe);
      (void)peerFail(remoteError(v.status), text);
      return pe;
    }
  }
  if (pfd.revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)) {
    deadPe_.store(0);
    (void)peerFail(Status::Remote, strprintf("the bootstrap root (PE 0 at %s) closed the connection outside a "
                                             "collective (the root exited or crashed?)",
                                             root.addr.c_str()));
    return 0;
  }
  return -1;
}

void SocketBootstrap::globalExit(int status) {
  std::unique_lock<std::timed_mutex> lock(io_, std::defer_lock);
  if (!lock.try_lock_for(kExitLockWait)) {
    MORI_LOG_WARN(log::kBootstrap,
                  "PE %d: global exit: another thread has been in a bootstrap collective for %lld s; this PE exits "
                  "alone (the others see its connection drop)",
                  p_.rank, static_cast<long long>(kExitLockWait.count()));
    exitProcess(status);
  }
  const wire::ExitNote e{status, p_.rank};
  if (p_.rank == 0) rootExit(e);
  const PeerLink& root = links_[0];
  if (p_.nranks == 1 || !ok(failed_) || !root.fd.valid()) {
    if (p_.nranks > 1)
      MORI_LOG_WARN(log::kBootstrap, "PE %d: global exit: the bootstrap failed earlier (%s); this PE exits alone",
                    p_.rank, failure_.c_str());
    exitProcess(status);
  }
  uint8_t request[wire::kCallBytes];
  wire::encodeExitRequest(e, request);
  sendToEach({root.fd.get()}, {iovec{request, sizeof(request)}}, Deadline(kExitSendS));
  // The root's notice acknowledges the request; a failure report may come before it. A notice
  // for another PE's request (two at once) wins: every PE exits with the status the root chose.
  const Deadline dl(kExitWaitS);
  for (;;) {
    uint8_t frame[wire::kVerdictBytes];
    wire::Verdict v;
    wire::ExitNote notice;
    std::string text;
    if (!recvAll(root.fd.get(), frame, sizeof(frame), dl)) break;
    if (wire::decodeExitNotice(frame, &notice)) {
      if (notice.pe != p_.rank) exitOnNotice(p_.rank, notice);
      break;
    }
    if (!wire::decode(frame, &v) || !wire::readVerdictText(root.fd.get(), v.textLen, dl, &text)) break;
  }
  exitProcess(status);
}

void SocketBootstrap::rootExitFrom(int pe, const uint8_t* frame) {
  wire::ExitNote e;
  (void)wire::decodeExitRequest(frame, &e);
  e.pe = pe;  // the connection says who asked; the frame's own claim is not needed
  rootExit(e);
}

void SocketBootstrap::rootExit(const wire::ExitNote& e) {
  uint8_t notice[wire::kVerdictBytes];
  wire::encodeExitNotice(e, notice);
  std::vector<int> fds;
  for (int pe = 1; pe < p_.nranks; ++pe)
    if (links_[pe].fd.valid()) fds.push_back(links_[pe].fd.get());
  sendToEach(fds, {iovec{notice, sizeof(notice)}}, Deadline(kExitSendS));
  for (int fd : fds) shutdown(fd, SHUT_WR);
  drainUntilClosed(fds, Deadline(kExitWaitS));
  if (e.pe == 0) exitProcess(e.status);
  exitOnNotice(0, e);
}

}  // namespace mori::bootstrap
