// What the typed RMA units of test_rma share (test_rma_typed.cpp, test_rma_typed_narrow.cpp): per
// type of MORI_SHMEM_RMA_TYPES and MORI_SHMEM_RMA_HALF_TYPES, a kernel that puts a block of elements to the right
// neighbour, gets them back from the left in one wave and does one p and one g per thread, and the host check of every
// element. The types are divided among the units by element size, so that each unit compiles only its share of the
// kernels; a type added to the API's list is tested by the unit of its size.
#pragma once

#include <string.h>

#include <type_traits>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

namespace mori::test::rma_typed {

using namespace mori::test;

// Random values; the 16-bit floating types (class types) as random bits, compared bitwise.
template <typename T>
__host__ __device__ T valueOf(uint64_t seed, int pe, size_t i) {
  const uint64_t bits = mix(seed + static_cast<uint64_t>(pe) * 7919u + i);
  if constexpr (!std::is_arithmetic<T>::value) {
    const uint16_t b = static_cast<uint16_t>(bits);
    T v;
    memcpy(static_cast<void*>(&v), &b, sizeof(v));  // a class type of 16 bits
    return v;
  } else {
    if constexpr (sizeof(T) == 4 && !std::is_integral<T>::value) return static_cast<T>(static_cast<int32_t>(bits) >> 8);
    if constexpr (sizeof(T) == 8 && !std::is_integral<T>::value)
      return static_cast<T>(static_cast<int64_t>(bits) >> 12);
    return static_cast<T>(bits);
  }
}
// Thread i's p value.
template <typename T>
__host__ __device__ T scalarOf(unsigned i) {
  if constexpr (std::is_arithmetic<T>::value)
    return static_cast<T>(i * 3 + 1);
  else
    return valueOf<T>(5, 0, i);
}
template <typename T>
bool same(const T& a, const T& b) {
  return memcmp(&a, &b, sizeof(T)) == 0;
}

// Per type NAME: block put of `count` elements to the right neighbour, warp get back from it, and
// one p / g per thread. The device code is compiled only where typedKernel<Ops_NAME> is launched.
#define MORI_TEST_RMA_TYPED_OPS(NAME, T)                                                                     \
  struct Ops_##NAME {                                                                                        \
    using Type = T;                                                                                          \
    static constexpr const char* kName = #NAME;                                                              \
    static __device__ void run(T* sym, T* out, T* scalars, T* gathered, size_t count, int right, int left) { \
      mori_shmem_##NAME##_put_nbi_block(sym + count, sym, count, right);                                     \
      mori_shmem_quiet();                                                                                    \
      if (threadIdx.x < static_cast<unsigned>(mori::gpu::waveSize()))                                        \
        mori_shmem_##NAME##_get_warp(out, sym, count, left);                                                 \
      mori_shmem_##NAME##_p(scalars + threadIdx.x, scalarOf<T>(threadIdx.x), right);                         \
      gathered[threadIdx.x] = mori_shmem_##NAME##_g(sym + threadIdx.x, left);                                \
    }                                                                                                        \
  };

// Every type the API declares (its own lists: a type added there is tested here too).
MORI_SHMEM_RMA_TYPES(MORI_TEST_RMA_TYPED_OPS)
MORI_SHMEM_RMA_HALF_TYPES(MORI_TEST_RMA_TYPED_OPS)

template <class Ops, typename T = typename Ops::Type>
__global__ void typedKernel(T* sym, T* out, T* scalars, T* gathered, size_t count, int right, int left) {
  Ops::run(sym, out, scalars, gathered, count, right, left);
}

template <typename T>
__global__ void fillTyped(T* p, size_t count, uint64_t seed, int pe) {
  for (size_t i = threadIdx.x; i < count; i += blockDim.x) p[i] = valueOf<T>(seed, pe, i);
}

template <typename T, typename K>
void typedCheck(const char* name, K kernel) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr size_t kCount = 1000, kThreads = 64;
  T* sym = static_cast<T*>(mori_shmem_malloc(sizeof(T) * (2 * kCount + kThreads)));
  ASSERT_NE(sym, nullptr);
  T* scalars = sym + 2 * kCount;
  // Get destinations are symmetric too, so the same test runs over RDMA (registered memory).
  T* out = static_cast<T*>(mori_shmem_malloc(sizeof(T) * kCount));
  T* gathered = static_cast<T*>(mori_shmem_malloc(sizeof(T) * kThreads));
  ASSERT_TRUE(out && gathered);
  fillTyped<T><<<1, 256>>>(sym, kCount, 77, me);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  kernel<<<1, kThreads>>>(sym, out, scalars, gathered, kCount, right, left);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  ASSERT_EQ(mori_shmem_barrier_all(), 0);
  std::vector<T> got(kCount), back(kCount), sc(kThreads), gat(kThreads);
  HIP_OK(hipMemcpy(got.data(), sym + kCount, sizeof(T) * kCount, hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(back.data(), out, sizeof(T) * kCount, hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(sc.data(), scalars, sizeof(T) * kThreads, hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(gat.data(), gathered, sizeof(T) * kThreads, hipMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < kCount; ++i) {
    bad += !same(got[i], valueOf<T>(77, left, i));  // the left neighbour put its data here
    bad += !same(back[i], valueOf<T>(77, left, i));
  }
  for (size_t i = 0; i < kThreads; ++i) {
    bad += !same(sc[i], scalarOf<T>(static_cast<unsigned>(i)));
    bad += !same(gat[i], valueOf<T>(77, left, i));
  }
  EXPECT_TRUE(allTrue(bad == 0)) << name << ": " << bad << " wrong elements on PE " << me;
  mori_shmem_free(gathered);
  mori_shmem_free(out);
  mori_shmem_free(sym);
}

// The check of Ops's type when its size is within [kMin, kMax] (the calling unit's share).
template <class Ops, size_t kMin, size_t kMax>
void checkIfInUnit() {
  using T = typename Ops::Type;
  if constexpr (sizeof(T) >= kMin && sizeof(T) <= kMax) typedCheck<T>(Ops::kName, typedKernel<Ops>);
}

// The checks of the types of 1, 2 and 4 bytes (test_rma_typed_narrow.cpp) and of 8 bytes
// (test_rma_typed.cpp).
void checkNarrowTypes();
void checkWideTypes();

}  // namespace mori::test::rma_typed

// In a unit, inside namespace mori::test::rma_typed: `FN` checks every type of [MIN, MAX] bytes.
#define MORI_TEST_RMA_TYPED_UNIT(FN, MIN, MAX)               \
  namespace {                                                \
  constexpr size_t kUnitMinBytes = MIN, kUnitMaxBytes = MAX; \
  }                                                          \
  void FN() {                                                \
    MORI_SHMEM_RMA_TYPES(MORI_TEST_RMA_TYPED_RUN)            \
    MORI_SHMEM_RMA_HALF_TYPES(MORI_TEST_RMA_TYPED_RUN)       \
  }
#define MORI_TEST_RMA_TYPED_RUN(NAME, T) checkIfInUnit<Ops_##NAME, kUnitMinBytes, kUnitMaxBytes>();
