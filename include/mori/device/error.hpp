// Device-side errors shared by every device layer (the SHMEM operations and the RDMA posting
// path): what a stopped kernel records for the host, and the one call that records it, prints it
// and stops the kernel. The record is host-mapped, so the host reads it after the context has
// failed (mori_shmem_device_error).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::device {

// Why a kernel stopped. The first error of the process wins; host code formats it from these
// fields, so no device-side formatting is needed.
enum class DeviceErrorCode : uint32_t {
  None = 0,
  NotInitialized = 1,   // device API used in a module that init never bound
  InvalidPe = 2,        // a = pe
  NotSymmetric = 3,     // a = address, b = bytes
  Timeout = 4,          // a = what (DeviceWait), b = waited ns, c/d = progress counters
  ErrorCompletion = 5,  // a = opcode, b = syndrome, c = vendor syndrome, d = wqe index
  Unsupported = 6,      // a = what
  InvalidArgument = 7,  // a = what, b = value
  PeerFailed = 8,       // written by the host's peer monitor: peer = a = the PE that failed
};

struct DeviceErrorRecord {
  uint32_t code;  // DeviceErrorCode; 0 until the first error
  int32_t pe;     // reporting PE
  int32_t peer;   // -1 if none
  int32_t qp;     // -1 if none
  uint64_t a, b, c, d;
  uint32_t qpn;
  uint32_t line;   // source line of the report
  char where[64];  // function name (truncated)
  // mori_shmem_global_exit called in device code, apart from the error fields (an exit must
  // happen whatever error came before): 0; 1 while the first caller writes exitStatus; 2 once it
  // holds the status. The runtime's peer monitor polls it (Runtime::checkDeviceExit).
  uint32_t exitRequest;
  int32_t exitStatus;
};

// What a timed-out wait was waiting for (DeviceErrorRecord::a for Timeout).
enum class DeviceWait : uint32_t { SendQueueSlot = 1, Completion = 2, WaitUntil = 3, Barrier = 4, Signal = 5 };

// What a device layer needs to bound its waits and report an error: who reports, where the
// record goes, how long a wait may last.
struct Diag {
  int32_t myPe;
  int32_t nPes;
  DeviceErrorRecord* errorRecord;  // host-mapped; null: print and stop only
  uint64_t timeoutTicks;           // waits stop after this many wall-clock ticks; 0: never
};

// The peer and queue pair an error concerns (-1 / 0 when none).
struct ErrorSite {
  int peer = -1;
  int qp = -1;
  uint32_t qpn = 0;
};

}  // namespace mori::device

#if MORI_GPU_COMPILER
// Records the error (first one of the process wins), prints it and stops the kernel. Defined once,
// in the device library (libmori_shmem_device.a). Scalars only: a struct argument would give
// every caller a local-memory frame.
extern "C" [[noreturn]] __device__ void mori_device_fail(const mori::device::Diag* ctx, uint32_t code, int peer, int qp,
                                                         uint32_t qpn, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                                                         int line, const char* where);

// Stops a wait whose abort word (ctx->errorRecord->code) is set: prints what set it (a failed PE
// named by the host's peer monitor, or an earlier error of this PE) and stops the kernel. The
// record keeps what the first reporter wrote. Defined in the device library.
extern "C" [[noreturn]] __device__ void mori_device_stop_wait(const mori::device::Diag* ctx);

namespace mori::device {
[[noreturn]] MORI_DEVICE_INLINE void fail(const Diag& ctx, uint32_t code, ErrorSite site, uint64_t a, uint64_t b,
                                          uint64_t c, uint64_t d, int line, const char* where) {
  mori_device_fail(&ctx, code, site.peer, site.qp, site.qpn, a, b, c, d, line, where);
}
}  // namespace mori::device

#define MORI_DEVICE_FAIL(ctx, code, site, a, b, c, d) \
  ::mori::device::fail(ctx, static_cast<uint32_t>(code), site, a, b, c, d, __LINE__, __func__)
#endif
