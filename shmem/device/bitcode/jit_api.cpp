// The device API for JIT compilers (Triton, or any that links LLVM bitcode): C-named functions
// with scalar arguments, compiled only into the device library's bitcode
// (shmem/device/bitcode/bitcode.cmake). Each one is the inline device API of mori/shmem_device.h
// called once: no operation is implemented here.
//
// ABI, chosen so that a caller that knows only integers and floats can declare them:
//   - addresses are uint64_t: the address of global memory (a Triton pointer's, as its
//     pointer-to-int64 cast gives; symmetric objects and local buffers alike), never of shared or
//     local memory;
//   - PEs, sizes and operation codes are int32 / int64 as written;
//   - operations that return nothing in the C++ API return int32 0 (a JIT's extern call needs a
//     result type).
// Scopes: _block calls are made by every thread of the block (a Triton program: every thread runs
// a call with scalar arguments), _warp calls by every lane of one warp/wavefront, _thread calls by
// each thread on its own (docs/TRITON.md).
#include "mori/shmem.h"

#define MORI_JIT extern "C" __device__
// A JIT address as a pointer known to be global memory: LLVM then emits global accesses
// (ld.global) where the integer's generic pointer gave generic ones (ld), as in a C++ kernel whose
// pointer arguments nvcc knows to be global.
#define MORI_JIT_ADDR(T, a) ((T)(__attribute__((address_space(1))) char*)(static_cast<uintptr_t>(a)))

// ---- queries ------------------------------------------------------------------------------------
MORI_JIT int32_t mori_shmem_jit_my_pe(void) { return mori_shmem_my_pe(); }
MORI_JIT int32_t mori_shmem_jit_n_pes(void) { return mori_shmem_n_pes(); }
// pe's address of the symmetric object at `dest`, or 0 when pe is not reached by P2P.
MORI_JIT uint64_t mori_shmem_jit_ptr(uint64_t dest, int32_t pe) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(mori_shmem_ptr(MORI_JIT_ADDR(const void*, dest), pe)));
}
// This thread's rank in its block (x fastest): a Triton kernel guards a one-thread call with
// `if thread_rank() == 0`.
MORI_JIT int32_t mori_shmem_jit_thread_rank(void) { return mori::shmem::impl::BlockScope::rank(); }
MORI_JIT int32_t mori_shmem_jit_block_size(void) { return mori::shmem::impl::BlockScope::size(); }

// ---- contiguous RMA --------------------------------------------------------------------------------
#define MORI_JIT_RMA(SC)                                                                                            \
  MORI_JIT int32_t mori_shmem_jit_putmem_nbi_##SC(uint64_t dest, uint64_t src, uint64_t bytes, int32_t pe) {        \
    mori_shmem_putmem_nbi_##SC(MORI_JIT_ADDR(void*, dest), MORI_JIT_ADDR(const void*, src), bytes, pe);             \
    return 0;                                                                                                       \
  }                                                                                                                 \
  MORI_JIT int32_t mori_shmem_jit_putmem_##SC(uint64_t dest, uint64_t src, uint64_t bytes, int32_t pe) {            \
    mori_shmem_putmem_##SC(MORI_JIT_ADDR(void*, dest), MORI_JIT_ADDR(const void*, src), bytes, pe);                 \
    return 0;                                                                                                       \
  }                                                                                                                 \
  MORI_JIT int32_t mori_shmem_jit_getmem_nbi_##SC(uint64_t dest, uint64_t src, uint64_t bytes, int32_t pe) {        \
    mori_shmem_getmem_nbi_##SC(MORI_JIT_ADDR(void*, dest), MORI_JIT_ADDR(const void*, src), bytes, pe);             \
    return 0;                                                                                                       \
  }                                                                                                                 \
  MORI_JIT int32_t mori_shmem_jit_getmem_##SC(uint64_t dest, uint64_t src, uint64_t bytes, int32_t pe) {            \
    mori_shmem_getmem_##SC(MORI_JIT_ADDR(void*, dest), MORI_JIT_ADDR(const void*, src), bytes, pe);                 \
    return 0;                                                                                                       \
  }                                                                                                                 \
  MORI_JIT int32_t mori_shmem_jit_putmem_signal_nbi_##SC(uint64_t dest, uint64_t src, uint64_t bytes, uint64_t sig, \
                                                         uint64_t signal, int32_t sig_op, int32_t pe) {             \
    mori_shmem_putmem_signal_nbi_##SC(MORI_JIT_ADDR(void*, dest), MORI_JIT_ADDR(const void*, src), bytes,           \
                                      MORI_JIT_ADDR(uint64_t*, sig), signal, sig_op, pe);                           \
    return 0;                                                                                                       \
  }                                                                                                                 \
  MORI_JIT int32_t mori_shmem_jit_putmem_signal_##SC(uint64_t dest, uint64_t src, uint64_t bytes, uint64_t sig,     \
                                                     uint64_t signal, int32_t sig_op, int32_t pe) {                 \
    mori_shmem_putmem_signal_##SC(MORI_JIT_ADDR(void*, dest), MORI_JIT_ADDR(const void*, src), bytes,               \
                                  MORI_JIT_ADDR(uint64_t*, sig), signal, sig_op, pe);                               \
    return 0;                                                                                                       \
  }
MORI_JIT_RMA(thread)
MORI_JIT_RMA(warp)
MORI_JIT_RMA(block)
#undef MORI_JIT_RMA

// ---- single elements: p / g ------------------------------------------------------------------------
#define MORI_JIT_PG(NAME, T)                                                       \
  MORI_JIT int32_t mori_shmem_jit_##NAME##_p(uint64_t dest, T value, int32_t pe) { \
    mori_shmem_##NAME##_p(MORI_JIT_ADDR(T*, dest), value, pe);                     \
    return 0;                                                                      \
  }                                                                                \
  MORI_JIT T mori_shmem_jit_##NAME##_g(uint64_t src, int32_t pe) {                 \
    return mori_shmem_##NAME##_g(MORI_JIT_ADDR(const T*, src), pe);                \
  }
MORI_JIT_PG(int32, int32_t)
MORI_JIT_PG(int64, int64_t)
MORI_JIT_PG(float, float)
MORI_JIT_PG(double, double)
#undef MORI_JIT_PG

// ---- atomics (int32, int64; unsigned callers pass the same bits) ----------------------------------
#define MORI_JIT_AMO(NAME, T)                                                                          \
  MORI_JIT T mori_shmem_jit_##NAME##_atomic_fetch_add(uint64_t dest, T value, int32_t pe) {            \
    return mori_shmem_##NAME##_atomic_fetch_add(MORI_JIT_ADDR(T*, dest), value, pe);                   \
  }                                                                                                    \
  MORI_JIT int32_t mori_shmem_jit_##NAME##_atomic_add(uint64_t dest, T value, int32_t pe) {            \
    mori_shmem_##NAME##_atomic_add(MORI_JIT_ADDR(T*, dest), value, pe);                                \
    return 0;                                                                                          \
  }                                                                                                    \
  MORI_JIT T mori_shmem_jit_##NAME##_atomic_compare_swap(uint64_t dest, T cond, T value, int32_t pe) { \
    return mori_shmem_##NAME##_atomic_compare_swap(MORI_JIT_ADDR(T*, dest), cond, value, pe);          \
  }                                                                                                    \
  MORI_JIT T mori_shmem_jit_##NAME##_atomic_swap(uint64_t dest, T value, int32_t pe) {                 \
    return mori_shmem_##NAME##_atomic_swap(MORI_JIT_ADDR(T*, dest), value, pe);                        \
  }                                                                                                    \
  MORI_JIT T mori_shmem_jit_##NAME##_atomic_fetch(uint64_t src, int32_t pe) {                          \
    return mori_shmem_##NAME##_atomic_fetch(MORI_JIT_ADDR(const T*, src), pe);                         \
  }                                                                                                    \
  MORI_JIT int32_t mori_shmem_jit_##NAME##_atomic_set(uint64_t dest, T value, int32_t pe) {            \
    mori_shmem_##NAME##_atomic_set(MORI_JIT_ADDR(T*, dest), value, pe);                                \
    return 0;                                                                                          \
  }                                                                                                    \
  MORI_JIT int32_t mori_shmem_jit_##NAME##_wait_until(uint64_t ivar, int32_t cmp, T value) {           \
    mori_shmem_##NAME##_wait_until(MORI_JIT_ADDR(T*, ivar), cmp, value);                               \
    return 0;                                                                                          \
  }
MORI_JIT_AMO(int32, int32_t)
MORI_JIT_AMO(int64, int64_t)
#undef MORI_JIT_AMO

// ---- signals ---------------------------------------------------------------------------------------
MORI_JIT int32_t mori_shmem_jit_signal_op(uint64_t sig, uint64_t signal, int32_t sig_op, int32_t pe) {
  mori_shmem_signal_op(MORI_JIT_ADDR(uint64_t*, sig), signal, sig_op, pe);
  return 0;
}
MORI_JIT uint64_t mori_shmem_jit_signal_wait_until(uint64_t sig, int32_t cmp, uint64_t value) {
  return mori_shmem_signal_wait_until(MORI_JIT_ADDR(uint64_t*, sig), cmp, value);
}
MORI_JIT uint64_t mori_shmem_jit_signal_fetch(uint64_t sig) {
  return mori_shmem_signal_fetch(MORI_JIT_ADDR(const uint64_t*, sig));
}

// ---- ordering and collectives ----------------------------------------------------------------------
MORI_JIT int32_t mori_shmem_jit_quiet(void) {
  mori_shmem_quiet();
  return 0;
}
MORI_JIT int32_t mori_shmem_jit_quiet_block(void) {
  mori_shmem_quiet_block();
  return 0;
}
MORI_JIT int32_t mori_shmem_jit_fence(void) {
  mori_shmem_fence();
  return 0;
}
MORI_JIT int32_t mori_shmem_jit_barrier_all_block(void) {
  mori_shmem_barrier_all_block();
  return 0;
}
MORI_JIT int32_t mori_shmem_jit_barrier_all_thread(void) {
  mori_shmem_barrier_all_thread();
  return 0;
}
MORI_JIT int32_t mori_shmem_jit_sync_all_block(void) {
  mori_shmem_sync_all_block();
  return 0;
}
// Block-wide execution barrier (__syncthreads), for a kernel that guards one-thread calls.
MORI_JIT int32_t mori_shmem_jit_sync_block(void) {
  __syncthreads();
  return 0;
}
