// Where do a one-thread P2P get's 0.21 us go? (shmem_get_latency: 8 B 0.210 us, 64 B 0.259;
// NVSHMEM 0.205 / 0.235; a raw one-process probe of the same loads 0.021 / 0.043 us:
// 2026-11-30d_probes/get_forms_probe.cu.) One thread of PE 0 repeats the same get `iters`
// times in one kernel, in these forms:
//   lib       mori_shmem_getmem_thread(dst, src, bytes, 1)            (what the perf tool times)
//   raw       q = mori_shmem_ptr(src, 1) once, then loads of q, stores to dst
//   rawptr    q = mori_shmem_ptr(src, 1) in every iteration
//   rawnost   as raw, but the loaded words are summed and stored once after the loop
//   local     raw loads of the PE's own heap (src) instead of the peer's
//   inproc    raw loads of a cudaMalloc buffer on the other GPU, mapped by peer access in this
//             process (the earlier probe's setting)
// 64 B forms load four 16-byte vectors before storing them. Every form checks its result.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -x cu -I<tree>/include -I<build>/include
//   get_path_probe.cpp -L<build> -lmori_shmem -lmpi -o get_path_probe
// Run: mpirun -np 2 ./get_path_probe (one GPU per PE; PE 1 only serves memory)
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"
#include "mori/shmem_device.h"

#define CHECK(x)                                                     \
  do {                                                               \
    if ((x) != 0) {                                                  \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
      exit(1);                                                       \
    }                                                                \
  } while (0)

enum Form { Lib, Raw, RawPtr, RawNoStore, Local, InProc };
const char* kNames[] = {"lib", "raw", "rawptr", "rawnost", "local", "inproc"};

template <int N16>
__device__ __forceinline__ void copy(uint4* dst, const uint4* q) {
  if constexpr (N16 == 0) {
    *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<const uint64_t*>(q);
  } else {
    uint4 v[N16];
#pragma unroll
    for (int u = 0; u < N16; ++u) v[u] = q[u];
#pragma unroll
    for (int u = 0; u < N16; ++u) dst[u] = v[u];
  }
}

template <Form F, int N16>
__global__ void __launch_bounds__(32, 1) getLoop(uint4* dst, const uint4* src, const uint4* other, int iters) {
  const size_t bytes = N16 ? N16 * 16 : 8;
  const uint4* q = F == Local ? src : F == InProc ? other : static_cast<const uint4*>(mori_shmem_ptr(src, 1));
  uint64_t sum = 0;
  for (int i = 0; i < iters; ++i) {
    if constexpr (F == Lib) {
      mori_shmem_getmem_thread(dst, src, bytes, 1);
    } else if constexpr (F == RawPtr) {
      copy<N16>(dst, static_cast<const uint4*>(mori_shmem_ptr(src, 1)));
    } else if constexpr (F == RawNoStore) {
      sum += *reinterpret_cast<const uint64_t*>(q);
      if constexpr (N16 > 0) {
#pragma unroll
        for (int u = 0; u < N16; ++u) sum += q[u].x ^ q[u].w;
      }
    } else {
      copy<N16>(dst, q);
    }
    asm volatile("" ::: "memory");
  }
  if constexpr (F == RawNoStore) {
    if (iters > 0) copy<N16>(dst, q);  // the check below reads dst
    dst[8].x = static_cast<unsigned>(sum);
  }
}

template <Form F, int N16>
double timeUs(uint4* dst, const uint4* src, const uint4* other, int iters) {
  hipEvent_t a, b;
  CHECK(hipEventCreate(&a));
  CHECK(hipEventCreate(&b));
  getLoop<F, N16><<<1, 1>>>(dst, src, other, 500);
  CHECK(hipEventRecord(a, 0));
  getLoop<F, N16><<<1, 1>>>(dst, src, other, iters);
  CHECK(hipEventRecord(b, 0));
  CHECK(hipEventSynchronize(b));
  float ms = 0;
  CHECK(hipEventElapsedTime(&ms, a, b));
  CHECK(hipEventDestroy(a));
  CHECK(hipEventDestroy(b));
  return ms * 1e3 / iters;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iters = argc > 1 ? atoi(argv[1]) : 20000;
  CHECK(mori_shmem_init());
  const int me = mori_shmem_my_pe();
  auto* src = static_cast<uint8_t*>(mori_shmem_malloc(4096));
  auto* dst = static_cast<uint8_t*>(mori_shmem_malloc(4096));
  if (!src || !dst) return 1;
  uint8_t pattern[4096], local[4096], inproc[4096], got[4096];
  for (int i = 0; i < 4096; ++i) {
    pattern[i] = static_cast<uint8_t>(i * 7 + 1);  // PE 1's source
    local[i] = static_cast<uint8_t>(i * 13 + 5);   // PE 0's own source
    inproc[i] = static_cast<uint8_t>(i * 3 + 11);  // the in-process peer buffer
  }
  CHECK(hipMemcpy(src, me == 1 ? pattern : local, 4096, hipMemcpyHostToDevice));
  uint4* other = nullptr;
  if (me == 0) {
    int dev = 0;
    CHECK(hipGetDevice(&dev));
    const int peerDev = 1 - dev;
    CHECK(hipSetDevice(peerDev));
    CHECK(hipMalloc(&other, 4096));
    CHECK(hipMemcpy(other, inproc, 4096, hipMemcpyHostToDevice));
    CHECK(hipSetDevice(dev));
    const hipError_t e = hipDeviceEnablePeerAccess(peerDev, 0);
    if (e != hipSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CHECK(e);  // NVIDIA-only probe
  }
  mori_shmem_barrier_all();
  int failures = 0;
  if (me == 0) {
    for (int round = 0; round < 3; ++round) {
      for (int n16 : {0, 4}) {
        printf("round %d %2d B:", round, n16 ? n16 * 16 : 8);
        for (int f = Lib; f <= InProc; ++f) {
          CHECK(hipMemset(dst, 0, 4096));
          double us = 0;
#define CASE(FORM)                                                                   \
  case FORM:                                                                         \
    us = n16 ? timeUs<FORM, 4>(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src), other, iters) \
             : timeUs<FORM, 0>(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src), other, iters); \
    break;
          switch (f) {
            CASE(Lib)
            CASE(Raw)
            CASE(RawPtr)
            CASE(RawNoStore)
            CASE(Local)
            CASE(InProc)
          }
          CHECK(hipDeviceSynchronize());
          CHECK(hipMemcpy(got, dst, 64, hipMemcpyDeviceToHost));
          const uint8_t* want = f == Local ? local : f == InProc ? inproc : pattern;
          const int n = n16 ? n16 * 16 : 8;
          if (memcmp(got, want, n) != 0) {
            printf(" [%s WRONG DATA]", kNames[f]);
            ++failures;
          }
          printf(" %s %.4f", kNames[f], us);
        }
        printf("\n");
      }
    }
  }
  mori_shmem_barrier_all();
  mori_shmem_free(dst);
  mori_shmem_free(src);
  mori_shmem_finalize();
  MPI_Finalize();
  if (me == 0) printf("%s\n", failures ? "FAIL" : "all forms returned the right bytes");
  return failures ? 1 : 0;
}
