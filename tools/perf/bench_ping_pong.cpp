// shmem_put_ping_pong_latency and shmem_put_signal_ping_pong_latency: both PEs run one CTA of
// 1 thread / 1 wave / -t threads. Iteration i (signal value v = i + 1, counted on from the
// warm-up): PE 0 sends, then waits until its signal word reaches v; PE 1 waits, then sends.
//   put_ping_pong:        putmem_nbi_<scope>, then one thread: fence + signal_op(SET v)
//   put_signal_ping_pong: putmem_signal_nbi_<scope>(SET v)
// Latency: microseconds per round trip, timed on PE 0.
// Verification: each PE's destination holds its peer's pattern (and the guard its poison), and
// each PE's signal word ends at warm-up + iterations.
#include "tools/perf/harness.hpp"
#include "tools/perf/kernel_util.hpp"

namespace mori::perf {
namespace {

template <Scope S>
MORI_PERF_DEVICE void waitSignal(uint64_t* sig, uint64_t v) {
  if (scopeRank<S>() == 0) backend::signalWaitGe(sig, v);
  scopeSync<S>();
}

template <Scope S, bool SIGNAL>
MORI_PERF_DEVICE void send(uint8_t* dst, const uint8_t* src, size_t bytes, uint64_t* sig, uint64_t v, int peer) {
  if constexpr (SIGNAL) {
    backend::putSignalNbi<S>(dst, src, bytes, sig, v, peer);
  } else {
    backend::putNbi<S>(dst, src, bytes, peer);
    scopeSync<S>();
    if (scopeRank<S>() == 0) {
      backend::fence();
      backend::signalSet(sig, v, peer);
    }
  }
}

template <Scope S, bool SIGNAL>
MORI_PERF_KERNEL_FOR(kLatencyBound<S>)
void pingPongKernel(uint8_t* dst, const uint8_t* src, size_t bytes, uint64_t* sig, int me, int peer, uint64_t base,
                    int iters) {
  for (int i = 0; i < iters; ++i) {
    const uint64_t v = base + static_cast<uint64_t>(i) + 1;
    if (me != 0) waitSignal<S>(sig, v);
    send<S, SIGNAL>(dst, src, bytes, sig, v, peer);
    if (me == 0) waitSignal<S>(sig, v);
  }
  scopeQuiet<S>();
}

template <bool SIGNAL>
void launch(Scope scope, unsigned block, hipStream_t stream, uint8_t* dst, const uint8_t* src, size_t bytes,
            uint64_t* sig, int me, int peer, uint64_t base, int iters) {
  switch (scope) {
    case Scope::Thread:
      pingPongKernel<Scope::Thread, SIGNAL><<<1, block, 0, stream>>>(dst, src, bytes, sig, me, peer, base, iters);
      break;
    case Scope::Warp:
      pingPongKernel<Scope::Warp, SIGNAL><<<1, block, 0, stream>>>(dst, src, bytes, sig, me, peer, base, iters);
      break;
    case Scope::Block:
      pingPongKernel<Scope::Block, SIGNAL><<<1, block, 0, stream>>>(dst, src, bytes, sig, me, peer, base, iters);
      break;
  }
}

constexpr uint64_t kPoison = 0x5eed5eed5eed5eedull;

}  // namespace

void runPingPong(Session& s) {
  const Options& o = s.options();
  const TestInfo& t = testInfo(o.test);
  const bool signal = o.test == Test::PutSignalPingPongLatency;
  const auto run = signal ? launch<true> : launch<false>;
  const size_t capacity = o.maxBytes + kGuardBytes;
  auto* src = static_cast<uint8_t*>(s.allocSymmetric(capacity, "source buffer"));
  auto* dst = static_cast<uint8_t*>(s.allocSymmetric(capacity, "destination buffer"));
  auto* sig = static_cast<uint64_t*>(s.allocSymmetric(sizeof(uint64_t), "signal word"));
  const int me = s.pe(), peer = 1 - me;

  bool ok = true;
  for (size_t si = 0; ok && si < o.scopes.size(); ++si) {
    const Scope scope = o.scopes[si];
    const unsigned block = static_cast<unsigned>(threadsFor(o, scope, s.waveSize()));
    for (size_t bytes : sizeSweep(o)) {
      const uint64_t seed = s.seedFor(bytes, scope), poison = seed ^ kPoison;
      s.fillPattern(src, capacity, seed, me);
      s.fillPattern(dst, capacity, poison, me);
      MORI_PERF_HIP(hipMemsetAsync(sig, 0, sizeof(uint64_t), s.stream()));
      s.barrier("data setup");

      if (o.warmup) {
        run(scope, block, s.stream(), dst, src, bytes, sig, me, peer, 0, o.warmup);
        MORI_PERF_HIP(hipGetLastError());
        s.barrier("warm-up kernel");  // both PEs start the timed kernel together
      }
      const double ms = s.timeKernelMs([&] {
        run(scope, block, s.stream(), dst, src, bytes, sig, me, peer, static_cast<uint64_t>(o.warmup), o.iters);
      });
      s.barrier("timed kernel");

      if (o.verify) {
        const std::string what = std::string(t.name) + " " + scopeName(scope) + " " + std::to_string(bytes) + " B";
        uint64_t last = 0;
        MORI_PERF_HIP(hipMemcpy(&last, sig, sizeof(last), hipMemcpyDeviceToHost));
        const uint64_t expected = static_cast<uint64_t>(o.warmup) + static_cast<uint64_t>(o.iters);
        ok = s.agree(last != expected ? 1 : 0, what + ": signal word (expected " + std::to_string(expected) + ")") &&
             s.checkPattern(true, dst, bytes, seed, peer, 0, what + ": destination") &&
             s.checkPattern(true, dst + bytes, kGuardBytes, poison, me, bytes,
                            what + ": the bytes past the destination were overwritten");
        if (!ok) break;
      }
      s.add(
          {scopeName(scope), bytes, metric::kLatency, metric::kLatencyUnits, '-', latencyUs(o.iters, ms), o.iters, ms});
    }
    s.print();
  }
  s.freeSymmetric(sig);
  s.freeSymmetric(dst);
  s.freeSymmetric(src);
}

}  // namespace mori::perf
