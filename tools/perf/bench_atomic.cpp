// shmem_atomic_bw and shmem_atomic_latency: uint64 atomics (-a) from PE 0 on PE 1's words.
//
// Bandwidth: every thread of the -c x -t grid applies the operation to words j = tid, tid +
// threads, ... of the <size> bytes (distinct addresses) each iteration; one quiet per CTA at the
// end. GB/s = size * n / time; --msgrate: (size / 8) * n / time in G operations per second.
// Latency: one CTA of -t threads (default 1) applies it to the words, then one quiet, per iteration.
// Fetching operations fold the values they fetch into a register that the kernel keeps live, so a
// fetch cannot be compiled into a non-fetching reduction, on either library.
//
// Verification (expected_data.hpp): operation k on a word uses operand amoOperand(op, k); every
// word gets exactly one operation per iteration, so after the warm-up and the timed loop each of
// PE 1's words must equal amoExpected(op, w + n). Fetching operations are then applied once more
// by a checking kernel that compares every fetched value with amoExpected(op, w + n); the words
// must end at amoExpected(op, w + n + 1). The guard words after the targets must be untouched.
#include "tools/perf/harness.hpp"
#include "tools/perf/kernel_util.hpp"

namespace mori::perf {
namespace {

constexpr uint64_t kSinkMagic = 0x73696e6b73696e6bull;
constexpr uint64_t kGuardWord = 0x6775617264677561ull;

template <AtomicOp OP>
MORI_PERF_KERNEL void atomicBwKernel(uint64_t* dst, size_t words, int peer, uint64_t base, int iters, uint64_t* sink) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  uint64_t fetched = 0;
  for (int i = 0; i < iters; ++i) {
    const uint64_t k = base + static_cast<uint64_t>(i);
    const uint64_t operand = amoOperand(OP, k), cond = amoCond(OP, k);
    for (size_t j = tid; j < words; j += threads) fetched ^= backend::amo<OP>(dst + j, operand, cond, peer);
  }
  if (fetched == kSinkMagic) *sink = fetched;  // keeps fetched values live
  scopeQuiet<Scope::Block>();
}

template <AtomicOp OP, int kBound>
MORI_PERF_KERNEL_FOR(kBound)
void atomicLatencyKernel(uint64_t* dst, size_t words, int peer, uint64_t base, int iters, uint64_t* sink) {
  uint64_t fetched = 0;
  for (int i = 0; i < iters; ++i) {
    const uint64_t k = base + static_cast<uint64_t>(i);
    const uint64_t operand = amoOperand(OP, k), cond = amoCond(OP, k);
    for (size_t j = threadIdx.x; j < words; j += blockDim.x) fetched ^= backend::amo<OP>(dst + j, operand, cond, peer);
    scopeQuiet<Scope::Block>();
  }
  if (fetched == kSinkMagic) *sink = fetched;
}

// Operation number k once more on every word; counts fetched values that differ from `expected`.
template <AtomicOp OP>
MORI_PERF_KERNEL void atomicFetchCheckKernel(uint64_t* dst, size_t words, int peer, uint64_t k, uint64_t expected,
                                             unsigned long long* bad) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  unsigned long long mine = 0;
  for (size_t j = tid; j < words; j += threads)
    mine += backend::amo<OP>(dst + j, amoOperand(OP, k), amoCond(OP, k), peer) != expected;
  if (mine) atomicAdd(bad, mine);
  scopeQuiet<Scope::Block>();
}

struct Launch {
  bool bandwidth;
  unsigned grid, block;
  hipStream_t stream;
  uint64_t* dst;
  size_t words;
  int peer;
  uint64_t* sink;
};

template <AtomicOp OP>
void timedKernel(const Launch& l, uint64_t base, int iters) {
  if (l.bandwidth)
    atomicBwKernel<OP><<<l.grid, l.block, 0, l.stream>>>(l.dst, l.words, l.peer, base, iters, l.sink);
  else
    launchWithinBound(l.block, [&](auto bound) {
      atomicLatencyKernel<OP, decltype(bound)::value>
          <<<l.grid, l.block, 0, l.stream>>>(l.dst, l.words, l.peer, base, iters, l.sink);
    });
}

template <AtomicOp OP>
void checkKernel(const Launch& l, uint64_t k, uint64_t expected, unsigned long long* bad) {
  atomicFetchCheckKernel<OP><<<l.grid, l.block, 0, l.stream>>>(l.dst, l.words, l.peer, k, expected, bad);
}

// The kernel pair of one operation.
struct OpKernels {
  void (*timed)(const Launch&, uint64_t, int);
  void (*check)(const Launch&, uint64_t, uint64_t, unsigned long long*);
};

template <AtomicOp OP>
constexpr OpKernels kernelsOf() {
  return {&timedKernel<OP>, &checkKernel<OP>};
}

OpKernels kernelsFor(AtomicOp op) {
  switch (op) {
    case AtomicOp::Inc: return kernelsOf<AtomicOp::Inc>();
    case AtomicOp::FetchInc: return kernelsOf<AtomicOp::FetchInc>();
    case AtomicOp::Add: return kernelsOf<AtomicOp::Add>();
    case AtomicOp::FetchAdd: return kernelsOf<AtomicOp::FetchAdd>();
    case AtomicOp::Set: return kernelsOf<AtomicOp::Set>();
    case AtomicOp::Swap: return kernelsOf<AtomicOp::Swap>();
    case AtomicOp::CompareSwap: return kernelsOf<AtomicOp::CompareSwap>();
    case AtomicOp::And: return kernelsOf<AtomicOp::And>();
    case AtomicOp::FetchAnd: return kernelsOf<AtomicOp::FetchAnd>();
    case AtomicOp::Or: return kernelsOf<AtomicOp::Or>();
    case AtomicOp::FetchOr: return kernelsOf<AtomicOp::FetchOr>();
    case AtomicOp::Xor: return kernelsOf<AtomicOp::Xor>();
    case AtomicOp::FetchXor: return kernelsOf<AtomicOp::FetchXor>();
    case AtomicOp::Fetch: return kernelsOf<AtomicOp::Fetch>();
  }
  fatal("no kernels for atomic operation %d", static_cast<int>(op));
}

}  // namespace

void runAtomic(Session& s) {
  const Options& o = s.options();
  const TestInfo& t = testInfo(o.test);
  const AtomicOp op = o.atomicOp;
  const OpKernels kernels = kernelsFor(op);
  const size_t capacityWords = (o.maxBytes + kGuardBytes) / 8;
  auto* dst = static_cast<uint64_t*>(s.allocSymmetric(capacityWords * 8, "atomic target words"));
  uint64_t* sink = nullptr;
  unsigned long long* bad = nullptr;
  MORI_PERF_HIP(hipMalloc(&sink, sizeof(uint64_t)));
  MORI_PERF_HIP(hipMalloc(&bad, sizeof(unsigned long long)));
  const int me = s.pe(), peer = 1 - me;
  const std::string label = std::string(t.name) + " -a " + atomicOpName(op);
  const std::string scope = scopeName(Scope::Thread);  // one operation per thread

  for (size_t bytes : sizeSweep(o)) {
    const size_t words = bytes / 8, guardWords = kGuardBytes / 8;
    Launch l{t.kind == Kind::Bandwidth,
             static_cast<unsigned>(ctasFor(o)),
             static_cast<unsigned>(threadsFor(o, Scope::Thread, s.waveSize())),
             s.stream(),
             dst,
             words,
             peer,
             sink};
    s.fillWords(dst, words, amoInitial(op));
    s.fillWords(dst + words, guardWords, kGuardWord);
    s.barrier("target setup");

    double ms = 0;
    if (me == 0) {
      if (o.warmup) {
        kernels.timed(l, 0, o.warmup);
        MORI_PERF_HIP(hipGetLastError());
        s.sync("warm-up kernel");
      }
      ms = s.timeKernelMs([&] { kernels.timed(l, static_cast<uint64_t>(o.warmup), o.iters); });
    }
    s.barrier("timed kernel");

    if (o.verify) {
      uint64_t done = static_cast<uint64_t>(o.warmup) + static_cast<uint64_t>(o.iters);
      const std::string what = label + " " + std::to_string(bytes) + " B";
      if (atomicFetches(op)) {
        unsigned long long h = 0;
        if (me == 0) {
          MORI_PERF_HIP(hipMemcpyAsync(bad, &h, sizeof(h), hipMemcpyHostToDevice, s.stream()));
          kernels.check(l, done, amoExpected(op, done), bad);
          MORI_PERF_HIP(hipGetLastError());
          MORI_PERF_HIP(hipMemcpyAsync(&h, bad, sizeof(h), hipMemcpyDeviceToHost, s.stream()));
        }
        s.barrier("fetch check");
        if (!s.agree(h, what + ": values returned by the fetching operation")) break;
        ++done;
      }
      if (!s.checkWords(me == 1, dst, words, amoExpected(op, done), what + ": target words")) break;
      if (!s.checkWords(me == 1, dst + words, guardWords, kGuardWord, what + ": the words past the targets changed"))
        break;
    }

    if (t.kind == Kind::Bandwidth) {
      s.add({scope, bytes, metric::kBw, metric::kBwUnits, '+', bandwidthGBps(bytes, o.iters, ms), o.iters, ms});
      if (o.msgrate)
        s.add({scope, bytes, metric::kMsgrate, metric::kMsgrateUnits, '+', rateGops(words, o.iters, ms), o.iters, ms});
    } else {
      s.add({scope, bytes, metric::kLatency, metric::kLatencyUnits, '-', latencyUs(o.iters, ms), o.iters, ms});
    }
  }
  s.print();
  MORI_PERF_HIP(hipFree(bad));
  MORI_PERF_HIP(hipFree(sink));
  s.freeSymmetric(dst);
}

}  // namespace mori::perf
