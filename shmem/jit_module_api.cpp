// The C API for JIT-loaded GPU modules (mori/shmem.h, "JIT-loaded GPU modules") and its GPU side:
// the symbol lookup through the driver (cuModuleGetGlobal / cuLibraryGetGlobal, hipModuleGetGlobal)
// and a copy that graph capture allows. Every JIT module is bound through one binder registered
// with the runtime's module registry (module_registry.cpp), so init and finalize reach it as they
// reach every linked module.
#include <mutex>
#include <string>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"
#include "mori/shmem/impl/device_library.hpp"
#include "shmem/c_api.hpp"
#include "shmem/jit_modules.hpp"
#include "src/platform_host/driver_entry.hpp"

#if MORI_PLATFORM_NVIDIA
#include <cuda.h>
#endif

namespace mori::shmem::jit {
namespace {

#if MORI_PLATFORM_NVIDIA
using platform::driverEntry;

std::string driverError(CUresult r) {
  using GetName = CUresult (*)(CUresult, const char**);
  static GetName getName = driverEntry<GetName>("cuGetErrorName");
  const char* s = nullptr;
  if (getName) getName(r, &s);
  return std::string(s ? s : "CUDA driver error") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

Lookup findSymbol(void* handle, Kind kind, const char* name, uint64_t* addr, size_t* bytes, std::string* err) {
  using ModuleGlobal = CUresult (*)(CUdeviceptr*, size_t*, CUmodule, const char*);
  using LibraryGlobal = CUresult (*)(CUdeviceptr*, size_t*, CUlibrary, const char*);
  static ModuleGlobal moduleGlobal = driverEntry<ModuleGlobal>("cuModuleGetGlobal");
  static LibraryGlobal libraryGlobal = driverEntry<LibraryGlobal>("cuLibraryGetGlobal");
  CUdeviceptr p = 0;
  size_t n = 0;
  CUresult r;
  if (kind == Kind::Module) {
    if (!moduleGlobal) return *err = "cuModuleGetGlobal is not available from the driver", Lookup::Failed;
    r = moduleGlobal(&p, &n, static_cast<CUmodule>(handle), name);
  } else {
    if (!libraryGlobal) return *err = "cuLibraryGetGlobal is not available from the driver", Lookup::Failed;
    r = libraryGlobal(&p, &n, static_cast<CUlibrary>(handle), name);
  }
  if (r == CUDA_ERROR_NOT_FOUND) return Lookup::Missing;
  if (r != CUDA_SUCCESS) return *err = driverError(r), Lookup::Failed;
  *addr = static_cast<uint64_t>(p);
  *bytes = n;
  return Lookup::Found;
}
#else
Lookup findSymbol(void* handle, Kind kind, const char* name, uint64_t* addr, size_t* bytes, std::string* err) {
  if (kind != Kind::Module) return *err = "CUlibrary handles exist on NVIDIA only", Lookup::Failed;
  hipDeviceptr_t p = nullptr;
  size_t n = 0;
  hipError_t e = hipModuleGetGlobal(&p, &n, static_cast<hipModule_t>(handle), name);
  if (e == hipErrorNotFound) return Lookup::Missing;
  if (e != hipSuccess) return *err = hipGetErrorString(e), Lookup::Failed;
  *addr = reinterpret_cast<uint64_t>(p);
  *bytes = n;
  return Lookup::Found;
}
#endif

// An asynchronous copy on a private non-blocking stream, waited for, with this thread's capture
// mode relaxed: a JIT loads a kernel on its first launch, which may be inside a graph capture of
// another stream, where global capture mode forbids synchronous copies (they could touch the
// legacy stream). The private stream is never captured and takes no implicit synchronisation.
#if MORI_PLATFORM_NVIDIA
using CaptureMode = cudaStreamCaptureMode;
constexpr CaptureMode kRelaxed = cudaStreamCaptureModeRelaxed;
#define MORI_JIT_EXCHANGE_CAPTURE_MODE cudaThreadExchangeStreamCaptureMode
#else
using CaptureMode = hipStreamCaptureMode;
constexpr CaptureMode kRelaxed = hipStreamCaptureModeRelaxed;
#define MORI_JIT_EXCHANGE_CAPTURE_MODE hipThreadExchangeStreamCaptureMode
#endif

int copyToDevice(uint64_t addr, const void* src, size_t bytes, std::string* err) {
  static hipStream_t stream = [] {
    hipStream_t s = nullptr;
    CaptureMode mode = kRelaxed;
    (void)MORI_JIT_EXCHANGE_CAPTURE_MODE(&mode);
    if (hipStreamCreateWithFlags(&s, hipStreamNonBlocking) != hipSuccess) s = nullptr;
    (void)MORI_JIT_EXCHANGE_CAPTURE_MODE(&mode);
    return s;
  }();
  if (!stream) return *err = "could not create the binding stream", static_cast<int>(hipErrorInvalidValue);
  CaptureMode mode = kRelaxed;
  hipError_t e = MORI_JIT_EXCHANGE_CAPTURE_MODE(&mode);
  if (e != hipSuccess) return *err = hipGetErrorString(e), static_cast<int>(e);
  e = hipMemcpyAsync(reinterpret_cast<void*>(addr), src, bytes, hipMemcpyHostToDevice, stream);
  if (e == hipSuccess) e = hipStreamSynchronize(stream);
  (void)MORI_JIT_EXCHANGE_CAPTURE_MODE(&mode);
  if (e != hipSuccess) *err = hipGetErrorString(e);
  return static_cast<int>(e);
}
#undef MORI_JIT_EXCHANGE_CAPTURE_MODE

Modules& modules() {
  static Modules* m = new Modules(GpuOps{&findSymbol, &copyToDevice});  // never destroyed: bound at exit
  return *m;
}

int bindJitModules(const void* states, size_t bytes) { return modules().bindAll(states, bytes); }

// Registers the JIT modules' binder once; the registry calls it at once when init already ran.
// Outside Modules' lock: the registry holds its own lock while it calls the binder.
Status registerBinder() {
  static int rc = mori_shmemi_register_module(&bindJitModules, kDeviceAbiVersion, sizeof(GpuStates));
  return rc == 0 ? Status::Success : static_cast<Status>(rc);
}

}  // namespace
}  // namespace mori::shmem::jit

using namespace mori::shmem::jit;

MORI_API int mori_shmem_module_init_kind(void* handle, int kind) {
  mori::Status s = registerBinder();
  if (mori::ok(s)) s = modules().init(handle, kind);
  return static_cast<int>(s);
}

MORI_API int mori_shmem_module_init(void* module) {
  return mori_shmem_module_init_kind(module, static_cast<int>(Kind::Module));
}

MORI_API int mori_shmem_module_uses_device_api(void* handle, int kind) { return modules().usesDeviceApi(handle, kind); }

MORI_API int mori_shmem_module_finalize(void* handle, int kind) {
  return static_cast<int>(modules().forget(handle, kind));
}
