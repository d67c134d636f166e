// Kernels the host API runs on a stream: the runtime's own use of the device API (this module
// is bound at init like any user module).
#include "mori/shmem_device.h"
#include "shmem/runtime.hpp"

namespace mori::shmem {
namespace {

constexpr int kThreads = 256;

__global__ void quietKernel() { mori_shmem_quiet_block(); }
__global__ void barrierKernel() { mori_shmem_barrier_all_block(); }

// kWarmupStackBytes of stack per thread (a local array indexed at run time stays in local memory,
// whole: ptxas gives it a frame of exactly its size) and a printf call it never makes (`print` is
// false at every launch).
__global__ void warmupKernel(uint32_t index, uint32_t* out, bool print) {
  volatile uint32_t frame[kWarmupStackBytes / 4];
  for (uint32_t i = 0; i < kWarmupStackBytes / 4; ++i) frame[i] = i;
  const uint32_t v = frame[index % (kWarmupStackBytes / 4)];
  if (print) printf("mori-shmem: warm-up kernel %u\n", v);
  if (out) *out = v;
}

}  // namespace

hipError_t launchQuietKernel(hipStream_t stream) {
  quietKernel<<<1, kThreads, 0, stream>>>();
  return hipGetLastError();
}

hipError_t launchWarmupKernel(hipStream_t stream) {
  warmupKernel<<<1, 1, 0, stream>>>(0, nullptr, false);
  return hipGetLastError();
}

hipError_t launchBarrierKernel(hipStream_t stream) {
  barrierKernel<<<1, kThreads, 0, stream>>>();
  return hipGetLastError();
}

}  // namespace mori::shmem
