// NVIDIA bitcode only (shmem/device/bitcode/bitcode.cmake): the inline device API reaches the
// device library's general paths (RDMA, registered regions, PEs past the inline window) through
// function pointers instead of direct calls.
//
// Why: Triton hands ptxas one module holding the kernel and the library, compiled as a whole
// program. ptxas then fits the kernel's registers around what each directly called function
// clobbers, and the general paths clobber nearly every register: every value a loop keeps across
// such a call (the loop counter, the hoisted checks of the fast path) went to local memory and
// was loaded again in every iteration of the fast path, which never makes the call (the
// put + quiet loop of bench_triton.py: 24 bytes of spills; the block put loop: 196). A function
// called through a pointer follows the calling convention instead (it saves the registers it
// uses), as the separately compiled device library does for a C++ kernel: no spills in the
// put + quiet loop, as in nvcc's kernel.
//
// The library's sources are compiled for this bitcode with each function renamed <name>_impl
// (-D<name>=<name>_impl); this file defines <name> itself, always inlined, as the call through
// a pointer to <name>_impl.
#include "mori/shmem.h"

// clang-format off
#define MORI_GENERAL_PATHS(X)      \
  X(mori_shmemi_p2p_window)        \
  X(mori_shmemi_put_thread)        \
  X(mori_shmemi_put_warp)          \
  X(mori_shmemi_put_block)         \
  X(mori_shmemi_get_thread)        \
  X(mori_shmemi_get_warp)          \
  X(mori_shmemi_get_block)         \
  X(mori_shmemi_p)                 \
  X(mori_shmemi_g)                 \
  X(mori_shmemi_amo)               \
  X(mori_shmemi_signal)            \
  X(mori_shmemi_quiet_rdma_thread) \
  X(mori_shmemi_quiet_rdma_block)  \
  X(mori_shmemi_quiet_pe_rdma)     \
  X(mori_shmemi_sync_all_rounds)   \
  X(mori_shmemi_copy_unaligned)    \
  X(mori_shmemi_find_region)
// clang-format on

// The renamed definitions, with the public declarations' types.
#define MORI_DECLARE_IMPL(name) extern "C" __device__ decltype(name) name##_impl;
MORI_GENERAL_PATHS(MORI_DECLARE_IMPL)
#undef MORI_DECLARE_IMPL

// The address of `f`, hidden from LLVM (an asm copy), so that the call stays indirect: LLVM
// turns a call through a known pointer back into a direct call. (A mutable global pointer also
// hides it, but clang lists every __device__ variable in llvm.compiler.used, so a JIT's LLVM
// links all of them, and with them every general path, into each kernel: 6x the compile time of
// a put kernel.)
template <typename F>
__device__ __forceinline__ F moriOpaque(F f) {
  uint64_t p;
  asm("mov.b64 %0, %1;" : "=l"(p) : "l"(reinterpret_cast<uint64_t>(f)));
  return reinterpret_cast<F>(p);
}

// The public names, each one call through a pointer; always inlined into the caller (an
// external definition, so that the bitcode keeps it for every JIT module that calls it).
#define MORI_THROUGH extern "C" __device__ __attribute__((always_inline))
#define MORI_PATH(name) moriOpaque(&name##_impl)

MORI_THROUGH void* mori_shmemi_p2p_window(const void* addr, size_t bytes, int pe) {
  return MORI_PATH(mori_shmemi_p2p_window)(addr, bytes, pe);
}
MORI_THROUGH void mori_shmemi_put_thread(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking) {
  MORI_PATH(mori_shmemi_put_thread)(dest, src, bytes, pe, qp, blocking);
}
MORI_THROUGH void mori_shmemi_put_warp(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking) {
  MORI_PATH(mori_shmemi_put_warp)(dest, src, bytes, pe, qp, blocking);
}
MORI_THROUGH void mori_shmemi_put_block(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking) {
  MORI_PATH(mori_shmemi_put_block)(dest, src, bytes, pe, qp, blocking);
}
MORI_THROUGH void mori_shmemi_get_thread(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking) {
  MORI_PATH(mori_shmemi_get_thread)(dest, src, bytes, pe, qp, blocking);
}
MORI_THROUGH void mori_shmemi_get_warp(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking) {
  MORI_PATH(mori_shmemi_get_warp)(dest, src, bytes, pe, qp, blocking);
}
MORI_THROUGH void mori_shmemi_get_block(void* dest, const void* src, size_t bytes, int pe, int qp, int blocking) {
  MORI_PATH(mori_shmemi_get_block)(dest, src, bytes, pe, qp, blocking);
}
MORI_THROUGH void mori_shmemi_p(void* dest, uint64_t value, uint32_t bytes, int pe, int qp) {
  MORI_PATH(mori_shmemi_p)(dest, value, bytes, pe, qp);
}
MORI_THROUGH uint64_t mori_shmemi_g(const void* src, uint32_t bytes, int pe, int qp) {
  return MORI_PATH(mori_shmemi_g)(src, bytes, pe, qp);
}
MORI_THROUGH uint64_t mori_shmemi_amo(uint32_t op, void* dest, uint64_t value, uint64_t cond, uint32_t bytes, int pe,
                                      int qp, int fetch) {
  return MORI_PATH(mori_shmemi_amo)(op, dest, value, cond, bytes, pe, qp, fetch);
}
MORI_THROUGH void mori_shmemi_signal(uint64_t* sig, uint64_t value, int op, int pe, int qp, int ordered) {
  MORI_PATH(mori_shmemi_signal)(sig, value, op, pe, qp, ordered);
}
MORI_THROUGH void mori_shmemi_quiet_rdma_thread(void) { MORI_PATH(mori_shmemi_quiet_rdma_thread)(); }
MORI_THROUGH void mori_shmemi_quiet_rdma_block(void) { MORI_PATH(mori_shmemi_quiet_rdma_block)(); }
MORI_THROUGH void mori_shmemi_quiet_pe_rdma(int pe, int qp) { MORI_PATH(mori_shmemi_quiet_pe_rdma)(pe, qp); }
MORI_THROUGH void mori_shmemi_sync_all_rounds(void) { MORI_PATH(mori_shmemi_sync_all_rounds)(); }
MORI_THROUGH void mori_shmemi_copy_unaligned(void* dst, const void* src, size_t bytes, int rank, int size,
                                             int oneWave) {
  MORI_PATH(mori_shmemi_copy_unaligned)(dst, src, bytes, rank, size, oneWave);
}
MORI_THROUGH const mori::shmem::Region* mori_shmemi_find_region(uint64_t addr) {
  return MORI_PATH(mori_shmemi_find_region)(addr);
}
