// Micro-benchmark behind the P2P signal/quiet design: which fence makes "data, then signal" and
// "put, then quiet" correct at the lowest latency between two GPUs of one process (peer access).
// Variants (all through mori/platform/atomic.hpp, so the same source runs on AMD):
//   sc_fence      fence(SeqCst, System) then relaxed store      (what __threadfence_system does)
//   release_fence fence(Release, System) then relaxed store
//   release_store store(Release, System)
//   none          relaxed store only: the raw flag ping-pong, the floor (no ordering guarantee)
// Prints one JSON object per measurement. Checks every payload it receives.
#include <stdio.h>
#include <stdlib.h>

#include "micro_check.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/gpu_runtime.hpp"

namespace g = mori::gpu;

enum Variant { kScFence = 0, kReleaseFence = 1, kReleaseStore = 2, kNone = 3 };
static const char* kNames[] = {"sc_fence", "release_fence", "release_store", "none"};

template <int V>
__device__ __forceinline__ void signal(uint64_t* flag, uint64_t v) {
  if constexpr (V == kScFence) {
    g::fenceSystem();
    g::atomicStore<g::Order::Relaxed, g::Scope::System>(flag, v);
  } else if constexpr (V == kReleaseFence) {
    g::atomicFence<g::Order::Release, g::Scope::System>();
    g::atomicStore<g::Order::Relaxed, g::Scope::System>(flag, v);
  } else if constexpr (V == kReleaseStore) {
    g::atomicStore<g::Order::Release, g::Scope::System>(flag, v);
  } else {
    g::atomicStore<g::Order::Relaxed, g::Scope::System>(flag, v);
  }
}

// Round i: the initiator writes payload i to the peer, signals; the peer waits, checks, answers.
template <int V>
__global__ void pingPong(uint64_t* myFlag, uint64_t* peerFlag, uint64_t* myData, uint64_t* peerData, int iters,
                         bool initiator, unsigned long long* bad) {
  for (int i = 1; i <= iters; ++i) {
    if (initiator) {
      *reinterpret_cast<volatile uint64_t*>(peerData) = 0x1000 + i;
      signal<V>(peerFlag, i);
      while (g::atomicLoad<g::Order::Acquire, g::Scope::System>(myFlag) != static_cast<uint64_t>(i)) {
      }
      if (*reinterpret_cast<volatile uint64_t*>(myData) != 0x2000u + i) atomicAdd(bad, 1ull);
    } else {
      while (g::atomicLoad<g::Order::Acquire, g::Scope::System>(myFlag) != static_cast<uint64_t>(i)) {
      }
      if (*reinterpret_cast<volatile uint64_t*>(myData) != 0x1000u + i) atomicAdd(bad, 1ull);
      *reinterpret_cast<volatile uint64_t*>(peerData) = 0x2000 + i;
      signal<V>(peerFlag, i);
    }
  }
}

// put (16 B) then the quiet candidate, in a loop: the "put + quiet" latency.
template <int V>
__global__ void putQuiet(uint4* peer, int iters) {
  for (int i = 0; i < iters; ++i) {
    peer[i & 1023] = make_uint4(i, i, i, i);
    if constexpr (V == kScFence) g::fenceSystem();
    if constexpr (V == kReleaseFence) g::atomicFence<g::Order::Release, g::Scope::System>();
    if constexpr (V == kReleaseStore) g::atomicFence<g::Order::AcqRel, g::Scope::System>();
  }
}

template <int V>
void runVariant(uint64_t* mem[2], unsigned long long* bad[2], int iters) {
  for (int d = 0; d < 2; ++d) {
    MICRO_OK(hipSetDevice(d));
    MICRO_OK(hipMemset(mem[d], 0, 4096));
  }
  hipEvent_t a, b;
  MICRO_OK(hipSetDevice(0));
  MICRO_OK(hipEventCreate(&a));
  MICRO_OK(hipEventCreate(&b));
  MICRO_OK(hipDeviceSynchronize());
  MICRO_OK(hipSetDevice(1));
  MICRO_OK(hipDeviceSynchronize());
  pingPong<V><<<1, 1>>>(mem[1], mem[0], mem[1] + 64, mem[0] + 64, iters, false, bad[1]);
  MICRO_OK(hipSetDevice(0));
  MICRO_OK(hipEventRecord(a));
  pingPong<V><<<1, 1>>>(mem[0], mem[1], mem[0] + 64, mem[1] + 64, iters, true, bad[0]);
  MICRO_OK(hipEventRecord(b));
  MICRO_OK(hipEventSynchronize(b));
  float ms = 0;
  MICRO_OK(hipEventElapsedTime(&ms, a, b));
  MICRO_OK(hipSetDevice(1));
  MICRO_OK(hipDeviceSynchronize());
  unsigned long long nbad[2] = {0, 0};
  for (int d = 0; d < 2; ++d) {
    MICRO_OK(hipSetDevice(d));
    MICRO_OK(hipMemcpy(&nbad[d], bad[d], sizeof(nbad[d]), hipMemcpyDeviceToHost));
  }
  printf(
      "{\"test\": \"signal_ping_pong\", \"variant\": \"%s\", \"iters\": %d, \"round_trip_us\": %.3f, "
      "\"bad_payloads\": %llu}\n",
      kNames[V], iters, ms * 1000.0 / iters, nbad[0] + nbad[1]);
  MICRO_OK(hipSetDevice(0));
  putQuiet<V><<<1, 1>>>(reinterpret_cast<uint4*>(mem[1] + 128), iters);
  MICRO_OK(hipDeviceSynchronize());
  MICRO_OK(hipEventRecord(a));
  putQuiet<V><<<1, 1>>>(reinterpret_cast<uint4*>(mem[1] + 128), iters);
  MICRO_OK(hipEventRecord(b));
  MICRO_OK(hipEventSynchronize(b));
  MICRO_OK(hipEventElapsedTime(&ms, a, b));
  printf("{\"test\": \"put16_then_fence\", \"variant\": \"%s\", \"iters\": %d, \"latency_us\": %.3f}\n", kNames[V],
         iters, ms * 1000.0 / iters);
  MICRO_OK(hipEventDestroy(a));
  MICRO_OK(hipEventDestroy(b));
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 20000;
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess || n < 2) {
    printf("SKIPPED: needs 2 GPUs (%d visible)\n", n);
    return 77;
  }
  uint64_t* mem[2];
  unsigned long long* bad[2];
  for (int d = 0; d < 2; ++d) {
    MICRO_OK(hipSetDevice(d));
    MICRO_OK(hipDeviceEnablePeerAccess(1 - d, 0));
    MICRO_OK(hipMalloc(&mem[d], 1 << 20));
    MICRO_OK(hipMalloc(&bad[d], sizeof(unsigned long long)));
    MICRO_OK(hipMemset(bad[d], 0, sizeof(unsigned long long)));
  }
  runVariant<kNone>(mem, bad, iters);
  runVariant<kScFence>(mem, bad, iters);
  runVariant<kReleaseFence>(mem, bad, iters);
  runVariant<kReleaseStore>(mem, bad, iters);
  return 0;
}
