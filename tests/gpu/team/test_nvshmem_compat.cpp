// An NVSHMEM-style program built through <mori/nvshmem.h>: every SHMEM call below is spelled as in
// NVSHMEM (puts, put-with-signal, typed, sized and strided RMA (128-bit included), p/g, atomics, waits, teams, device
// and on-stream collectives, host collectives, on-stream and host-initiated RMA, strided and signals from the host);
// only the include differs (and the GPU
// runtime is spelled hip*, the suite's portable spelling, so that the AMD build compiles the same file). The harness
// (gtest, verdict over PEs) is the test suite's. Random data, checked exactly on every PE.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "mori/nvshmem.h"
#include "mori/platform/gpu_runtime.hpp"
#include "tests/support/test_env.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);

namespace {

__host__ __device__ inline uint32_t value(uint32_t seed, int pe, uint32_t i) {
  uint32_t x = seed * 2654435761u + static_cast<uint32_t>(pe) * 40503u + i * 2246822519u;
  x ^= x >> 15;
  x *= 2246822519u;
  return x ^ (x >> 13);
}

// Ring: each PE puts its block into its successor's buffer with a signal, waits for its
// predecessor's, checks it; p/g and atomics on PE 0's counter; a team barrier closes.
__global__ void ringKernel(uint32_t* buf, uint32_t* src, uint64_t* sig, unsigned long long* counter, int* pv, size_t n,
                           uint32_t seed, int* bad) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) src[i] = value(seed, me, static_cast<uint32_t>(i));
  __syncthreads();
  nvshmemx_putmem_signal_nbi_block(buf, src, n * sizeof(uint32_t), sig, 1, NVSHMEM_SIGNAL_ADD, next);
  if (threadIdx.x == 0) {
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
    nvshmem_int_p(pv, me + 100, next);
    nvshmem_ulonglong_atomic_add(counter, static_cast<unsigned long long>(me + 1), 0);
    (void)nvshmem_ulonglong_atomic_fetch_add(counter, 1ull, 0);
  }
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x)
    if (buf[i] != value(seed, prev, static_cast<uint32_t>(i))) atomicAdd(bad, 1);
  nvshmemx_barrier_block(NVSHMEM_TEAM_WORLD);
  if (threadIdx.x == 0) {
    nvshmem_int_wait_until(pv, NVSHMEM_CMP_EQ, prev + 100);
    if (nvshmem_int_g(pv, next) != me + 100) atomicAdd(bad, 1);
    const unsigned long long want = static_cast<unsigned long long>(npes) * (npes + 1) / 2 + npes;
    if (nvshmem_ulonglong_atomic_fetch(counter, 0) != want) atomicAdd(bad, 1);
  }
  nvshmemx_barrier_block(NVSHMEM_TEAM_WORLD);
  if (threadIdx.x < static_cast<unsigned>(warpSize)) nvshmemx_sync_all_warp();
}

// Typed and sized RMA names: a typed put-with-signal (block) of n ints to the next PE, a strided
// iput (thread: every 2nd source int to every 3rd int of `strided`), a sized nbi put (warp) and a
// sized strided iget (thread) from the previous PE; each PE checks what landed and what it read.
__global__ void rmaFormsKernel(int* land, int* strided, int* wide, int* got, const int* src, uint64_t* sig, size_t n,
                               uint32_t seed, int* bad) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t m = n / 3;
  nvshmemx_int_put_signal_block(land, src, n, sig, 1, NVSHMEM_SIGNAL_ADD, next);
  if (threadIdx.x < static_cast<unsigned>(warpSize)) nvshmemx_put32_nbi_warp(wide, src, n, next);
  if (threadIdx.x == 0) {
    nvshmem_int_iput(strided, src, 3, 2, m, next);
    nvshmem_iget32(got, src, 1, 2, m, prev);
    nvshmem_quiet();
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
  }
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x)
    if (land[i] != static_cast<int>(value(seed, prev, static_cast<uint32_t>(i)))) atomicAdd(bad, 1);
  for (size_t k = threadIdx.x; k < m; k += blockDim.x)
    if (got[k] != static_cast<int>(value(seed, prev, static_cast<uint32_t>(2 * k)))) atomicAdd(bad, 1);
  // The first wave issued the iput and the nbi put: its barrier completes them on every PE.
  if (threadIdx.x < static_cast<unsigned>(warpSize)) nvshmemx_barrier_all_warp();
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    const int want = static_cast<int>(value(seed, prev, static_cast<uint32_t>(i)));
    if (wide[i] != want) atomicAdd(bad, 1);
    // every 3rd int came from the previous PE's every 2nd source int; the others kept -1
    const int strideWant =
        i % 3 == 0 && i / 3 < m ? static_cast<int>(value(seed, prev, static_cast<uint32_t>(2 * (i / 3)))) : -1;
    if (strided[i] != strideWant) atomicAdd(bad, 1);
  }
}

// 128-bit strided RMA (16-byte elements, four 32-bit words each): thread iput of every 3rd source
// element to every 2nd element of the next PE's `dest`, block iget of every 2nd element of the
// previous PE's source; each PE checks what it read and, after a barrier, what landed (the
// elements between kept their -1 words).
__global__ void strided128Kernel(uint32_t* dest, uint32_t* got, const uint32_t* src, size_t m, uint32_t seed,
                                 int* bad) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  if (threadIdx.x == 0) nvshmem_iput128(dest, src, 2, 3, m, next);
  nvshmemx_iget128_block(got, src, 1, 2, m, prev);
  for (size_t i = threadIdx.x; i < 4 * m; i += blockDim.x)
    if (got[i] != value(seed, prev, static_cast<uint32_t>(8 * (i / 4) + i % 4))) atomicAdd(bad, 1);
  if (threadIdx.x == 0) nvshmem_quiet();
  nvshmemx_barrier_all_block();
  for (size_t i = threadIdx.x; i < 8 * m; i += blockDim.x) {
    const size_t e = i / 4, w = i % 4;
    const uint32_t want = e % 2 == 0 ? value(seed, prev, static_cast<uint32_t>(12 * (e / 2) + w)) : 0xffffffffu;
    if (dest[i] != want) atomicAdd(bad, 1);
  }
}

// Device collectives on a split team: team queries, int sum reduce (block), float fcollect
// (warp), long broadcast (thread, from the last member), int alltoall (block), int sum
// reducescatter of the alltoall's source (warp).
__global__ void teamKernel(nvshmem_team_t team, int* isrc, int* idst, float* fsrc, float* fdst, long* l, int* a2a,
                           int* a2aout, int* rs, size_t n, int* bad) {
  const int me = nvshmem_team_my_pe(team), tn = nvshmem_team_n_pes(team);
  if (threadIdx.x == 0 && nvshmem_team_translate_pe(team, me, NVSHMEM_TEAM_WORLD) != nvshmem_my_pe()) atomicAdd(bad, 1);
  nvshmemx_int_sum_reduce_block(team, idst, isrc, n);
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    int want = 0;
    for (int j = 0; j < tn; ++j) want += static_cast<int>(i) * (j + 1);
    if (idst[i] != want) atomicAdd(bad, 1);
  }
  if (threadIdx.x < static_cast<unsigned>(warpSize)) nvshmemx_float_fcollect_warp(team, fdst, fsrc, n);
  __syncthreads();
  for (size_t i = threadIdx.x; i < n * tn; i += blockDim.x)
    if (fdst[i] != static_cast<float>(i / n) + 0.5f) atomicAdd(bad, 1);
  if (threadIdx.x == 0) {
    nvshmem_long_broadcast(team, l, l + 1, 1, tn - 1);
    if (l[0] != 1000 + tn - 1) atomicAdd(bad, 1);
    nvshmem_team_sync(team);
  }
  __syncthreads();
  nvshmemx_int_alltoall_block(team, a2aout, a2a, 2);
  for (int j = threadIdx.x; j < 2 * tn; j += blockDim.x)
    if (a2aout[j] != (j / 2) * 1000 + me * 2 + (j % 2)) atomicAdd(bad, 1);
  if (threadIdx.x < static_cast<unsigned>(warpSize)) nvshmemx_int_sum_reducescatter_warp(team, rs, a2a, 2);
  __syncthreads();
  for (int e = threadIdx.x; e < 2; e += blockDim.x)
    if (rs[e] != 1000 * tn * (tn - 1) / 2 + tn * (2 * me + e)) atomicAdd(bad, 1);
  nvshmemx_barrier_block(team);
}

// Untyped collectives, char reductions, float / double atomics, mc_ptr and the vendor version, on the
// world: a block's fcollectmem of k bytes, a char sum reduce (block), alltoallmem (thread), then
// one thread swaps a float into the next PE's cell and sets a double there, and reads both back
// after a barrier, and a short to the next PE, waited for there.
__global__ void moreNamesKernel(uint8_t* bsrc, uint8_t* bdst, char* csrc, char* cdst, float* fcell, double* dcell,
                                short* scell, size_t k, int* bad) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  for (size_t i = threadIdx.x; i < k * npes; i += blockDim.x)
    bsrc[i] = static_cast<uint8_t>(value(9, me, static_cast<uint32_t>(i)));
  for (size_t i = threadIdx.x; i < k; i += blockDim.x) csrc[i] = static_cast<char>(i % 7 + me);
  __syncthreads();
  nvshmemx_fcollectmem_block(NVSHMEM_TEAM_WORLD, bdst, bsrc, k);
  for (size_t i = threadIdx.x; i < k * npes; i += blockDim.x)
    if (bdst[i] != static_cast<uint8_t>(value(9, static_cast<int>(i / k), static_cast<uint32_t>(i % k))))
      atomicAdd(bad, 1);
  nvshmemx_char_sum_reduce_block(NVSHMEM_TEAM_WORLD, cdst, csrc, k);
  for (size_t i = threadIdx.x; i < k; i += blockDim.x) {
    int want = 0;
    for (int j = 0; j < npes; ++j) want += static_cast<int>(i % 7) + j;
    if (cdst[i] != static_cast<char>(want)) atomicAdd(bad, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    nvshmem_alltoallmem(NVSHMEM_TEAM_WORLD, bdst, bsrc, k);  // block j of dest <- PE j's block <me>
    for (size_t i = 0; i < k * npes; ++i)
      if (bdst[i] != static_cast<uint8_t>(value(9, static_cast<int>(i / k), static_cast<uint32_t>(me * k + i % k))))
        atomicAdd(bad, 1);
    const float old = nvshmem_float_atomic_swap(fcell, 1.5f + me, next);
    if (old != -1.0f) atomicAdd(bad, 1);  // only this PE writes the next PE's cell
    nvshmem_double_atomic_set(dcell, 0.25 + me, next);
    nvshmem_quiet();
    nvshmem_barrier_all();
    if (nvshmem_float_atomic_fetch(fcell, me) != 1.5f + prev) atomicAdd(bad, 1);
    if (nvshmem_double_atomic_fetch(dcell, me) != 0.25 + prev) atomicAdd(bad, 1);
    nvshmem_short_p(scell, static_cast<short>(-7 - me), next);  // a 16-bit wait for the previous PE's
    nvshmem_short_wait_until(scell, NVSHMEM_CMP_EQ, static_cast<short>(-7 - prev));
    if (nvshmem_ushort_test(reinterpret_cast<unsigned short*>(scell), NVSHMEM_CMP_GT, 1000) != 1) atomicAdd(bad, 1);
    if (nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, bdst) != nullptr) atomicAdd(bad, 1);  // no multicast objects
    int major = -1, minor = -1, patch = -1;
    nvshmemx_vendor_get_version_info(&major, &minor, &patch);
    if (major != MORI_SHMEM_VERSION_MAJOR || minor != MORI_SHMEM_VERSION_MINOR || patch != MORI_SHMEM_VERSION_PATCH)
      atomicAdd(bad, 1);
  }
}

TEST(NvshmemCompat, NvshmemStyleProgram) {
  int provided = -1;
  ASSERT_EQ(nvshmem_init_thread(NVSHMEM_THREAD_MULTIPLE, &provided), 0);
  EXPECT_EQ(provided, NVSHMEM_THREAD_FUNNELED);  // what mori-shmem provides, whatever was requested
  ASSERT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  int* bad = nullptr;
  ASSERT_EQ(hipMalloc(&bad, sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemset(bad, 0, sizeof(int)), hipSuccess);

  const size_t n = 10007;
  uint32_t* buf = static_cast<uint32_t*>(nvshmem_malloc(n * sizeof(uint32_t)));
  uint32_t* src = static_cast<uint32_t*>(nvshmem_malloc(n * sizeof(uint32_t)));
  uint64_t* sig = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  unsigned long long* counter = static_cast<unsigned long long*>(nvshmem_calloc(1, sizeof(unsigned long long)));
  int* pv = static_cast<int*>(nvshmem_calloc(1, sizeof(int)));
  ASSERT_TRUE(buf && src && sig && counter && pv);
  nvshmem_barrier_all();
  ringKernel<<<1, 256>>>(buf, src, sig, counter, pv, n, 77, bad);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);

  // Typed, sized and strided RMA names, on the device and on a stream.
  int* land = static_cast<int*>(nvshmem_malloc(n * sizeof(int)));
  int* strided = static_cast<int*>(nvshmem_malloc(n * sizeof(int)));
  int* wide = static_cast<int*>(nvshmem_malloc(n * sizeof(int)));
  int* got = static_cast<int*>(nvshmem_malloc(n * sizeof(int)));
  uint64_t* sig2 = static_cast<uint64_t*>(nvshmem_calloc(2, sizeof(uint64_t)));
  ASSERT_TRUE(land && strided && wide && got && sig2);
  ASSERT_EQ(hipMemset(strided, 0xff, n * sizeof(int)), hipSuccess);  // -1 in every int
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  nvshmem_barrier_all();
  rmaFormsKernel<<<1, 256>>>(land, strided, wide, got, reinterpret_cast<const int*>(src), sig2, n, 77, bad);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  {
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    nvshmem_barrier_all();  // every PE is done with the kernel's buffers
    ASSERT_EQ(nvshmemx_int_put_nbi_on_stream(land, reinterpret_cast<const int*>(src) + 1, n - 1, next, s), 0);
    ASSERT_EQ(nvshmemx_put64_signal_nbi_on_stream(wide, src, n / 2, sig2 + 1, 9, NVSHMEM_SIGNAL_SET, next, s), 0);
    ASSERT_EQ(nvshmemx_signal_wait_until_on_stream(sig2 + 1, NVSHMEM_CMP_EQ, 9, s), 0);
    ASSERT_EQ(nvshmemx_quiet_on_stream(s), 0);
    ASSERT_EQ(nvshmemx_sync_all_on_stream(s), 0);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    nvshmem_sync_all();
    nvshmem_barrier_all();
    std::vector<int> hl(n - 1), hw(n / 2 * 2);
    ASSERT_EQ(hipMemcpy(hl.data(), land, hl.size() * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    ASSERT_EQ(hipMemcpy(hw.data(), wide, hw.size() * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < hl.size(); ++i)
      ASSERT_EQ(static_cast<uint32_t>(hl[i]), value(77, prev, static_cast<uint32_t>(i + 1))) << "land " << i;
    for (size_t i = 0; i < hw.size(); ++i)
      ASSERT_EQ(static_cast<uint32_t>(hw[i]), value(77, prev, static_cast<uint32_t>(i))) << "wide " << i;
    ASSERT_EQ(hipStreamDestroy(s), hipSuccess);

    // Host-initiated RMA, NVSHMEM's host-side calls: put / get (bytes, typed, sized, blocking and
    // nbi) from host code, completed by nvshmem_quiet.
    nvshmem_barrier_all();
    nvshmem_putmem(land, src + 3, (n - 3) * sizeof(int), next);
    nvshmem_int_put_nbi(wide, reinterpret_cast<const int*>(src), n, next);
    nvshmem_fence();
    nvshmem_put32_nbi(strided, src + 1, n - 1, next);
    nvshmem_quiet();
    nvshmem_barrier_all();
    nvshmem_int_get(got, land, n - 3, next);     // what this PE put there: its own data
    nvshmem_barrier_all();                       // nobody reads land any more
    nvshmem_get64_nbi(land, wide, n / 2, prev);  // prev's wide: prev's predecessor's data
    nvshmem_quiet();
    std::vector<int> hg(n - 3), hland(n / 2 * 2), hs(n - 1);
    ASSERT_EQ(hipMemcpy(hg.data(), got, hg.size() * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    ASSERT_EQ(hipMemcpy(hland.data(), land, hland.size() * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    ASSERT_EQ(hipMemcpy(hs.data(), strided, hs.size() * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    const int prev2 = (prev + npes - 1) % npes;
    for (size_t i = 0; i < hg.size(); ++i)
      ASSERT_EQ(static_cast<uint32_t>(hg[i]), value(77, me, static_cast<uint32_t>(i + 3))) << "host get " << i;
    for (size_t i = 0; i < hland.size(); ++i)
      ASSERT_EQ(static_cast<uint32_t>(hland[i]), value(77, prev2, static_cast<uint32_t>(i))) << "host get64 " << i;
    for (size_t i = 0; i < hs.size(); ++i)
      ASSERT_EQ(static_cast<uint32_t>(hs[i]), value(77, prev, static_cast<uint32_t>(i + 1))) << "host put32 " << i;
    nvshmem_barrier_all();

    // Host-side p / g and atomics: p to the next PE, g it back; every PE adds to PE 0's counter.
    long* cell = reinterpret_cast<long*>(sig2);  // two 8-byte words, free again
    nvshmem_long_p(cell, 1000 + me, next);
    nvshmem_quiet();
    nvshmem_barrier_all();
    EXPECT_EQ(nvshmem_long_g(cell, prev), 1000 + prev2);
    EXPECT_EQ(nvshmem_long_g(cell, me), 1000 + prev);
    nvshmem_barrier_all();
    unsigned long long* total = reinterpret_cast<unsigned long long*>(sig2 + 1);
    if (me == 0) nvshmem_ulonglong_atomic_set(total, 0ull, 0);
    nvshmem_quiet();
    nvshmem_barrier_all();
    nvshmem_ulonglong_atomic_add(total, static_cast<unsigned long long>(me) + 1, 0);
    (void)nvshmem_ulonglong_atomic_fetch_inc(total, 0);
    nvshmem_quiet();
    nvshmem_barrier_all();
    const unsigned long long want = static_cast<unsigned long long>(npes) * (npes + 1) / 2 + npes;
    EXPECT_EQ(nvshmem_ulonglong_atomic_fetch(total, 0), want);
    nvshmem_barrier_all();
    EXPECT_GE(nvshmem_ulonglong_atomic_compare_swap(total, want, want + me + 1, 0), want);  // one PE swaps
    nvshmem_barrier_all();

    // Host-side strided RMA and signals, and the stream forms of p / g / iput / iget / signal_op.
    uint64_t* flag = static_cast<uint64_t*>(nvshmem_calloc(2, sizeof(uint64_t)));
    ASSERT_TRUE(flag);
    nvshmem_barrier_all();
    const size_t k = n / 4;
    nvshmem_int_iput(strided, reinterpret_cast<const int*>(src) + 1, 2, 3, k, next);  // src[3i + 1] -> [2i]
    nvshmem_quiet();
    nvshmem_barrier_all();
    nvshmem_iget32(got, strided, 1, 2, k, next);  // next's strided holds this PE's data
    std::vector<int> hgot(k);
    ASSERT_EQ(hipMemcpy(hgot.data(), got, k * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < k; ++i)
      ASSERT_EQ(static_cast<uint32_t>(hgot[i]), value(77, me, static_cast<uint32_t>(3 * i + 1))) << "host iget " << i;
    nvshmem_barrier_all();
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(nvshmemx_iput64_on_stream(wide, src, 1, 2, k / 2, next, s), 0);  // 8-byte element j <- 2j
    ASSERT_EQ(nvshmemx_int_p_on_stream(pv, 500 + me, next, s), 0);
    ASSERT_EQ(nvshmemx_signal_op_on_stream(flag, 1, NVSHMEM_SIGNAL_ADD, next, s), 0);
    ASSERT_EQ(nvshmemx_signal_wait_until_on_stream(flag, NVSHMEM_CMP_GE, 1, s), 0);
    EXPECT_EQ(nvshmemx_int_g_on_stream(pv, me, s), 500 + prev);  // waits for the stream
    ASSERT_EQ(nvshmemx_uint32_iget_on_stream(reinterpret_cast<uint32_t*>(got), reinterpret_cast<uint32_t*>(wide), 3, 1,
                                             k, me, s),
              0);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    std::vector<uint32_t> hwide(k * 3);
    ASSERT_EQ(hipMemcpy(hwide.data(), got, hwide.size() * sizeof(uint32_t), hipMemcpyDeviceToHost), hipSuccess);
    for (size_t j = 0; j < k / 2; ++j) {  // got[3i] = wide[i]; wide's 32-bit words 2j, 2j + 1 = prev's src 4j, 4j + 1
      ASSERT_EQ(hwide[3 * (2 * j)], value(77, prev, static_cast<uint32_t>(4 * j))) << "iput64 on a stream " << j;
      ASSERT_EQ(hwide[3 * (2 * j + 1)], value(77, prev, static_cast<uint32_t>(4 * j + 1)))
          << "iput64 on a stream " << j;
    }
    nvshmem_barrier_all();
    nvshmemx_signal_op(flag + 1, 10 + static_cast<uint64_t>(me), NVSHMEM_SIGNAL_SET, next);
    nvshmem_quiet();
    nvshmem_barrier_all();
    EXPECT_EQ(nvshmem_signal_fetch(flag + 1), 10u + static_cast<uint64_t>(prev));
    EXPECT_EQ(nvshmem_signal_fetch(flag), 1u);
    nvshmem_barrier_all();

    // 128-bit strided RMA: device (thread iput, block iget), then host iget and iput on a stream.
    const size_t m = 600;  // 3 * m source elements of 16 bytes fit in src's n 32-bit words
    auto* dest = static_cast<uint32_t*>(nvshmem_malloc(8 * m * sizeof(uint32_t)));
    auto* got128 = static_cast<uint32_t*>(nvshmem_malloc(12 * m * sizeof(uint32_t)));
    ASSERT_TRUE(dest && got128);
    ASSERT_EQ(hipMemset(dest, 0xff, 8 * m * sizeof(uint32_t)), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    nvshmem_barrier_all();
    strided128Kernel<<<1, 256>>>(dest, got128, src, m, 77, bad);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    nvshmem_barrier_all();
    nvshmem_iget128(got128, src, 1, 3, m, next);  // element i <- next's element 3i
    std::vector<uint32_t> h128(12 * m);
    ASSERT_EQ(hipMemcpy(h128.data(), got128, 4 * m * sizeof(uint32_t), hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < 4 * m; ++i)
      ASSERT_EQ(h128[i], value(77, next, static_cast<uint32_t>(12 * (i / 4) + i % 4))) << "host iget128 word " << i;
    nvshmem_barrier_all();
    ASSERT_EQ(nvshmemx_iput128_on_stream(got128, src, 3, 1, m, next, s), 0);  // element 3i <- element i
    ASSERT_EQ(nvshmemx_quiet_on_stream(s), 0);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    nvshmem_barrier_all();
    ASSERT_EQ(hipMemcpy(h128.data(), got128, 12 * m * sizeof(uint32_t), hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < m; ++i)
      for (size_t w = 0; w < 4; ++w)
        ASSERT_EQ(h128[12 * i + w], value(77, prev, static_cast<uint32_t>(4 * i + w))) << "iput128 on a stream " << i;
    nvshmem_barrier_all();
    nvshmem_free(got128);
    nvshmem_free(dest);
    ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
    nvshmem_free(flag);
  }
  for (void* p : {static_cast<void*>(sig2), static_cast<void*>(got), static_cast<void*>(wide),
                  static_cast<void*>(strided), static_cast<void*>(land)})
    nvshmem_free(p);

  // Untyped collectives, char reductions, float / double atomics, thread level and vendor version:
  // in a kernel, then from the host (blocking and on a stream).
  {
    int level = -1;
    nvshmem_query_thread(&level);
    EXPECT_EQ(level, NVSHMEM_THREAD_FUNNELED);
    int major = -1, minor = -1, patch = -1;
    nvshmemx_vendor_get_version_info(&major, &minor, &patch);
    EXPECT_EQ(major * 10000 + minor * 100 + patch,
              MORI_SHMEM_VERSION_MAJOR * 10000 + MORI_SHMEM_VERSION_MINOR * 100 + MORI_SHMEM_VERSION_PATCH);
    const size_t k = 777;
    auto* bsrc = static_cast<uint8_t*>(nvshmem_malloc(k * npes));
    auto* bdst = static_cast<uint8_t*>(nvshmem_malloc(k * npes));
    auto* csrc = static_cast<char*>(nvshmem_malloc(k));
    auto* cdst = static_cast<char*>(nvshmem_malloc(k));
    auto* fcell = static_cast<float*>(nvshmem_malloc(sizeof(float)));
    auto* dcell = static_cast<double*>(nvshmem_malloc(sizeof(double)));
    auto* scell = static_cast<short*>(nvshmem_calloc(2, sizeof(short)));
    ASSERT_TRUE(bsrc && bdst && csrc && cdst && fcell && dcell && scell);
    const float minusOne = -1.0f;
    ASSERT_EQ(hipMemcpy(fcell, &minusOne, sizeof(float), hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    nvshmem_barrier_all();
    moreNamesKernel<<<1, 256>>>(bsrc, bdst, csrc, cdst, fcell, dcell, scell, k, bad);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    nvshmem_barrier_all();
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    // Host: broadcastmem from the last PE, char max reduce, alltoallmem on a stream, atomics.
    ASSERT_EQ(nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, bdst, bsrc, k, npes - 1), 0);
    std::vector<uint8_t> hb(k * npes);
    ASSERT_EQ(hipMemcpy(hb.data(), bdst, k, hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < k; ++i)
      ASSERT_EQ(hb[i], static_cast<uint8_t>(value(9, npes - 1, static_cast<uint32_t>(i)))) << "broadcastmem " << i;
    ASSERT_EQ(nvshmem_char_max_reduce(NVSHMEM_TEAM_WORLD, cdst, csrc, k), 0);
    std::vector<char> hc(k);
    ASSERT_EQ(hipMemcpy(hc.data(), cdst, k, hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < k; ++i) ASSERT_EQ(hc[i], static_cast<char>(i % 7 + npes - 1)) << "char max " << i;
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(nvshmemx_alltoallmem_on_stream(NVSHMEM_TEAM_WORLD, bdst, bsrc, k, s), 0);
    ASSERT_EQ(nvshmemx_fcollectmem_on_stream(NVSHMEM_TEAM_WORLD, bsrc, bdst + me * k, k, s), 0);  // = PE j's block me
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    ASSERT_EQ(hipMemcpy(hb.data(), bsrc, k * npes, hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < k * npes; ++i)  // bsrc block j: PE j's alltoall dest block j (PE j's own block j)
      ASSERT_EQ(hb[i], static_cast<uint8_t>(value(9, static_cast<int>(i / k), static_cast<uint32_t>(i))))
          << "alltoallmem + fcollectmem " << i;
    // Typed waits on a stream: a short to the next PE (scell[1]), waited for there as short and as
    // unsigned short, then one int of three with a per-entry comparand and status.
    ASSERT_EQ(nvshmemx_short_p_on_stream(scell + 1, static_cast<short>(-3 - me), next, s), 0);
    ASSERT_EQ(nvshmemx_short_wait_until_on_stream(scell + 1, NVSHMEM_CMP_LT, static_cast<short>(0), s), 0);
    ASSERT_EQ(nvshmemx_ushort_wait_until_all_on_stream(reinterpret_cast<unsigned short*>(scell + 1), 1, nullptr,
                                                       NVSHMEM_CMP_GT, 1000, s),
              0);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    short hs = 0;
    ASSERT_EQ(hipMemcpy(&hs, scell + 1, sizeof(short), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hs, static_cast<short>(-3 - prev));
    int* trio = static_cast<int*>(nvshmem_calloc(3, sizeof(int)));
    int *trioWant = nullptr, *trioStatus = nullptr;
    ASSERT_EQ(hipMalloc(&trioWant, 3 * sizeof(int)), hipSuccess);
    ASSERT_EQ(hipMalloc(&trioStatus, 3 * sizeof(int)), hipSuccess);
    const int want[3] = {0, 40 + prev, 0}, st[3] = {1, 0, 1};  // only entry 1 counts
    ASSERT_EQ(hipMemcpy(trioWant, want, sizeof(want), hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(trioStatus, st, sizeof(st), hipMemcpyHostToDevice), hipSuccess);
    nvshmem_barrier_all();
    ASSERT_EQ(nvshmemx_int_p_on_stream(trio + 1, 40 + me, next, s), 0);
    ASSERT_EQ(nvshmemx_int_wait_until_all_vector_on_stream(trio, 3, trioStatus, NVSHMEM_CMP_EQ, trioWant, s), 0);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    int ht[3] = {};
    ASSERT_EQ(hipMemcpy(ht, trio, sizeof(ht), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(ht[1], 40 + prev);
    ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
    nvshmem_barrier_all();
    ASSERT_EQ(hipFree(trioWant), hipSuccess);
    ASSERT_EQ(hipFree(trioStatus), hipSuccess);
    nvshmem_free(trio);
    EXPECT_EQ(nvshmem_double_atomic_swap(dcell, 7.5 + me, next), 0.25 + me);  // the kernel left 0.25 + me there
    nvshmem_quiet();
    nvshmem_barrier_all();
    EXPECT_EQ(nvshmem_double_atomic_fetch(dcell, me), 7.5 + prev);
    nvshmem_float_atomic_set(fcell, 3.0f, me);
    nvshmem_quiet();
    EXPECT_EQ(nvshmem_float_atomic_fetch(fcell, me), 3.0f);
    nvshmem_barrier_all();
    for (void* p :
         {static_cast<void*>(scell), static_cast<void*>(dcell), static_cast<void*>(fcell), static_cast<void*>(cdst),
          static_cast<void*>(csrc), static_cast<void*>(bdst), static_cast<void*>(bsrc)})
      nvshmem_free(p);
  }

  // Teams: the world minus PE 0 when there are 3+ PEs, else the world.
  nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
  nvshmem_team_config_t cfg{};
  const int start = npes > 2 ? 1 : 0;
  ASSERT_EQ(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, start, 1, npes - start, &cfg, 0, &team), 0);
  const size_t m = 301;
  int* isrc = static_cast<int*>(nvshmem_malloc(m * sizeof(int)));
  int* idst = static_cast<int*>(nvshmem_malloc(m * sizeof(int)));
  float* fsrc = static_cast<float*>(nvshmem_malloc(m * sizeof(float)));
  float* fdst = static_cast<float*>(nvshmem_malloc(m * npes * sizeof(float)));
  long* l = static_cast<long*>(nvshmem_malloc(2 * sizeof(long)));
  int* a2a = static_cast<int*>(nvshmem_malloc(2 * npes * sizeof(int)));
  int* a2aout = static_cast<int*>(nvshmem_malloc(2 * npes * sizeof(int)));
  int* rs = static_cast<int*>(nvshmem_malloc(2 * sizeof(int)));
  uint16_t* hb = static_cast<uint16_t*>(nvshmem_malloc(2 * sizeof(uint16_t)));  // half bits
  if (team != NVSHMEM_TEAM_INVALID) {
    const int tme = nvshmem_team_my_pe(team), tn = nvshmem_team_n_pes(team);
    std::vector<int> hi(m);
    std::vector<float> hf(m);
    for (size_t i = 0; i < m; ++i) {
      hi[i] = static_cast<int>(i) * (tme + 1);
      hf[i] = static_cast<float>(tme) + 0.5f;
    }
    long hl[2] = {0, 1000 + tme};
    std::vector<int> ha(2 * tn);
    for (int j = 0; j < 2 * tn; ++j) ha[j] = tme * 1000 + j;
    ASSERT_EQ(hipMemcpy(isrc, hi.data(), m * sizeof(int), hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(fsrc, hf.data(), m * sizeof(float), hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(l, hl, sizeof(hl), hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(a2a, ha.data(), ha.size() * sizeof(int), hipMemcpyHostToDevice), hipSuccess);
    teamKernel<<<1, 128>>>(team, isrc, idst, fsrc, fdst, l, a2a, a2aout, rs, m, bad);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);

    // Host forms: on a stream, then blocking.
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(nvshmemx_float_max_reduce_on_stream(team, fdst, fsrc, m, s), 0);
    ASSERT_EQ(nvshmemx_barrier_on_stream(team, s), 0);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    std::vector<float> got(m);
    ASSERT_EQ(hipMemcpy(got.data(), fdst, m * sizeof(float), hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < m; ++i) ASSERT_EQ(got[i], static_cast<float>(tn - 1) + 0.5f) << i;
    ASSERT_EQ(nvshmem_int_fcollect(team, idst, isrc, 1), 0);
    std::vector<int> gi(tn);
    ASSERT_EQ(hipMemcpy(gi.data(), idst, tn * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    for (int j = 0; j < tn; ++j) EXPECT_EQ(gi[j], 0);
    // half: a stream broadcast from the last member, bit for bit.
    const uint16_t mine[2] = {0, static_cast<uint16_t>(0x3c00 + tme)};
    ASSERT_EQ(hipMemcpy(hb, mine, sizeof(mine), hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(nvshmemx_half_broadcast_on_stream(team, reinterpret_cast<mori_shmem_half_t*>(hb),
                                                reinterpret_cast<const mori_shmem_half_t*>(hb) + 1, 1, tn - 1, s),
              0);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    uint16_t gotHalf = 0;
    ASSERT_EQ(hipMemcpy(&gotHalf, hb, sizeof(gotHalf), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(gotHalf, 0x3c00 + tn - 1);
    ASSERT_EQ(nvshmem_int_max_reducescatter(team, idst, a2a, 2), NVSHMEMX_SUCCESS);
    ASSERT_EQ(hipMemcpy(gi.data(), idst, 2 * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    for (int e = 0; e < 2; ++e) EXPECT_EQ(gi[e], (tn - 1) * 1000 + 2 * tme + e);
    ASSERT_EQ(nvshmem_barrier(team), 0);
    ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
    nvshmem_team_destroy(team);
  }
  nvshmemx_barrier_all_on_stream(nullptr);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  int h = -1;
  ASSERT_EQ(hipMemcpy(&h, bad, sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h, 0) << "PE " << me << ": " << h << " mismatches";
  for (void* p : {static_cast<void*>(hb), static_cast<void*>(rs), static_cast<void*>(a2aout), static_cast<void*>(a2a),
                  static_cast<void*>(l), static_cast<void*>(fdst), static_cast<void*>(fsrc), static_cast<void*>(idst),
                  static_cast<void*>(isrc), static_cast<void*>(pv), static_cast<void*>(counter),
                  static_cast<void*>(sig), static_cast<void*>(src), static_cast<void*>(buf)})
    nvshmem_free(p);
  ASSERT_EQ(hipFree(bad), hipSuccess);
  nvshmem_finalize();
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
}

}  // namespace
