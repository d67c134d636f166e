// Second get-path probe: a one-thread P2P get's instruction path with the size known only at run
// time (as in the perf tool and in user code), taken apart. One thread of PE 0 repeats the same
// get `iters` times in one kernel:
//   lib      mori_shmem_getmem_thread(dst, src, bytes, 1)
//   nomagic  impl::get<ThreadScope> on the module's state without the "module bound" check
//   fast     one range test (heap object, P2P PE among the first 8) then impl::copyBytes; the
//            library's get otherwise
//   fast8    as fast, with an 8-byte aligned get done by one load and store before copyBytes
//   rawcopy  q = mori_shmem_ptr(src, 1) once, then impl::copyBytes(dst, q, bytes, 0, 1)
//   raw      q hoisted, the size fixed at compile time (8 B: one load/store; 64 B: 4 vectors)
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
enum Form { Lib, NoMagic, Fast, Fast8, RawCopy, Raw };
const char* kNames[] = {"lib", "nomagic", "fast", "fast8", "rawcopy", "raw"};

__device__ __forceinline__ const void* heapP2p(const mori::shmem::GpuStates& s, const void* p, size_t bytes, int pe) {
  const uint64_t off = reinterpret_cast<uint64_t>(p) - s.heap.base;
  if (off < s.heap.size && bytes <= s.heap.size - off && static_cast<unsigned>(pe) < mori::shmem::kInlinePes &&
      s.inlineTransport[pe] == static_cast<uint8_t>(mori::shmem::Transport::P2P))
    return reinterpret_cast<const void*>(s.inlineHeapP2pBase[pe] + off);
  return nullptr;
}

template <Form F>
__global__ void __launch_bounds__(32, 1) getLoop(uint8_t* dst, const uint8_t* src, size_t bytes, int iters) {
  const void* q = mori_shmem_ptr(src, 1);
  for (int i = 0; i < iters; ++i) {
    if constexpr (F == Lib) {
      mori_shmem_getmem_thread(dst, src, bytes, 1);
    } else if constexpr (F == NoMagic) {
      impl::get<impl::ThreadScope>(impl::moduleStates, dst, src, bytes, 1, 0, true);
    } else if constexpr (F == Fast || F == Fast8) {
      const mori::shmem::GpuStates& s = impl::states();
      if (const void* r = heapP2p(s, src, bytes, 1)) {
        if (F == Fast8 && bytes == 8 && ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(r)) & 7) == 0)
          *reinterpret_cast<uint64_t*>(dst) = *static_cast<const uint64_t*>(r);
        else
          impl::copyBytes<false>(dst, r, bytes, 0, 1);
      } else {
        impl::get<impl::ThreadScope>(s, dst, src, bytes, 1, 0, true);
      }
    } else if constexpr (F == RawCopy) {
      impl::copyBytes<false>(dst, q, bytes, 0, 1);
    } else {
      if (bytes == 8) {
        *reinterpret_cast<uint64_t*>(dst) = *static_cast<const uint64_t*>(q);
      } else {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = static_cast<const uint4*>(q)[u];
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
  getLoop<F><<<1, 1>>>(dst, src, bytes, 500);
  CHECK(hipEventRecord(a, 0));
  getLoop<F><<<1, 1>>>(dst, src, bytes, iters);
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
  uint8_t pattern[4096], got[64];
  for (int i = 0; i < 4096; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 1);
  CHECK(hipMemcpy(src, pattern, 4096, hipMemcpyHostToDevice));
  mori_shmem_barrier_all();
  int failures = 0;
  if (me == 0) {
    for (int round = 0; round < 3; ++round) {
      for (size_t bytes : {size_t{8}, size_t{64}}) {
        printf("round %d %2zu B:", round, bytes);
        for (int f = Lib; f <= Raw; ++f) {
          CHECK(hipMemset(dst, 0, 4096));
          double us = 0;
          switch (f) {
            case Lib: us = timeUs<Lib>(dst, src, bytes, iters); break;
            case NoMagic: us = timeUs<NoMagic>(dst, src, bytes, iters); break;
            case Fast: us = timeUs<Fast>(dst, src, bytes, iters); break;
            case Fast8: us = timeUs<Fast8>(dst, src, bytes, iters); break;
            case RawCopy: us = timeUs<RawCopy>(dst, src, bytes, iters); break;
            default: us = timeUs<Raw>(dst, src, bytes, iters); break;
          }
          CHECK(hipDeviceSynchronize());
          CHECK(hipMemcpy(got, dst, 64, hipMemcpyDeviceToHost));
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
