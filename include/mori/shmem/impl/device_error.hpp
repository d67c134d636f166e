// Device-side error reports: the first error of the process is recorded (host-mapped, so the
// host can read it after the context has failed, see mori_shmem_device_error), printed, and
// the kernel traps. Cold paths only: nothing here is inlined into fast paths.
#pragma once

#include <stdio.h>

#include "mori/platform/atomic.hpp"
#include "mori/platform/mmio.hpp"
#include "mori/shmem/device_host/gpu_states.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

struct ErrorSite {
  int peer = -1;
  int qp = -1;
  uint32_t qpn = 0;
};

[[noreturn]] inline MORI_DEVICE_NOINLINE void reportError(const GpuStates& s, DeviceErrorCode code, ErrorSite site,
                                                          uint64_t a, uint64_t b, uint64_t c, uint64_t d, int line,
                                                          const char* where) {
  DeviceErrorRecord* rec = s.errorRecord;
  if (rec && gpu::atomicCompareExchange<gpu::Order::Relaxed, gpu::Scope::System>(&rec->code, 0u,
                                                                                 static_cast<uint32_t>(code)) == 0u) {
    rec->pe = s.myPe;
    rec->peer = site.peer;
    rec->qp = site.qp;
    rec->qpn = site.qpn;
    rec->a = a;
    rec->b = b;
    rec->c = c;
    rec->d = d;
    rec->line = static_cast<uint32_t>(line);
    int i = 0;
    for (; where && where[i] && i < static_cast<int>(sizeof(rec->where)) - 1; ++i) rec->where[i] = where[i];
    rec->where[i] = '\0';
    gpu::fenceSystem();
  }
  switch (code) {
    case DeviceErrorCode::InvalidPe:
      printf("mori-shmem PE %d: %s: PE %lld is out of range [0, %d)\n", s.myPe, where, (long long)a, s.nPes);
      break;
    case DeviceErrorCode::NotSymmetric:
      printf(
          "mori-shmem PE %d: %s: address 0x%llx (+%llu bytes) is not inside the symmetric heap or a registered "
          "region (peer %d)\n",
          s.myPe, where, (unsigned long long)a, (unsigned long long)b, site.peer);
      break;
    case DeviceErrorCode::Timeout:
      printf(
          "mori-shmem PE %d: %s: timed out after %llu ns waiting (kind %llu) on peer %d qp %d (qpn 0x%x): "
          "progress 0x%llx, awaited 0x%llx\n",
          s.myPe, where, (unsigned long long)b, (unsigned long long)a, site.peer, site.qp, site.qpn,
          (unsigned long long)c, (unsigned long long)d);
      break;
    case DeviceErrorCode::ErrorCompletion:
      printf(
          "mori-shmem PE %d: %s: error completion from peer %d qp %d (qpn 0x%x): opcode 0x%llx syndrome 0x%llx "
          "vendor syndrome 0x%llx at WQE index %llu\n",
          s.myPe, where, site.peer, site.qp, site.qpn, (unsigned long long)a, (unsigned long long)b,
          (unsigned long long)c, (unsigned long long)d);
      break;
    default:
      printf("mori-shmem PE %d: %s: device error %u (0x%llx 0x%llx 0x%llx 0x%llx)\n", s.myPe, where,
             static_cast<unsigned>(code), (unsigned long long)a, (unsigned long long)b, (unsigned long long)c,
             (unsigned long long)d);
  }
  gpu::trap();
}

}  // namespace mori::shmem::impl

#define MORI_DEVICE_FAIL(states, code, site, a, b, c, d) \
  ::mori::shmem::impl::reportError(states, code, site, a, b, c, d, __LINE__, __func__)
#endif
