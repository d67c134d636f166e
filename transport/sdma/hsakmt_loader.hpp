// libhsakmt (the ROCm Thunk) loaded at run time: the runtime never links it, so it starts on
// machines without ROCm; the SDMA transport asks for it only when a peer uses SDMA.
#pragma once

#include <string>

#include "transport/sdma/hsakmt_api.hpp"

namespace mori::sdma {

struct HsakmtApi {
  void* lib = nullptr;
  kmt::OpenKfdFn openKfd = nullptr;
  kmt::CloseKfdFn closeKfd = nullptr;
  kmt::AcquireSystemPropertiesFn acquireSystemProperties = nullptr;
  kmt::ReleaseSystemPropertiesFn releaseSystemProperties = nullptr;
  kmt::GetNodePropertiesFn getNodeProperties = nullptr;
  kmt::CreateQueueFn createQueue = nullptr;
  kmt::DestroyQueueFn destroyQueue = nullptr;
  kmt::CreateQueueExtFn createQueueExt = nullptr;  // optional: ROCm 6.2+ (engine chosen by id)
};

// The process-wide table for `soname` (default libhsakmt.so.1), loaded on first use; nullptr
// with `why` saying what is missing (the library, or a symbol it lacks). Thread-safe.
const HsakmtApi* loadHsakmt(std::string* why, const char* soname = "libhsakmt.so.1");

}  // namespace mori::sdma
