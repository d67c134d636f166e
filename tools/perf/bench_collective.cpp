// alltoall, bcast, fcollect, reduction, reducescatter, barrier and sync on the world team: NVSHMEM perftest's
// collective tests, device forms (<name>_latency, perftest/device/coll) and stream forms
// (<name>_on_stream, perftest/host/coll).
//
// Device forms: every PE runs one CTA of 1 thread / 1 wave / -t threads (-s) whose loop calls the
// collective -n times; a kernel of -w calls runs first. Stream forms: every PE's host enqueues -n
// calls on its stream between two events, after -w calls. Each PE times its own calls; the row is
// the slower PE's time per call (latency, us). Collectives that move data also report BW: the
// bytes that land in each PE's destination per call over that time (GB/s, 1 GB = 1e9 B).
// <size> is those bytes: alltoall and fcollect move <size> / PEs from every PE into every PE's
// destination; broadcast (root PE 0) and reduction (sum) <size>; reducescatter (sum) reduces
// <size> of source, PEs x a piece, into each PE's piece of <size> / PEs (NVSHMEM perftest's size:
// latency only, no BW row). broadcast, fcollect and alltoall move 64-bit elements; reductions and
// reducescatter the -d type.
// Verification: after each size every PE's destination (broadcast: every PE but the root) must
// hold what the collective defines from the PEs' fresh sources (random bytes; reductions: small
// integers whose sum is exact in every type, expected_data.hpp), and the kGuardBytes after it the
// poison written before. Barrier and sync move no data: nothing to check beyond completing.
#include "tools/perf/harness.hpp"
#include "tools/perf/kernel_util.hpp"

namespace mori::perf {
namespace {

template <Scope S, Coll C, typename T>
MORI_PERF_DEVICE void callDevice(backend::Team team, T* dst, const T* src, size_t nelems) {
  if constexpr (C == Coll::Barrier) {
    backend::barrier<S>(team);
  } else if constexpr (C == Coll::Sync) {
    backend::teamSync<S>(team);
  } else if constexpr (C == Coll::Broadcast) {
    backend::broadcast64<S>(team, dst, src, nelems, 0);
  } else if constexpr (C == Coll::Fcollect) {
    backend::fcollect64<S>(team, dst, src, nelems);
  } else if constexpr (C == Coll::Alltoall) {
    backend::alltoall64<S>(team, dst, src, nelems);
  } else if constexpr (C == Coll::Reducescatter) {
    backend::sumReducescatter<S, T>(team, dst, src, nelems);
  } else {
    backend::sumReduce<S, T>(team, dst, src, nelems);
  }
}

template <Scope S, Coll C, typename T>
MORI_PERF_KERNEL_FOR(kLatencyBound<S>)
void collKernel(backend::Team team, T* dst, const T* src, size_t nelems, int iters) {
  for (int i = 0; i < iters; ++i) {
    callDevice<S, C, T>(team, dst, src, nelems);
    iterationBoundary();
  }
}

template <Coll C, typename T>
void launchDevice(Scope scope, unsigned threads, hipStream_t stream, backend::Team team, T* dst, const T* src,
                  size_t nelems, int iters) {
  switch (scope) {
    case Scope::Thread:
      collKernel<Scope::Thread, C, T><<<1, threads, 0, stream>>>(team, dst, src, nelems, iters);
      break;
    case Scope::Warp: collKernel<Scope::Warp, C, T><<<1, threads, 0, stream>>>(team, dst, src, nelems, iters); break;
    case Scope::Block: collKernel<Scope::Block, C, T><<<1, threads, 0, stream>>>(team, dst, src, nelems, iters); break;
  }
  MORI_PERF_HIP(hipGetLastError());
}

// One _on_stream call; fatal on a failed status.
template <Coll C, typename T>
void callOnStream(hipStream_t stream, backend::Team team, T* dst, const T* src, size_t nelems) {
  int rc = 0;
  if constexpr (C == Coll::Barrier) {
    rc = backend::barrierOnStream(team, stream);
  } else if constexpr (C == Coll::Sync) {
    rc = backend::teamSyncOnStream(team, stream);
  } else if constexpr (C == Coll::Broadcast) {
    rc = backend::broadcast64OnStream(team, dst, src, nelems, 0, stream);
  } else if constexpr (C == Coll::Fcollect) {
    rc = backend::fcollect64OnStream(team, dst, src, nelems, stream);
  } else if constexpr (C == Coll::Alltoall) {
    rc = backend::alltoall64OnStream(team, dst, src, nelems, stream);
  } else if constexpr (C == Coll::Reducescatter) {
    rc = backend::sumReducescatterOnStream<T>(team, dst, src, nelems, stream);
  } else {
    rc = backend::sumReduceOnStream<T>(team, dst, src, nelems, stream);
  }
  if (rc != 0) fatal("%s: a collective _on_stream call (%zu elements) returned %d", backend::name(), nelems, rc);
}

// ---- reduction data --------------------------------------------------------------------------

template <typename T>
MORI_PERF_HD T fromInt(int v) {
  if constexpr (std::is_same_v<T, backend::Bf16>)
    return gpu::fromFloat<backend::Bf16>(static_cast<float>(v));
  else
    return static_cast<T>(v);
}
template <typename T>
MORI_PERF_HD bool sameValue(T a, T b) {
  if constexpr (std::is_same_v<T, backend::Bf16>)
    return gpu::toFloat(a) == gpu::toFloat(b);
  else
    return a == b;
}

template <typename T>
__global__ void fillReduceKernel(T* p, size_t n, uint64_t key) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * static_cast<size_t>(blockDim.x))
    p[i] = fromInt<T>(reduceValue(key, i));
}

// counters[0] += elements that differ from the sum over PEs of the sources' elements base + i;
// counters[1] = min(first such index).
template <typename T>
__global__ void checkReduceKernel(const T* p, size_t n, size_t base, uint64_t seed, int npes,
                                  unsigned long long* counters) {
  unsigned long long bad = 0, firstBad = ~0ull;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * static_cast<size_t>(blockDim.x)) {
    int sum = 0;
    for (int pe = 0; pe < npes; ++pe) sum += reduceValue(patternKey(seed, pe), base + i);
    if (!sameValue(p[i], fromInt<T>(sum))) {
      ++bad;
      firstBad = firstBad < i ? firstBad : i;
    }
  }
  if (bad) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], firstBad);
  }
}

constexpr uint64_t kPoison = 0x706f69736f6e2121ull;

// One collective test of element type T (int64_t for all but the reductions).
template <Coll C, typename T>
void runTyped(Session& s) {
  const Options& o = s.options();
  const TestInfo& t = testInfo(o.test);
  const bool stream = onStream(o.test);
  const int me = s.pe(), npes = s.npes();
  const size_t capacity = o.maxBytes + kGuardBytes;
  auto* src = static_cast<uint8_t*>(s.allocSymmetric(capacity, "source buffer"));
  auto* dst = static_cast<uint8_t*>(s.allocSymmetric(capacity, "destination buffer"));
  unsigned long long* counters = nullptr;
  MORI_PERF_HIP(hipMalloc(&counters, 2 * sizeof(unsigned long long)));
  const backend::Team team = backend::worldTeam();
  const std::vector<Scope> scopes = stream ? std::vector<Scope>{Scope::Block} : o.scopes;

  bool ok = true;
  for (size_t si = 0; ok && si < scopes.size(); ++si) {
    const Scope scope = scopes[si];
    const char* label = stream ? "stream" : scopeName(scope);
    const unsigned threads = static_cast<unsigned>(threadsFor(o, scope, s.waveSize()));
    for (size_t bytes : sizeSweep(o)) {
      const size_t piece = collectivePieceBytes(o.test, o.dataType, bytes, npes);
      if (collMovesData(C) && piece == 0)
        fatal("%s: size %zu does not split into whole %zu-byte elements per PE over %d PEs", t.name, bytes,
              elementBytes(o.test, o.dataType), npes);
      const size_t nelems = piece / sizeof(T);
      const uint64_t seed = s.seedFor(bytes, scope), poison = seed ^ kPoison;
      if constexpr (collReduces(C)) {
        fillReduceKernel<T>
            <<<256, 256, 0, s.stream()>>>(reinterpret_cast<T*>(src), capacity / sizeof(T), patternKey(seed, me));
        MORI_PERF_HIP(hipGetLastError());
      } else {
        s.fillPattern(src, capacity, seed, me);
      }
      s.fillPattern(dst, capacity, poison, me);
      s.barrier("data setup");  // every PE's buffers are ready before anyone moves data

      T* d = reinterpret_cast<T*>(dst);
      const T* sr = reinterpret_cast<const T*>(src);
      double ms = 0;
      if (stream) {
        for (int i = 0; i < o.warmup; ++i) callOnStream<C, T>(s.stream(), team, d, sr, nelems);
        s.sync("warm-up calls");
        ms = s.timeKernelMs([&] {
          for (int i = 0; i < o.iters; ++i) callOnStream<C, T>(s.stream(), team, d, sr, nelems);
        });
      } else {
        if (o.warmup) {
          launchDevice<C, T>(scope, threads, s.stream(), team, d, sr, nelems, o.warmup);
          s.sync("warm-up kernel");
        }
        ms = s.timeKernelMs([&] { launchDevice<C, T>(scope, threads, s.stream(), team, d, sr, nelems, o.iters); });
      }
      s.barrier("timed calls");
      const double slowestMs = s.maxOverPes(ms);

      if (o.verify && collMovesData(C)) {
        const std::string what = std::string(t.name) + " " + label + " " + std::to_string(bytes) + " B";
        if constexpr (C == Coll::Broadcast) {
          // The root's own dest is left alone by some of NVSHMEM's algorithms (mori-shmem writes it:
          // test_collectives checks that): the other PEs are checked.
          ok = s.checkPattern(me != 0, dst, bytes, seed, 0, 0, what + ": destination (root PE 0's source)");
        } else if constexpr (C == Coll::Fcollect || C == Coll::Alltoall) {
          for (int j = 0; ok && j < npes; ++j)
            ok = s.checkPattern(true, dst + static_cast<size_t>(j) * piece, piece, seed, j,
                                C == Coll::Alltoall ? static_cast<uint64_t>(me) * piece : 0,
                                what + ": destination block " + std::to_string(j));
        } else {
          unsigned long long h[2] = {0, ~0ull};
          MORI_PERF_HIP(hipMemcpyAsync(counters, h, sizeof(h), hipMemcpyHostToDevice, s.stream()));
          // A reducescatter's dest is this PE's piece: the sums of the sources' elements from me * nelems.
          const size_t base = C == Coll::Reducescatter ? static_cast<size_t>(me) * nelems : 0;
          checkReduceKernel<T>
              <<<256, 256, 0, s.stream()>>>(reinterpret_cast<const T*>(dst), nelems, base, seed, npes, counters);
          MORI_PERF_HIP(hipGetLastError());
          MORI_PERF_HIP(hipMemcpyAsync(h, counters, sizeof(h), hipMemcpyDeviceToHost, s.stream()));
          s.sync("reduction check");
          ok = s.agreeMismatch(h[0], h[1], what + ": destination (sum over PEs)");
        }
        const size_t destBytes = C == Coll::Reducescatter ? piece : bytes;
        ok = ok && s.checkPattern(true, dst + destBytes, kGuardBytes, poison, me, destBytes,
                                  what + ": the bytes past the destination were overwritten");
        if (!ok) break;
      }

      s.add({label, bytes, metric::kLatency, metric::kLatencyUnits, '-', latencyUs(o.iters, slowestMs), o.iters,
             slowestMs});
      if (collMovesData(C) && C != Coll::Reducescatter)
        s.add({label, bytes, metric::kBw, metric::kBwUnits, '+', bandwidthGBps(bytes, o.iters, slowestMs), o.iters,
               slowestMs});
    }
    s.print();
  }
  (void)hipFree(counters);
  s.freeSymmetric(dst);
  s.freeSymmetric(src);
}

template <Coll C>
void runReduction(Session& s, DataType type) {
  switch (type) {
    case DataType::Int32: runTyped<C, int32_t>(s); break;
    case DataType::Int64: runTyped<C, int64_t>(s); break;
    case DataType::Float: runTyped<C, float>(s); break;
    case DataType::Bfloat16: runTyped<C, backend::Bf16>(s); break;
  }
}

}  // namespace

void runCollective(Session& s) {
  const Options& o = s.options();
  switch (collOf(o.test)) {
    case Coll::Barrier: runTyped<Coll::Barrier, int64_t>(s); break;
    case Coll::Sync: runTyped<Coll::Sync, int64_t>(s); break;
    case Coll::Broadcast: runTyped<Coll::Broadcast, int64_t>(s); break;
    case Coll::Fcollect: runTyped<Coll::Fcollect, int64_t>(s); break;
    case Coll::Alltoall: runTyped<Coll::Alltoall, int64_t>(s); break;
    case Coll::Reduction: runReduction<Coll::Reduction>(s, o.dataType); break;
    case Coll::Reducescatter: runReduction<Coll::Reducescatter>(s, o.dataType); break;
  }
}

}  // namespace mori::perf
