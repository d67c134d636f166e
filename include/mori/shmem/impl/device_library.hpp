// The device library (libmori_shmem_device.a, sources in shmem/device/): what the inline device
// API calls. Relocatable device code, compiled once with its own register cap; every program or
// shared library that links it holds one copy, which its device link resolves:
//   - mori_shmem_device_states, the device state of that GPU module, bound by mori_shmem_init
//     through the module's binder (registered with the runtime when the module loads);
//   - the general paths of the operations (registered regions, PEs past the inline window, RDMA,
//     errors), C-named so that a JIT-compiled module can call them and be bound by name.
// The inline fast paths (a heap object on a P2P PE) never call it.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/shmem/device_host/gpu_states.hpp"

extern "C" {
// Copies `bytes` of GpuStates into the module's mori_shmem_device_states; returns 0 or the GPU
// runtime's error code.
typedef int (*mori_shmemi_module_binder_t)(const void* states, size_t bytes);
// Returns 0, or a mori_shmem_status_t when the module's ABI does not match the runtime.
int mori_shmemi_register_module(mori_shmemi_module_binder_t bind, uint32_t abiVersion, size_t statesBytes);
void mori_shmemi_unregister_module(mori_shmemi_module_binder_t bind);
}

#if MORI_GPU_COMPILER
#if !defined(__CUDACC_RDC__) && !defined(__CLANG_RDC__)
#error \
    "the mori-shmem device API needs relocatable device code: compile with -rdc=true (nvcc) or -fgpu-rdc (hipcc) and link libmori_shmem_device.a (CMake's mori::shmem target does both); host-only sources may define MORI_SHMEM_HOST_ONLY=1 instead"
#endif

extern "C" {
// The device state of this GPU module (one per program or shared library).
extern __constant__ mori::shmem::GpuStates mori_shmem_device_states;

// Where a put / get of [addr, addr + bytes) on `pe` loads or stores when pe is reached by P2P
// (registered regions, PEs past the inline window); null when pe is an RDMA peer. The caller
// copies inline, as on its fast path.
__device__ void* mori_shmemi_p2p_window(const void* addr, size_t bytes, int pe);
// RDMA or SDMA put / get (thread, warp, block scope: every thread of the scope calls).
__device__ void mori_shmemi_put_thread(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking);
__device__ void mori_shmemi_put_warp(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking);
__device__ void mori_shmemi_put_block(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking);
__device__ void mori_shmemi_get_thread(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking);
__device__ void mori_shmemi_get_warp(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking);
__device__ void mori_shmemi_get_block(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking);
// General paths of the single-element operations; values travel as their low `bytes` bytes
// (1, 2, 4 or 8; atomics 4 or 8). op: impl::Amo / impl::SignalOp.
__device__ void mori_shmemi_p(void* dest, uint64_t value, uint32_t bytes, int pe, int qp);
__device__ uint64_t mori_shmemi_g(const void* src, uint32_t bytes, int pe, int qp);
__device__ uint64_t mori_shmemi_amo(uint32_t op, void* dest, uint64_t value, uint64_t cond, uint32_t bytes, int pe,
                                    int qp, int fetch);
__device__ void mori_shmemi_signal(uint64_t* sig, uint64_t value, int op, int pe, int qp, int ordered);
// Completes this PE's RDMA and SDMA operations (thread: every endpoint and SDMA queue; block:
// divided among the block's threads, every thread calls) / those to `pe` (RDMA: on `qp`, qp < 0:
// all of pe's QPs; SDMA: all of pe's queues).
__device__ void mori_shmemi_quiet_rdma_thread(void);
__device__ void mori_shmemi_quiet_rdma_block(void);
__device__ void mori_shmemi_quiet_pe_rdma(int pe, int qp);
// The barrier's arrival rounds, run by one thread per PE.
__device__ void mori_shmemi_sync_all_rounds(void);
// The cooperative copy (impl::copyBytes) for ends whose offsets in 16 bytes differ: thread `rank`
// of `size` (one wave if oneWave) copies its part of [src, src + bytes) to dst with the widest
// element both ends share.
__device__ void mori_shmemi_copy_unaligned(void* dst, const void* src, size_t bytes, int rank, int size, int oneWave);
// The team collectives (mori/shmem/team/device_api.hpp), every thread of the scope calling, on
// the live team `team` (a handle: the entry is read from this PE's table, and a handle of no live
// team stops the kernel naming it): one function per collective and scope, and the reductions
// and reducescatters by element type (MORI_SHMEM_DTYPE_*) and operation (MORI_SHMEM_REDUCE_*). A
// broadcast's root outside the team, and a reducescatter's dest overlapping another member's piece
// of source, stop the kernel naming them.
// Out of line so that a kernel calling one stays within a register budget (inline, a warp
// fcollect made a user's kernel 82 registers, too many for a 1024-thread block); at most nine
// parameter words, which the calling convention passes in registers (more went through the
// caller's stack). The call costs a small collective 0.6-1 us (one H200, 2 PEs: LL broadcast of
// 256 B by a block 1.13 -> 1.99 us, NVSHMEM 2.96:
// bench/results/2026-12-02T0430Z_h200x1_mps_team_suites_and_library_call_cost.json), so the
// device API keeps barrier and team_sync inline.
#define MORI_SHMEMI_TEAM_ENTRIES(SC)                                                                                   \
  __device__ void mori_shmemi_team_broadcast_##SC(int team, void* dest, const void* source, size_t bytes, int root);   \
  __device__ void mori_shmemi_team_fcollect_##SC(int team, void* dest, const void* source, size_t bytes);              \
  __device__ void mori_shmemi_team_collect_##SC(int team, void* dest, const void* source, size_t bytes);               \
  __device__ void mori_shmemi_team_alltoall_##SC(int team, void* dest, const void* source, size_t bytes);              \
  __device__ void mori_shmemi_team_reduce_##SC(int team, void* dest, const void* source, size_t n, int dtype, int op); \
  __device__ void mori_shmemi_team_reducescatter_##SC(int team, void* dest, const void* source, size_t n, int dtype,   \
                                                      int op);
MORI_SHMEMI_TEAM_ENTRIES(thread)
MORI_SHMEMI_TEAM_ENTRIES(warp)
MORI_SHMEMI_TEAM_ENTRIES(block)
#undef MORI_SHMEMI_TEAM_ENTRIES
// The registered region (index >= 1) that holds `addr`, or null.
__device__ const mori::shmem::Region* mori_shmemi_find_region(uint64_t addr);
// Stop the kernel: the module is not bound / pe is out of range / a wait_until-style wait
// (DeviceWait `what`) timed out after `ns` with `seen` against `awaited`. Few scalar arguments and
// [[noreturn]]: the inline callers keep no local memory and no registers for after the call
// (without it, 8 more registers in a put-with-signal kernel).
[[noreturn]] __device__ void mori_shmemi_fail_not_initialized(void);
[[noreturn]] __device__ void mori_shmemi_fail_pe(int pe);
[[noreturn]] __device__ void mori_shmemi_fail_wait(uint32_t what, uint64_t ns, uint64_t seen, uint64_t awaited);
// mori_shmem_global_exit in device code: the first caller of the process writes the request into
// the host-mapped record (DeviceErrorRecord::exitRequest), which the runtime's peer monitor turns
// into the global exit; every caller then waits for the process to end (bounded: 60 s, then the
// kernel stops saying so).
[[noreturn]] __device__ void mori_shmemi_global_exit_device(int status);
}

namespace mori::shmem::impl {

// The module's state; stops the kernel with a message if init never bound this module.
MORI_DEVICE_INLINE const GpuStates& states() {
  if (MORI_UNLIKELY(mori_shmem_device_states.magic != kGpuStatesMagic)) mori_shmemi_fail_not_initialized();
  return mori_shmem_device_states;
}

}  // namespace mori::shmem::impl
#endif
