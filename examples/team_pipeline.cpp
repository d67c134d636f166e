// team_pipeline: the PEs split into a 2-D grid of stages (mori_shmem_team_split_2d with two
// columns): in each row, the PE of column 0 produces batches and streams them to its partner in
// column 1 with put-with-signal; the column-1 PEs (one team) then sum each batch across their
// team with a device reduction, and the column-0 PEs (the other team) gather each other's batch
// checksums with fcollect. Teams are used from device code as values.
//
// Run: mpirun -np 2 ./team_pipeline   (even PE counts pair up; an odd last PE works alone)
// Checks: every received batch, every reduced element and every gathered checksum against the
// host's arithmetic. Prints one verdict line; exits non-zero on any mismatch.
#include "example_common.hpp"

namespace {

constexpr int kBatches = 6;
constexpr size_t kWords = 32 * 1024;
constexpr int kThreads = 512;

__host__ __device__ inline uint64_t batchWord(int row, int batch, size_t i) {
  return patternWord(batch, row, i) & 0xffff;
}

// Column 0: produce each batch, send it to the partner (if any) with a signal, and fcollect the
// batch's checksum over the column-0 team.
__global__ void __launch_bounds__(kThreads)
    producer(mori_shmem_team_device_t column, int row, int partner, uint64_t* batch, uint64_t* inbox, uint64_t* signal,
             uint64_t* checksum, uint64_t* checksums, Mismatches* bad) {
  __shared__ unsigned long long sum;
  for (int b = 0; b < kBatches; ++b) {
    if (threadIdx.x == 0) sum = 0;
    __syncthreads();
    for (size_t i = threadIdx.x; i < kWords; i += blockDim.x) {
      batch[i] = batchWord(row, b, i);
      atomicAdd(&sum, static_cast<unsigned long long>(batch[i]));
    }
    __syncthreads();
    if (partner >= 0)
      mori_shmem_putmem_signal_block(inbox + b * kWords, batch, kWords * sizeof(uint64_t), signal, 1,
                                     MORI_SHMEM_SIGNAL_ADD, partner);
    if (threadIdx.x == 0) *checksum = sum;
    mori_shmem_uint64_fcollect_block(column, checksums, checksum, 1);
    // Every row's checksum of batch b, in team order (row r is member r of the column team).
    for (int r = threadIdx.x; r < mori_shmem_team_n_pes(column); r += blockDim.x) {
      unsigned long long want = 0;
      for (size_t i = 0; i < kWords; ++i) want += batchWord(r, b, i);
      if (checksums[r] != want) recordMismatch(bad, (1ull << 40) + b * 1024 + r);
    }
    __syncthreads();
  }
  mori_shmem_quiet_block();
}

// Column 1: wait for each batch, check it, and sum it over the column-1 team.
__global__ void __launch_bounds__(kThreads) consumer(mori_shmem_team_device_t column, int row, const uint64_t* inbox,
                                                     uint64_t* signal, uint64_t* reduced, Mismatches* bad) {
  const int rows = mori_shmem_team_n_pes(column);
  for (int b = 0; b < kBatches; ++b) {
    if (threadIdx.x == 0) mori_shmem_signal_wait_until(signal, MORI_SHMEM_CMP_GE, static_cast<uint64_t>(b + 1));
    __syncthreads();
    const uint64_t* got = inbox + b * kWords;
    for (size_t i = threadIdx.x; i < kWords; i += blockDim.x)
      if (got[i] != batchWord(row, b, i)) recordMismatch(bad, b * kWords + i);
    mori_shmem_uint64_sum_reduce_block(column, reduced, got, kWords);
    // The column-1 team's rows are rows 0, 1, ... of the grid that have a partner.
    for (size_t i = threadIdx.x; i < kWords; i += blockDim.x) {
      uint64_t want = 0;
      for (int r = 0; r < rows; ++r) want += batchWord(r, b, i);
      if (reduced[i] != want) recordMismatch(bad, (1ull << 41) + b * kWords + i);
    }
    __syncthreads();
  }
}

}  // namespace

int main() {
  skipWithoutGpu("team_pipeline");
  CHECK_SHMEM(mori_shmem_init());
  skipIfPesShareGpus("team_pipeline");
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();

  // Rows of two: x = my row (producer, consumer), y = my column (all producers or all consumers).
  mori_shmem_team_t row = MORI_SHMEM_TEAM_INVALID, column = MORI_SHMEM_TEAM_INVALID;
  CHECK_SHMEM(mori_shmem_team_split_2d(MORI_SHMEM_TEAM_WORLD, 2, nullptr, 0, &row, nullptr, 0, &column));
  const int stage = mori_shmem_team_my_pe(row);  // 0 producer, 1 consumer
  const int rowIndex = mori_shmem_team_my_pe(column);
  const int partner =
      stage == 0 && mori_shmem_team_n_pes(row) == 2 ? mori_shmem_team_translate_pe(row, 1, MORI_SHMEM_TEAM_WORLD) : -1;

  uint64_t* batch = symmetricAlloc<uint64_t>(kWords, false);
  uint64_t* inbox = symmetricAlloc<uint64_t>(kBatches * kWords, true);
  uint64_t* signal = symmetricAlloc<uint64_t>(1, true);
  uint64_t* checksum = symmetricAlloc<uint64_t>(1, true);
  uint64_t* checksums = symmetricAlloc<uint64_t>(n, true);
  uint64_t* reduced = symmetricAlloc<uint64_t>(kWords, true);
  Mismatches* bad = newMismatches();
  CHECK_SHMEM(mori_shmem_barrier_all());

  const mori_shmem_team_device_t col = mori_shmem_team_get_device(column);
  if (stage == 0)
    producer<<<1, kThreads>>>(col, rowIndex, partner, batch, inbox, signal, checksum, checksums, bad);
  else
    consumer<<<1, kThreads>>>(col, rowIndex, inbox, signal, reduced, bad);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());

  const Mismatches m = readMismatches(bad);
  if (m.count)
    fprintf(stderr, "PE %d (stage %d, row %d): %llu mismatches, first tag %llu\n", me, stage, rowIndex, m.count,
            m.firstIndex);
  if (me == 0) printf("team_pipeline: %d PEs in rows of 2, %d batches of %zu KiB\n", n, kBatches, kWords * 8 / 1024);
  CHECK_HIP(hipFree(bad));
  CHECK_SHMEM(mori_shmem_barrier_all());
  CHECK_SHMEM(mori_shmem_team_destroy(row));
  CHECK_SHMEM(mori_shmem_team_destroy(column));
  mori_shmem_free(reduced);
  mori_shmem_free(checksums);
  mori_shmem_free(checksum);
  mori_shmem_free(signal);
  mori_shmem_free(inbox);
  mori_shmem_free(batch);
  return finish("team_pipeline", m.count);
}
