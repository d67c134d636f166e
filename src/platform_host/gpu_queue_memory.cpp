#include "src/platform_host/gpu_queue_memory.hpp"

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/log.hpp"

namespace mori::platform {

Status allocQueueMemory(size_t bytes, void** out) {
  void* p = nullptr;
#if MORI_PLATFORM_AMD
#if defined(hipDeviceMallocUncached)
  hipError_t e = hipExtMallocWithFlags(&p, bytes, hipDeviceMallocUncached);
  const char* call = "hipExtMallocWithFlags(hipDeviceMallocUncached)";
#else
  // ROCm before uncached allocations: fine-grained memory is coherent with PCIe writes too.
  hipError_t e = hipExtMallocWithFlags(&p, bytes, hipDeviceMallocFinegrained);
  const char* call = "hipExtMallocWithFlags(hipDeviceMallocFinegrained)";
#endif
#else
  hipError_t e = hipMalloc(&p, bytes);
  const char* call = "hipMalloc";
#endif
  if (e != hipSuccess)
    return MORI_FAIL(Status::OutOfMemory, log::kRdma, "%s(%zu bytes) for NIC queues failed: %s (%s)", call, bytes,
                     hipGetErrorName(e), hipGetErrorString(e));
  e = hipMemset(p, 0, bytes);
  if (e != hipSuccess) {
    (void)hipFree(p);
    return MORI_FAIL(Status::System, log::kRdma, "hipMemset(%p, 0, %zu bytes) of NIC queues failed: %s (%s)", p, bytes,
                     hipGetErrorName(e), hipGetErrorString(e));
  }
  *out = p;
  return Status::Success;
}

void freeQueueMemory(void* ptr) {
  if (!ptr) return;
  hipError_t e = hipFree(ptr);
  if (e != hipSuccess) MORI_LOG_WARN(log::kRdma, "hipFree(%p) of NIC queues failed: %s", ptr, hipGetErrorName(e));
}

}  // namespace mori::platform
