// Contiguous RMA over the device API: put/get, blocking and not, in thread, warp and block
// scope, sizes 1 B .. 256 MiB with odd sizes and unaligned offsets; every byte checked, and the
// bytes around each destination checked untouched; the sweep on heap buffers and again, up to
// 4 MiB, on registered buffers. The typed forms (and p/g) are in test_rma_typed*.cpp, strided
// RMA and typed put-with-signal in test_rma_strided.cpp: one program, units of a few kernels
// each, so that each compiles in seconds.
#include <stdio.h>

#include <algorithm>
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 2);  // write -> barrier -> read only: PEs may share a GPU
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

enum class Op { PutNbi, Put, GetNbi, Get };
enum class Sc { Thread, Warp, Block };

constexpr size_t kGuard = 64;

template <Op OP, Sc SC>
__device__ void transfer(char* dst, const char* src, size_t len, int pe) {
  if constexpr (SC == Sc::Thread) {
    if constexpr (OP == Op::PutNbi) mori_shmem_putmem_nbi_thread(dst, src, len, pe);
    if constexpr (OP == Op::Put) mori_shmem_putmem_thread(dst, src, len, pe);
    if constexpr (OP == Op::GetNbi) mori_shmem_getmem_nbi_thread(dst, src, len, pe);
    if constexpr (OP == Op::Get) mori_shmem_getmem_thread(dst, src, len, pe);
  } else if constexpr (SC == Sc::Warp) {
    if constexpr (OP == Op::PutNbi) mori_shmem_putmem_nbi_warp(dst, src, len, pe);
    if constexpr (OP == Op::Put) mori_shmem_putmem_warp(dst, src, len, pe);
    if constexpr (OP == Op::GetNbi) mori_shmem_getmem_nbi_warp(dst, src, len, pe);
    if constexpr (OP == Op::Get) mori_shmem_getmem_warp(dst, src, len, pe);
  } else {
    if constexpr (OP == Op::PutNbi) mori_shmem_putmem_nbi_block(dst, src, len, pe);
    if constexpr (OP == Op::Put) mori_shmem_putmem_block(dst, src, len, pe);
    if constexpr (OP == Op::GetNbi) mori_shmem_getmem_nbi_block(dst, src, len, pe);
    if constexpr (OP == Op::Get) mori_shmem_getmem_block(dst, src, len, pe);
  }
}

// The transfer is split into `chunk`-byte pieces, one per unit (thread, wave or block).
template <Op OP, Sc SC>
__global__ void rmaKernel(char* dst, const char* src, size_t bytes, size_t chunk, int pe) {
  size_t unit, units;
  if constexpr (SC == Sc::Thread) {
    unit = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    units = static_cast<size_t>(gridDim.x) * blockDim.x;
  } else if constexpr (SC == Sc::Warp) {
    const size_t perBlock = blockDim.x / mori::gpu::waveSize();
    unit = blockIdx.x * perBlock + threadIdx.x / mori::gpu::waveSize();
    units = gridDim.x * perBlock;
  } else {
    unit = blockIdx.x;
    units = gridDim.x;
  }
  for (size_t off = unit * chunk; off < bytes; off += units * chunk) {
    const size_t len = bytes - off < chunk ? bytes - off : chunk;
    transfer<OP, SC>(dst + off, src + off, len, pe);
  }
  if constexpr (OP == Op::PutNbi || OP == Op::GetNbi) mori_shmem_quiet();
}

template <Op OP, Sc SC>
void launch(char* dst, const char* src, size_t bytes, size_t chunk, int pe, int blocks, int threads) {
  rmaKernel<OP, SC><<<blocks, threads>>>(dst, src, bytes, chunk, pe);
  HIP_OK(hipGetLastError());
}

struct Case {
  size_t bytes;
  size_t dstOff, srcOff;
  bool oneCall;  // a single call moves everything
};

class Rma : public ::testing::Test {
 protected:
  void SetUp() override {
    me = mori_shmem_my_pe();
    n = mori_shmem_n_pes();
    capacity = (256u << 20) + 4 * kGuard;
    a = static_cast<char*>(mori_shmem_malloc(capacity));
    b = static_cast<char*>(mori_shmem_malloc(capacity));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
  }
  void TearDown() override {
    mori_shmem_free(b);
    mori_shmem_free(a);
  }

  // PE me moves `bytes` to (put) or from (get) its neighbour, then every PE checks what it holds.
  template <Op OP, Sc SC>
  void run(const Case& c, uint64_t seed) {
    const bool isPut = OP == Op::Put || OP == Op::PutNbi;
    const int peer = (me + 1) % n;
    const int source = isPut ? (me + n - 1) % n : peer;  // whose data lands in my dst
    char* src = (isPut ? a : b) + kGuard + c.srcOff;
    char* dst = (isPut ? b : a) + kGuard + c.dstOff;
    // Poison the whole destination buffer, fill the source with this PE's pattern.
    fill(isPut ? b : a, capacity, seed ^ 0xdeadull, me);
    fill(src, c.bytes, seed, me);
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    const int threads = SC == Sc::Thread ? 128 : 256;
    const int blocks = c.oneCall ? 1 : gridShare(c.bytes > (64u << 20) ? 132 : 8);
    const size_t units = SC == Sc::Thread ? static_cast<size_t>(blocks) * threads
                         : SC == Sc::Warp ? static_cast<size_t>(blocks) * (threads / gpuWaveSize())
                                          : static_cast<size_t>(blocks);
    const size_t chunk = c.oneCall ? c.bytes : (c.bytes + units - 1) / units;
    launch<OP, SC>(dst, src, c.bytes, chunk ? chunk : 1, peer, blocks, threads);
    HIP_OK(hipGetLastError());
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    CheckResult r = checkAll(dst, c.bytes, seed, source);
    EXPECT_EQ(r.mismatches, 0u) << describe(r) << " (bytes " << c.bytes << ", dst+" << c.dstOff << ", src+" << c.srcOff
                                << (c.oneCall ? ", one call" : ", split") << ")";
    // Nothing outside [dst, dst + bytes) was written: the poison around it is intact.
    const char* buffer = isPut ? b : a;
    const size_t end = kGuard + c.dstOff + c.bytes;
    CheckResult guards = checkRange(buffer, 0, kGuard + c.dstOff, seed ^ 0xdeadull, me);
    guards.mismatches += checkRange(buffer, end, kGuard, seed ^ 0xdeadull, me).mismatches;
    EXPECT_EQ(guards.mismatches, 0u) << "bytes around the destination were overwritten (" << c.bytes << " bytes)";
  }

  // Host check of a small range whose pattern index starts at `from` (summed over PEs).
  static CheckResult checkRange(const char* base, size_t from, size_t len, uint64_t seed, int pe) {
    std::vector<uint8_t> host(len);
    (void)hipMemcpy(host.data(), base + from, len, hipMemcpyDeviceToHost);
    unsigned long long bad = 0;
    for (size_t i = 0; i < len; ++i) bad += host[i] != patternByte(seed, pe, from + i);
    CheckResult r;
    MPI_Allreduce(&bad, &r.mismatches, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return r;
  }

  template <Op OP, Sc SC>
  void sweep() {
    std::vector<Case> cases = {{1, 0, 0, true},
                               {3, 1, 2, true},
                               {15, 7, 0, true},
                               {16, 0, 0, true},
                               {17, 13, 5, true},
                               // One thread's copy (copyThread): a word or a value at its
                               // alignment, an 8-byte piece with 4-byte aligned ends, whole
                               // vectors that leave 3, 1 and 3 for the predicated tail.
                               {4, 4, 12, true},
                               {8, 8, 8, true},
                               {8, 8, 4, true},
                               {48, 16, 32, true},
                               {80, 32, 0, true},
                               {112, 0, 16, true},
                               {255, 8, 8, true},
                               {4096 + 7, 3, 11, true},
                               {4096 + 7, 16, 0, false},
                               {(1u << 20) + 13, 1, 1, false},
                               {(1u << 20) + 13, 5, 9, true},
                               // Head and tail of 15 bytes each: all eight 1/2/4/8-byte pieces,
                               // one thread each on the group's last ranks.
                               {(1u << 20) + 30, 1, 1, false},
                               {(16u << 20) + 3, 8, 0, false},
                               // Whole 16-byte vectors starting 80 / 112 bytes into a 128-byte
                               // line (allocations are 256-byte aligned, kGuard is 64): the
                               // copy's line skew on its aligned path.
                               {4096, 16, 16, true},
                               {1u << 20, 48, 48, false}};
    if (SC == Sc::Block) cases.push_back({256u << 20, 0, 0, false});
    uint64_t seed = 1000 + static_cast<uint64_t>(OP) * 100 + static_cast<uint64_t>(SC) * 10;
    for (const Case& c : cases) {
      if (2 * kGuard + std::max(c.dstOff, c.srcOff) + c.bytes > capacity) continue;  // smaller buffers
      run<OP, SC>(c, seed++);
      if (HasFatalFailure()) return;
    }
  }

  int me = 0, n = 1;
  size_t capacity = 0;
  char *a = nullptr, *b = nullptr;
};

// The same sweep on registered buffers (hipMalloc + mori_shmem_register, 4 MiB): a put or get
// there takes the operations' general branch (the region table), not the heap fast path.
class RmaRegistered : public Rma {
 protected:
  void SetUp() override {
    me = mori_shmem_my_pe();
    n = mori_shmem_n_pes();
    capacity = (4u << 20) + 4 * kGuard;
    HIP_OK(hipMalloc(&a, capacity));
    HIP_OK(hipMalloc(&b, capacity));
    ASSERT_EQ(mori_shmem_register(a, capacity), 0);
    ASSERT_EQ(mori_shmem_register(b, capacity), 0);
  }
  void TearDown() override {
    EXPECT_EQ(mori_shmem_deregister(b), 0);
    EXPECT_EQ(mori_shmem_deregister(a), 0);
    HIP_OK(hipFree(b));
    HIP_OK(hipFree(a));
  }
};

// clang-format off
#define RMA_OPS_AND_SCOPES(X)                                          \
  X(PutNbi, Thread) X(PutNbi, Warp) X(PutNbi, Block)                   \
  X(Put, Thread) X(Put, Warp) X(Put, Block)                            \
  X(GetNbi, Thread) X(GetNbi, Warp) X(GetNbi, Block)                   \
  X(Get, Thread) X(Get, Warp) X(Get, Block)
// clang-format on
#define RMA_TEST(OP, SC) \
  TEST_F(Rma, OP##_##SC) { sweep<Op::OP, Sc::SC>(); }
#define RMA_REGISTERED_TEST(OP, SC) \
  TEST_F(RmaRegistered, OP##_##SC) { sweep<Op::OP, Sc::SC>(); }
RMA_OPS_AND_SCOPES(RMA_TEST)
RMA_OPS_AND_SCOPES(RMA_REGISTERED_TEST)

}  // namespace
