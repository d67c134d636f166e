#include "application/bootstrap/peer_monitor.hpp"

#include <chrono>

namespace mori::bootstrap {

PeerMonitor::PeerMonitor(Bootstrap& boot, std::function<void(int)> onFailure, double periodS,
                         std::function<void()> eachPeriod)
    : boot_(boot),
      onFailure_(std::move(onFailure)),
      eachPeriod_(std::move(eachPeriod)),
      periodS_(periodS > 0 ? periodS : kDefaultPeriodS) {}

PeerMonitor::~PeerMonitor() { stop(); }

bool PeerMonitor::start() {
  if (thread_.joinable() || (!watchesPeers() && !eachPeriod_)) return false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { loop(); });
  return true;
}

void PeerMonitor::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeerMonitor::loop() {
  const auto period =
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(periodS_));
  bool watchPeers = watchesPeers();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    if (eachPeriod_) eachPeriod_();
    const int pe = watchPeers ? boot_.failedPe() : -1;
    lock.lock();
    if (pe >= 0 && !stopping_) {
      failed_.store(pe, std::memory_order_release);
      lock.unlock();
      onFailure_(pe);
      watchPeers = false;  // one failure ends the job; no more peers to watch
      if (!eachPeriod_) return;
      lock.lock();
    }
    cv_.wait_for(lock, period, [this] { return stopping_; });
  }
}

}  // namespace mori::bootstrap
