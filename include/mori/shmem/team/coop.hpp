// The cooperation scopes of the team collectives as types: every thread of the scope calls with
// the same arguments; rank()/size() split the work, sync() orders it, and the scope's calls into
// the point-to-point device API are made at the same scope. A wave's copyEach(to, n, source,
// bytes) copies the same bytes to n load/store addresses, each 16-byte unit of source loaded once
// for all of them (impl::copyBytes with MoreDests), as many in flight per lane as its putNbi keeps.
// putNbiGeneral is the device library's put (RDMA, unmapped peers) without the inline P2P path,
// for callers that already know the peer has no load/store mapping (mori_shmem_ptr returned
// null): the inline copy would be dead code there that still costs the calling kernel registers.
#pragma once

#include <type_traits>

#include "mori/platform/wave.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::team {

struct Thread {
  MORI_DEVICE_INLINE static int rank() { return 0; }
  MORI_DEVICE_INLINE static int size() { return 1; }
  MORI_DEVICE_INLINE static void sync() {}
  // A load/store peer's data 8 vectors in flight, the rest through the public get (which keeps 4:
  // its copy is inline in the caller's kernel). 4 PEs on one H200, one thread's fcollect of 2 and
  // 16 KiB per member when it pulled: 33.2 -> 20.8 and 210 -> 109 us (NVSHMEM 27.8, 181;
  // bench/results/2026-12-03T0130Z_h200x1_mps_thread_pull_8_in_flight.json).
  MORI_DEVICE_INLINE static void get(void* d, const void* s, size_t b, int pe) {
    if (const void* r = impl::heapP2pRange(impl::states(), s, b, pe)) return impl::copyThread<8>(d, r, b);
    mori_shmem_getmem_thread(d, s, b, pe);
  }
  // The same for puts (fcollect, alltoall): 4 PEs, one thread's alltoall of 2 and 16 KiB per member
  // 31.3 -> 20.8 and 206 -> 124 us (NVSHMEM 52, 378;
  // bench/results/2026-12-03T0640Z_h200x1_mps_push_puts_8_in_flight_lists.json).
  MORI_DEVICE_INLINE static void putNbi(void* d, const void* s, size_t b, int pe) {
    if (void* r = impl::heapP2pRange(impl::states(), d, b, pe)) return impl::copyThread<8>(r, s, b);
    mori_shmem_putmem_nbi_thread(d, s, b, pe);
  }
  MORI_DEVICE_INLINE static void putNbiGeneral(void* d, const void* s, size_t b, int pe) {
    impl::putGeneral<impl::ThreadScope>(d, s, b, pe, 0, false);
  }
  MORI_DEVICE_INLINE static void quiet() { mori_shmem_quiet(); }
};

struct Warp {
  MORI_DEVICE_INLINE static int rank() { return gpu::laneId(); }
  MORI_DEVICE_INLINE static int size() { return gpu::waveSize(); }
  MORI_DEVICE_INLINE static void sync() { gpu::waveSync(~gpu::LaneMask{0}); }
  MORI_DEVICE_INLINE static void get(void* d, const void* s, size_t b, int pe) { mori_shmem_getmem_warp(d, s, b, pe); }
  // A load/store peer's dest 8 vectors in flight per lane, the rest through the public put (4):
  // a wave's alltoall of 16 KiB per member 23.2 -> 18.9 us at 4 PEs, 19.0 -> 14.7 at 2 (the same
  // file).
  MORI_DEVICE_INLINE static void putNbi(void* d, const void* s, size_t b, int pe) {
    if (void* r = impl::heapP2pRange(impl::states(), d, b, pe))
      return impl::copyBytes<true, 8>(r, s, b, rank(), size());
    mori_shmem_putmem_nbi_warp(d, s, b, pe);
  }
  template <int kMax>
  MORI_DEVICE_INLINE static void copyEach(char* const (&to)[kMax], int n, const void* s, size_t b) {
    impl::copyBytes<true, 8>(to[0], s, b, rank(), size(), impl::moreDestsAfterFirst(to, n));
  }
  MORI_DEVICE_INLINE static void putNbiGeneral(void* d, const void* s, size_t b, int pe) {
    impl::putGeneral<impl::WarpScope>(d, s, b, pe, 0, false);
  }
  // The lanes' operations are issued (and their stores ordered) before lane 0's quiet.
  MORI_DEVICE_INLINE static void quiet() {
    sync();
    if (rank() == 0) mori_shmem_quiet();
    sync();
  }
};

struct Block {
  MORI_DEVICE_INLINE static int rank() {
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  }
  MORI_DEVICE_INLINE static int size() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }
  MORI_DEVICE_INLINE static void sync() { __syncthreads(); }
  MORI_DEVICE_INLINE static void get(void* d, const void* s, size_t b, int pe) { mori_shmem_getmem_block(d, s, b, pe); }
  MORI_DEVICE_INLINE static void putNbi(void* d, const void* s, size_t b, int pe) {
    mori_shmem_putmem_nbi_block(d, s, b, pe);
  }
  MORI_DEVICE_INLINE static void putNbiGeneral(void* d, const void* s, size_t b, int pe) {
    impl::putGeneral<impl::BlockScope>(d, s, b, pe, 0, false);
  }
  MORI_DEVICE_INLINE static void quiet() { mori_shmem_quiet_block(); }
};

// Whether the scope is one thread (a collective's path may depend on it: ll_exchange.hpp).
template <class S>
constexpr bool kOneThread = std::is_same_v<S, Thread>;

}  // namespace mori::shmem::team
#endif
