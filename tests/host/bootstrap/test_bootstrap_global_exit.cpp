// Global exit over the socket bootstrap (Bootstrap::globalExit, mori_shmem_global_exit): each PE
// is a process forked from this test over 127.0.0.1, and the verdict is every PE's exit status.
// Whoever asks (the root or not), whatever the others do (idle under a peer monitor, in a TCP
// collective, in a shared-memory collective, idle with no monitor until their next call), every
// PE exits with the requested status within seconds; none returns to its program and none hangs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "application/bootstrap/peer_monitor.hpp"
#include "application/bootstrap/shm_bootstrap.hpp"
#include "application/bootstrap/socket_bootstrap.hpp"
#include "application/bootstrap/socket_wire.hpp"
#include "tests/host/bootstrap/loopback.hpp"

using namespace mori;
using namespace mori::bootstrap;
using mori::test::loopback;
using Clock = std::chrono::steady_clock;

namespace {

// A PE's exit statuses that mean "not exited by the global exit".
constexpr int kReturned = 101;    // its program went on past the step that should have ended it
constexpr int kNotCreated = 102;  // its bootstrap could not be made
constexpr int kStepFailed = 103;  // a bootstrap step failed instead of exiting
constexpr double kBound = 10.0;   // seconds by which every PE must have exited

SocketParams params(int rank, int nranks) {
  SocketParams p;
  p.rank = rank;
  p.nranks = nranks;
  p.timeoutS = 20;
  for (int i = 0; i < 16; ++i) p.secret.bytes[i] = static_cast<uint8_t>(97 * i + 5);
  p.kind = "socket-test";
  p.jobIdentity = "global exit test";
  return p;
}

void sleepS(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// What PE `rank` does once the job is up; returning means it was not ended (kReturned).
using Program = std::function<void(int rank, Bootstrap& boot)>;

struct Outcome {
  std::vector<int> status;  // per PE: exit status, or -signal, or -1000 if it had to be killed
  double seconds = 0;       // until the last PE exited
};

// Forks `n` PEs that make a socket bootstrap (wrapped in the shared-memory one when `shm`), run
// `program`, and exit kReturned if it returns.
Outcome runJob(int n, bool shm, const Program& program) {
  Fd listener;
  SockAddr addr;
  EXPECT_EQ(listenOn(loopback(0), "test root", &listener, &addr), Status::Success);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      std::unique_ptr<Bootstrap> boot;
      Status st = r == 0 ? SocketBootstrap::createRoot(params(0, n), std::move(listener), addr, &boot)
                         : SocketBootstrap::createPeer(params(r, n), {addr}, &boot);
      if (ok(st) && shm) st = attachSharedMemory(20, &boot);
      if (!ok(st)) _exit(kNotCreated);
      program(r, *boot);
      _exit(kReturned);
    }
    pids.push_back(pid);
  }
  listener.reset();
  Outcome out;
  out.status.assign(n, -1000);
  size_t left = pids.size();
  for (int r = 0; r < n; ++r)
    if (pids[r] < 0) {
      ADD_FAILURE() << "fork() for PE " << r << " failed";
      out.status[r] = -2000;  // never started: nothing to wait for or kill
      --left;
    }
  const auto t0 = Clock::now();
  while (left && std::chrono::duration<double>(Clock::now() - t0).count() < kBound) {
    for (int r = 0; r < n; ++r) {
      if (out.status[r] != -1000) continue;
      int ws = 0;
      if (waitpid(pids[r], &ws, WNOHANG) != pids[r]) continue;
      out.status[r] = WIFEXITED(ws) ? WEXITSTATUS(ws) : -WTERMSIG(ws);
      --left;
    }
    sleepS(0.005);
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (int r = 0; r < n; ++r)
    if (out.status[r] == -1000) {
      kill(pids[r], SIGKILL);
      waitpid(pids[r], nullptr, 0);
    }
  return out;
}

std::string describe(const Outcome& o) {
  std::string s;
  for (size_t r = 0; r < o.status.size(); ++r)
    s += "PE " + std::to_string(r) + ": " + std::to_string(o.status[r]) + "  ";
  return s + "(" + std::to_string(o.seconds) +
         " s; 101 returned, 102 no bootstrap, 103 a step failed, -1000 killed, -2000 not started)";
}

void expectAllExited(const Outcome& o, int status) {
  for (size_t r = 0; r < o.status.size(); ++r) EXPECT_EQ(o.status[r], status) << describe(o);
}

// Keeps PE `rank` busy outside the bootstrap with its peer monitor watching, as an initialised
// runtime is between calls (the callback is the runtime's failure path: not expected here).
void idleUnderMonitor(Bootstrap& boot, double seconds) {
  PeerMonitor m(boot, [](int) { _exit(kStepFailed); });
  m.start();
  sleepS(seconds);
}

}  // namespace

// A non-root PE asks while the others are between calls: the root reads the request in its
// monitor's probe and tells the rest, whose monitors read the notice.
TEST(BootstrapGlobalExit, PeAsksWhileOthersIdleUnderTheirMonitors) {
  const Outcome o = runJob(4, false, [](int rank, Bootstrap& boot) {
    if (rank == 2) {
      sleepS(0.2);
      boot.globalExit(7);
    }
    idleUnderMonitor(boot, 30);
  });
  expectAllExited(o, 7);
  EXPECT_LT(o.seconds, 3.0) << describe(o);
}

// The root asks; status 0 is a status like any other.
TEST(BootstrapGlobalExit, RootAsksWithStatusZero) {
  const Outcome o = runJob(3, false, [](int rank, Bootstrap& boot) {
    if (rank == 0) {
      sleepS(0.2);
      boot.globalExit(0);
    }
    idleUnderMonitor(boot, 30);
  });
  expectAllExited(o, 0);
  EXPECT_LT(o.seconds, 3.0) << describe(o);
}

// The others wait in a TCP barrier for the PE that asks: the root finds the request where that
// PE's call header would be, and the notice reaches the others where their verdict would. Only
// the low 8 bits of the status reach the launcher (258 -> 2).
TEST(BootstrapGlobalExit, PeAsksWhileOthersWaitInACollective) {
  const Outcome o = runJob(3, false, [](int rank, Bootstrap& boot) {
    if (rank == 1) {
      sleepS(0.3);
      boot.globalExit(258);
    }
    if (!ok(boot.barrier())) _exit(kStepFailed);
  });
  expectAllExited(o, 2);
  EXPECT_LT(o.seconds, 3.0) << describe(o);
}

// Same through the same-host shared-memory bootstrap: its waits poll the wrapped bootstrap,
// which reads the request (root) and the notice (the others).
TEST(BootstrapGlobalExit, ThroughTheSharedMemoryBootstrap) {
  const Outcome o = runJob(4, true, [](int rank, Bootstrap& boot) {
    if (!ok(boot.barrier())) _exit(kStepFailed);  // a first round through the segment
    if (rank == 3) {
      sleepS(0.3);
      boot.globalExit(5);
    }
    if (!ok(boot.barrier())) _exit(kStepFailed);
  });
  expectAllExited(o, 5);
  EXPECT_LT(o.seconds, 3.0) << describe(o);
}

// A PE with no monitor, busy when the notice comes, reads it at its next bootstrap call (the root
// still waiting for it to close), and exits there.
TEST(BootstrapGlobalExit, BusyPeWithoutMonitorExitsAtItsNextCall) {
  const Outcome o = runJob(3, false, [](int rank, Bootstrap& boot) {
    if (rank == 1) {
      sleepS(0.2);
      boot.globalExit(11);
    }
    if (rank == 2) {
      sleepS(1.2);  // the notice has been waiting for a second
      if (!ok(boot.barrier())) _exit(kStepFailed);
      _exit(kReturned);
    }
    idleUnderMonitor(boot, 30);
  });
  expectAllExited(o, 11);
  EXPECT_LT(o.seconds, 4.0) << describe(o);
}

// Two PEs ask at once: the root takes the first request it reads, and every PE (the other asker
// included) exits with that one's status, within the time of one exit.
TEST(BootstrapGlobalExit, TwoPesAskAtOnce) {
  const Outcome o = runJob(4, false, [](int rank, Bootstrap& boot) {
    if (rank == 1 || rank == 3) {
      sleepS(0.2);
      boot.globalExit(rank == 1 ? 21 : 23);
    }
    idleUnderMonitor(boot, 30);
  });
  EXPECT_TRUE(o.status[0] == 21 || o.status[0] == 23) << describe(o);
  expectAllExited(o, o.status[0]);
  EXPECT_LT(o.seconds, 3.0) << describe(o);
}

// A PE whose other thread is stuck in a collective (here a barrier nobody else joins) cannot send
// the request without breaking that collective's frames: after 2 s it exits alone, and the others
// see its connection drop (their monitors' failure path: an error, not a hang).
TEST(BootstrapGlobalExit, PeWhoseOtherThreadIsInACollectiveExitsAloneAndIsSeenDead) {
  const Outcome o = runJob(3, false, [](int rank, Bootstrap& boot) {
    if (rank == 1) {
      std::thread([&boot] { (void)boot.barrier(); }).detach();
      sleepS(0.3);
      boot.globalExit(13);
    }
    idleUnderMonitor(boot, 30);
  });
  EXPECT_EQ(o.status[1], 13) << describe(o);
  EXPECT_EQ(o.status[0], kStepFailed) << describe(o);
  EXPECT_EQ(o.status[2], kStepFailed) << describe(o);
  EXPECT_LT(o.seconds, 5.0) << describe(o);
}

// The frames: a request fills a call header's 32 bytes and a notice a verdict's 16, each with
// its own magic, so a reader waiting for one recognises the other; neither decodes as the frame
// it stands in for.
TEST(BootstrapGlobalExit, RequestAndNoticeFrames) {
  uint8_t request[wire::kCallBytes], notice[wire::kVerdictBytes];
  wire::encodeExitRequest(wire::ExitNote{-3, 6}, request);
  wire::encodeExitNotice(wire::ExitNote{258, 2}, notice);
  wire::ExitNote e;
  ASSERT_TRUE(wire::decodeExitRequest(request, &e));
  EXPECT_EQ(e.status, -3);
  EXPECT_EQ(e.pe, 6);
  ASSERT_TRUE(wire::decodeExitNotice(notice, &e));
  EXPECT_EQ(e.status, 258);
  EXPECT_EQ(e.pe, 2);
  wire::Call c;
  wire::Verdict v;
  EXPECT_FALSE(wire::decode(request, &c));
  EXPECT_FALSE(wire::decode(notice, &v));
  EXPECT_FALSE(wire::decodeExitNotice(request, &e));
  EXPECT_FALSE(wire::decodeExitRequest(notice, &e));
  for (size_t i = 12; i < sizeof(request); ++i) EXPECT_EQ(request[i], 0) << i;
}
