#include "application/bootstrap/peer_monitor.hpp"

#include <chrono>

namespace mori::bootstrap {

PeerMonitor::PeerMonitor(Bootstrap& boot, std::function<void(int)> onFailure, double periodS)
    : boot_(boot), onFailure_(std::move(onFailure)), periodS_(periodS > 0 ? periodS : kDefaultPeriodS) {}

PeerMonitor::~PeerMonitor() { stop(); }

bool PeerMonitor::start() {
  if (thread_.joinable() || !boot_.detectsPeerFailure() || boot_.size() == 1) return false;
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
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    const int pe = boot_.failedPe();
    lock.lock();
    if (pe >= 0 && !stopping_) {
      failed_.store(pe, std::memory_order_release);
      lock.unlock();
      onFailure_(pe);
      return;  // one failure ends the job; nothing more to watch
    }
    cv_.wait_for(lock, period, [this] { return stopping_; });
  }
}

}  // namespace mori::bootstrap
