#include "src/platform_host/gpu_context.hpp"

#include <string.h>

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/gpu_check.hpp"
#include "src/platform_host/driver_entry.hpp"

#if MORI_PLATFORM_NVIDIA
#include <cuda.h>
#endif

namespace mori::platform {

Status allocationRange(const void* ptr, uint64_t* base, uint64_t* size) {
#if MORI_PLATFORM_NVIDIA
  using GetRange = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
  static GetRange getRange = driverEntry<GetRange>("cuMemGetAddressRange");
  if (!getRange) return MORI_FAIL(Status::System, log::kMem, "cuMemGetAddressRange is not available from the driver");
  CUdeviceptr b = 0;
  size_t n = 0;
  CUresult r = getRange(&b, &n, reinterpret_cast<CUdeviceptr>(ptr));
  if (r != CUDA_SUCCESS)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%p is not device memory of this process (cuMemGetAddressRange: %d)", ptr, static_cast<int>(r));
  *base = static_cast<uint64_t>(b);
  *size = n;
#else
  hipDeviceptr_t b = nullptr;
  size_t n = 0;
  hipError_t e = hipMemGetAddressRange(&b, &n, const_cast<void*>(ptr));
  if (e != hipSuccess)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%p is not device memory of this process (hipMemGetAddressRange: %s)", ptr, hipGetErrorString(e));
  *base = reinterpret_cast<uint64_t>(b);
  *size = n;
#endif
  return Status::Success;
}

bool hasCurrentContext() {
#if MORI_PLATFORM_NVIDIA
  using GetCurrent = CUresult (*)(CUcontext*);
  static GetCurrent getCurrent = driverEntry<GetCurrent>("cuCtxGetCurrent");
  CUcontext ctx = nullptr;
  return getCurrent && getCurrent(&ctx) == CUDA_SUCCESS && ctx != nullptr;
#else
  hipCtx_t ctx = nullptr;
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
  return hipCtxGetCurrent(&ctx) == hipSuccess && ctx != nullptr;
#pragma clang diagnostic pop
#endif
}

Status deviceUuid(int device, uint8_t uuid[16]) {
  memset(uuid, 0, 16);
#if MORI_PLATFORM_NVIDIA
  hipDeviceProp_t prop;
  MORI_HIP_TRY(hipGetDeviceProperties(&prop, device), log::kInit);
  memcpy(uuid, prop.uuid.bytes, 16);
#else
  hipUUID u;
  MORI_HIP_TRY(hipDeviceGetUuid(&u, device), log::kInit);
  memcpy(uuid, u.bytes, 16);
#endif
  return Status::Success;
}

}  // namespace mori::platform
