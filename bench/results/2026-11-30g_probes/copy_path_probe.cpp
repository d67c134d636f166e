// Third get-path probe: one thread's copy of a small P2P get, the size known only at run time,
// the peer address hoisted (q = mori_shmem_ptr(src, 1) once). Forms:
//   cur    impl::copyBytes(dst, q, bytes, 0, 1)   (the library's copy at 3780187)
//   elem   impl::copyElements<4> on 16-byte vectors directly (sizes that are whole vectors)
//   pred   whole 16-byte vectors: 4 at a time while more than 4 remain, then up to 4 under
//          predicates, no branch; a power-of-two size up to 16 at its alignment: one access
//   raw    the size fixed at compile time (8 B: one access; otherwise 64 B, 4 vectors)
// Every form checks its bytes. Build and run as get_path_probe.cpp.
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

namespace impl = mori::shmem::impl;
enum Form { Cur, Elem, Pred, Raw };
const char* kNames[] = {"cur", "elem", "pred", "raw"};

__device__ __forceinline__ void predCopy(char* d, const char* s, size_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s);
  if (((a | n) & 15) == 0) {
    auto* d4 = reinterpret_cast<uint4*>(d);
    auto* s4 = reinterpret_cast<const uint4*>(s);
    size_t v = n >> 4;
    for (; v > 4; v -= 4, d4 += 4, s4 += 4) {
      uint4 x[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) x[u] = s4[u];
#pragma unroll
      for (int u = 0; u < 4; ++u) d4[u] = x[u];
    }
    uint4 x[4] = {};
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (u < static_cast<int>(v)) x[u] = s4[u];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (u < static_cast<int>(v)) d4[u] = x[u];
    return;
  }
  if (n == 8 && (a & 7) == 0) {
    *reinterpret_cast<uint64_t*>(d) = *reinterpret_cast<const uint64_t*>(s);
    return;
  }
  impl::copyBytes<false>(d, s, n, 0, 1);
}

template <Form F>
__global__ void __launch_bounds__(32, 1) copyLoop(uint8_t* dst, const uint8_t* src, size_t bytes, int iters) {
  const auto* q = static_cast<const uint8_t*>(mori_shmem_ptr(src, 1));
  for (int i = 0; i < iters; ++i) {
    if constexpr (F == Cur) {
      impl::copyBytes<false>(dst, q, bytes, 0, 1);
    } else if constexpr (F == Elem) {
      impl::copyElements<4, false>(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(q), bytes >> 4, 0, 1,
                                   0);
    } else if constexpr (F == Pred) {
      predCopy(reinterpret_cast<char*>(dst), reinterpret_cast<const char*>(q), bytes);
    } else {
      if (bytes == 8) {
        *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<const uint64_t*>(q);
      } else {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = reinterpret_cast<const uint4*>(q)[u];
#pragma unroll
        for (int u = 0; u < 4; ++u) reinterpret_cast<uint4*>(dst)[u] = v[u];
      }
    }
    asm volatile("" ::: "memory");
  }
}

template <Form F>
double timeUs(uint8_t* dst, const uint8_t* src, size_t bytes, int iters) {
  hipEvent_t a, b;
  CHECK(hipEventCreate(&a));
  CHECK(hipEventCreate(&b));
  copyLoop<F><<<1, 1>>>(dst, src, bytes, 500);
  CHECK(hipEventRecord(a, 0));
  copyLoop<F><<<1, 1>>>(dst, src, bytes, iters);
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
  uint8_t pattern[4096], got[256];
  for (int i = 0; i < 4096; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 1);
  CHECK(hipMemcpy(src, pattern, 4096, hipMemcpyHostToDevice));
  mori_shmem_barrier_all();
  int failures = 0;
  if (me == 0) {
    for (int round = 0; round < 2; ++round) {
      for (size_t bytes : {size_t{8}, size_t{16}, size_t{64}, size_t{128}, size_t{256}}) {
        printf("round %d %3zu B:", round, bytes);
        for (int f = Cur; f <= Raw; ++f) {
          if ((f == Elem && bytes % 16) || (f == Raw && bytes != 8 && bytes != 64)) continue;
          CHECK(hipMemset(dst, 0, 4096));
          double us = 0;
          switch (f) {
            case Cur: us = timeUs<Cur>(dst, src, bytes, iters); break;
            case Elem: us = timeUs<Elem>(dst, src, bytes, iters); break;
            case Pred: us = timeUs<Pred>(dst, src, bytes, iters); break;
            default: us = timeUs<Raw>(dst, src, bytes, iters); break;
          }
          CHECK(hipDeviceSynchronize());
          CHECK(hipMemcpy(got, dst, 256, hipMemcpyDeviceToHost));
          if (memcmp(got, pattern, bytes) != 0) {
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
