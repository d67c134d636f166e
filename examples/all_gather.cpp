// all_gather: every PE contributes one block of data and ends up with every PE's block, in PE
// order, in a symmetric output buffer. Each PE pushes its block into its own slot of every PE's
// output (itself included) with block-scope puts. Shown twice:
//   round 0, host-synchronised: a multi-block kernel puts, mori_shmem_quiet_block() completes
//            its puts, then the host's mori_shmem_barrier_all() waits for every PE; a second
//            kernel checks the result;
//   round 1, all on the GPU: one block puts, mori_shmem_barrier_all_block() (quiet + barrier)
//            waits for every PE's puts, and the same kernel checks the result.
//
// Run: mpirun -np 2 ./all_gather   (any number of PEs, one GPU each)
// Checks: every word of every PE's block in each round (rounds use different data, so a stale
// round-0 word fails round 1). Prints one verdict line; exits non-zero on any mismatch.
#include "example_common.hpp"

namespace {

constexpr size_t kWordsPerPe = 512 * 1024;  // 4 MiB contributed by each PE
constexpr size_t kBytesPerPe = kWordsPerPe * sizeof(uint64_t);
constexpr int kPutBlocks = 16;  // kWordsPerPe is a multiple: every block puts an equal slice
// Kernels that call the device API use many registers; __launch_bounds__ makes the compiler fit
// the block size we launch with (else such a launch can fail for lack of registers).
constexpr int kPutThreads = 256;
constexpr int kDeviceRoundThreads = 512;

// Block b puts slice b of this PE's input into slot `me` of every PE's output.
__global__ void __launch_bounds__(kPutThreads) allGatherPut(uint64_t* out, const uint64_t* in) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const size_t slice = kWordsPerPe / gridDim.x, begin = blockIdx.x * slice;
  for (int k = 0; k < n; ++k) {
    const int pe = (me + k) % n;  // PEs start with different targets so no PE is hit by all at once
    mori_shmem_putmem_nbi_block(out + me * kWordsPerPe + begin, in + begin, slice * sizeof(uint64_t), pe);
  }
  mori_shmem_quiet_block();  // this block's puts are delivered (the host barrier then covers all PEs)
}

__global__ void checkGathered(const uint64_t* out, uint64_t round, int n, Mismatches* bad) {
  const size_t total = static_cast<size_t>(n) * kWordsPerPe;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < total;
       w += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int pe = static_cast<int>(w / kWordsPerPe);
    if (out[w] != patternWord(round, pe, w % kWordsPerPe)) recordMismatch(bad, w);
  }
}

// One block does the whole exchange and checks it: no host round trip between the steps.
__global__ void __launch_bounds__(kDeviceRoundThreads)
    allGatherOnDevice(uint64_t* out, const uint64_t* in, uint64_t round, Mismatches* bad) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  for (int k = 0; k < n; ++k) mori_shmem_putmem_nbi_block(out + me * kWordsPerPe, in, kBytesPerPe, (me + k) % n);
  // Quiet (this PE's puts are delivered), then wait until every PE got that far: every slot of
  // this PE's output is now final.
  mori_shmem_barrier_all_block();
  const size_t total = static_cast<size_t>(n) * kWordsPerPe;
  for (size_t w = threadIdx.x; w < total; w += blockDim.x)
    if (out[w] != patternWord(round, static_cast<int>(w / kWordsPerPe), w % kWordsPerPe)) recordMismatch(bad, w);
}

// Reports this PE's mismatches for one round; returns how many there were.
uint64_t report(int me, const char* how, const Mismatches& m) {
  if (m.count)
    fprintf(stderr, "PE %d: %s: %llu bad words; first in the block of PE %llu at word %llu\n", me, how, m.count,
            m.firstIndex / kWordsPerPe, m.firstIndex % kWordsPerPe);
  return m.count;
}

}  // namespace

int main() {
  skipWithoutGpu("all_gather");
  CHECK_SHMEM(mori_shmem_init());
  skipIfPesShareGpus("all_gather");  // the device barrier waits for the other PEs' kernels
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();

  uint64_t* in = symmetricAlloc<uint64_t>(kWordsPerPe, false);  // symmetric: RDMA peers read it
  uint64_t* out = symmetricAlloc<uint64_t>(n * kWordsPerPe, true);
  Mismatches* badHost = newMismatches();
  Mismatches* badDevice = newMismatches();

  // Round 0: puts by many blocks, host barrier, separate check.
  fillPattern<<<64, 256>>>(in, kWordsPerPe, 0, me);
  CHECK_HIP(hipGetLastError());
  allGatherPut<<<kPutBlocks, kPutThreads>>>(out, in);
  CHECK_HIP(hipGetLastError());
  CHECK_SHMEM(mori_shmem_barrier_all());  // waits for this GPU, then for every PE
  checkGathered<<<64, 256>>>(out, 0, n, badHost);
  CHECK_HIP(hipGetLastError());
  // Nobody may overwrite a PE's output with round 1 before that PE has checked round 0.
  CHECK_SHMEM(mori_shmem_barrier_all());

  // Round 1: the whole collective in one kernel.
  fillPattern<<<64, 256>>>(in, kWordsPerPe, 1, me);
  CHECK_HIP(hipGetLastError());
  allGatherOnDevice<<<1, kDeviceRoundThreads>>>(out, in, 1, badDevice);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());

  uint64_t failures = report(me, "host-synchronised round", readMismatches(badHost));
  failures += report(me, "device round", readMismatches(badDevice));
  if (me == 0) printf("all_gather: %zu KiB per PE, %d PEs, host- and device-synchronised\n", kBytesPerPe / 1024, n);

  CHECK_HIP(hipFree(badHost));
  CHECK_HIP(hipFree(badDevice));
  CHECK_SHMEM(mori_shmem_barrier_all());
  mori_shmem_free(out);
  mori_shmem_free(in);
  return finish("all_gather", failures);
}
