#include "shmem/jit_modules.hpp"

#include <string.h>

namespace mori::shmem::jit {

namespace {
const char* kindName(Kind k) { return k == Kind::Library ? "CUlibrary" : "module"; }
}  // namespace

Status Modules::checkKind(void* handle, int kind, Kind* out) {
  if (kind != static_cast<int>(Kind::Module) && kind != static_cast<int>(Kind::Library))
    return MORI_FAIL(Status::InvalidUsage, log::kInit,
                     "mori_shmem_module_init: kind %d is not MORI_SHMEM_MODULE (0) or MORI_SHMEM_LIBRARY (1)", kind);
  if (!handle)
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "mori_shmem_module_init: the %s handle is NULL",
                     kindName(static_cast<Kind>(kind)));
  *out = static_cast<Kind>(kind);
  return Status::Success;
}

int Modules::usesDeviceApi(void* handle, int kind) {
  Kind k;
  Status s = checkKind(handle, kind, &k);
  if (!ok(s)) return static_cast<int>(s);
  uint64_t addr = 0;
  size_t bytes = 0;
  std::string err;
  switch (ops_.find(handle, k, kStateSymbol, &addr, &bytes, &err)) {
    case Lookup::Found: return 1;
    case Lookup::Missing: return 0;
    default:
      return static_cast<int>(MORI_FAIL(Status::System, log::kInit, "looking up %s in %s %p failed: %s", kStateSymbol,
                                        kindName(k), handle, err.c_str()));
  }
}

Status Modules::init(void* handle, int kind) {
  Kind k;
  MORI_TRY(checkKind(handle, kind, &k));
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& e : modules_)
    if (e.handle == handle && e.kind == k) return Status::Success;
  uint64_t addr = 0;
  size_t bytes = 0;
  std::string err;
  switch (ops_.find(handle, k, kStateSymbol, &addr, &bytes, &err)) {
    case Lookup::Found: break;
    case Lookup::Missing:
      return MORI_FAIL(Status::InvalidUsage, log::kInit,
                       "mori_shmem_module_init: %s %p defines no %s: it does not link the mori-shmem device library "
                       "(Triton: launch with extern_libs=mori_shmem.triton.extern_libs(); bitcode: "
                       "lib/mori_shmem_device_<arch>.bc)",
                       kindName(k), handle, kStateSymbol);
    default:
      return MORI_FAIL(Status::System, log::kInit, "mori_shmem_module_init: looking up %s in %s %p failed: %s",
                       kStateSymbol, kindName(k), handle, err.c_str());
  }
  if (bytes != sizeof(GpuStates))
    return MORI_FAIL(Status::InvalidUsage, log::kInit,
                     "mori_shmem_module_init: %s %p has a %zu-byte %s but this runtime's is %zu bytes (device ABI %u): "
                     "its bitcode was built from other mori-shmem headers; rebuild it with this package",
                     kindName(k), handle, bytes, kStateSymbol, sizeof(GpuStates), kDeviceAbiVersion);
  if (bound_) {
    const int rc = ops_.copy(addr, &states_, sizeof(states_), &err);
    if (rc != 0)
      return MORI_FAIL(Status::System, log::kInit,
                       "mori_shmem_module_init: copying the device state into %s %p failed (runtime error %d: %s)",
                       kindName(k), handle, rc, err.c_str());
  }
  modules_.push_back(Entry{handle, k, addr});
  MORI_LOG_DEBUG(log::kInit, "JIT %s %p %s (%zu JIT modules)", kindName(k), handle,
                 bound_ ? "bound" : "remembered until mori_shmem_init", modules_.size());
  return Status::Success;
}

Status Modules::forget(void* handle, int kind) {
  Kind k;
  MORI_TRY(checkKind(handle, kind, &k));
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = modules_.begin(); it != modules_.end(); ++it)
    if (it->handle == handle && it->kind == k) {
      modules_.erase(it);
      return Status::Success;
    }
  return MORI_FAIL(Status::InvalidUsage, log::kInit,
                   "mori_shmem_module_finalize: %s %p was never passed to mori_shmem_module_init", kindName(k), handle);
}

int Modules::bindAll(const void* states, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes != sizeof(states_)) return static_cast<int>(Status::Internal);
  memcpy(&states_, states, sizeof(states_));
  bound_ = states_.magic == kGpuStatesMagic;
  int first = 0;
  for (const Entry& e : modules_) {
    std::string err;
    const int rc = ops_.copy(e.addr, &states_, sizeof(states_), &err);
    if (rc != 0) {
      MORI_LOG_WARN(log::kInit, "could not copy the device state into JIT %s %p (runtime error %d: %s)",
                    kindName(e.kind), e.handle, rc, err.c_str());
      if (!first) first = rc;
    }
  }
  return first;
}

size_t Modules::count() {
  std::lock_guard<std::mutex> lock(mutex_);
  return modules_.size();
}

bool Modules::bound() {
  std::lock_guard<std::mutex> lock(mutex_);
  return bound_;
}

}  // namespace mori::shmem::jit
