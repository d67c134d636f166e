// ring_put_signal: messages travel around a ring of PEs. In round 0 every PE sends its own message
// to its right neighbour; in every later round it forwards the message it received in the round
// before. Data and its arrival notice travel together: mori_shmem_putmem_signal_nbi_block
// delivers the bytes and then adds 1 to the receiver's signal word, so a receiver that sees the
// signal reach r + 1 knows that round r's message is complete and may read (and forward) it.
//
// Run: mpirun -np 2 ./ring_put_signal   (any number of PEs, one GPU each)
// Checks: every message against its origin's pattern, the moment its signal arrives; the final
// signal value. Prints one verdict line; exits non-zero on any mismatch.
#include "example_common.hpp"

namespace {

constexpr int kRounds = 8;
constexpr size_t kWords = 64 * 1024;  // 512 KiB per message
constexpr size_t kBytes = kWords * sizeof(uint64_t);
constexpr uint64_t kSeed = 7;
// Kernels that call the device API use many registers; __launch_bounds__ makes the compiler fit
// the block size we launch with (else a 512-thread launch can fail for lack of registers).
constexpr int kThreads = 512;

// One block per PE. `slots` holds one message per round, so round r's slot is written exactly
// once and never reused: no flow control is needed between neighbours.
__global__ void __launch_bounds__(kThreads)
    ring(uint64_t* slots, const uint64_t* own, uint64_t* signal, Mismatches* bad) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const int right = (me + 1) % n;
  for (int r = 0; r < kRounds; ++r) {
    // Round 0 sends this PE's message; later rounds forward what arrived in the previous round.
    const uint64_t* message = r == 0 ? own : slots + (r - 1) * kWords;
    mori_shmem_putmem_signal_nbi_block(slots + r * kWords, message, kBytes, signal, 1, MORI_SHMEM_SIGNAL_ADD, right);

    // The left neighbour sends its rounds in order, so the (r+1)-th signal closes round r.
    if (threadIdx.x == 0) mori_shmem_signal_wait_until(signal, MORI_SHMEM_CMP_GE, static_cast<uint64_t>(r + 1));
    __syncthreads();  // the whole block reads the message only after the signal was seen

    // The message received in round r started at the PE r + 1 steps to the left.
    const int origin = ((me - 1 - r) % n + n) % n;
    const uint64_t* received = slots + r * kWords;
    for (size_t i = threadIdx.x; i < kWords; i += blockDim.x)
      if (received[i] != patternWord(kSeed, origin, i)) recordMismatch(bad, r * kWords + i);
    __syncthreads();
  }
  // The last round's put must be delivered before the kernel ends.
  mori_shmem_quiet_block();
}

}  // namespace

int main() {
  skipWithoutGpu("ring_put_signal");
  CHECK_SHMEM(mori_shmem_init());
  skipIfPesShareGpus("ring_put_signal");
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();

  // Symmetric buffers: the source of a put to an RDMA peer must be symmetric too.
  uint64_t* own = symmetricAlloc<uint64_t>(kWords, false);
  uint64_t* slots = symmetricAlloc<uint64_t>(kRounds * kWords, true);
  uint64_t* signal = symmetricAlloc<uint64_t>(1, true);
  Mismatches* bad = newMismatches();

  fillPattern<<<64, 256>>>(own, kWords, kSeed, me);
  CHECK_HIP(hipGetLastError());
  // Every PE's message and zeroed signal must be in place before any PE sends.
  CHECK_SHMEM(mori_shmem_barrier_all());

  ring<<<1, kThreads>>>(slots, own, signal, bad);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());

  const Mismatches m = readMismatches(bad);
  uint64_t finalSignal = 0;
  CHECK_HIP(hipMemcpy(&finalSignal, signal, sizeof(finalSignal), hipMemcpyDeviceToHost));
  uint64_t failures = m.count;
  if (m.count)
    fprintf(stderr, "PE %d: %llu bad words; first in round %llu at word %llu\n", me, m.count, m.firstIndex / kWords,
            m.firstIndex % kWords);
  if (finalSignal != kRounds) {
    fprintf(stderr, "PE %d: signal is %llu after %d rounds\n", me, static_cast<unsigned long long>(finalSignal),
            kRounds);
    ++failures;
  }
  if (me == 0) printf("ring_put_signal: %d rounds of %zu KiB around %d PEs\n", kRounds, kBytes / 1024, n);

  CHECK_HIP(hipFree(bad));
  CHECK_SHMEM(mori_shmem_barrier_all());  // no PE frees what a neighbour may still write
  mori_shmem_free(signal);
  mori_shmem_free(slots);
  mori_shmem_free(own);
  return finish("ring_put_signal", failures);
}
