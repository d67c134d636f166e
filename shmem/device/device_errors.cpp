// Device-side error reports: the first error of the process is recorded in the host-mapped
// record, every error is printed, and the kernel stops.
#include <stdio.h>

#include "mori/device/error.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"
#include "mori/platform/mmio.hpp"
#include "mori/shmem/impl/device_library.hpp"
#include "shmem/device/general_path.hpp"

using mori::device::DeviceErrorCode;

extern "C" MORI_LIB_NOINLINE void mori_device_fail(const mori::device::Diag* ctx, uint32_t code, int peer, int qp,
                                                   uint32_t qpn, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                                                   int line, const char* where) {
  namespace gpu = mori::gpu;
  mori::device::DeviceErrorRecord* rec = ctx->errorRecord;
  if (rec && gpu::atomicCompareExchange<gpu::Order::Relaxed, gpu::Scope::System>(&rec->code, 0u, code) == 0u) {
    rec->pe = ctx->myPe;
    rec->peer = peer;
    rec->qp = qp;
    rec->qpn = qpn;
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
  const int pe = ctx->myPe;
  switch (static_cast<DeviceErrorCode>(code)) {
    case DeviceErrorCode::InvalidPe:
      printf("mori-shmem PE %d: %s: PE %lld is out of range [0, %d)\n", pe, where, (long long)a, ctx->nPes);
      break;
    case DeviceErrorCode::NotSymmetric:
      printf(
          "mori-shmem PE %d: %s: address 0x%llx (+%llu bytes) is not inside the symmetric heap or a registered "
          "region (peer %d)\n",
          pe, where, (unsigned long long)a, (unsigned long long)b, peer);
      break;
    case DeviceErrorCode::Timeout:
      printf(
          "mori-shmem PE %d: %s: timed out after %llu ns waiting (kind %llu) on peer %d qp %d (qpn 0x%x): "
          "progress 0x%llx, awaited 0x%llx\n",
          pe, where, (unsigned long long)b, (unsigned long long)a, peer, qp, qpn, (unsigned long long)c,
          (unsigned long long)d);
      break;
    case DeviceErrorCode::ErrorCompletion:
      printf(
          "mori-shmem PE %d: %s: error completion from peer %d qp %d (qpn 0x%x): opcode 0x%llx syndrome 0x%llx "
          "vendor syndrome 0x%llx at WQE index %llu\n",
          pe, where, peer, qp, qpn, (unsigned long long)a, (unsigned long long)b, (unsigned long long)c,
          (unsigned long long)d);
      break;
    default:
      printf("mori-shmem PE %d: %s: device error %u (0x%llx 0x%llx 0x%llx 0x%llx)\n", pe, where, code,
             (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, (unsigned long long)d);
  }
  gpu::trap();
}

extern "C" MORI_LIB_NOINLINE void mori_device_stop_wait(const mori::device::Diag* ctx) {
  namespace gpu = mori::gpu;
  const mori::device::DeviceErrorRecord* rec = ctx->errorRecord;
  const uint32_t code = gpu::atomicLoad<gpu::Order::Relaxed, gpu::Scope::System>(&rec->code);
  // The monitor takes the code first and fills the fields right after (where[] last): wait for
  // them, boundedly, before naming the PE.
  const volatile char* filled = &rec->where[0];
  for (int i = 0; i < (1 << 20) && *filled == 0; ++i) gpu::spinPause();
  gpu::fenceSystem();
  if (code == static_cast<uint32_t>(DeviceErrorCode::PeerFailed))
    printf("mori-shmem PE %d: device wait stopped: PE %d failed (the host's peer monitor saw it go)\n", ctx->myPe,
           static_cast<int>(rec->a));
  else
    printf("mori-shmem PE %d: device wait stopped: an earlier device error (code %u) stopped this PE\n", ctx->myPe,
           code);
  gpu::trap();
}

extern "C" MORI_LIB_NOINLINE void mori_shmemi_fail_not_initialized(void) {
  printf(
      "mori-shmem: device API called in a GPU module that mori_shmem_init() has not bound "
      "(init not called, or already finalized) [block %d thread %d]\n",
      static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  mori::gpu::trap();
}

extern "C" MORI_LIB_NOINLINE void mori_shmemi_fail_pe(int pe) {
  MORI_DEVICE_FAIL(mori_shmem_device_states, DeviceErrorCode::InvalidPe, mori::device::ErrorSite{},
                   static_cast<uint64_t>(pe), 0, 0, 0);
}

extern "C" MORI_LIB_NOINLINE void mori_shmemi_fail_wait(uint32_t what, uint64_t ns, uint64_t seen, uint64_t awaited) {
  MORI_DEVICE_FAIL(mori_shmem_device_states, DeviceErrorCode::Timeout, mori::device::ErrorSite{}, what, ns, seen,
                   awaited);
}

extern "C" MORI_LIB_NOINLINE void mori_shmemi_global_exit_device(int status) {
  namespace gpu = mori::gpu;
  const mori::shmem::GpuStates& s = mori::shmem::impl::states();
  mori::device::DeviceErrorRecord* rec = s.errorRecord;
  if (rec && gpu::atomicCompareExchange<gpu::Order::Relaxed, gpu::Scope::System>(&rec->exitRequest, 0u, 1u) == 0u) {
    gpu::atomicStore<gpu::Order::Relaxed, gpu::Scope::System>(&rec->exitStatus, static_cast<int32_t>(status));
    gpu::atomicStore<gpu::Order::Release, gpu::Scope::System>(&rec->exitRequest, 2u);
  }
  // The runtime's peer monitor ends the process within 50 ms; a bound instead of a hang where
  // nothing watches (the record missing, or the runtime gone).
  const uint64_t t0 = gpu::wallClock(), bound = 60ull * gpu::kWallClockHz;
  while (gpu::wallClock() - t0 < bound) gpu::spinPause();
  printf(
      "mori-shmem PE %d: mori_shmem_global_exit(%d) in device code: the process did not end within 60 s (is the "
      "runtime still initialised?)\n",
      s.myPe, status);
  gpu::trap();
}
