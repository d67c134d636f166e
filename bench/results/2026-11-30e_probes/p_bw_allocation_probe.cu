// Probe: shmem_p_bw's access pattern (132 x 1024 threads, each storing 8-byte words
// j = tid, tid + threads, ... of a buffer on the peer GPU, 100 times per kernel) from GPU0 into
// GPU1 memory, in one process, with both buffers allocated either by cudaMalloc (as mori-shmem's
// heap is; peer access enabled) or by the VMM API (cuMemCreate/cuMemMap, as NVSHMEM's heap is).
// Question: is the 8 MiB rate (mori-shmem 45.3-45.7, NVSHMEM 46.0-46.2 G msg/s, and a raw store
// through mori_shmem_ptr no faster than mori-shmem's p) a property of the allocation?
// With the argument "ipc": GPU1's buffers belong to a child process instead, and GPU0 maps them
// as the libraries do across processes: cudaMalloc + cudaIpcOpenMemHandle (mori-shmem), or
// cuMemCreate exported as a POSIX file descriptor, fetched with pidfd_getfd and mapped (NVSHMEM).
// Other arguments (in-process mode): "random" fills the source with a hash instead of one byte
// value (the perf tool's sources are random); "spin" keeps one block polling a word of GPU1's
// memory while GPU0 measures (as NVSHMEM's host barrier kernel does on the idle PE).
// "ipc export": as "ipc", and GPU0's cudaMalloc source is exported to and opened by the child
// too (as in a symmetric heap, where every PE maps every other PE's heap).
#include <cuda.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#define CK(x)                                                \
  do {                                                       \
    auto e = (x);                                            \
    if (e != 0) {                                            \
      printf("fail %s: %d line %d\n", #x, (int)e, __LINE__); \
      exit(1);                                               \
    }                                                        \
  } while (0)

__global__ void pbw(uint64_t* __restrict__ dst, const uint64_t* __restrict__ src, size_t words, int iters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t threads = gridDim.x * static_cast<size_t>(blockDim.x);
  for (int i = 0; i < iters; ++i) {
    for (size_t j = tid; j < words; j += threads) dst[j] = src[j];
    asm volatile("" ::: "memory");
  }
}

constexpr size_t kBytes = size_t{256} << 20;

__global__ void fillRandom(uint64_t* p, size_t words) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += gridDim.x * static_cast<size_t>(blockDim.x)) {
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    p[i] = x ^ (x >> 29);
  }
}

// Polls *flag (GPU1 memory) for `ns` nanoseconds of global time.
__global__ void spin(const volatile uint64_t* flag, uint64_t ns, uint64_t* sink) {
  uint64_t t0, t, acc = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    acc += *flag;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
  *sink = acc;
}

void* vmmAlloc(int dev, int* exportFd = nullptr) {
  CUmemAllocationProp prop = {};
  if (exportFd) prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  CUmemGenericAllocationHandle h;
  CK(cuMemCreate(&h, kBytes, &prop, 0));
  if (exportFd) CK(cuMemExportToShareableHandle(exportFd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CUdeviceptr p;
  CK(cuMemAddressReserve(&p, kBytes, gran, 0, 0));
  CK(cuMemMap(p, kBytes, 0, h, 0));
  CUmemAccessDesc acc[2] = {};
  for (int d = 0; d < 2; ++d) {
    acc[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc[d].location.id = d;
    acc[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  CK(cuMemSetAccess(p, kBytes, acc, 2));
  printf("vmm alloc on GPU %d: granularity %zu\n", dev, gran);
  return reinterpret_cast<void*>(p);
}

void* rtAlloc(int dev) {
  void* p;
  CK(cudaSetDevice(dev));
  CK(cudaMalloc(&p, kBytes));
  CK(cudaSetDevice(0));
  return p;
}

double rate(uint64_t* dst, const uint64_t* src, size_t bytes, int iters) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  pbw<<<132, 1024>>>(dst, src, bytes / 8, 10);
  CK(cudaEventRecord(a));
  pbw<<<132, 1024>>>(dst, src, bytes / 8, iters);
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return static_cast<double>(bytes / 8) * iters / (ms * 1e-3) / 1e9;
}

void* vmmImport(int fd) {
  CUmemGenericAllocationHandle h;
  CK(cuMemImportFromShareableHandle(&h, reinterpret_cast<void*>(static_cast<uintptr_t>(fd)),
                                    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  CUdeviceptr p;
  CK(cuMemAddressReserve(&p, kBytes, size_t{2} << 20, 0, 0));
  CK(cuMemMap(p, kBytes, 0, h, 0));
  CUmemAccessDesc acc = {};
  acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  acc.location.id = 0;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CK(cuMemSetAccess(p, kBytes, &acc, 1));
  return reinterpret_cast<void*>(p);
}

void sweep(const char* name, uint64_t* dst, const uint64_t* src) {
  printf("%-11s sizes:", name);
  for (size_t mib = 8; mib <= 64; mib *= 2) printf(" %zuM %.2f", mib, rate(dst, src, mib << 20, 100));
  printf("\n%-11s 8 MiB at dst offset (MiB):", name);
  for (size_t off = 0; off <= 30; off += 2)
    printf(" %zu:%.2f", off, rate(dst + (off << 20) / 8, src, size_t{8} << 20, 100));
  printf("\n");
  fflush(stdout);
}

// Child: owns GPU1's buffers and exports them; parent: maps them on GPU0 and measures.
int crossProcess(bool exportSource) {
  int toParent[2], toChild[2];
  CK(pipe(toParent));
  CK(pipe(toChild));
  const pid_t child = fork();
  if (child == 0) {
    CK(cuInit(0));
    CK(cudaSetDevice(1));
    void* a = rtAlloc(1);
    CK(cudaSetDevice(1));
    cudaIpcMemHandle_t ipc;
    CK(cudaIpcGetMemHandle(&ipc, a));
    int fd = -1;
    vmmAlloc(1, &fd);
    CK(write(toParent[1], &ipc, sizeof(ipc)) != sizeof(ipc));
    CK(write(toParent[1], &fd, sizeof(fd)) != sizeof(fd));
    if (exportSource) {
      cudaIpcMemHandle_t srcIpc;
      CK(read(toChild[0], &srcIpc, sizeof(srcIpc)) != sizeof(srcIpc));
      void* mapped = nullptr;
      CK(cudaIpcOpenMemHandle(&mapped, srcIpc, cudaIpcMemLazyEnablePeerAccess));
      CK(write(toParent[1], "m", 1) != 1);
    }
    char done;
    CK(read(toChild[0], &done, 1) != 1);
    _exit(0);
  }
  CK(cuInit(0));
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  cudaIpcMemHandle_t ipc;
  int childFd = -1;
  CK(read(toParent[0], &ipc, sizeof(ipc)) != sizeof(ipc));
  CK(read(toParent[0], &childFd, sizeof(childFd)) != sizeof(childFd));
  void* ipcDst = nullptr;
  CK(cudaIpcOpenMemHandle(&ipcDst, ipc, cudaIpcMemLazyEnablePeerAccess));
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
  const int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, childFd, 0));
  if (pidfd < 0 || fd < 0) {
    printf("pidfd_getfd failed: %s\n", strerror(errno));
    return 1;
  }
  uint64_t* dst[2] = {static_cast<uint64_t*>(ipcDst), static_cast<uint64_t*>(vmmImport(fd))};
  uint64_t* src[2] = {static_cast<uint64_t*>(rtAlloc(0)), static_cast<uint64_t*>(vmmAlloc(0))};
  const char* name[2] = {"cudaIpc", "cuMemFd"};
  if (exportSource) {
    cudaIpcMemHandle_t srcIpc;
    CK(cudaIpcGetMemHandle(&srcIpc, src[0]));
    CK(write(toChild[1], &srcIpc, sizeof(srcIpc)) != sizeof(srcIpc));
    char mapped;
    CK(read(toParent[0], &mapped, 1) != 1);
    printf("GPU0's cudaMalloc source is mapped by the child\n");
  }
  for (int k = 0; k < 2; ++k) CK(cudaMemset(src[k], 0x5a, kBytes));
  for (int rep = 0; rep < 3; ++rep)
    for (int k = 0; k < 2; ++k) sweep(name[k], dst[k], src[k]);
  CK(cudaDeviceSynchronize());
  uint64_t check[2] = {0, 0};
  for (int k = 0; k < 2; ++k) CK(cudaMemcpy(&check[k], dst[k] + 5, 8, cudaMemcpyDefault));
  const bool ok = check[0] == 0x5a5a5a5a5a5a5a5aull && check[1] == check[0];
  printf("check words %s\n", ok ? "ok" : "WRONG");
  CK(write(toChild[1], "x", 1) != 1);
  waitpid(child, nullptr, 0);
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "ipc") == 0) return crossProcess(argc > 2 && strcmp(argv[2], "export") == 0);
  bool random = false, spinning = false;
  for (int i = 1; i < argc; ++i) {
    random |= strcmp(argv[i], "random") == 0;
    spinning |= strcmp(argv[i], "spin") == 0;
  }
  printf("source %s, GPU1 %s\n", random ? "random" : "one byte value", spinning ? "polling" : "idle");
  CK(cuInit(0));
  CK(cudaSetDevice(1));
  CK(cudaFree(0));
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  uint64_t* src[2] = {static_cast<uint64_t*>(rtAlloc(0)), static_cast<uint64_t*>(vmmAlloc(0))};
  uint64_t* dst[2] = {static_cast<uint64_t*>(rtAlloc(1)), static_cast<uint64_t*>(vmmAlloc(1))};
  const char* name[2] = {"cudaMalloc", "cuMemCreate"};
  for (int k = 0; k < 2; ++k) CK(cudaMemset(src[k], 0x5a, kBytes));
  if (random)
    for (int k = 0; k < 2; ++k) fillRandom<<<264, 1024>>>(src[k], kBytes / 8);
  CK(cudaDeviceSynchronize());
  cudaStream_t s1;
  if (spinning) {
    CK(cudaSetDevice(1));
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    spin<<<1, 1, 0, s1>>>(dst[0] + (kBytes - (size_t{4} << 20)) / 8, uint64_t{8} * 1000 * 1000 * 1000,
                          dst[0] + (kBytes - (size_t{2} << 20)) / 8);
    CK(cudaGetLastError());
    CK(cudaSetDevice(0));
  }
  for (int rep = 0; rep < 3; ++rep)
    for (int k = 0; k < 2; ++k) sweep(name[k], dst[k], src[k]);
  CK(cudaDeviceSynchronize());
  if (spinning) {
    CK(cudaSetDevice(1));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
  }
  if (random) {
    printf("random source: data not checked\n");
    return 0;
  }
  uint64_t check = 0;
  CK(cudaMemcpy(&check, dst[1] + 5, 8, cudaMemcpyDefault));
  printf("check word %s\n", check == 0x5a5a5a5a5a5a5a5aull ? "ok" : "WRONG");
  return check == 0x5a5a5a5a5a5a5a5aull ? 0 : 1;
}
