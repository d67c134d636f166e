// The initialised state of this process: bootstrap, context, symmetric memory, the device-side
// tables behind GpuStates. One instance between mori_shmem_init* and mori_shmem_finalize.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/peer_monitor.hpp"
#include "application/context/context.hpp"
#include "application/memory/symmetric_memory.hpp"
#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"
#include "mori/shmem/device_host/gpu_states.hpp"
#include "shmem/runtime_kernels.hpp"
#include "src/common/env.hpp"

namespace mori::shmem {

class Runtime {
 public:
  // The live runtime, or null (logging that `call` needs init) when not initialised.
  static Runtime* get(const char* call);
  // The live runtime or null, silently.
  static Runtime* current();
  static Status initialize(unsigned flags, const mori_shmem_init_attr_t* attr);
  static Status finalize();
  // mori_shmem_global_exit: through the bootstrap when initialised, else this process alone.
  [[noreturn]] static void globalExit(int status);

  bootstrap::Bootstrap& boot() { return *boot_; }
  context::Context& ctx() { return *ctx_; }
  memory::SymmetricMemory& mem() { return *mem_; }
  const env::Config& cfg() const { return cfg_; }

  // Completes this PE's device operations: waits for the GPU, then runs a quiet kernel.
  Status quietAll();
  // The runtime's own stream (non-blocking): its quiet kernels and the host-initiated RMA.
  hipStream_t hostStream() const { return stream_; }
  // Device memory where host-initiated g and fetching atomics land, and the lock of its users.
  uint64_t* hostResult() const { return hostResult_; }
  std::mutex& hostResultLock() { return hostResultLock_; }
  // Stream-ordered quiet / barrier kernels (shmem/device_ops.cpp).
  Status quietOnStream(hipStream_t stream);
  Status barrierOnStream(hipStream_t stream);
  // Turns a failed GPU call into the device error record's description when there is one.
  Status checkGpu(hipError_t err, const char* call);
  // Calls one of the runtime's launch functions (shmem/runtime_kernels.hpp) and checks it as
  // checkGpu does; kernelsNotLinked(call) in a program linked without them.
  template <typename... Params, typename... Args>
  Status launch(const char* call, hipError_t (*kernel)(Params...), Args&&... args) {
    if (!kernel) return kernelsNotLinked(call);
    return checkGpu(kernel(std::forward<Args>(args)...), call);
  }
  // Remote, naming the PE, once the peer monitor has seen a PE fail; else Success.
  Status checkPeers(const char* call) const;

  ~Runtime();

 private:
  Runtime() = default;
  Status start(unsigned flags, const mori_shmem_init_attr_t* attr);
  Status buildGpuStates();
  // The peer monitor's callback: sets the abort word, logs, and makes the host API fail.
  void onPeerFailure(int pe);
  // The monitor's check each period: a global exit requested by device code
  // (DeviceErrorRecord::exitRequest) becomes the bootstrap's global exit.
  void checkDeviceExit();

  env::Config cfg_;
  std::unique_ptr<bootstrap::Bootstrap> boot_;
  std::unique_ptr<context::Context> ctx_;
  std::unique_ptr<memory::SymmetricMemory> mem_;
  GpuStates states_{};
  uint8_t* transportDev_ = nullptr;
  rdma::EndpointDevice* endpointsDev_ = nullptr;
  uint64_t* barrierEpochDev_ = nullptr;
  hipStream_t stream_ = nullptr;
  uint64_t* hostResult_ = nullptr;
  std::mutex hostResultLock_;
  std::unique_ptr<bootstrap::PeerMonitor> monitor_;
  std::atomic<int> failedPe_{-1};
};

// The abort word device waits poll: sets `rec` to PeerFailed naming failedPe unless a device
// error is already recorded (the first error wins; either way every wait must stop). Returns
// whether this call set it. Host memory only; safe against a kernel reporting at the same time.
bool markPeerFailed(DeviceErrorRecord* rec, int myPe, int failedPe);

// The process-wide device error record (host-mapped; survives finalize and context failure).
DeviceErrorRecord* deviceErrorRecord(DeviceErrorRecord** devicePtr);
// One-line description of a device error record.
void formatDeviceError(const DeviceErrorRecord& r, char* buf, size_t len);

// Kernel launchers compiled as GPU code (shmem/device_ops.cpp).
MORI_RUNTIME_KERNEL hipError_t launchQuietKernel(hipStream_t stream);
MORI_RUNTIME_KERNEL hipError_t launchBarrierKernel(hipStream_t stream);

// The warm-up kernel init runs, shaped like a kernel calling the device API: device printf (the
// general paths' error reports) and 1 KiB of stack. The printf is what matters: on NVIDIA the
// first launch of a kernel that uses printf, in a context where none has run, waits until every
// running kernel has ended (bench/micro/first_launch_probe.cpp on an H200, with and without MPS:
// 2.95 s, the spinner's bound), and one printf kernel run before clears it for all others; stack
// alone never waited (bench/results/2026-12-02T0100Z_h200x1_mps_block_put_small_shares.json). A
// kernel that waits for a kernel of the same process launched after it (a receiver on one stream,
// its sender on another) would otherwise wait for ever, or until its wait times out.
constexpr uint32_t kWarmupStackBytes = 1024;
MORI_RUNTIME_KERNEL hipError_t launchWarmupKernel(hipStream_t stream);

}  // namespace mori::shmem
