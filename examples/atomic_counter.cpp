// atomic_counter: one ticket dispenser for the whole job. Every GPU thread of every PE takes
// tickets from a single counter that lives on PE 0, with
// mori_shmem_uint64_atomic_fetch_add(counter, 1, 0). A fetch_add returns the value before the
// add, so if the atomics are atomic across PEs the tickets handed out are exactly
// 0, 1, ..., total - 1, each once, and the counter ends at total.
//
// Run: mpirun -np 2 ./atomic_counter   (any number of PEs; they may share a GPU, since no kernel
// waits for another PE)
// Checks: the tickets, gathered on PE 0, are a permutation of 0..total-1; PE 0's counter equals
// total; no other PE's copy of the counter changed. Prints one verdict line; exits non-zero on a
// mismatch.
#include <vector>

#include "example_common.hpp"

namespace {

constexpr int kBlocks = 64;
constexpr int kThreads = 256;
constexpr int kTicketsPerThread = 4;
constexpr size_t kTicketsPerPe = static_cast<size_t>(kBlocks) * kThreads * kTicketsPerThread;
// Kernels that call the device API use many registers; __launch_bounds__ makes the compiler fit
// the block size we launch with (else such a launch can fail for lack of registers).
constexpr int kSendThreads = 512;

__global__ void __launch_bounds__(kThreads) takeTickets(uint64_t* counter, uint64_t* tickets) {
  const size_t thread = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int k = 0; k < kTicketsPerThread; ++k)
    tickets[k * threads + thread] = mori_shmem_uint64_atomic_fetch_add(counter, 1, 0);
}

// One block copies this PE's tickets into its slot of PE 0's `gathered`.
__global__ void __launch_bounds__(kSendThreads) sendTicketsToPe0(uint64_t* gathered, const uint64_t* tickets) {
  const int me = mori_shmem_my_pe();
  mori_shmem_putmem_nbi_block(gathered + me * kTicketsPerPe, tickets, kTicketsPerPe * sizeof(uint64_t), 0);
  mori_shmem_quiet_block();
}

// PE 0: every ticket in [0, total) handed out exactly once. Returns the number of problems.
uint64_t checkPermutation(const std::vector<uint64_t>& tickets) {
  const uint64_t total = tickets.size();
  std::vector<uint8_t> seen(total, 0);
  uint64_t outOfRange = 0, duplicates = 0;
  for (size_t i = 0; i < tickets.size(); ++i) {
    const uint64_t t = tickets[i];
    const char* problem = nullptr;
    if (t >= total) {
      problem = "is out of range";
      ++outOfRange;
    } else if (seen[t]++) {
      problem = "was handed out twice";
      ++duplicates;
    }
    if (problem && outOfRange + duplicates == 1)
      fprintf(stderr, "PE 0: first bad ticket: %llu (PE %zu, slot %zu) %s\n", static_cast<unsigned long long>(t),
              i / kTicketsPerPe, i % kTicketsPerPe, problem);
  }
  if (outOfRange + duplicates)
    fprintf(stderr, "PE 0: %llu tickets out of range, %llu duplicates among %llu\n",
            static_cast<unsigned long long>(outOfRange), static_cast<unsigned long long>(duplicates),
            static_cast<unsigned long long>(total));
  return outOfRange + duplicates;
}

}  // namespace

int main() {
  skipWithoutGpu("atomic_counter");
  CHECK_SHMEM(mori_shmem_init());
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const uint64_t total = static_cast<uint64_t>(n) * kTicketsPerPe;

  uint64_t* counter = symmetricAlloc<uint64_t>(1, true);               // only PE 0's copy is used
  uint64_t* tickets = symmetricAlloc<uint64_t>(kTicketsPerPe, false);  // symmetric: RDMA peers read it
  uint64_t* gathered = symmetricAlloc<uint64_t>(total, false);         // only PE 0's copy is used
  CHECK_SHMEM(mori_shmem_barrier_all());  // PE 0's counter is zero before anyone takes a ticket

  takeTickets<<<kBlocks, kThreads>>>(counter, tickets);
  CHECK_HIP(hipGetLastError());
  sendTicketsToPe0<<<1, kSendThreads>>>(gathered, tickets);
  CHECK_HIP(hipGetLastError());
  CHECK_SHMEM(mori_shmem_barrier_all());  // every PE's tickets have reached PE 0

  uint64_t failures = 0, finalCount = 0;
  CHECK_HIP(hipMemcpy(&finalCount, counter, sizeof(finalCount), hipMemcpyDeviceToHost));
  const uint64_t expected = me == 0 ? total : 0;
  if (finalCount != expected) {
    fprintf(stderr, "PE %d: counter copy is %llu, expected %llu\n", me, static_cast<unsigned long long>(finalCount),
            static_cast<unsigned long long>(expected));
    ++failures;
  }
  if (me == 0) {
    std::vector<uint64_t> all(total);
    CHECK_HIP(hipMemcpy(all.data(), gathered, total * sizeof(uint64_t), hipMemcpyDeviceToHost));
    failures += checkPermutation(all);
    printf("atomic_counter: %d PEs x %zu fetch_adds on PE 0's counter\n", n, kTicketsPerPe);
  }

  mori_shmem_free(gathered);
  mori_shmem_free(tickets);
  mori_shmem_free(counter);
  return finish("atomic_counter", failures);
}
