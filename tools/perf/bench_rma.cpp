// shmem_put_bw, shmem_get_bw, shmem_put_latency, shmem_get_latency, shmem_put_on_stream_bw.
//
// Bandwidth: a grid of -c CTAs x -t threads; each scope instance (CTA, wave or thread) moves its
// share of <size> bytes per iteration with putmem_nbi_<scope> / getmem_nbi_<scope>, so that one
// iteration moves <size> bytes in total; one quiet per CTA ends the kernel. GB/s = size * n / time.
// PE 0 drives (both PEs with --bidir, whose figure is the sum of the two directions).
// Latency: one CTA of 1 thread / 1 wave / -t threads; each iteration is putmem_nbi_<scope> + quiet
// (put) or a blocking getmem_<scope> (get); microseconds per iteration.
// Every iteration moves the same bytes, as in NVSHMEM's perftest: a get whose source fits in the
// reading GPU's L2 (50 MB on H100/H200) is served from it after the first iteration, so get
// bandwidth below that size is not link bandwidth (the first 2xH200 run showed 0.9-3.5 TB/s).
// Likewise a P2P get latency is an L1 hit from the second iteration on: weak loads of peer memory
// allocate in the reader's L1 (runs 3-4 of bench/results/2026-11-30d_device_runs.sh).
// Stream put: PE 0's host enqueues -n putmem_on_stream(<size> bytes to PE 1) and one
// quiet_on_stream between the two events on its stream (the library picks the copy engine or a
// kernel); GB/s = size * n / time, as shmem_put_bw. The warm-up calls end with their own quiet.
// Verification: the destination must hold the source PE's pattern for this step, byte for byte,
// and the kGuardBytes after it must still hold the poison written before the run.
#include "tools/perf/harness.hpp"
#include "tools/perf/kernel_util.hpp"

namespace mori::perf {
namespace {

template <Scope S, bool GET>
MORI_PERF_KERNEL void rmaBwKernel(uint8_t* dst, const uint8_t* src, size_t bytes, int peer, int iters) {
  size_t begin, len;
  unitShare(bytes, scopeUnits<S>(), scopeUnit<S>(), &begin, &len);
  if (len) {  // the same for every thread of a scope instance
    for (int i = 0; i < iters; ++i) {
      if constexpr (GET)
        backend::getNbi<S>(dst + begin, src + begin, len, peer);
      else
        backend::putNbi<S>(dst + begin, src + begin, len, peer);
      iterationBoundary();
    }
  }
  scopeQuiet<Scope::Block>();
}

template <Scope S, bool GET>
MORI_PERF_KERNEL_FOR(kLatencyBound<S>)
void rmaLatencyKernel(uint8_t* dst, const uint8_t* src, size_t bytes, int peer, int iters) {
  for (int i = 0; i < iters; ++i) {
    if constexpr (GET) {
      backend::get<S>(dst, src, bytes, peer);
      iterationBoundary();
    } else {
      backend::putNbi<S>(dst, src, bytes, peer);
      scopeQuiet<S>();
    }
  }
}

template <Scope S, bool GET>
void launchScope(bool bandwidth, unsigned grid, unsigned block, hipStream_t stream, uint8_t* dst, const uint8_t* src,
                 size_t bytes, int peer, int iters) {
  if (bandwidth)
    rmaBwKernel<S, GET><<<grid, block, 0, stream>>>(dst, src, bytes, peer, iters);
  else
    rmaLatencyKernel<S, GET><<<grid, block, 0, stream>>>(dst, src, bytes, peer, iters);
}

template <bool GET>
void launch(Scope scope, bool bandwidth, unsigned grid, unsigned block, hipStream_t stream, uint8_t* dst,
            const uint8_t* src, size_t bytes, int peer, int iters) {
  switch (scope) {
    case Scope::Thread:
      launchScope<Scope::Thread, GET>(bandwidth, grid, block, stream, dst, src, bytes, peer, iters);
      break;
    case Scope::Warp:
      launchScope<Scope::Warp, GET>(bandwidth, grid, block, stream, dst, src, bytes, peer, iters);
      break;
    case Scope::Block:
      launchScope<Scope::Block, GET>(bandwidth, grid, block, stream, dst, src, bytes, peer, iters);
      break;
  }
}

constexpr uint64_t kPoison = 0xdeadbeefcafef00dull;

// One size's data round: both buffers refilled (src with this PE's pattern, dst and its guard
// with poison), then every PE waits for the others.
void prepareRound(Session& s, uint8_t* src, uint8_t* dst, size_t capacity, uint64_t seed) {
  s.fillPattern(src, capacity, seed, s.pe());
  s.fillPattern(dst, capacity, seed ^ kPoison, s.pe());
  s.barrier("data setup");  // every PE's buffers are ready before anyone moves data
}

// After the round: a receiving PE holds its peer's pattern in dst[0, bytes) and the poison past it.
bool checkRound(Session& s, bool receives, const uint8_t* dst, size_t bytes, uint64_t seed, int peer,
                const std::string& what) {
  return s.checkPattern(receives, dst, bytes, seed, peer, 0, what + ": destination") &&
         s.checkPattern(receives, dst + bytes, kGuardBytes, seed ^ kPoison, s.pe(), bytes,
                        what + ": the bytes past the destination were overwritten");
}

// `calls` putmem_on_stream of src[0, bytes) into the peer's dst, then one quiet_on_stream; fatal
// on a failed status.
void putOnStream(hipStream_t stream, uint8_t* dst, const uint8_t* src, size_t bytes, int peer, int calls) {
  for (int i = 0; i < calls; ++i) {
    const int rc = backend::putOnStream(dst, src, bytes, peer, stream);
    if (rc != 0) fatal("%s: putmem_on_stream (%zu B to PE %d) returned %d", backend::name(), bytes, peer, rc);
  }
  const int rc = backend::quietOnStream(stream);
  if (rc != 0) fatal("%s: quiet_on_stream returned %d", backend::name(), rc);
}

void runPutOnStream(Session& s) {
  const Options& o = s.options();
  const TestInfo& t = testInfo(o.test);
  const size_t capacity = o.maxBytes + kGuardBytes;
  auto* src = static_cast<uint8_t*>(s.allocSymmetric(capacity, "source buffer"));
  auto* dst = static_cast<uint8_t*>(s.allocSymmetric(capacity, "destination buffer"));
  const int me = s.pe(), peer = 1 - me;
  const Scope scope = o.scopes.front();  // seeds only: the rows say "stream"
  const char* label = "stream";

  for (size_t bytes : sizeSweep(o)) {
    const uint64_t seed = s.seedFor(bytes, scope);
    prepareRound(s, src, dst, capacity, seed);

    double ms = 0;
    if (me == 0) {
      if (o.warmup) {
        putOnStream(s.stream(), dst, src, bytes, peer, o.warmup);
        s.sync("warm-up calls");
      }
      ms = s.timeKernelMs([&] { putOnStream(s.stream(), dst, src, bytes, peer, o.iters); });
    }
    s.barrier("timed calls");

    if (o.verify) {
      const std::string what = std::string(t.name) + " " + std::to_string(bytes) + " B";
      if (!checkRound(s, me == 1, dst, bytes, seed, peer, what)) break;
    }
    const double gbps = s.sumOverPes(me == 0 ? bandwidthGBps(bytes, o.iters, ms) : 0);
    s.add({label, bytes, metric::kBw, metric::kBwUnits, '+', gbps, o.iters, ms});
  }
  s.print();
  s.freeSymmetric(dst);
  s.freeSymmetric(src);
}

}  // namespace

void runRma(Session& s) {
  const Options& o = s.options();
  if (o.test == Test::PutOnStreamBw) {
    runPutOnStream(s);
    return;
  }
  const TestInfo& t = testInfo(o.test);
  const bool get = o.test == Test::GetBw || o.test == Test::GetLatency;
  const bool bandwidth = t.kind == Kind::Bandwidth;
  const size_t capacity = o.maxBytes + kGuardBytes;
  auto* src = static_cast<uint8_t*>(s.allocSymmetric(capacity, "source buffer"));
  auto* dst = static_cast<uint8_t*>(s.allocSymmetric(capacity, "destination buffer"));
  const int me = s.pe(), peer = 1 - me;
  const bool drives = me == 0 || o.bidir;
  // Put: the driver's source lands in the peer's destination. Get: the driver reads the peer's
  // source into its own destination. Either way a receiving PE holds its peer's pattern.
  const bool receives = get ? drives : (me == 1 || o.bidir);
  const auto launchGet = launch<true>;
  const auto launchPut = launch<false>;
  const auto run = get ? launchGet : launchPut;

  bool ok = true;
  for (size_t si = 0; ok && si < o.scopes.size(); ++si) {
    const Scope scope = o.scopes[si];
    const unsigned block = static_cast<unsigned>(threadsFor(o, scope, s.waveSize()));
    const unsigned grid = static_cast<unsigned>(ctasFor(o));
    for (size_t bytes : sizeSweep(o)) {
      const uint64_t seed = s.seedFor(bytes, scope);
      prepareRound(s, src, dst, capacity, seed);

      double ms = 0;
      if (drives) {
        if (o.warmup) {
          run(scope, bandwidth, grid, block, s.stream(), dst, src, bytes, peer, o.warmup);
          MORI_PERF_HIP(hipGetLastError());
          s.sync("warm-up kernel");
        }
        ms = s.timeKernelMs([&] { run(scope, bandwidth, grid, block, s.stream(), dst, src, bytes, peer, o.iters); });
      }
      s.barrier("timed kernel");

      if (o.verify) {
        const std::string what = std::string(t.name) + " " + scopeName(scope) + " " + std::to_string(bytes) + " B";
        ok = checkRound(s, receives, dst, bytes, seed, peer, what);
        if (!ok) break;
      }

      if (bandwidth) {
        const double gbps = s.sumOverPes(drives ? bandwidthGBps(bytes, o.iters, ms) : 0);
        s.add({scopeName(scope), bytes, metric::kBw, metric::kBwUnits, '+', gbps, o.iters, ms});
        if (o.msgrate) {
          const size_t units = scope == Scope::Block  ? grid
                               : scope == Scope::Warp ? static_cast<size_t>(grid) * (block / s.waveSize())
                                                      : static_cast<size_t>(grid) * block;
          const uint64_t calls = nonEmptyShares(bytes, units);
          const double gops = s.sumOverPes(drives ? rateGops(calls, o.iters, ms) : 0);
          s.add({scopeName(scope), bytes, metric::kMsgrate, metric::kMsgrateUnits, '+', gops, o.iters, ms});
        }
      } else {
        s.add({scopeName(scope), bytes, metric::kLatency, metric::kLatencyUnits, '-', latencyUs(o.iters, ms), o.iters,
               ms});
      }
    }
    s.print();
  }
  s.freeSymmetric(dst);
  s.freeSymmetric(src);
}

}  // namespace mori::perf
