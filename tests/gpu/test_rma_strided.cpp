// Strided RMA (<type>_iput / _iget) and typed put-with-signal (<type>_put_signal[_nbi]) at thread,
// wave and block scope. Each PE writes into its right neighbour and reads from its left one;
// every byte of the destination is checked on the host, the elements between the strided ones
// included (they must keep their old bytes). Element sizes 1, 2, 4 and 8; strides of 1, >1 and
// negative; counts of 1 up to several hundred. The same cases run through the NIC model
// (tests/gpu/rdma: test_rma over RDMA).
#include <string.h>

#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

namespace {

using namespace mori::test;

constexpr unsigned kThreads = 128;
constexpr uint64_t kSrcSeed = 31, kLandSeed = 32, kOutSeed = 33;

// Per type: the scope's call chosen by kScope (0 thread, 1 wave, 2 block).
#define STRIDED_OPS(NAME, T)                                                                                  \
  struct Ops_##NAME {                                                                                         \
    using Type = T;                                                                                           \
    static constexpr const char* kName = #NAME;                                                               \
    template <int kScope>                                                                                     \
    static __device__ void iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {           \
      if constexpr (kScope == 0) mori_shmem_##NAME##_iput_thread(d, s, dst, sst, n, pe);                      \
      if constexpr (kScope == 1) mori_shmem_##NAME##_iput_warp(d, s, dst, sst, n, pe);                        \
      if constexpr (kScope == 2) mori_shmem_##NAME##_iput_block(d, s, dst, sst, n, pe);                       \
    }                                                                                                         \
    template <int kScope>                                                                                     \
    static __device__ void iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {           \
      if constexpr (kScope == 0) mori_shmem_##NAME##_iget_thread(d, s, dst, sst, n, pe);                      \
      if constexpr (kScope == 1) mori_shmem_##NAME##_iget_warp(d, s, dst, sst, n, pe);                        \
      if constexpr (kScope == 2) mori_shmem_##NAME##_iget_block(d, s, dst, sst, n, pe);                       \
    }                                                                                                         \
    template <int kScope, bool kNbi>                                                                          \
    static __device__ void putSignal(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) { \
      if constexpr (kScope == 0 && kNbi) mori_shmem_##NAME##_put_signal_nbi_thread(d, s, n, sig, v, op, pe);  \
      if constexpr (kScope == 0 && !kNbi) mori_shmem_##NAME##_put_signal_thread(d, s, n, sig, v, op, pe);     \
      if constexpr (kScope == 1 && kNbi) mori_shmem_##NAME##_put_signal_nbi_warp(d, s, n, sig, v, op, pe);    \
      if constexpr (kScope == 1 && !kNbi) mori_shmem_##NAME##_put_signal_warp(d, s, n, sig, v, op, pe);       \
      if constexpr (kScope == 2 && kNbi) mori_shmem_##NAME##_put_signal_nbi_block(d, s, n, sig, v, op, pe);   \
      if constexpr (kScope == 2 && !kNbi) mori_shmem_##NAME##_put_signal_block(d, s, n, sig, v, op, pe);      \
    }                                                                                                         \
  };
STRIDED_OPS(schar, signed char)
STRIDED_OPS(ushort, unsigned short)
STRIDED_OPS(int, int)
STRIDED_OPS(uint64, uint64_t)
#undef STRIDED_OPS

// The threads that make up one call of the scope: thread 0, the first wave, or the block.
template <int kScope>
__device__ bool inScope() {
  if constexpr (kScope == 0) return threadIdx.x == 0;
  if constexpr (kScope == 1) return threadIdx.x < static_cast<unsigned>(mori::gpu::waveSize());
  return true;
}

template <class Ops, int kScope, typename T = typename Ops::Type>
__global__ void stridedKernel(T* land, T* out, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t n, size_t dBase,
                              size_t sBase, int right, int left) {
  if (!inScope<kScope>()) return;
  Ops::template iput<kScope>(land + dBase, src + sBase, dst, sst, n, right);
  Ops::template iget<kScope>(out + dBase, src + sBase, dst, sst, n, left);
}

// Put with signal to the right neighbour, then wait for the left one's signal to reach `want`.
template <class Ops, int kScope, bool kNbi, typename T = typename Ops::Type>
__global__ void putSignalKernel(T* land, const T* src, size_t n, uint64_t* sig, uint64_t v, int op, uint64_t want,
                                int right) {
  if (inScope<kScope>()) Ops::template putSignal<kScope, kNbi>(land, src, n, sig, v, op, right);
  if (threadIdx.x == 0) {
    if (kNbi) mori_shmem_quiet();
    mori_shmem_signal_wait_until(sig, MORI_SHMEM_CMP_GE, want);
  }
}

std::vector<uint8_t> pattern(size_t bytes, uint64_t seed, int pe) {
  std::vector<uint8_t> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = patternByte(seed, pe, i);
  return v;
}

// `init` with element k of `from` (at fromBase + k * fromStride) copied to toBase + k * toStride.
std::vector<uint8_t> scatter(std::vector<uint8_t> init, const std::vector<uint8_t>& from, size_t elem, size_t n,
                             size_t toBase, ptrdiff_t toStride, size_t fromBase, ptrdiff_t fromStride) {
  for (size_t k = 0; k < n; ++k) {
    const ptrdiff_t kk = static_cast<ptrdiff_t>(k);
    memcpy(&init[(toBase + kk * toStride) * elem], &from[(fromBase + kk * fromStride) * elem], elem);
  }
  return init;
}

// The first differing byte's index, or -1.
long firstDiff(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) return static_cast<long>(i);
  return -1;
}

struct Stride {
  ptrdiff_t dst, sst;
};
constexpr Stride kStrides[] = {{1, 1}, {3, 2}, {1, 4}, {-2, 3}};
constexpr size_t kCounts[] = {1, 7, 300};
constexpr size_t kElems = 1300;  // covers (max count - 1) x max |stride| + 1

template <class Ops, int kScope>
void stridedScope() {
  using T = typename Ops::Type;
  const int me = mori_shmem_my_pe(), np = mori_shmem_n_pes();
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  const size_t bytes = kElems * sizeof(T);
  // All symmetric: over RDMA the iget's elements are read by the NIC into registered memory.
  T* src = static_cast<T*>(mori_shmem_malloc(bytes));
  T* land = static_cast<T*>(mori_shmem_malloc(bytes));
  T* out = static_cast<T*>(mori_shmem_malloc(bytes));
  ASSERT_TRUE(src && land && out);
  const std::vector<uint8_t> leftSrc = pattern(bytes, kSrcSeed, left);
  for (Stride st : kStrides)
    for (size_t n : kCounts) {
      fill(src, bytes, kSrcSeed, me);
      fill(land, bytes, kLandSeed, me);
      fill(out, bytes, kOutSeed, me);
      HIP_OK(hipDeviceSynchronize());
      ASSERT_EQ(mori_shmem_barrier_all(), 0);
      const size_t dBase = st.dst < 0 ? (n - 1) * static_cast<size_t>(-st.dst) : 0;
      const size_t sBase = st.sst < 0 ? (n - 1) * static_cast<size_t>(-st.sst) : 0;
      stridedKernel<Ops, kScope><<<1, kThreads>>>(land, out, src, st.dst, st.sst, n, dBase, sBase, right, left);
      HIP_OK(hipGetLastError());
      HIP_OK(hipDeviceSynchronize());
      ASSERT_EQ(mori_shmem_barrier_all(), 0);  // quiets the iputs and orders them before the reads
      std::vector<uint8_t> gotLand(bytes), gotOut(bytes);
      HIP_OK(hipMemcpy(gotLand.data(), land, bytes, hipMemcpyDeviceToHost));
      HIP_OK(hipMemcpy(gotOut.data(), out, bytes, hipMemcpyDeviceToHost));
      const long badLand = firstDiff(
          gotLand, scatter(pattern(bytes, kLandSeed, me), leftSrc, sizeof(T), n, dBase, st.dst, sBase, st.sst));
      const long badOut =
          firstDiff(gotOut, scatter(pattern(bytes, kOutSeed, me), leftSrc, sizeof(T), n, dBase, st.dst, sBase, st.sst));
      EXPECT_TRUE(allTrue(badLand < 0 && badOut < 0))
          << Ops::kName << " scope " << kScope << ", " << n << " elements, dst " << st.dst << " sst " << st.sst
          << ": PE " << me << " iput byte " << badLand << ", iget byte " << badOut << " differ (-1: none)";
    }
  mori_shmem_free(out);
  mori_shmem_free(land);
  mori_shmem_free(src);
}

template <class Ops, int kScope, bool kNbi>
void putSignalScope() {
  using T = typename Ops::Type;
  const int me = mori_shmem_my_pe(), np = mori_shmem_n_pes();
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  const size_t n = 777, bytes = n * sizeof(T);
  T* src = static_cast<T*>(mori_shmem_malloc(bytes));
  T* land = static_cast<T*>(mori_shmem_malloc(bytes));
  auto* sig = static_cast<uint64_t*>(mori_shmem_calloc(1, sizeof(uint64_t)));
  ASSERT_TRUE(src && land && sig);
  fill(src, bytes, kSrcSeed + kScope, me);
  fill(land, bytes, kLandSeed, me);
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  // SET 5, then ADD 3 (the second put overwrites the same bytes with the same data).
  putSignalKernel<Ops, kScope, kNbi><<<1, kThreads>>>(land, src, n, sig, 5, MORI_SHMEM_SIGNAL_SET, 5, right);
  HIP_OK(hipGetLastError());
  putSignalKernel<Ops, kScope, kNbi><<<1, kThreads>>>(land, src, n, sig, 3, MORI_SHMEM_SIGNAL_ADD, 8, right);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  std::vector<uint8_t> got(bytes);
  uint64_t gotSig = 0;
  HIP_OK(hipMemcpy(got.data(), land, bytes, hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(&gotSig, sig, sizeof(gotSig), hipMemcpyDeviceToHost));
  const long bad = firstDiff(got, pattern(bytes, kSrcSeed + kScope, left));
  EXPECT_TRUE(allTrue(bad < 0 && gotSig == 8))
      << Ops::kName << "_put_signal" << (kNbi ? "_nbi" : "") << " scope " << kScope << ": PE " << me << " byte " << bad
      << " differs (-1: none), signal " << gotSig << " (want 8)";
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  mori_shmem_free(sig);
  mori_shmem_free(land);
  mori_shmem_free(src);
}

template <class Ops>
void everyScope() {
  stridedScope<Ops, 0>();
  stridedScope<Ops, 1>();
  stridedScope<Ops, 2>();
  putSignalScope<Ops, 0, false>();
  putSignalScope<Ops, 1, true>();
  putSignalScope<Ops, 2, false>();
  putSignalScope<Ops, 2, true>();
}

TEST(RmaStrided, IputIgetAndTypedPutSignal) {
  everyScope<Ops_schar>();
  everyScope<Ops_ushort>();
  everyScope<Ops_int>();
  everyScope<Ops_uint64>();
}

}  // namespace
