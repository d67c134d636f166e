// Launchers of the kernels behind the stream-ordered RMA of shmem/stream_rma.cpp (GPU code in
// shmem/stream_rma_kernels.cpp). Each enqueues one block on `stream` and returns the launch error.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/gpu_runtime.hpp"
#include "shmem/runtime_kernels.hpp"

namespace mori::shmem {

// Device-path RMA (RDMA / SDMA peers): the block-scope device API call.
MORI_RUNTIME_KERNEL hipError_t launchPutKernel(void* dest, const void* source, size_t bytes, int pe,
                                               hipStream_t stream);
MORI_RUNTIME_KERNEL hipError_t launchGetKernel(void* dest, const void* source, size_t bytes, int pe,
                                               hipStream_t stream);
MORI_RUNTIME_KERNEL hipError_t launchPutSignalKernel(void* dest, const void* source, size_t bytes, uint64_t* sigAddr,
                                                     uint64_t signal, int sigOp, int pe, hipStream_t stream);
// After a copy-engine put on the same stream: fence, then update pe's sig_addr.
MORI_RUNTIME_KERNEL hipError_t launchSignalKernel(uint64_t* sigAddr, uint64_t signal, int sigOp, int pe,
                                                  hipStream_t stream);
// The device API's wait_until_all on one thread (signal waits too): n variables of `size` bytes
// (2, 4 or 8; signed or not) at ivars, against `value` (its low `size` bytes) or, when values is
// not null, values[i].
MORI_RUNTIME_KERNEL hipError_t launchWaitKernel(void* ivars, size_t n, size_t size, bool isSigned, const int* status,
                                                int cmp, uint64_t value, const void* values, hipStream_t stream);

// Strided put (`put`) or get of n elements of `size` bytes (1, 2, 4, 8 or 16): the device API's
// block-scope strided call (element i of source at source + i * sst to dest + i * dst, strides in
// elements).
MORI_RUNTIME_KERNEL hipError_t launchStridedKernel(bool put, void* dest, const void* source, ptrdiff_t dst,
                                                   ptrdiff_t sst, size_t n, size_t size, int pe, hipStream_t stream);

// One element from host code, one thread: kElementP stores `value` (size bytes) at pe's dest,
// kElementG loads pe's dest into *result, an atomic (MORI_SHMEM_AMO_* + kElementAmo) applies the
// device API's atomic; fetching ones (`fetch`) store the old value into *result (device memory).
constexpr int kElementP = -2;
constexpr int kElementG = -1;
MORI_RUNTIME_KERNEL hipError_t launchElementKernel(int kind, void* dest, uint64_t value, uint64_t cond, size_t size,
                                                   int pe, bool fetch, uint64_t* result, hipStream_t stream);

// The values mori/shmem.h documents for sig_op, cmp and the atomics' op (checked against the
// device API's enums).
constexpr int kSignalOpCount = 2;  // SET 0, ADD 1
constexpr int kCmpCount = 6;       // EQ 0, NE 1, GT 2, GE 3, LT 4, LE 5
constexpr int kAmoCount = 8;       // FETCH 0 ... XOR 7

}  // namespace mori::shmem
