// reducescatter on random data, element-exact, on the world team and strided sub-teams (PEs
// outside a team idle): every integer op, floating types incl. half and bfloat16, in thread, warp
// and block scope (by team handle and by team value), blocking from the host and on a stream.
// Each PE's dest must be, bitwise, its piece of the reduction of every member's whole source in
// team order; nothing around dest may change, nor any piece of source. dest apart from source and
// in place (each PE's own piece). Counts from one element (the one-step path) through the direct
// and chunked paths to several MiB per piece (the host's spread kernel), odd element counts and
// misaligned pointers. Bad arguments: the host refuses them on every PE, enqueuing nothing.
#include <string.h>

#include <functional>
#include <type_traits>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"
#include "tests/gpu/team/collective_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;
using mori::shmem::team::combine;
using mori::shmem::team::Op;

constexpr int kThreads = 256;
// Elements of dest's own allocation before and after it that must keep their fill.
constexpr size_t kGuard = 16;

// Returns the call's status (0 for a device launch that ran).
using ScatterLaunch = std::function<int(mori_shmem_team_t, void*, const void*, size_t)>;

// One reducescatter of n elements per piece on `team`; `offset` moves source (and an apart dest)
// that many elements into their allocations. Returns whether every PE saw the right result.
template <typename T, Op O>
bool runScatter(mori_shmem_team_t team, size_t n, bool inPlace, const ScatterLaunch& launch, uint64_t seed,
                const char* what, size_t offset = 0) {
  const int me = mori_shmem_team_my_pe(team), tn = mori_shmem_team_n_pes(team);
  int pieces = tn > 0 ? tn : 0;
  MPI_Allreduce(MPI_IN_PLACE, &pieces, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);  // every PE allocates alike
  const size_t srcCount = static_cast<size_t>(pieces) * n + offset;
  T* srcBase = static_cast<T*>(mori_shmem_malloc(srcCount * sizeof(T)));
  T* dstBase = inPlace ? nullptr : static_cast<T*>(mori_shmem_malloc((n + 2 * kGuard + offset) * sizeof(T)));
  EXPECT_TRUE(srcBase && (inPlace || dstBase));
  bool good = true;
  if (srcBase && (inPlace || dstBase) && me >= 0) {
    T* src = srcBase + offset;
    const size_t all = static_cast<size_t>(tn) * n;
    T* dst = inPlace ? src + static_cast<size_t>(me) * n : dstBase + offset + kGuard;
    std::vector<T> h(all);
    for (size_t i = 0; i < all; ++i) h[i] = valueFor<T>(seed, me, i, O);
    EXPECT_EQ(hipMemcpy(src, h.data(), all * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
    const size_t dstAlloc = n + 2 * kGuard + offset;
    if (!inPlace) EXPECT_EQ(hipMemset(dstBase, 0x77, dstAlloc * sizeof(T)), hipSuccess);
    // The setup runs on the legacy stream, the on_stream forms on a non-blocking one.
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(launch(team, dst, src, n), 0) << what;
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess) << what;
    std::vector<T> out(n), srcAfter(all);
    EXPECT_EQ(hipMemcpy(out.data(), dst, n * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hipMemcpy(srcAfter.data(), src, all * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(me) * n + i;
      T want = valueFor<T>(seed, 0, at, O);
      for (int j = 1; j < tn; ++j) want = combine<O>(want, valueFor<T>(seed, j, at, O));
      if (memcmp(&want, &out[i], sizeof(T)) != 0 && bad++ == 0) first = i;
    }
    // Every piece of source but this PE's in-place one is as it was: other members read them.
    size_t touched = 0;
    for (size_t i = 0; i < all; ++i) {
      const bool mine = inPlace && i / (n ? n : 1) == static_cast<size_t>(me);
      if (!mine && memcmp(&h[i], &srcAfter[i], sizeof(T)) != 0) ++touched;
    }
    size_t guards = 0;
    if (!inPlace) {
      std::vector<uint8_t> raw(dstAlloc * sizeof(T));
      EXPECT_EQ(hipMemcpy(raw.data(), dstBase, raw.size(), hipMemcpyDeviceToHost), hipSuccess);
      const size_t lo = (offset + kGuard) * sizeof(T), hi = lo + n * sizeof(T);
      for (size_t b = 0; b < raw.size(); ++b)
        if ((b < lo || b >= hi) && raw[b] != 0x77) ++guards;
    }
    if (bad || touched || guards) {
      ADD_FAILURE() << what << " op " << static_cast<int>(O) << " team " << team << " (" << tn << " PEs) n " << n
                    << (inPlace ? " in place" : "") << " offset " << offset << ": " << bad << " bad elements, first at "
                    << first << "; " << touched << " source elements changed; " << guards
                    << " bytes around dest changed; on team PE " << me;
      good = false;
    }
  }
  mori_shmem_free(dstBase);
  mori_shmem_free(srcBase);
  return allTrue(good);
}

// A kernel and host launchers per (type, op), through the public names.
#define SCATTER_CASE(NAME, T, OPNAME, OPV)                                                                            \
  template <int SC, bool BV>                                                                                          \
  __global__ void scatterKernel_##NAME##_##OPNAME(mori_shmem_team_t team, mori_shmem_team_device_t value, T* d,       \
                                                  const T* s, size_t n) {                                             \
    CALL(SC, mori_shmem_##NAME##_##OPNAME##_reducescatter, d, s, n);                                                  \
  }                                                                                                                   \
  template <int SC, bool BV, int kBlock = kThreads>                                                                   \
  ScatterLaunch scatterDevice_##NAME##_##OPNAME() {                                                                   \
    return [](mori_shmem_team_t t, void* d, const void* s, size_t n) {                                                \
      scatterKernel_##NAME##_##OPNAME<SC, BV>                                                                         \
          <<<1, kBlock>>>(t, mori_shmem_team_get_device(t), static_cast<T*>(d), static_cast<const T*>(s), n);         \
      return static_cast<int>(hipGetLastError());                                                                     \
    };                                                                                                                \
  }                                                                                                                   \
  ScatterLaunch scatterStream_##NAME##_##OPNAME(hipStream_t stream) {                                                 \
    return [stream](mori_shmem_team_t t, void* d, const void* s, size_t n) {                                          \
      return mori_shmem_##NAME##_##OPNAME##_reducescatter_on_stream(t, static_cast<T*>(d), static_cast<const T*>(s),  \
                                                                    n, stream);                                       \
    };                                                                                                                \
  }                                                                                                                   \
  ScatterLaunch scatterHost_##NAME##_##OPNAME() {                                                                     \
    return [](mori_shmem_team_t t, void* d, const void* s, size_t n) {                                                \
      return mori_shmem_##NAME##_##OPNAME##_reducescatter(t, static_cast<T*>(d), static_cast<const T*>(s), n);        \
    };                                                                                                                \
  }                                                                                                                   \
  /* SCOPES 1: block and the host forms; 3: warp and thread too (pieces under 100000 elements). */                    \
  template <int SCOPES>                                                                                               \
  void scatterAll_##NAME##_##OPNAME(const std::vector<size_t>& sizes, bool inPlace) {                                 \
    Teams teams;                                                                                                      \
    hipStream_t stream;                                                                                               \
    ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);                                   \
    uint64_t seed = 3000;                                                                                             \
    for (mori_shmem_team_t t : teams.all)                                                                             \
      for (size_t n : sizes) {                                                                                        \
        ASSERT_TRUE((runScatter<T, Op::OPV>(t, n, inPlace, scatterDevice_##NAME##_##OPNAME<2, false>(), seed++,       \
                                            #NAME " block")));                                                        \
        ASSERT_TRUE((runScatter<T, Op::OPV>(t, n, inPlace, scatterStream_##NAME##_##OPNAME(stream), seed++,           \
                                            #NAME " on_stream")));                                                    \
        ASSERT_TRUE((runScatter<T, Op::OPV>(t, n, inPlace, scatterHost_##NAME##_##OPNAME(), seed++, #NAME " host"))); \
        if constexpr (SCOPES > 1) {                                                                                   \
          if (n < 100000) {                                                                                           \
            ASSERT_TRUE((runScatter<T, Op::OPV>(t, n, inPlace, scatterDevice_##NAME##_##OPNAME<1, true>(), seed++,    \
                                                #NAME " warp")));                                                     \
            ASSERT_TRUE((runScatter<T, Op::OPV>(t, n, inPlace, scatterDevice_##NAME##_##OPNAME<0, false>(), seed++,   \
                                                #NAME " thread")));                                                   \
          }                                                                                                           \
        }                                                                                                             \
      }                                                                                                               \
    ASSERT_EQ(hipStreamDestroy(stream), hipSuccess);                                                                  \
  }

SCATTER_CASE(int, int, sum, Sum)
SCATTER_CASE(int, int, xor, Xor)
SCATTER_CASE(int, int, min, Min)
SCATTER_CASE(uint8, uint8_t, sum, Sum)
SCATTER_CASE(int64, int64_t, prod, Prod)
SCATTER_CASE(float, float, sum, Sum)
SCATTER_CASE(double, double, max, Max)
SCATTER_CASE(half, mori_shmem_half_t, sum, Sum)
SCATTER_CASE(bfloat16, mori_shmem_bfloat16_t, sum, Sum)

// 1 and 33: the one-step path (one thread up to kLlMaxBytesThread per piece); 1000 ints: one step
// from a wave or block on small teams, the pull form on larger ones; 70001: the pull form
// (direct loads, or chunks of gets from RDMA peers); 1 << 20: the host's spread kernel.
const std::vector<size_t> kSizes{1, 33, 1000, 70001, size_t{1} << 20};
const std::vector<size_t> kSmall{1, 129, 5000};

TEST(Reducescatter, IntEveryScope) {
  scatterAll_int_sum<3>(kSizes, false);
  scatterAll_int_xor<3>(kSmall, false);
  scatterAll_int_min<1>(kSmall, false);
}
TEST(Reducescatter, OtherTypes) {
  scatterAll_uint8_sum<3>({1, 7, 4099, 100003}, false);
  scatterAll_int64_prod<1>(kSmall, false);
  scatterAll_float_sum<3>(kSizes, false);
  scatterAll_double_max<1>(kSmall, false);
  scatterAll_half_sum<3>(kSmall, false);
  scatterAll_bfloat16_sum<1>({3, 70001}, false);
}
// dest = this PE's own piece of source: one step, direct loads in one pass, or staged chunks.
TEST(Reducescatter, InPlace) {
  scatterAll_int_sum<3>({1, 33, 1000, 70001, 300000}, true);
  scatterAll_float_sum<1>({7, 100001}, true);
  scatterAll_half_sum<1>({3, 70001}, true);
  scatterAll_uint8_sum<3>({5, 4097}, true);
}
// Kernels in 1024-thread blocks, and pointers misaligned for the vector loads.
TEST(Reducescatter, In1024ThreadBlocksAndMisaligned) {
  Teams teams;
  uint64_t seed = 5000;
  for (mori_shmem_team_t t : teams.all) {
    ASSERT_TRUE(
        (runScatter<int, Op::Sum>(t, 70001, false, scatterDevice_int_sum<2, false, 1024>(), seed++, "int block", 1)));
    ASSERT_TRUE(
        (runScatter<int, Op::Xor>(t, 4097, true, scatterDevice_int_xor<1, true, 1024>(), seed++, "int warp", 3)));
    ASSERT_TRUE((runScatter<uint8_t, Op::Sum>(t, 1027, false, scatterDevice_uint8_sum<0, false, 1024>(), seed++,
                                              "uint8 thread", 2)));
    ASSERT_TRUE((runScatter<mori_shmem_half_t, Op::Sum>(t, 40003, false, scatterDevice_half_sum<2, true, 1024>(),
                                                        seed++, "half block", 1)));
    ASSERT_TRUE((runScatter<int, Op::Sum>(t, 0, false, scatterDevice_int_sum<1, true>(), seed++, "int warp, none", 1)));
  }
}

// dest over another member's piece of source, source outside the symmetric heap, an operation
// the type does not have: INVALID_USAGE on every PE, nothing enqueued; the team works after.
TEST(Reducescatter, HostRefusesBadArguments) {
  const int n = mori_shmem_n_pes();
  int* src = static_cast<int*>(mori_shmem_malloc(static_cast<size_t>(n) * 8 * sizeof(int)));
  int* dst = static_cast<int*>(mori_shmem_malloc(8 * sizeof(int)));
  ASSERT_TRUE(src && dst);
  hipStream_t stream;
  ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
  const int usage = MORI_SHMEM_ERROR_INVALID_USAGE;
  // src + 1 is no PE's own piece (PE 0's starts at src).
  EXPECT_EQ(mori_shmem_int_sum_reducescatter(MORI_SHMEM_TEAM_WORLD, src + 1, src, 8), usage);
  EXPECT_EQ(mori_shmem_int_sum_reducescatter_on_stream(MORI_SHMEM_TEAM_WORLD, src + 1, src, 8, stream), usage);
  // dest inside the last piece of source.
  EXPECT_EQ(mori_shmem_int_max_reducescatter(MORI_SHMEM_TEAM_WORLD, src + (n - 1) * 8 + 2, src, 8), usage);
  int* local = nullptr;
  ASSERT_EQ(hipMalloc(&local, static_cast<size_t>(n) * 8 * sizeof(int)), hipSuccess);
  EXPECT_EQ(mori_shmem_int_sum_reducescatter(MORI_SHMEM_TEAM_WORLD, dst, local, 8), usage);
  EXPECT_EQ(mori_shmemi_collective(MORI_SHMEM_COLL_REDUCESCATTER, MORI_SHMEM_TEAM_WORLD, dst, src, 8, sizeof(float), 0,
                                   MORI_SHMEM_DTYPE_FLOAT, MORI_SHMEM_REDUCE_XOR, nullptr, 1),
            usage);
  EXPECT_EQ(hipStreamQuery(stream), hipSuccess) << "a refused call enqueued work";
  ASSERT_EQ(hipFree(local), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(stream), hipSuccess);
  mori_shmem_free(dst);
  mori_shmem_free(src);
  ASSERT_TRUE(
      (runScatter<int, Op::Sum>(MORI_SHMEM_TEAM_WORLD, 100, false, scatterHost_int_sum(), 77, "int host after")));
}

}  // namespace
