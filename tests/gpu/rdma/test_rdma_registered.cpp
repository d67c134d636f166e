// RDMA to and from a registered buffer allocated outside the heap, inside a larger allocation (as a
// framework tensor would be), through the NIC model: its registration exports the containing
// allocation by IPC at an offset, its keys must cover exactly the registered range, and it must be
// usable as a WRITE source, a WRITE target and a READ source. Deregistration and re-registration
// keep the heap usable.
#include <vector>

#include "tests/gpu/gpu_test_util.hpp"

MORI_TEST_REQUIRES_GPU(2, 1);
MORI_TEST_WITH_SHMEM();

namespace {

using namespace mori::test;

constexpr size_t kBytes = (1u << 20) + 13;
constexpr size_t kOffset = 4096 + 40;  // not at the allocation's start, not 16-byte aligned

__global__ void putBlock(char* dst, const char* src, size_t bytes, int pe) {
  mori_shmem_putmem_block(dst, src, bytes, pe);
}
__global__ void getBlock(char* dst, const char* src, size_t bytes, int pe) {
  mori_shmem_getmem_block(dst, src, bytes, pe);
}

TEST(RdmaRegistered, ForeignBufferAsSourceTargetAndReadSource) {
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  for (int round = 0; round < 2; ++round) {  // the second round re-registers after deregistering
    char* base = nullptr;
    HIP_OK(hipMalloc(&base, kBytes + 2 * kOffset));
    char* foreign = base + kOffset;
    ASSERT_EQ(mori_shmem_register(foreign, kBytes), 0);
    char* heap = static_cast<char*>(mori_shmem_malloc(kBytes));
    ASSERT_NE(heap, nullptr);
    const uint64_t seed = 700 + round * 10;

    // Foreign buffer as WRITE source: lands in the right neighbour's heap.
    fill(foreign, kBytes, seed, me);
    fill(heap, kBytes, seed + 1, me);
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    putBlock<<<1, 256>>>(heap, foreign, kBytes, right);
    HIP_OK(hipGetLastError());
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    CheckResult r = checkAll(heap, kBytes, seed, left);
    EXPECT_EQ(r.mismatches, 0u) << "foreign source: " << describe(r);

    // Foreign buffer as WRITE target: the heap's bytes land in the neighbour's foreign buffer.
    fill(heap, kBytes, seed + 2, me);
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    putBlock<<<1, 256>>>(foreign, heap, kBytes, right);
    HIP_OK(hipGetLastError());
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    r = checkAll(foreign, kBytes, seed + 2, left);
    EXPECT_EQ(r.mismatches, 0u) << "foreign target: " << describe(r);

    // Foreign buffer as READ source: read the neighbour's copy back into the heap.
    getBlock<<<1, 256>>>(heap, foreign, kBytes, right);
    HIP_OK(hipGetLastError());
    HIP_OK(hipDeviceSynchronize());
    ASSERT_EQ(mori_shmem_barrier_all(), 0);
    r = checkAll(heap, kBytes, seed + 2, me);  // right's foreign buffer holds what this PE sent
    EXPECT_EQ(r.mismatches, 0u) << "foreign read source: " << describe(r);

    ASSERT_EQ(mori_shmem_deregister(foreign), 0);
    mori_shmem_free(heap);
    HIP_OK(hipFree(base));
  }
}

}  // namespace
