// The HIP host API subset mori-shmem uses, spelled over the CUDA runtime. A flat table of
// aliases, constants and forwarders with no logic: code above the platform layer is written in
// HIP and reads the same on both vendors. Debian's HIP-on-NVIDIA headers do not build against
// CUDA 13, hence this project-owned table. Add an entry here before using a new HIP call.
#pragma once

#include <cuda_runtime_api.h>

#include "mori/platform/device.hpp"

#if MORI_GPU_COMPILER
#include <cuda_runtime.h>
#endif

// ---- types
using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipIpcMemHandle_t = cudaIpcMemHandle_t;
using hipMemcpyKind = cudaMemcpyKind;
using hipDeviceAttribute_t = cudaDeviceAttr;
using hipFuncAttributes = cudaFuncAttributes;
using hipPointerAttribute_t = cudaPointerAttributes;
using hipFuncAttribute = cudaFuncAttribute;
using hipStreamCaptureStatus = cudaStreamCaptureStatus;

// ---- constants
#define hipSuccess cudaSuccess
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault
#define hipIpcMemLazyEnablePeerAccess cudaIpcMemLazyEnablePeerAccess
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostMallocPortable cudaHostAllocPortable
#define hipHostRegisterDefault cudaHostRegisterDefault
#define hipHostRegisterMapped cudaHostRegisterMapped
#define hipHostRegisterPortable cudaHostRegisterPortable
#define hipHostRegisterIoMemory cudaHostRegisterIoMemory
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamCaptureStatusNone cudaStreamCaptureStatusNone
#define hipEventDefault cudaEventDefault
#define hipEventDisableTiming cudaEventDisableTiming
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define hipDeviceAttributeClockRate cudaDevAttrClockRate
#define hipFuncAttributePreferredSharedMemoryCarveout cudaFuncAttributePreferredSharedMemoryCarveout
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipMemoryTypeDevice cudaMemoryTypeDevice
#define hipMemoryTypeHost cudaMemoryTypeHost
#define HIP_SYMBOL(x) x

// ---- forwarders
inline const char* hipGetErrorString(hipError_t e) { return cudaGetErrorString(e); }
inline const char* hipGetErrorName(hipError_t e) { return cudaGetErrorName(e); }
inline hipError_t hipGetLastError() { return cudaGetLastError(); }
inline hipError_t hipPeekAtLastError() { return cudaPeekAtLastError(); }
inline hipError_t hipDriverGetVersion(int* v) { return cudaDriverGetVersion(v); }
inline hipError_t hipRuntimeGetVersion(int* v) { return cudaRuntimeGetVersion(v); }

inline hipError_t hipGetDeviceCount(int* n) { return cudaGetDeviceCount(n); }
inline hipError_t hipSetDevice(int d) { return cudaSetDevice(d); }
inline hipError_t hipGetDevice(int* d) { return cudaGetDevice(d); }
inline hipError_t hipDeviceSynchronize() { return cudaDeviceSynchronize(); }
inline hipError_t hipDeviceGetPCIBusId(char* id, int len, int d) { return cudaDeviceGetPCIBusId(id, len, d); }
inline hipError_t hipDeviceGetByPCIBusId(int* d, const char* id) { return cudaDeviceGetByPCIBusId(d, id); }
inline hipError_t hipDeviceCanAccessPeer(int* can, int d, int peer) { return cudaDeviceCanAccessPeer(can, d, peer); }
inline hipError_t hipDeviceEnablePeerAccess(int peer, unsigned flags) {
  return cudaDeviceEnablePeerAccess(peer, flags);
}
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int d) {
  return cudaDeviceGetAttribute(v, a, d);
}
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int d) { return cudaGetDeviceProperties(p, d); }
inline hipError_t hipMemGetInfo(size_t* freeBytes, size_t* total) { return cudaMemGetInfo(freeBytes, total); }

inline hipError_t hipMalloc(void** p, size_t n) { return cudaMalloc(p, n); }
template <typename T>
inline hipError_t hipMalloc(T** p, size_t n) {
  return cudaMalloc(reinterpret_cast<void**>(p), n);
}
inline hipError_t hipFree(void* p) { return cudaFree(p); }
inline hipError_t hipMemset(void* p, int v, size_t n) { return cudaMemset(p, v, n); }
inline hipError_t hipMemsetAsync(void* p, int v, size_t n, hipStream_t s = nullptr) {
  return cudaMemsetAsync(p, v, n, s);
}
inline hipError_t hipMemcpy(void* d, const void* s, size_t n, hipMemcpyKind k) { return cudaMemcpy(d, s, n, k); }
inline hipError_t hipMemcpyAsync(void* d, const void* s, size_t n, hipMemcpyKind k, hipStream_t st = nullptr) {
  return cudaMemcpyAsync(d, s, n, k, st);
}
inline hipError_t hipHostMalloc(void** p, size_t n, unsigned flags) { return cudaHostAlloc(p, n, flags); }
template <typename T>
inline hipError_t hipHostMalloc(T** p, size_t n, unsigned flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(p), n, flags);
}
inline hipError_t hipHostFree(void* p) { return cudaFreeHost(p); }
inline hipError_t hipHostGetDevicePointer(void** d, void* h, unsigned flags) {
  return cudaHostGetDevicePointer(d, h, flags);
}
inline hipError_t hipHostRegister(void* p, size_t n, unsigned flags) { return cudaHostRegister(p, n, flags); }
inline hipError_t hipHostUnregister(void* p) { return cudaHostUnregister(p); }
inline hipError_t hipPointerGetAttributes(hipPointerAttribute_t* a, const void* p) {
  return cudaPointerGetAttributes(a, p);
}

inline hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t* h, void* p) { return cudaIpcGetMemHandle(h, p); }
inline hipError_t hipIpcOpenMemHandle(void** p, hipIpcMemHandle_t h, unsigned flags) {
  return cudaIpcOpenMemHandle(p, h, flags);
}
inline hipError_t hipIpcCloseMemHandle(void* p) { return cudaIpcCloseMemHandle(p); }

inline hipError_t hipStreamCreate(hipStream_t* s) { return cudaStreamCreate(s); }
inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned f) { return cudaStreamCreateWithFlags(s, f); }
inline hipError_t hipStreamDestroy(hipStream_t s) { return cudaStreamDestroy(s); }
inline hipError_t hipStreamSynchronize(hipStream_t s) { return cudaStreamSynchronize(s); }
inline hipError_t hipStreamQuery(hipStream_t s) { return cudaStreamQuery(s); }
inline hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus* c) { return cudaStreamIsCapturing(s, c); }
inline hipError_t hipEventCreate(hipEvent_t* e) { return cudaEventCreate(e); }
inline hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned f) { return cudaEventCreateWithFlags(e, f); }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = nullptr) { return cudaEventRecord(e, s); }
inline hipError_t hipEventSynchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
inline hipError_t hipEventQuery(hipEvent_t e) { return cudaEventQuery(e); }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) { return cudaEventElapsedTime(ms, a, b); }
inline hipError_t hipEventDestroy(hipEvent_t e) { return cudaEventDestroy(e); }

template <typename T>
inline hipError_t hipMemcpyToSymbol(const T& sym, const void* src, size_t n, size_t off = 0,
                                    hipMemcpyKind k = hipMemcpyHostToDevice) {
  return cudaMemcpyToSymbol(sym, src, n, off, k);
}
template <typename T>
inline hipError_t hipMemcpyFromSymbol(void* dst, const T& sym, size_t n, size_t off = 0,
                                      hipMemcpyKind k = hipMemcpyDeviceToHost) {
  return cudaMemcpyFromSymbol(dst, sym, n, off, k);
}
template <typename F>
inline hipError_t hipFuncGetAttributes(hipFuncAttributes* a, F* f) {
  return cudaFuncGetAttributes(a, f);
}
inline hipError_t hipFuncSetAttribute(const void* f, hipFuncAttribute a, int v) {
  return cudaFuncSetAttribute(f, a, v);
}
template <typename F>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F* f, int threads, size_t smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, threads, smem);
}
