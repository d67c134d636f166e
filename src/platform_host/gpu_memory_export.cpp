#include "src/platform_host/gpu_memory_export.hpp"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <string>

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/log.hpp"

#if MORI_PLATFORM_NVIDIA
#include <cuda.h>  // types only: libcuda is reached through the runtime's entry-point query
#endif

namespace mori::platform {
namespace {

size_t hostPageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

#if MORI_PLATFORM_NVIDIA
using GetHandleForAddressRangeFn = CUresult (*)(void* handle, CUdeviceptr dptr, size_t size, CUmemRangeHandleType type,
                                                unsigned long long flags);

// cuMemGetHandleForAddressRange (CUDA 11.7 ABI), or null with *why.
GetHandleForAddressRangeFn driverGetHandle(std::string* why) {
  static std::once_flag once;
  static GetHandleForAddressRangeFn fn = nullptr;
  static std::string error;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t e =
        cudaGetDriverEntryPointByVersion("cuMemGetHandleForAddressRange", &p, 11070, cudaEnableDefault, &query);
#else
    cudaError_t e = cudaGetDriverEntryPoint("cuMemGetHandleForAddressRange", &p, cudaEnableDefault, &query);
#endif
    if (e != cudaSuccess) {
      error = std::string("the CUDA driver entry point query failed: ") + cudaGetErrorName(e) + " (" +
              cudaGetErrorString(e) + ")";
    } else if (query != cudaDriverEntryPointSuccess || !p) {
      error = "the CUDA driver has no cuMemGetHandleForAddressRange (driver older than CUDA 11.7)";
    } else {
      fn = reinterpret_cast<GetHandleForAddressRangeFn>(p);
    }
  });
  if (!fn) *why = error;
  return fn;
}

Status exportDmabufImpl(void* gpuPtr, size_t bytes, int* fd, uint64_t* offset) {
  std::string why;
  GetHandleForAddressRangeFn getHandle = driverGetHandle(&why);
  if (!getHandle) {
    MORI_LOG_INFO(log::kMem, "dma-buf export unavailable: %s", why.c_str());
    return Status::NotSupported;
  }
  // The driver exports whole host pages only.
  const uintptr_t page = hostPageSize();
  const uintptr_t start = reinterpret_cast<uintptr_t>(gpuPtr) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(gpuPtr) + bytes + page - 1) & ~(page - 1);
  int handle = -1;
  CUresult r = getHandle(&handle, static_cast<CUdeviceptr>(start), end - start, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
  if (r != CUDA_SUCCESS || handle < 0) {
    MORI_LOG_INFO(log::kMem, "cuMemGetHandleForAddressRange(%p, %zu bytes, DMA_BUF_FD) failed: CUresult %d",
                  reinterpret_cast<void*>(start), static_cast<size_t>(end - start), static_cast<int>(r));
    return Status::NotSupported;
  }
  *fd = handle;
  *offset = reinterpret_cast<uintptr_t>(gpuPtr) - start;
  return Status::Success;
}

#else  // AMD

// hsa_amd_portable_export_dmabuf(ptr, size, &fd, &offset) -> hsa_status_t (HSA_STATUS_SUCCESS = 0).
using PortableExportDmabufFn = int (*)(const void* ptr, size_t size, int* dmabuf, uint64_t* offset);

PortableExportDmabufFn hsaExport(std::string* why) {
#if HIP_VERSION >= 60000000
  static std::once_flag once;
  static PortableExportDmabufFn fn = nullptr;
  static std::string error;
  std::call_once(once, [] {
    // HIP has loaded the HSA runtime already; never load a second copy.
    void* p = dlsym(RTLD_DEFAULT, "hsa_amd_portable_export_dmabuf");
    if (!p) {
      void* lib = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_NOLOAD);
      if (lib) p = dlsym(lib, "hsa_amd_portable_export_dmabuf");
    }
    if (p)
      fn = reinterpret_cast<PortableExportDmabufFn>(p);
    else
      error = "the loaded HSA runtime has no hsa_amd_portable_export_dmabuf";
  });
  if (!fn) *why = error;
  return fn;
#else
  *why = "built against HIP " + std::to_string(HIP_VERSION_MAJOR) + "." + std::to_string(HIP_VERSION_MINOR) +
         ", which predates dma-buf export (ROCm 6.0)";
  return nullptr;
#endif
}

Status exportDmabufImpl(void* gpuPtr, size_t bytes, int* fd, uint64_t* offset) {
  std::string why;
  PortableExportDmabufFn exportFn = hsaExport(&why);
  if (!exportFn) {
    MORI_LOG_INFO(log::kMem, "dma-buf export unavailable: %s", why.c_str());
    return Status::NotSupported;
  }
  int handle = -1;
  uint64_t off = 0;
  int r = exportFn(gpuPtr, bytes, &handle, &off);
  if (r != 0 || handle < 0) {
    MORI_LOG_INFO(log::kMem, "hsa_amd_portable_export_dmabuf(%p, %zu bytes) failed: hsa_status 0x%x", gpuPtr, bytes,
                  static_cast<unsigned>(r));
    return Status::NotSupported;
  }
  *fd = handle;
  *offset = off;
  return Status::Success;
}
#endif

struct MmioMapping {
  size_t bytes;
  void* device;
  int refs;
};
std::mutex gMmioMutex;
std::map<uintptr_t, MmioMapping> gMmio;  // by first host page

}  // namespace

Status exportDmabuf(void* gpuPtr, size_t bytes, int* fd, uint64_t* offset) {
  if (!gpuPtr || bytes == 0 || !fd || !offset)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "exportDmabuf(%p, %zu bytes): null pointer or empty range",
                     gpuPtr, bytes);
  return exportDmabufImpl(gpuPtr, bytes, fd, offset);
}

Status mapMmioForGpu(void* hostMmio, size_t bytes, void** devicePtr) {
  if (!hostMmio || bytes == 0 || !devicePtr)
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "mapMmioForGpu(%p, %zu bytes): null pointer or empty range",
                     hostMmio, bytes);
  const uintptr_t page = hostPageSize();
  const uintptr_t start = reinterpret_cast<uintptr_t>(hostMmio) & ~(page - 1);
  const size_t len = ((reinterpret_cast<uintptr_t>(hostMmio) + bytes + page - 1) & ~(page - 1)) - start;
  std::lock_guard<std::mutex> lock(gMmioMutex);
  auto it = gMmio.find(start);
  if (it != gMmio.end()) {
    if (it->second.bytes < len)
      return MORI_FAIL(Status::InvalidUsage, log::kRdma,
                       "mapMmioForGpu(%p, %zu bytes): page %p is already mapped with %zu bytes only", hostMmio, bytes,
                       reinterpret_cast<void*>(start), it->second.bytes);
    ++it->second.refs;
    *devicePtr = static_cast<char*>(it->second.device) + (reinterpret_cast<uintptr_t>(hostMmio) - start);
    return Status::Success;
  }
  void* pages = reinterpret_cast<void*>(start);
  // Device registers are not ordinary pages: the runtime must map them as I/O memory.
  hipError_t e = hipHostRegister(pages, len, hipHostRegisterMapped | hipHostRegisterPortable | hipHostRegisterIoMemory);
#if MORI_PLATFORM_AMD
  if (e != hipSuccess) {
    // Runtimes without the I/O flag map the PCIe BAR page through the plain mapped path.
    const hipError_t first = e;
    (void)hipGetLastError();
    e = hipHostRegister(pages, len, hipHostRegisterMapped | hipHostRegisterPortable);
    if (e != hipSuccess)
      MORI_LOG_INFO(log::kRdma, "hipHostRegister(%p, IoMemory) failed first: %s", pages, hipGetErrorName(first));
  }
#endif
  if (e != hipSuccess)
    return MORI_FAIL(Status::System, log::kRdma,
                     "hipHostRegister(%p, %zu bytes, Mapped|IoMemory) of NIC registers failed: %s (%s)", pages, len,
                     hipGetErrorName(e), hipGetErrorString(e));
  void* device = nullptr;
  e = hipHostGetDevicePointer(&device, pages, 0);
  if (e != hipSuccess || !device) {
    (void)hipHostUnregister(pages);
    return MORI_FAIL(Status::System, log::kRdma, "hipHostGetDevicePointer(%p) of NIC registers failed: %s (%s)", pages,
                     hipGetErrorName(e), hipGetErrorString(e));
  }
  gMmio[start] = MmioMapping{len, device, 1};
  *devicePtr = static_cast<char*>(device) + (reinterpret_cast<uintptr_t>(hostMmio) - start);
  return Status::Success;
}

Status unmapMmioForGpu(void* hostMmio) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(hostMmio) & ~(hostPageSize() - 1);
  std::lock_guard<std::mutex> lock(gMmioMutex);
  auto it = gMmio.find(start);
  if (it == gMmio.end())
    return MORI_FAIL(Status::InvalidUsage, log::kRdma, "unmapMmioForGpu(%p): not mapped by mapMmioForGpu", hostMmio);
  if (--it->second.refs > 0) return Status::Success;
  gMmio.erase(it);
  hipError_t e = hipHostUnregister(reinterpret_cast<void*>(start));
  if (e != hipSuccess)
    return MORI_FAIL(Status::System, log::kRdma, "hipHostUnregister(%p) of NIC registers failed: %s (%s)",
                     reinterpret_cast<void*>(start), hipGetErrorName(e), hipGetErrorString(e));
  return Status::Success;
}

}  // namespace mori::platform
