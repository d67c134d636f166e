#include "application/context/gpu_sharing.hpp"

#include <stdio.h>

#include "mori/platform/device.hpp"
#include "mori/platform/gpu_runtime.hpp"

namespace mori::context {

namespace {

#if MORI_PLATFORM_AMD
// An amdgpu module parameter, or `fallback` when it cannot be read (no driver, another kernel).
int amdgpuParameter(const char* name, int fallback) {
  char path[128];
  snprintf(path, sizeof(path), "/sys/module/amdgpu/parameters/%s", name);
  FILE* f = fopen(path, "r");
  if (!f) return fallback;
  int v = fallback;
  if (fscanf(f, "%d", &v) != 1) v = fallback;
  fclose(f);
  return v;
}
#endif

}  // namespace

GpuSharing gpuSharing(int device, int processes) {
  GpuSharing r;
  if (processes <= 1) {
    r.concurrent = true;
    r.how = "one process per GPU";
    return r;
  }
#if MORI_PLATFORM_NVIDIA
  int mps = 0;
  const hipError_t e = cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, device);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    r.how = std::string("cannot tell whether CUDA MPS serves GPU ") + std::to_string(device) + " (" +
            hipGetErrorString(e) + ")";
    return r;
  }
  r.concurrent = mps != 0;
  r.how = r.concurrent ? "CUDA MPS serves this GPU: kernels of its processes run concurrently"
                       : "CUDA MPS is not running: the driver time-slices the processes that share a GPU";
#else
  (void)device;
  // kfd_priv.h: KFD_SCHED_POLICY_HWS = 0, HWS_NO_OVERSUBSCRIPTION = 1, NO_HWS = 2.
  const int policy = amdgpuParameter("sched_policy", 0);
  int limit = amdgpuParameter("hws_max_conc_proc", -1);
  if (policy == 2) {
    r.concurrent = true;
    r.how = "amdgpu sched_policy=2: queues are mapped to hardware queue slots statically and run concurrently";
    return r;
  }
  if (limit < 0) limit = 8;  // the default: the VMIDs assigned to KFD (8 on gfx9 parts)
  r.concurrent = processes <= limit;
  r.how = "the amdgpu hardware scheduler runs up to " + std::to_string(limit) + " processes concurrently (" +
          std::to_string(processes) + " share this GPU)";
#endif
  return r;
}

}  // namespace mori::context
