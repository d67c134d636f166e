// The NIC model's host thread: watches the doorbell words of every QP of its Device and launches
// the model kernel when one announces WQEs the model has not consumed; reports what the kernel
// diagnosed. One kernel in flight at a time; it serves every QP and lingers until idle, so the
// thread only looks at doorbells between kernels.
#include <stdio.h>
#include <sys/prctl.h>

#include <chrono>

#include "mori/platform/clock.hpp"
#include "tests/support/nic_model/model_device.hpp"
#include "tests/support/nic_model/model_kernel.hpp"
#include "tests/support/nic_model/nic_side.hpp"

namespace mori::test::nicmodel {
namespace {

// Spin (yielding) this long after the last kernel before sleeping between doorbell scans.
constexpr auto kHotWindow = std::chrono::milliseconds(2);
constexpr auto kColdScan = std::chrono::microseconds(50);
// While a kernel runs, look for its end this often.
constexpr auto kKernelPoll = std::chrono::microseconds(5);
// How long the kernel waits for the GPU to release completion entries before calling it an overrun.
constexpr uint64_t kCqWaitNs = 1000000;
// Launches in a row that consume nothing of an unchanged announcement before it is ignored.
constexpr uint32_t kFruitlessLimit = 3;
// Announced WQEs unconsumed for this long are logged once (with whether a model kernel runs), so
// that a GPU-side timeout can be told apart: model starved or stuck, or never launched.
constexpr auto kStallReport = std::chrono::seconds(5);
constexpr auto kWatchdogScan = std::chrono::milliseconds(250);

const char* diagText(DiagKind k) {
  switch (k) {
    case DiagKind::InjectedError: return "injected error (MORI_NIC_MODEL_ERROR): completes with status";
    case DiagKind::MalformedWqe: return "malformed WQE, first 16 bytes";
    case DiagKind::WrongQpn: return "WQE names another QPN (WQE, QP)";
    case DiagKind::WrongWqeIndex: return "WQE carries the wrong index (WQE, expected)";
    case DiagKind::WrongColor: return "WQE carries the wrong colour (WQE, expected)";
    case DiagKind::PsnMismatch:
      return "retransmission table entry is wrong (entry start | next << 24, expected start, next)";
    case DiagKind::PsnIndex: return "retransmission table start index is wrong (entry, expected)";
    case DiagKind::LocalProtection: return "local protection error (lkey, address, length)";
    case DiagKind::RemoteAccess: return "remote access error (rkey, address, length)";
    case DiagKind::RemoteInvalid: return "misaligned atomic (remote address, bytes)";
    case DiagKind::LocalLength: return "message too long (bytes)";
    case DiagKind::CqOverrun: return "completion queue overrun: the GPU released too few entries (written, released)";
    case DiagKind::BadDoorbell: return "doorbell announces more than a ring (position, consumed)";
    case DiagKind::Stalled: return "stalled on purpose (MORI_NIC_MODEL_STALL) after WQEs";
    default: return "?";
  }
}

}  // namespace

bool ModelDevice::sqPosition(uint64_t reg, const ModelQp& q, uint32_t* pos) const {
  switch (cfg_.provider) {
    case rdma::Provider::Mlx5: return NicMlx5::registerPosition(reg, q, pos);
    case rdma::Provider::Bnxt: return NicBnxt::registerPosition(reg, q, pos);
    case rdma::Provider::Ionic: return NicIonic::registerPosition(reg, q, pos);
    default: return false;
  }
}

uint32_t ModelDevice::sqModulus(uint32_t sqDepth) const {
  switch (cfg_.provider) {
    case rdma::Provider::Mlx5: return NicMlx5::sqModulus(sqDepth);
    case rdma::Provider::Bnxt: return NicBnxt::sqModulus(sqDepth);
    default: return NicIonic::sqModulus(sqDepth);
  }
}

void ModelDevice::run() {
  using Clock = std::chrono::steady_clock;
  // Short sleeps mean what they say (Linux pads them by 50 us by default).
  (void)prctl(PR_SET_TIMERSLACK, 1000ul, 0ul, 0ul, 0ul);
  const hipError_t e = hipSetDevice(gpu_);
  if (e != hipSuccess) {
    std::lock_guard<std::mutex> lock(mu_);
    failLocked(e, "hipSetDevice in the NIC thread");
    cv_.notify_all();
  }
  auto lastBusy = Clock::now();
  auto lastWatch = lastBusy;
  while (!stopping_.load(std::memory_order_acquire)) {
    bool busy = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      logDiagnosticsLocked();
      if (Clock::now() - lastWatch >= kWatchdogScan) {
        lastWatch = Clock::now();
        watchdogLocked(lastWatch);
      }
      if (inFlight_) {
        const hipError_t q = hipEventQuery(done_);
        if (q == hipSuccess) {
          inFlight_ = false;
          kernelFinishedLocked();
          cv_.notify_all();
        } else if (q != hipErrorNotReady) {
          inFlight_ = false;
          failLocked(q, "the model kernel");
          cv_.notify_all();
        }
      }
      if (!inFlight_ && !broken_ && updaters_ == 0 && workPendingLocked()) launchLocked();
      busy = inFlight_;
    }
    const auto now = Clock::now();
    if (busy) {
      lastBusy = now;
      std::this_thread::sleep_for(kKernelPoll);
    } else if (now - lastBusy < kHotWindow) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kColdScan);
    }
  }
}

// True if some live QP's doorbell announces WQEs beyond what the model consumed. The doorbell
// word and the consumed count are host memory; the count is final (no kernel runs).
bool ModelDevice::workPendingLocked() {
  bool any = false;
  for (uint32_t s = 0; s < qps_.size(); ++s) {
    QpWatch& w = watch_[s];
    const ModelQp& q = qps_[s];
    if (!w.used || !q.live) continue;
    const uint64_t reg = *w.words.sqDoorbell;
    if (reg == 0 || reg == w.ignoredReg) continue;
    uint32_t pos = 0;
    if (!sqPosition(reg, q, &pos)) {
      if (reg != w.badReg) {
        w.badReg = reg;
        MORI_LOG_ERROR(
            log::kRdma,
            "NIC model PE %d: doorbell 0x%016llx on QP 0x%x (to PE %d) is not a %s send doorbell of this QP: "
            "ignored",
            myPe_, static_cast<unsigned long long>(reg), q.ep.qpn, q.peerPe, providerName(cfg_.provider));
      }
      continue;
    }
    if (w.words.status->flags & kQpStalled) continue;
    const uint64_t consumed = w.words.status->consumed;
    const uint32_t ahead = (pos - static_cast<uint32_t>(consumed)) & (sqModulus(q.ep.sqDepth) - 1);
    // ahead >= depth: the register lags an announcement the model already consumed (mlx5 reads
    // the doorbell record, written first), or announces more than a ring (the kernel reports it).
    if (ahead == 0 || ahead >= q.ep.sqDepth) continue;
    w.expecting = true;
    w.launchedReg = reg;
    w.launchedConsumed = consumed;
    any = true;
  }
  return any;
}

void ModelDevice::launchLocked() {
  ModelLaunch p{};
  p.qps = qpsDev_;
  p.progress = progressDev_;
  p.keys = keysDev_;
  p.control = static_cast<ModelControl*>(control_.device());
  p.shared = sharedDev_;
  p.staging = stagingDev_;
  p.numQps = static_cast<uint32_t>(qps_.size());
  p.numKeys = static_cast<uint32_t>(keys_.size());
  p.generation = generation_;
  p.myPe = myPe_;
  p.sink = cfg_.sink ? 1u : 0u;
  p.launchSeq = static_cast<uint32_t>(launches_ + 1);
  p.idleTicks = gpu::nsToWallTicks(cfg_.idleNs);
  p.cqWaitTicks = gpu::nsToWallTicks(kCqWaitNs);
  hipError_t e = launchModelKernel(cfg_.provider, p, modelBlocks(p.numQps, waveSize_), stream_);
  if (e == hipSuccess) e = hipEventRecord(done_, stream_);
  if (e != hipSuccess) {
    failLocked(e, "launching the model kernel");
    return;
  }
  inFlight_ = true;
  launchedAt_ = std::chrono::steady_clock::now();
  ++launches_;
}

void ModelDevice::watchdogLocked(std::chrono::steady_clock::time_point now) {
  const uint64_t beat = __atomic_load_n(&controlHost_->beat, __ATOMIC_RELAXED);
  const bool beating = beat != beatSeen_;
  beatSeen_ = beat;
  for (uint32_t s = 0; s < qps_.size(); ++s) {
    QpWatch& w = watch_[s];
    const ModelQp& q = qps_[s];
    if (!w.used || !q.live) continue;
    uint32_t pos = 0;
    const uint64_t reg = *w.words.sqDoorbell;
    const uint64_t consumed = w.words.status->consumed;
    const uint32_t flags = w.words.status->flags;
    const bool announced = reg != 0 && sqPosition(reg, q, &pos);
    const uint32_t ahead = (pos - static_cast<uint32_t>(consumed)) & (sqModulus(q.ep.sqDepth) - 1);
    if (!announced || ahead == 0 || ahead >= q.ep.sqDepth || (flags & kQpStalled) || consumed != w.watchConsumed ||
        w.stuckSince == std::chrono::steady_clock::time_point{}) {
      w.watchConsumed = consumed;
      w.stuckSince = announced && ahead != 0 && ahead < q.ep.sqDepth ? now : std::chrono::steady_clock::time_point{};
      w.stuckLogged = false;
      continue;
    }
    if (w.stuckLogged || now - w.stuckSince < kStallReport) continue;
    w.stuckLogged = true;
    char kernel[240];
    const bool started = __atomic_load_n(&controlHost_->startedLaunch, __ATOMIC_RELAXED) == launches_;
    if (inFlight_)
      snprintf(kernel, sizeof(kernel), "a model kernel in flight for %.1f s, %s",
               std::chrono::duration<double>(now - launchedAt_).count(),
               !started  ? "not started on the GPU (no room beside the application's kernels, or, under MPS, "
                           "queued behind a waiting kernel of this process: docs/MULTIPLE_PES_PER_GPU.md)"
               : beating ? "running"
                         : "started, but its first warp has stopped passing");
    else
      snprintf(kernel, sizeof(kernel), "no model kernel running");
    MORI_LOG_WARN(
        log::kRdma,
        "NIC model PE %d: QP 0x%x (to PE %d): doorbell 0x%016llx announces %u WQE(s) beyond the %llu consumed; "
        "none consumed for %.1f s; %s; %llu launches; QP flags 0x%x%s",
        myPe_, q.ep.qpn, q.peerPe, static_cast<unsigned long long>(reg), ahead,
        static_cast<unsigned long long>(consumed), std::chrono::duration<double>(now - w.stuckSince).count(), kernel,
        static_cast<unsigned long long>(launches_), flags,
        reg == w.ignoredReg ? " (ignored: launches for it consumed nothing)" : "");
  }
}

// A launch that consumed nothing of the announcement that caused it, while the doorbell did not
// change, would be repeated forever (and keep device synchronisation from returning): after a
// few, that announcement is ignored until the doorbell changes.
void ModelDevice::kernelFinishedLocked() {
  for (uint32_t s = 0; s < qps_.size(); ++s) {
    QpWatch& w = watch_[s];
    if (!w.used || !w.expecting) continue;
    w.expecting = false;
    const bool progressed = w.words.status->consumed != w.launchedConsumed;
    if (progressed || *w.words.sqDoorbell != w.launchedReg || (w.words.status->flags & kQpStalled)) {
      w.fruitless = 0;
      continue;
    }
    if (++w.fruitless >= kFruitlessLimit) {
      w.ignoredReg = w.launchedReg;
      w.fruitless = 0;
      MORI_LOG_ERROR(log::kRdma,
                     "NIC model PE %d: QP 0x%x (to PE %d): doorbell 0x%016llx announces WQEs the model cannot "
                     "consume (consumed %llu); ignored until the doorbell changes",
                     myPe_, qps_[s].ep.qpn, qps_[s].peerPe, static_cast<unsigned long long>(w.launchedReg),
                     static_cast<unsigned long long>(w.launchedConsumed));
    }
  }
}

void ModelDevice::logDiagnosticsLocked() {
  while (loggedDiags_ < kDiagSlots) {
    const ModelDiag& d = controlHost_->diag[loggedDiags_];
    if (!__atomic_load_n(&d.ready, __ATOMIC_ACQUIRE)) break;
    ++loggedDiags_;
    const DiagKind kind = static_cast<DiagKind>(d.kind);
    const ModelQp* q = d.qp < qps_.size() ? &qps_[d.qp] : nullptr;
    // Faults a test injects on purpose are warnings; anything else means the GPU side broke the
    // provider's contract (or the model has a bug).
    const log::Level level =
        kind == DiagKind::InjectedError || kind == DiagKind::Stalled ? log::Level::Warn : log::Level::Error;
    if (log::enabled(level, log::kRdma))
      log::write(level, log::kRdma, __FILE__, __LINE__,
                 "NIC model (%s) PE %d, QP 0x%x (to PE %d, index %u), WQE %llu: %s: 0x%llx 0x%llx 0x%llx",
                 providerName(cfg_.provider), myPe_, q ? q->ep.qpn : 0, q ? q->peerPe : -1, q ? q->ep.qpIndex : 0,
                 static_cast<unsigned long long>(d.wqe), diagText(kind), static_cast<unsigned long long>(d.a),
                 static_cast<unsigned long long>(d.b), static_cast<unsigned long long>(d.c));
    if (loggedDiags_ == kDiagSlots)
      MORI_LOG_WARN(log::kRdma, "NIC model PE %d: further diagnostics are not recorded", myPe_);
  }
}

void ModelDevice::failLocked(hipError_t e, const char* what) {
  if (broken_) return;
  broken_ = true;
  MORI_LOG_WARN(log::kRdma,
                "NIC model PE %d: %s: %s (%s); the model stops serving this GPU (a kernel probably stopped on an "
                "error, see above)",
                myPe_, what, hipGetErrorName(e), hipGetErrorString(e));
}

}  // namespace mori::test::nicmodel
