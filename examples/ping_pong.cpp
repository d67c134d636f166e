// ping_pong: PE 0 and PE 1 bounce a 64-byte message, one GPU thread on each side. In round r
// PE 0 puts its message into PE 1's inbox with mori_shmem_putmem_signal_nbi_thread, setting
// PE 1's signal word to r + 1; PE 1 waits for that value, checks the message and answers the same
// way. All rounds run inside one kernel (a kernel launch alone costs ~10 us, more than a round
// trip), timed with GPU events: the round-trip time is the kernel time over the rounds.
//
// Run: mpirun -np 2 ./ping_pong   (PEs beyond the first two only take part in the barriers)
// Checks: every message on arrival, on both sides, in every round (warm-up included), and the
// signal value seen. Prints the round-trip time and one verdict line; exits non-zero on mismatch.
#include "example_common.hpp"

namespace {

constexpr size_t kMessageWords = 8;  // 64 bytes
constexpr size_t kMessageBytes = kMessageWords * sizeof(uint64_t);
constexpr int kWarmupRounds = 1000;
constexpr int kTimedRounds = 20000;

// Writes round r's message into `outbox` and sends it to `peer`, where it lands in `inbox` and
// then sets the peer's signal word to r + 1. Reusing `outbox` every round is safe without a
// quiet: a PE sends again only after the peer answered, and the peer answered only after this
// PE's previous message, and so the read of `outbox` behind it, was complete.
__device__ void send(uint64_t* inbox, uint64_t* outbox, uint64_t* signal, int r, int me, int peer) {
  for (size_t i = 0; i < kMessageWords; ++i) outbox[i] = patternWord(static_cast<uint64_t>(r), me, i);
  mori_shmem_putmem_signal_nbi_thread(inbox, outbox, kMessageBytes, signal, static_cast<uint64_t>(r) + 1,
                                      MORI_SHMEM_SIGNAL_SET, peer);
}

// Waits for round r's message from `peer` and counts what is wrong with it. The inbox is
// overwritten only by the peer's next message, which comes after this PE has answered.
__device__ void receive(const uint64_t* inbox, uint64_t* signal, int r, int peer, unsigned long long* bad) {
  const uint64_t seen = mori_shmem_signal_wait_until(signal, MORI_SHMEM_CMP_GE, static_cast<uint64_t>(r) + 1);
  if (seen != static_cast<uint64_t>(r) + 1) ++*bad;  // SET by one sender, one round at a time: exact
  for (size_t i = 0; i < kMessageWords; ++i)
    if (inbox[i] != patternWord(static_cast<uint64_t>(r), peer, i)) ++*bad;
}

// Launched with one thread, on PE 0 and PE 1 only.
__global__ void pingPong(uint64_t* inbox, uint64_t* outbox, uint64_t* signal, int firstRound, int rounds,
                         unsigned long long* bad) {
  const int me = mori_shmem_my_pe(), peer = 1 - me;
  for (int r = firstRound; r < firstRound + rounds; ++r) {
    if (me == 0) {
      send(inbox, outbox, signal, r, me, peer);
      receive(inbox, signal, r, peer, bad);
    } else {
      receive(inbox, signal, r, peer, bad);
      send(inbox, outbox, signal, r, me, peer);
    }
  }
  mori_shmem_quiet();
}

}  // namespace

int main() {
  skipWithoutGpu("ping_pong");
  CHECK_SHMEM(mori_shmem_init());
  skipIfPesShareGpus("ping_pong");
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  if (n < 2) {
    fprintf(stderr, "ping_pong: needs 2 PEs, has %d: run it as mpirun -np 2 ./ping_pong\n", n);
    CHECK_SHMEM(mori_shmem_finalize());
    return 1;
  }

  uint64_t* inbox = symmetricAlloc<uint64_t>(kMessageWords, true);
  uint64_t* outbox = symmetricAlloc<uint64_t>(kMessageWords, true);  // symmetric: RDMA peers read it
  uint64_t* signal = symmetricAlloc<uint64_t>(1, true);
  unsigned long long* bad = nullptr;
  CHECK_HIP(hipMalloc(&bad, sizeof(*bad)));
  CHECK_HIP(hipMemset(bad, 0, sizeof(*bad)));
  hipEvent_t start, stop;
  CHECK_HIP(hipEventCreate(&start));
  CHECK_HIP(hipEventCreate(&stop));
  const bool player = me < 2;

  CHECK_SHMEM(mori_shmem_barrier_all());  // zeroed signals everywhere before the first message
  if (player) pingPong<<<1, 1>>>(inbox, outbox, signal, 0, kWarmupRounds, bad);
  CHECK_HIP(hipGetLastError());
  // Both sides start the timed kernel within a barrier's latency of each other; over the timed
  // rounds that start-up skew is well under 1% of the total.
  CHECK_SHMEM(mori_shmem_barrier_all());
  CHECK_HIP(hipEventRecord(start));
  if (player) pingPong<<<1, 1>>>(inbox, outbox, signal, kWarmupRounds, kTimedRounds, bad);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipEventRecord(stop));
  CHECK_HIP(hipEventSynchronize(stop));
  float ms = 0;
  CHECK_HIP(hipEventElapsedTime(&ms, start, stop));

  unsigned long long failures = 0;
  CHECK_HIP(hipMemcpy(&failures, bad, sizeof(failures), hipMemcpyDeviceToHost));
  if (failures) fprintf(stderr, "PE %d: %llu mismatched message words or signal values\n", me, failures);
  if (me == 0)
    printf("ping_pong: %zu-byte put+signal round trip %.2f us (%d rounds, one thread per PE)\n", kMessageBytes,
           static_cast<double>(ms) * 1e3 / kTimedRounds, kTimedRounds);

  CHECK_HIP(hipEventDestroy(start));
  CHECK_HIP(hipEventDestroy(stop));
  CHECK_HIP(hipFree(bad));
  CHECK_SHMEM(mori_shmem_barrier_all());
  mori_shmem_free(signal);
  mori_shmem_free(outbox);
  mori_shmem_free(inbox);
  return finish("ping_pong", failures);
}
