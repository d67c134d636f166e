// Shared by the GPU suites: HIP checks, reproducible random data generated and verified on the
// GPU from (seed, pe, index), mismatch counts reduced over PEs with the first bad index and PE.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "mori/shmem_device.h"
#include "tests/support/test_env.hpp"

#define HIP_OK(call)                                                                                   \
  do {                                                                                                 \
    hipError_t e_ = (call);                                                                            \
    ASSERT_EQ(e_, hipSuccess) << #call << ": " << hipGetErrorName(e_) << " " << hipGetErrorString(e_); \
  } while (0)

namespace mori::test {

// splitmix64: the byte at index i of PE pe's data for seed.
__host__ __device__ inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
__host__ __device__ inline uint8_t patternByte(uint64_t seed, int pe, uint64_t i) {
  return static_cast<uint8_t>(mix(seed * 0x100000001b3ull + static_cast<uint64_t>(pe) * 0x9e3779b1ull + (i >> 3)) >>
                              ((i & 7) * 8));
}

// Templates: vague linkage in a header, and no unused-function warning where unused.
template <int = 0>
__global__ void fillKernel(uint8_t* p, size_t n, uint64_t seed, int pe) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = patternByte(seed, pe, i);
}

// counts[0] = mismatches, counts[1] = first bad index (min).
template <int = 0>
__global__ void checkKernel(const uint8_t* p, size_t n, uint64_t seed, int pe, unsigned long long* counts) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (p[i] != patternByte(seed, pe, i)) {
      atomicAdd(&counts[0], 1ull);
      atomicMin(&counts[1], static_cast<unsigned long long>(i));
    }
}

inline void fill(void* p, size_t n, uint64_t seed, int pe) {
  if (n) fillKernel<><<<256, 256>>>(static_cast<uint8_t*>(p), n, seed, pe);
  HIP_OK(hipGetLastError());
}

struct CheckResult {
  unsigned long long mismatches = 0;  // summed over PEs
  unsigned long long firstBad = ~0ull;
  int firstBadPe = -1;
};

// Verifies n bytes at p against pattern(seed, srcPe) on every PE and reduces the verdict.
inline CheckResult checkAll(const void* p, size_t n, uint64_t seed, int srcPe) {
  unsigned long long* d = nullptr;
  unsigned long long h[2] = {0, ~0ull};
  (void)hipMalloc(&d, sizeof(h));
  (void)hipMemcpy(d, h, sizeof(h), hipMemcpyHostToDevice);
  if (n) checkKernel<><<<256, 256>>>(static_cast<const uint8_t*>(p), n, seed, srcPe, d);
  EXPECT_EQ(hipGetLastError(), hipSuccess) << "kernel launch";
  (void)hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost);
  (void)hipFree(d);
  CheckResult r;
  MPI_Allreduce(&h[0], &r.mismatches, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  struct {
    double idx;
    int pe;
  } mine{h[1] == ~0ull ? 1e300 : static_cast<double>(h[1]), worldRank()}, first{};
  MPI_Allreduce(&mine, &first, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  if (r.mismatches) {
    r.firstBad = static_cast<unsigned long long>(first.idx);
    r.firstBadPe = first.pe;
  }
  return r;
}

inline std::string describe(const CheckResult& r) {
  return std::to_string(r.mismatches) + " bad bytes; first at index " + std::to_string(r.firstBad) + " on PE " +
         std::to_string(r.firstBadPe);
}

inline int gpuWaveSize() {
  hipDeviceProp_t prop;
  int dev = 0;
  (void)hipGetDevice(&dev);
  (void)hipGetDeviceProperties(&prop, dev);
  return prop.warpSize;
}

// All PEs agree (MPI) that `ok` holds everywhere.
inline bool allTrue(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all != 0;
}

// Initialises mori-shmem once for the whole binary.
class ShmemEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(mori_shmem_init(), 0) << "mori_shmem_init failed"; }
  void TearDown() override { EXPECT_EQ(mori_shmem_finalize(), 0); }
};

}  // namespace mori::test

// A GPU suite that runs with mori-shmem initialised.
#define MORI_TEST_WITH_SHMEM()                                \
  static ::testing::Environment* const mori_test_shmem_env_ = \
      ::testing::AddGlobalTestEnvironment(new mori::test::ShmemEnvironment)
