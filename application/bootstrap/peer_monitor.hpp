// A host thread per PE that watches the bootstrap for a failed peer (a dropped connection, or
// the root's report of one) and calls onFailure(pe) once, so that the runtime can abort device
// waits on that PE (the abort word, shmem/runtime.cpp) instead of letting them spin forever.
// Given `eachPeriod`, the thread also calls it once per period, with or without peers to watch
// (the runtime's check for a global exit requested by device code).
//
// Detection is as fast as the bootstrap's own: a process that exits or is killed closes its
// sockets, which its peers see within one period (the root then tells every other PE, which sees
// it within its next period). A host that vanishes without closing (power loss) is not seen
// here; the bootstrap's next collective times out instead.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "application/bootstrap/bootstrap.hpp"

namespace mori::bootstrap {

class PeerMonitor {
 public:
  static constexpr double kDefaultPeriodS = 0.05;

  // Does not start watching; start() does. `boot` must outlive the monitor.
  PeerMonitor(Bootstrap& boot, std::function<void(int failedPe)> onFailure, double periodS = kDefaultPeriodS,
              std::function<void()> eachPeriod = nullptr);
  ~PeerMonitor();  // stop()s
  PeerMonitor(const PeerMonitor&) = delete;
  PeerMonitor& operator=(const PeerMonitor&) = delete;

  // True when the bootstrap can detect failed peers (and there are any).
  bool watchesPeers() const { return boot_.detectsPeerFailure() && boot_.size() > 1; }
  // No-op (with false) when there is nothing to do: no peers to watch and no eachPeriod.
  bool start();
  // Joins the thread; afterwards onFailure is not called any more. Idempotent.
  void stop();
  // The failed PE reported, or -1.
  int failedPe() const { return failed_.load(std::memory_order_acquire); }

 private:
  void loop();

  Bootstrap& boot_;
  std::function<void(int)> onFailure_;
  std::function<void()> eachPeriod_;
  double periodS_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::atomic<int> failed_{-1};
};

}  // namespace mori::bootstrap
