// shmem_p_bw and shmem_p_latency: uint64_p from PE 0 to PE 1.
//
// Bandwidth: every thread of the -c x -t grid p's words j = tid, tid + threads, ... of the <size>
// bytes each iteration (the value is read from PE 0's local source, as NVSHMEM's perftest does);
// one quiet per CTA at the end, no grid barrier between iterations (NVSHMEM's perftest has one per
// iteration; both libraries run this same kernel here). GB/s = size * n / time; --msgrate:
// (size / 8) * n / time, in G messages per second.
// Latency: one CTA of -t threads p's the words, then one quiet, per iteration.
// Verification: PE 1's destination holds PE 0's source pattern, and the guard after it its poison.
#include "tools/perf/harness.hpp"
#include "tools/perf/kernel_util.hpp"

namespace mori::perf {
namespace {

MORI_PERF_KERNEL void pBwKernel(uint64_t* __restrict__ dst, const uint64_t* __restrict__ src, size_t words, int peer,
                                int iters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  for (int i = 0; i < iters; ++i) {
    for (size_t j = tid; j < words; j += threads) backend::p(dst + j, src[j], peer);
    iterationBoundary();
  }
  scopeQuiet<Scope::Block>();
}

template <int kBound>
MORI_PERF_KERNEL_FOR(kBound)
void pLatencyKernel(uint64_t* __restrict__ dst, const uint64_t* __restrict__ src, size_t words, int peer, int iters) {
  for (int i = 0; i < iters; ++i) {
    for (size_t j = threadIdx.x; j < words; j += blockDim.x) backend::p(dst + j, src[j], peer);
    scopeQuiet<Scope::Block>();
  }
}

constexpr uint64_t kPoison = 0x0badc0ffee0ddf00ull;

}  // namespace

void runP(Session& s) {
  const Options& o = s.options();
  const TestInfo& t = testInfo(o.test);
  const bool bandwidth = t.kind == Kind::Bandwidth;
  const size_t capacity = o.maxBytes + kGuardBytes;
  auto* src = static_cast<uint64_t*>(s.allocSymmetric(capacity, "source buffer"));
  auto* dst = static_cast<uint64_t*>(s.allocSymmetric(capacity, "destination buffer"));
  const int me = s.pe(), peer = 1 - me;
  const Scope scope = Scope::Thread;  // one p per thread
  const unsigned block = static_cast<unsigned>(threadsFor(o, scope, s.waveSize()));
  const unsigned grid = static_cast<unsigned>(ctasFor(o));

  for (size_t bytes : sizeSweep(o)) {
    const size_t words = bytes / 8;
    const uint64_t seed = s.seedFor(bytes, scope), poison = seed ^ kPoison;
    s.fillPattern(src, capacity, seed, me);
    s.fillPattern(dst, capacity, poison, me);
    s.barrier("data setup");

    double ms = 0;
    if (me == 0) {
      auto go = [&](int iters) {
        if (bandwidth)
          pBwKernel<<<grid, block, 0, s.stream()>>>(dst, src, words, peer, iters);
        else
          launchWithinBound(block, [&](auto bound) {
            pLatencyKernel<decltype(bound)::value><<<grid, block, 0, s.stream()>>>(dst, src, words, peer, iters);
          });
      };
      if (o.warmup) {
        go(o.warmup);
        MORI_PERF_HIP(hipGetLastError());
        s.sync("warm-up kernel");
      }
      ms = s.timeKernelMs([&] { go(o.iters); });
    }
    s.barrier("timed kernel");

    if (o.verify) {
      const std::string what = std::string(t.name) + " " + std::to_string(bytes) + " B";
      if (!s.checkPattern(me == 1, dst, bytes, seed, peer, 0, what + ": destination")) break;
      if (!s.checkPattern(me == 1, reinterpret_cast<uint8_t*>(dst) + bytes, kGuardBytes, poison, me, bytes,
                          what + ": the bytes past the destination were overwritten"))
        break;
    }

    if (bandwidth) {
      s.add({scopeName(scope), bytes, metric::kBw, metric::kBwUnits, '+', bandwidthGBps(bytes, o.iters, ms), o.iters,
             ms});
      if (o.msgrate)
        s.add({scopeName(scope), bytes, metric::kMsgrate, metric::kMsgrateUnits, '+', rateGops(words, o.iters, ms),
               o.iters, ms});
    } else {
      s.add(
          {scopeName(scope), bytes, metric::kLatency, metric::kLatencyUnits, '-', latencyUs(o.iters, ms), o.iters, ms});
    }
  }
  s.print();
  s.freeSymmetric(dst);
  s.freeSymmetric(src);
}

}  // namespace mori::perf
