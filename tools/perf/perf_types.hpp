// Vocabulary of mori-shmem-perf shared by the host-only command line and report code and by the
// GPU kernels: which test, which cooperation scope, which atomic operation. Plain enums, no
// dependencies, so that device code and CPU unit tests can both include it.
#pragma once

// Functions that host code and GPU kernels both call.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define MORI_PERF_HD __host__ __device__ inline
#else
#define MORI_PERF_HD inline
#endif

namespace mori::perf {

// NVSHMEM perftest's point-to-point tests (perftest/device/pt-to-pt), plus shmem_init_time, and
// its collective tests: device forms (perftest/device/coll, <name>_latency) and stream forms
// (perftest/host/coll, <name>_on_stream); and shmem_put_on_stream_bw, the host's stream-ordered put.
enum class Test {
  PutBw,
  GetBw,
  PutLatency,
  GetLatency,
  PBw,
  PLatency,
  AtomicBw,
  AtomicLatency,
  PutPingPongLatency,
  PutSignalPingPongLatency,
  InitTime,
  AlltoallLatency,
  BcastLatency,
  FcollectLatency,
  ReductionLatency,
  ReducescatterLatency,
  BarrierLatency,
  SyncLatency,
  AlltoallOnStream,
  BroadcastOnStream,
  FcollectOnStream,
  ReductionOnStream,
  ReducescatterOnStream,
  BarrierOnStream,
  SyncOnStream,
  PutOnStreamBw
};

// How a test is driven and what it reports.
enum class Kind {
  Bandwidth,  // PE 0 (both with --bidir) runs a grid of -c x -t (or, for shmem_put_on_stream_bw, its
              // host enqueues the calls on a stream); GB/s and message rate
  Latency,    // PE 0 runs one CTA; microseconds per iteration
  PingPong,   // both PEs run one CTA; microseconds per round trip
  Init,       // time of the library's initialisation
  Collective  // every PE calls the collective on the world team: one CTA sized by the scope
              // (device forms) or the host's _on_stream calls; microseconds per call
};

// The collective a collective test runs.
enum class Coll { Alltoall, Broadcast, Fcollect, Reduction, Reducescatter, Barrier, Sync };
// Collectives that sum the -d type (reduction, reducescatter).
constexpr bool collReduces(Coll c) { return c == Coll::Reduction || c == Coll::Reducescatter; }

// Element types of the reduction and reducescatter tests (-d); the other data collectives move 64-bit elements,
// as NVSHMEM's perftest does by default.
enum class DataType { Int32, Int64, Float, Bfloat16 };

// Who calls one device operation together: one thread, every lane of a wave (warp), or every
// thread of a block. (The _on_stream collectives have no scope: their rows say "stream".)
enum class Scope { Thread, Warp, Block };

// The -a operations of shmem_atomic_bw / shmem_atomic_latency, on uint64_t.
enum class AtomicOp {
  Inc,
  FetchInc,
  Add,
  FetchAdd,
  Set,
  Swap,
  CompareSwap,
  And,
  FetchAnd,
  Or,
  FetchOr,
  Xor,
  FetchXor,
  Fetch
};

}  // namespace mori::perf
