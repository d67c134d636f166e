// Turns a failed GPU runtime call into a logged Status naming the call and the runtime's error.
#pragma once

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/status.hpp"

#define MORI_HIP_TRY(call, subsys)                                                                                  \
  do {                                                                                                              \
    hipError_t mori_hip_err_ = (call);                                                                              \
    if (mori_hip_err_ != hipSuccess)                                                                                \
      return MORI_FAIL(::mori::Status::System, subsys, "%s failed: %s (%s)", #call, hipGetErrorName(mori_hip_err_), \
                       hipGetErrorString(mori_hip_err_));                                                           \
  } while (0)
