// What the four examples share: error checks that say which call failed, the "SKIPPED" exit for
// machines without a GPU, a reproducible data pattern, and the verdict summed over all PEs.
// Only the public API is used: mori/shmem.h, mori/shmem_device.h and the HIP runtime API as the
// package provides it (on NVIDIA, mori/platform/gpu_runtime.hpp maps the HIP names to CUDA).
// It defines kernels (a kernel cannot be `inline`), so each program includes it from one source.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"
#include "mori/shmem_device.h"

// ctest's SKIP_RETURN_CODE for the examples.
constexpr int kExitSkipped = 77;

// A failed GPU call; if a kernel stopped on a mori-shmem device error, that message says why.
inline void dieOnGpuError(hipError_t e, const char* call, const char* file, int line) {
  fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, hipGetErrorName(e), hipGetErrorString(e));
  char why[512];
  if (mori_shmem_device_error(why, sizeof(why))) fprintf(stderr, "  device-side error: %s\n", why);
  exit(1);
}

#define CHECK_HIP(call)                                                 \
  do {                                                                  \
    hipError_t e_ = (call);                                             \
    if (e_ != hipSuccess) dieOnGpuError(e_, #call, __FILE__, __LINE__); \
  } while (0)

// mori-shmem host calls return 0 or a negative mori_shmem_status_t; the library has logged why.
#define CHECK_SHMEM(call)                                                                                        \
  do {                                                                                                           \
    int s_ = (call);                                                                                             \
    if (s_ != MORI_SHMEM_SUCCESS) {                                                                              \
      fprintf(stderr, "%s:%d: %s failed with status %d (mori_shmem_status_t)\n", __FILE__, __LINE__, #call, s_); \
      exit(1);                                                                                                   \
    }                                                                                                            \
  } while (0)

// Symmetric allocation (collective) that stops the program when the heap cannot serve it.
template <typename T>
T* symmetricAlloc(size_t count, bool zeroed) {
  void* p = zeroed ? mori_shmem_calloc(count, sizeof(T)) : mori_shmem_malloc(count * sizeof(T));
  if (!p) {
    fprintf(stderr, "symmetric allocation of %zu bytes failed (see the mori-shmem log above)\n", count * sizeof(T));
    exit(1);
  }
  return static_cast<T*>(p);
}

// Call before mori_shmem_init: without a GPU there is nothing to run.
inline void skipWithoutGpu(const char* example) {
  int n = 0;
  const hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess || n == 0) {
    printf("SKIPPED: %s: %s\n", example, e != hipSuccess ? hipGetErrorString(e) : "no GPU device is visible");
    exit(kExitSkipped);
  }
}

// Call after mori_shmem_init, in examples whose kernels wait for each other across PEs: such a
// wait ends only if the GPU runs the kernels of the PEs that share it at the same time (one PE
// per GPU, CUDA MPS on NVIDIA, the hardware scheduler on AMD). Every PE of a node reaches the
// same decision; nodes are assumed alike.
inline void skipIfPesShareGpus(const char* example) {
  int gpus = 0, device = 0;
  CHECK_HIP(hipGetDeviceCount(&gpus));
  CHECK_HIP(hipGetDevice(&device));
  const int local = mori_shmem_team_n_pes(MORI_SHMEM_TEAM_NODE);
  const int perGpu = (local + gpus - 1) / gpus;
  char how[256] = "";
  const int concurrent = mori_shmem_gpu_sharing_concurrent(device, perGpu, how, sizeof(how));
  if (concurrent == 1) return;
  if (mori_shmem_team_my_pe(MORI_SHMEM_TEAM_NODE) == 0)
    printf("SKIPPED: %s: %d PEs share each GPU and their kernels cannot run at the same time (%s)\n", example, perGpu,
           how);
  CHECK_SHMEM(mori_shmem_finalize());
  exit(kExitSkipped);
}

// Word i of the data that PE `pe` produces in round `round`: reproducible anywhere and different
// for every (round, pe, i), so a word that lands in the wrong place or round is caught.
__host__ __device__ inline uint64_t patternWord(uint64_t round, int pe, uint64_t i) {
  uint64_t x = (round << 48) ^ (static_cast<uint64_t>(pe) << 32) ^ i;  // splitmix64 of the coordinates
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void fillPattern(uint64_t* data, size_t words, uint64_t round, int pe) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    data[i] = patternWord(round, pe, i);
}

// Mismatch count and the first bad word index seen by a checking kernel.
struct Mismatches {
  unsigned long long count;
  unsigned long long firstIndex;
};

__device__ inline void recordMismatch(Mismatches* m, unsigned long long index) {
  atomicAdd(&m->count, 1ull);
  atomicMin(&m->firstIndex, index);
}

// Device-side mismatch record, reset to "none".
inline Mismatches* newMismatches() {
  Mismatches* m = nullptr;
  const Mismatches none{0, ~0ull};
  CHECK_HIP(hipMalloc(&m, sizeof(Mismatches)));
  CHECK_HIP(hipMemcpy(m, &none, sizeof(none), hipMemcpyHostToDevice));
  return m;
}

inline Mismatches readMismatches(const Mismatches* m) {
  Mismatches h;
  CHECK_HIP(hipMemcpy(&h, m, sizeof(h), hipMemcpyDeviceToHost));
  return h;
}

__global__ void addToEveryPe(uint64_t* total, uint64_t value) {
  for (int pe = 0; pe < mori_shmem_n_pes(); ++pe) mori_shmem_uint64_atomic_add(total, value, pe);
}

// Collective: prints the verdict line (PE 0), finalizes, and returns the exit code. Every PE adds
// its failure count into every PE's copy of a symmetric word, so every PE exits with the same
// verdict; a PE that failed itself exits non-zero whatever the sum says.
inline int finish(const char* example, uint64_t myFailures) {
  uint64_t* total = symmetricAlloc<uint64_t>(1, true);
  CHECK_SHMEM(mori_shmem_barrier_all());  // every copy is zero before anyone adds to it
  addToEveryPe<<<1, 1>>>(total, myFailures);
  CHECK_HIP(hipGetLastError());
  CHECK_SHMEM(mori_shmem_barrier_all());  // waits for this PE's kernel, then for every PE
  uint64_t failures = 0;
  CHECK_HIP(hipMemcpy(&failures, total, sizeof(failures), hipMemcpyDeviceToHost));
  mori_shmem_free(total);
  const bool passed = failures == 0 && myFailures == 0;
  if (mori_shmem_my_pe() == 0)
    printf("%s: %s on %d PEs (%llu failures)\n", example, passed ? "PASSED" : "FAILED", mori_shmem_n_pes(),
           static_cast<unsigned long long>(failures));
  fflush(stdout);
  CHECK_SHMEM(mori_shmem_finalize());
  return passed ? 0 : 1;
}
