// GPU modules that a JIT loads at run time (Triton kernels that link the device library's
// bitcode), bound to the runtime by mori_shmem_module_init_kind: each one's
// mori_shmem_device_states receives the GpuStates that mori_shmem_init binds into every module.
// The GPU side (finding the symbol, copying into it) is a table of functions, so that the
// bookkeeping is tested without a GPU (tests/host/jit/test_jit_modules.cpp).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <mutex>
#include <string>
#include <vector>

#include "mori/shmem/device_host/gpu_states.hpp"
#include "src/common/status.hpp"

namespace mori::shmem::jit {

// Handle kinds (mori_shmem_module_kind_t in mori/shmem.h).
enum class Kind : int { Module = 0, Library = 1 };

enum class Lookup { Found, Missing, Failed };

struct GpuOps {
  // Finds `name` in the loaded module: Found with its device address and size, Missing when the
  // module has no such symbol, Failed (with the runtime's message in *err) otherwise.
  Lookup (*find)(void* handle, Kind kind, const char* name, uint64_t* addr, size_t* bytes, std::string* err);
  // Copies host bytes to device memory, complete on return, legal while another stream of the
  // process is being captured into a CUDA/HIP graph. 0, or the runtime's error with *err.
  int (*copy)(uint64_t addr, const void* src, size_t bytes, std::string* err);
};

class Modules {
 public:
  explicit Modules(GpuOps ops) : ops_(ops) {}

  // Remembers the module and, when the runtime is bound, copies GpuStates into it. A module
  // already remembered is a success with no GPU work. InvalidUsage: null handle, unknown kind,
  // no mori_shmem_device_states in the module, or a state of another size (another device ABI).
  Status init(void* handle, int kind);
  // 1 when the module defines mori_shmem_device_states, 0 when not; negative Status on failure.
  int usesDeviceApi(void* handle, int kind);
  // Forgets a module before the JIT unloads it. InvalidUsage when it was never initialised.
  Status forget(void* handle, int kind);
  // The runtime's binder (module_registry): `states` bound at init, zeros at finalize. Copies into
  // every remembered module; returns 0 or the first copy's runtime error.
  int bindAll(const void* states, size_t bytes);

  size_t count();
  bool bound();

 private:
  struct Entry {
    void* handle;
    Kind kind;
    uint64_t addr;
  };
  Status checkKind(void* handle, int kind, Kind* out);

  GpuOps ops_;
  std::mutex mutex_;
  std::vector<Entry> modules_;
  GpuStates states_{};
  bool bound_ = false;
};

// The name the device library defines (shmem/device/device_states.cpp).
constexpr const char* kStateSymbol = "mori_shmem_device_states";

}  // namespace mori::shmem::jit
