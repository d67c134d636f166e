// Kernels the host API runs on a stream: the runtime's own use of the device API (this module
// is bound at init like any user module).
#include "mori/shmem_device.h"
#include "shmem/runtime.hpp"

namespace mori::shmem {
namespace {

constexpr int kThreads = 256;

__global__ void quietKernel() { mori_shmem_quiet_block(); }
__global__ void barrierKernel() { mori_shmem_barrier_all_block(); }

}  // namespace

hipError_t launchQuietKernel(hipStream_t stream) {
  quietKernel<<<1, kThreads, 0, stream>>>();
  return hipGetLastError();
}

hipError_t launchBarrierKernel(hipStream_t stream) {
  barrierKernel<<<1, kThreads, 0, stream>>>();
  return hipGetLastError();
}

}  // namespace mori::shmem
