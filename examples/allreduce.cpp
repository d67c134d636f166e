// allreduce: a custom all-reduce kernel written on the device API, checked against the library's
// team reduction. Each PE owns a slice of the vector (reduce-scatter): it reads that slice of every
// PE's input directly through mori_shmem_ptr where the peer is P2P-reachable (a get otherwise),
// sums it, and puts the summed slice into every PE's output (all-gather); a team barrier ends it.
// The same data then goes through mori_shmem_float_sum_reduce_block, and both results are checked
// against the host's sum on every PE.
//
// Run: mpirun -np 2 ./allreduce   (any number of PEs; under CUDA MPS, PEs may share a GPU)
// Checks: every element of both results, exactly (the inputs are small integers, so every order
// of summation gives the same float). Prints one verdict line; exits non-zero on any mismatch.
#include <vector>

#include "example_common.hpp"

namespace {

constexpr size_t kElems = (1 << 20) + 3;  // not a multiple of the PE count or the block size
constexpr int kThreads = 512;

__host__ __device__ inline float input(int pe, size_t i) {
  return static_cast<float>(static_cast<int>(patternWord(1, pe, i) % 33) - 16);
}

__global__ void fillInput(float* in, size_t n, int pe) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    in[i] = input(pe, i);
}

// One block per PE; `staging` (symmetric, one slice) receives non-P2P peers' slices.
__global__ void __launch_bounds__(kThreads)
    customAllReduce(mori_shmem_team_device_t team, const float* in, float* out, float* staging, size_t n) {
  const int me = mori_shmem_team_my_pe(team), npes = mori_shmem_team_n_pes(team);
  const size_t slice = (n + npes - 1) / npes;
  const size_t begin = me * slice < n ? me * slice : n;
  const size_t count = begin + slice < n ? slice : n - begin;

  // Every PE's input is complete before anyone reads it.
  mori_shmem_team_sync_block(team);
  for (int k = 0; k < npes; ++k) {
    const int pe = team.worldPe(k);
    const float* peer = static_cast<const float*>(mori_shmem_ptr(in + begin, pe));
    if (!peer) {  // not load/store-reachable: fetch the slice
      mori_shmem_getmem_block(staging, in + begin, count * sizeof(float), pe);
      __syncthreads();  // every thread's share of the slice has landed
      peer = staging;
    }
    for (size_t i = threadIdx.x; i < count; i += blockDim.x)
      out[begin + i] = k == 0 ? peer[i] : out[begin + i] + peer[i];
    __syncthreads();  // the staging slice is reused by the next peer
  }
  // All-gather: the summed slice into every other PE's output, then complete and synchronise.
  for (int k = 1; k < npes; ++k)
    mori_shmem_putmem_nbi_block(out + begin, out + begin, count * sizeof(float), team.worldPe((me + k) % npes));
  mori_shmem_barrier_block(team);
}

__global__ void __launch_bounds__(kThreads)
    libraryAllReduce(mori_shmem_team_device_t team, float* out, const float* in, size_t n) {
  mori_shmem_float_sum_reduce_block(team, out, in, n);
}

__global__ void check(const float* out, size_t n, int npes, Mismatches* bad, unsigned long long tag) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float want = 0;
    for (int pe = 0; pe < npes; ++pe) want += input(pe, i);
    if (out[i] != want) recordMismatch(bad, tag + i);
  }
}

}  // namespace

int main() {
  skipWithoutGpu("allreduce");
  CHECK_SHMEM(mori_shmem_init());
  skipIfPesShareGpus("allreduce");
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const mori_shmem_team_device_t world = mori_shmem_team_get_device(MORI_SHMEM_TEAM_WORLD);

  float* in = symmetricAlloc<float>(kElems, false);
  float* out = symmetricAlloc<float>(kElems, true);
  float* lib = symmetricAlloc<float>(kElems, true);
  float* staging = symmetricAlloc<float>((kElems + n - 1) / n, false);
  Mismatches* bad = newMismatches();
  fillInput<<<64, 256>>>(in, kElems, me);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());

  customAllReduce<<<1, kThreads>>>(world, in, out, staging, kElems);
  CHECK_HIP(hipGetLastError());
  libraryAllReduce<<<1, kThreads>>>(world, lib, in, kElems);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  check<<<64, 256>>>(out, kElems, n, bad, 0);
  check<<<64, 256>>>(lib, kElems, n, bad, 1ull << 40);
  CHECK_HIP(hipGetLastError());

  const Mismatches m = readMismatches(bad);
  if (m.count)
    fprintf(stderr, "PE %d: %llu bad elements; first in the %s result at %llu\n", me, m.count,
            m.firstIndex >= (1ull << 40) ? "library" : "custom", m.firstIndex & ((1ull << 40) - 1));
  if (me == 0) printf("allreduce: %zu floats over %d PEs, custom kernel and library reduction\n", kElems, n);
  CHECK_HIP(hipFree(bad));
  CHECK_SHMEM(mori_shmem_barrier_all());
  mori_shmem_free(staging);
  mori_shmem_free(lib);
  mori_shmem_free(out);
  mori_shmem_free(in);
  return finish("allreduce", m.count);
}
