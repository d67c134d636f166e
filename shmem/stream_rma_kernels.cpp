// Kernels behind the stream-ordered RMA (shmem/stream_rma.cpp): the device API on one block.
// This module is bound at init like any user module.
#include "shmem/stream_rma_kernels.hpp"

#include "mori/shmem_device.h"

namespace mori::shmem {
namespace {

constexpr int kThreads = 256;

static_assert(MORI_SHMEM_SIGNAL_SET == 0 && MORI_SHMEM_SIGNAL_ADD == 1 && kSignalOpCount == 2,
              "mori/shmem.h documents sig_op SET 0, ADD 1");
static_assert(MORI_SHMEM_CMP_EQ == 0 && MORI_SHMEM_CMP_NE == 1 && MORI_SHMEM_CMP_GT == 2 && MORI_SHMEM_CMP_GE == 3 &&
                  MORI_SHMEM_CMP_LT == 4 && MORI_SHMEM_CMP_LE == 5 && kCmpCount == 6,
              "mori/shmem.h documents cmp EQ 0 .. LE 5");

__global__ void putKernel(void* dest, const void* source, size_t bytes, int pe) {
  mori_shmem_putmem_block(dest, source, bytes, pe);
}

__global__ void getKernel(void* dest, const void* source, size_t bytes, int pe) {
  mori_shmem_getmem_block(dest, source, bytes, pe);
}

__global__ void putSignalKernel(void* dest, const void* source, size_t bytes, uint64_t* sigAddr, uint64_t signal,
                                int sigOp, int pe) {
  mori_shmem_putmem_signal_block(dest, source, bytes, sigAddr, signal, sigOp, pe);
}

// The copy engine finished the data before this kernel started (stream order); the fence orders
// that delivery before the signal for every observer.
__global__ void signalKernel(uint64_t* sigAddr, uint64_t signal, int sigOp, int pe) {
  mori_shmem_fence();
  mori_shmem_signal_op(sigAddr, signal, sigOp, pe);
}

__global__ void signalWaitKernel(uint64_t* sigAddr, int cmp, uint64_t cmpValue) {
  (void)mori_shmem_signal_wait_until(sigAddr, cmp, cmpValue);
}

}  // namespace

hipError_t launchPutKernel(void* dest, const void* source, size_t bytes, int pe, hipStream_t stream) {
  putKernel<<<1, kThreads, 0, stream>>>(dest, source, bytes, pe);
  return hipGetLastError();
}

hipError_t launchGetKernel(void* dest, const void* source, size_t bytes, int pe, hipStream_t stream) {
  getKernel<<<1, kThreads, 0, stream>>>(dest, source, bytes, pe);
  return hipGetLastError();
}

hipError_t launchPutSignalKernel(void* dest, const void* source, size_t bytes, uint64_t* sigAddr, uint64_t signal,
                                 int sigOp, int pe, hipStream_t stream) {
  putSignalKernel<<<1, kThreads, 0, stream>>>(dest, source, bytes, sigAddr, signal, sigOp, pe);
  return hipGetLastError();
}

hipError_t launchSignalKernel(uint64_t* sigAddr, uint64_t signal, int sigOp, int pe, hipStream_t stream) {
  signalKernel<<<1, 1, 0, stream>>>(sigAddr, signal, sigOp, pe);
  return hipGetLastError();
}

hipError_t launchSignalWaitKernel(uint64_t* sigAddr, int cmp, uint64_t cmpValue, hipStream_t stream) {
  signalWaitKernel<<<1, 1, 0, stream>>>(sigAddr, cmp, cmpValue);
  return hipGetLastError();
}

}  // namespace mori::shmem
