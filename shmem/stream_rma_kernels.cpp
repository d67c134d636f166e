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

template <typename T>
__global__ void waitKernel(const T* ivars, size_t n, const int* status, int cmp, T value, const T* values) {
  namespace impl = ::mori::shmem::impl;
  if (values)
    impl::waitUntilAll<T>(impl::states(), ivars, n, status, static_cast<impl::Cmp>(cmp), values);
  else
    impl::waitUntilAll<T>(impl::states(), ivars, n, status, static_cast<impl::Cmp>(cmp), value);
}

template <typename T>
hipError_t launchWait(void* ivars, size_t n, const int* status, int cmp, uint64_t value, const void* values,
                      hipStream_t stream) {
  waitKernel<T><<<1, 1, 0, stream>>>(static_cast<const T*>(ivars), n, status, cmp, static_cast<T>(value),
                                     static_cast<const T*>(values));
  return hipGetLastError();
}

template <typename T>
__global__ void stridedKernel(bool put, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
  namespace impl = ::mori::shmem::impl;
  if (put)
    impl::strided<impl::BlockScope, true>(impl::states(), dest, source, dst, sst, n, pe, 0);
  else
    impl::strided<impl::BlockScope, false>(impl::states(), dest, source, dst, sst, n, pe, 0);
}

__global__ void strided128Kernel(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                 int pe) {
  namespace impl = ::mori::shmem::impl;
  if (put)
    impl::strided128<impl::BlockScope, true>(impl::states(), dest, source, dst, sst, n, pe, 0);
  else
    impl::strided128<impl::BlockScope, false>(impl::states(), dest, source, dst, sst, n, pe, 0);
}

template <typename T>
hipError_t launchStrided(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe,
                         hipStream_t stream) {
  stridedKernel<T>
      <<<1, kThreads, 0, stream>>>(put, static_cast<T*>(dest), static_cast<const T*>(source), dst, sst, n, pe);
  return hipGetLastError();
}

template <typename T>
__device__ void element(int kind, T* dest, uint64_t value, uint64_t cond, int pe, bool fetch, uint64_t* result) {
  namespace impl = ::mori::shmem::impl;
  if (kind == kElementP) {
    impl::p<T>(impl::states(), dest, static_cast<T>(value), pe, 0);
  } else if (kind == kElementG) {
    *result = impl::g<T>(impl::states(), dest, pe, 0);
  } else if constexpr (sizeof(T) >= 4) {
    const T old = impl::amo<T>(impl::states(), static_cast<impl::Amo>(kind), dest, static_cast<T>(value),
                               static_cast<T>(cond), pe, 0, fetch);
    if (fetch) *result = old;
  }
}

__global__ void elementKernel(int kind, void* dest, uint64_t value, uint64_t cond, int size, int pe, bool fetch,
                              uint64_t* result) {
  switch (size) {
    case 1: element(kind, static_cast<uint8_t*>(dest), value, cond, pe, fetch, result); break;
    case 2: element(kind, static_cast<uint16_t*>(dest), value, cond, pe, fetch, result); break;
    case 4: element(kind, static_cast<uint32_t*>(dest), value, cond, pe, fetch, result); break;
    default: element(kind, static_cast<uint64_t*>(dest), value, cond, pe, fetch, result); break;
  }
}

static_assert(MORI_SHMEM_AMO_FETCH == static_cast<int>(impl::Amo::Fetch) &&
                  MORI_SHMEM_AMO_SET == static_cast<int>(impl::Amo::Set) &&
                  MORI_SHMEM_AMO_SWAP == static_cast<int>(impl::Amo::Swap) &&
                  MORI_SHMEM_AMO_COMPARE_SWAP == static_cast<int>(impl::Amo::CompareSwap) &&
                  MORI_SHMEM_AMO_ADD == static_cast<int>(impl::Amo::Add) &&
                  MORI_SHMEM_AMO_AND == static_cast<int>(impl::Amo::And) &&
                  MORI_SHMEM_AMO_OR == static_cast<int>(impl::Amo::Or) &&
                  MORI_SHMEM_AMO_XOR == static_cast<int>(impl::Amo::Xor) && kAmoCount == 8,
              "mori/shmem.h documents the atomics' op FETCH 0 .. XOR 7 in the device API's order");

}  // namespace

hipError_t launchElementKernel(int kind, void* dest, uint64_t value, uint64_t cond, size_t size, int pe, bool fetch,
                               uint64_t* result, hipStream_t stream) {
  elementKernel<<<1, 1, 0, stream>>>(kind, dest, value, cond, static_cast<int>(size), pe, fetch, result);
  return hipGetLastError();
}

hipError_t launchStridedKernel(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                               size_t size, int pe, hipStream_t stream) {
  switch (size) {
    case 1: return launchStrided<uint8_t>(put, dest, source, dst, sst, n, pe, stream);
    case 2: return launchStrided<uint16_t>(put, dest, source, dst, sst, n, pe, stream);
    case 4: return launchStrided<uint32_t>(put, dest, source, dst, sst, n, pe, stream);
    case 8: return launchStrided<uint64_t>(put, dest, source, dst, sst, n, pe, stream);
    default: strided128Kernel<<<1, kThreads, 0, stream>>>(put, dest, source, dst, sst, n, pe); return hipGetLastError();
  }
}

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

hipError_t launchWaitKernel(void* ivars, size_t n, size_t size, bool isSigned, const int* status, int cmp,
                            uint64_t value, const void* values, hipStream_t stream) {
  switch (size) {
    case 2:
      return isSigned ? launchWait<int16_t>(ivars, n, status, cmp, value, values, stream)
                      : launchWait<uint16_t>(ivars, n, status, cmp, value, values, stream);
    case 4:
      return isSigned ? launchWait<int32_t>(ivars, n, status, cmp, value, values, stream)
                      : launchWait<uint32_t>(ivars, n, status, cmp, value, values, stream);
    default:
      return isSigned ? launchWait<int64_t>(ivars, n, status, cmp, value, values, stream)
                      : launchWait<uint64_t>(ivars, n, status, cmp, value, values, stream);
  }
}

}  // namespace mori::shmem
