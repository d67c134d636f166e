#include "transport/sdma/hsakmt_loader.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace mori::sdma {
namespace kmt {

const char* statusName(Status s) {
  switch (s) {
    case 0: return "HSAKMT_STATUS_SUCCESS";
    case 1: return "HSAKMT_STATUS_ERROR";
    case 2: return "HSAKMT_STATUS_DRIVER_MISMATCH";
    case 3: return "HSAKMT_STATUS_INVALID_PARAMETER";
    case 4: return "HSAKMT_STATUS_INVALID_HANDLE";
    case 5: return "HSAKMT_STATUS_INVALID_NODE_UNIT";
    case 6: return "HSAKMT_STATUS_NO_MEMORY";
    case 7: return "HSAKMT_STATUS_BUFFER_TOO_SMALL";
    case 10: return "HSAKMT_STATUS_NOT_IMPLEMENTED";
    case 11: return "HSAKMT_STATUS_NOT_SUPPORTED";
    case 12: return "HSAKMT_STATUS_UNAVAILABLE";
    case 13: return "HSAKMT_STATUS_OUT_OF_RESOURCES";
    case 20: return "HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED";
    case 21: return "HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR";
    case 22: return "HSAKMT_STATUS_KERNEL_ALREADY_OPENED";
    case 23: return "HSAKMT_STATUS_HSAMMU_UNAVAILABLE";
    case 30: return "HSAKMT_STATUS_WAIT_FAILURE";
    case 31: return "HSAKMT_STATUS_WAIT_TIMEOUT";
    case 35: return "HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED";
    case 36: return "HSAKMT_STATUS_MEMORY_NOT_REGISTERED";
    case 37: return "HSAKMT_STATUS_MEMORY_ALIGNMENT";
    default: return "HSAKMT_STATUS_(unknown)";
  }
}

}  // namespace kmt

namespace {

template <class Fn>
bool bind(void* lib, const char* soname, const char* name, Fn* slot, bool required, std::string* why) {
  *slot = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*slot == nullptr && required) {
    *why = std::string(soname) + " lacks " + name + " (not the ROCm Thunk, or too old)";
    return false;
  }
  return true;
}

struct Entry {
  HsakmtApi api;
  bool ok = false;
  std::string why;
};

}  // namespace

const HsakmtApi* loadHsakmt(std::string* why, const char* soname) {
  static std::mutex mu;
  static std::map<std::string, Entry> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded.find(soname);
  if (it == loaded.end()) {
    Entry& e = loaded[soname];
    void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* err = dlerror();
      e.why =
          std::string("cannot load ") + soname +
          " (the ROCm Thunk, libhsakmt, that SDMA queues are created with): " + (err ? err : "unknown dlopen error");
    } else {
      HsakmtApi& a = e.api;
      const bool ok = bind(lib, soname, "hsaKmtOpenKFD", &a.openKfd, true, &e.why) &&
                      bind(lib, soname, "hsaKmtCloseKFD", &a.closeKfd, true, &e.why) &&
                      bind(lib, soname, "hsaKmtAcquireSystemProperties", &a.acquireSystemProperties, true, &e.why) &&
                      bind(lib, soname, "hsaKmtReleaseSystemProperties", &a.releaseSystemProperties, true, &e.why) &&
                      bind(lib, soname, "hsaKmtGetNodeProperties", &a.getNodeProperties, true, &e.why) &&
                      bind(lib, soname, "hsaKmtCreateQueue", &a.createQueue, true, &e.why) &&
                      bind(lib, soname, "hsaKmtDestroyQueue", &a.destroyQueue, true, &e.why) &&
                      bind(lib, soname, "hsaKmtCreateQueueExt", &a.createQueueExt, false, &e.why);
      if (ok) {
        a.lib = lib;
        e.ok = true;
      } else {
        dlclose(lib);
      }
    }
    it = loaded.find(soname);
  }
  if (!it->second.ok) {
    *why = it->second.why;
    return nullptr;
  }
  return &it->second.api;
}

}  // namespace mori::sdma
