// A point in monotonic time that bounds one bootstrap wait (MORI_SHMEM_BOOTSTRAP_TIMEOUT).
#pragma once

#include <chrono>

namespace mori::bootstrap {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  // seconds <= 0: no limit (the wait ends only when the operation completes or fails). Longer
  // than kMaxSeconds counts as kMaxSeconds, so that the end point never overflows the clock.
  explicit Deadline(double seconds) : seconds_(seconds), start_(Clock::now()) {
    if (seconds > 0) end_ = start_ + span(seconds);
  }
  static constexpr double kMaxSeconds = 1e9;  // ~31 years; the clock's range is ~292 years

  bool unlimited() const { return seconds_ <= 0; }
  bool expired() const { return !unlimited() && Clock::now() >= end_; }
  // The limit this deadline was made with, for messages ("within 5.0 s").
  double seconds() const { return seconds_; }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // Milliseconds a poll() may sleep: the time left, rounded up, at most maxMs (so that loops
  // re-check their state now and then even without a limit).
  int pollMs(int maxMs = 1000) const {
    if (unlimited()) return maxMs;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now()).count() + 1;
    if (left < 0) return 0;
    return left < maxMs ? static_cast<int>(left) : maxMs;
  }

  // The same deadline pushed back by `seconds` (grace for waiting on a peer that reports first).
  Deadline extendedBy(double seconds) const {
    Deadline d = *this;
    if (!unlimited()) d.end_ += span(seconds);
    return d;
  }

 private:
  static Clock::duration span(double seconds) {
    if (!(seconds > 0)) return Clock::duration::zero();
    if (seconds > kMaxSeconds) seconds = kMaxSeconds;
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

  double seconds_;
  Clock::time_point start_;
  Clock::time_point end_{};
};

// How long a non-root PE waits beyond the timeout for the root's verdict: the root's clock may
// have started later, and its report names the PE that is missing, which the PE's own timeout
// cannot.
inline double rootReportGrace(double timeoutS) {
  double g = 0.25 * timeoutS;
  return g < 0.5 ? 0.5 : (g > 5.0 ? 5.0 : g);
}

}  // namespace mori::bootstrap
