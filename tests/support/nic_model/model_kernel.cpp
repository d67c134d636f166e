// The NIC model's GPU kernel: one warp per QP plays the NIC's send-queue engine for that QP,
// strictly in order (RC semantics).
//
// Per QP and pass:
//   1. announcement: lane 0 reads what the last doorbell announced (mlx5: the doorbell record's
//      send counter; bnxt, ionic: the doorbell register) with an acquire load, the warp
//      synchronises and every lane fences (acquire, system): the WQE bytes and the bnxt PSN table,
//      which the GPU made visible before ringing, are visible to every lane. Only announced
//      WQEs are read; the model never looks past the producer index.
//   2. the announced slots are copied to shared memory (coalesced 16-byte loads), then each WQE
//      is parsed by every lane from that copy (same bytes: same decisions, so warp-collective
//      steps stay uniform), checked (layout, QPN / index / colour, PSN table, keys and ranges)
//      and executed: WRITE / READ copy with the whole warp, inline WRITE and atomics by lane 0.
//   3. every lane fences (system) after moving data: in-order placement, so a later WRITE (a
//      signal) is never seen before an earlier one, and everything data-dependent is visible
//      before the completion entry.
//   4. lane 0 writes the completion entry for signalled or failed WQEs, ownership word last
//      (nic_model_formats' publishWord: fence, then release store), never overrunning the
//      consumer index the GPU released. A failed WQE moves the QP to the error state: the WQEs
//      after it complete with flush errors.
// The warp returns once no QP of the Device had work for ModelLaunch::idleTicks, or when the
// host bumps ModelControl::generation (a table is about to change) or sets stop.
#include "tests/support/nic_model/model_kernel.hpp"

#include "mori/platform/clock.hpp"
#include "mori/platform/wave.hpp"
#include "tests/support/nic_model/wqe_executor.hpp"

namespace mori::test::nicmodel {
namespace {

using gpu::LaneMask;
using gpu::Order;
using gpu::Scope;

// Records a diagnostic for the host's log; the first kDiagSlots of a Device are kept. One lane.
__device__ void report(const ModelLaunch& p, DiagKind kind, uint32_t qp, uint64_t wqe, uint64_t a, uint64_t b,
                       uint64_t c) {
  const uint32_t n = gpu::atomicFetchAdd<Order::Relaxed, Scope::Agent>(&p.shared->diagCount, 1u);
  if (n >= kDiagSlots) return;
  ModelDiag* d = &p.control->diag[n];
  d->kind = static_cast<uint32_t>(kind);
  d->qp = qp;
  d->wqe = wqe;
  d->a = a;
  d->b = b;
  d->c = c;
  gpu::atomicStore<Order::Release, Scope::System>(&d->ready, 1u);
}

__device__ void setFlags(const ModelQp& q, uint32_t flags) {
  const uint32_t old = gpu::atomicLoad<Order::Relaxed, Scope::System>(&q.status->flags);
  gpu::atomicStore<Order::Relaxed, Scope::System>(&q.status->flags, old | flags);
}

// Room for one more completion entry (lane 0). Never more than cqDepth - 1 unconsumed entries:
// ionic's CQ doorbell carries only the ring position, where a full ring would read as empty, and
// the GPU never needs more (at most sqDepth - 1 = cqDepth - 1 WQEs are outstanding, each
// covered by at most one entry). `wait`: give the GPU's release up to cqWaitTicks to arrive.
template <class N>
__device__ bool cqRoom(const ModelLaunch& p, const ModelQp& q, ModelQpProgress& g, bool wait) {
  const uint64_t limit = q.ep.cqDepth - 1;
  if (g.cqProduced - g.cqConsumer < limit) return true;
  const uint64_t start = gpu::wallClock();
  for (;;) {
    const uint64_t c = N::cqConsumer(q, g.cqProduced);
    if (c > g.cqConsumer) g.cqConsumer = c;
    if (g.cqProduced - g.cqConsumer < limit) return true;
    if (!wait || gpu::wallClock() - start > p.cqWaitTicks) return false;
    gpu::spinPause();
  }
}

// Copies the `count` announced slots from `first` on into the warp's staging area.
template <class N>
__device__ void stageSlots(const ModelQp& q, uint64_t first, uint32_t count, uint8_t* staging, int lane, int width) {
  constexpr uint32_t kChunks = N::kSlotBytes / 16;
  const uint32_t mask = q.ep.sqDepth - 1;
  uint4* dst = reinterpret_cast<uint4*>(staging);
  for (uint32_t c = static_cast<uint32_t>(lane); c < count * kChunks; c += static_cast<uint32_t>(width)) {
    const uint64_t idx = first + c / kChunks;
    const uint4* slot = reinterpret_cast<const uint4*>(q.ep.sq + (static_cast<uint64_t>(idx & mask) * N::kSlotBytes));
    dst[c] = slot[c % kChunks];
  }
}

// Consumes WQE `idx` of QP `qi`, whose bytes are at `slot` (staging). Whole warp.
template <class N>
__device__ void processWqe(const ModelLaunch& p, uint32_t qi, const ModelQp& q, ModelQpProgress& g, uint64_t idx,
                           const uint8_t* slot, LaneMask all, int lane, int width) {
  // Every lane reads the progress it needs before lane 0 may change it (after the waveSync).
  const bool inError = g.qpError != 0;
  const uint32_t expectedPsn = g.nextPsn;
  ParsedWqe w;
  const WqeCheck layout = N::parse(slot, q, idx, &w);
  Fault fault = Fault::None;
  FaultNote note{DiagKind::None, 0, 0, 0};
  uint32_t nextPsn = expectedPsn;
  if (inError) {
    fault = Fault::Flushed;
  } else if (layout.kind != DiagKind::None) {
    fault = Fault::LocalQpOp;
    note = FaultNote{layout.kind, layout.a, layout.b, layout.c};
  } else {
    const WqeCheck seq = N::sequence(q, expectedPsn, idx, slot, w, &nextPsn);
    if (seq.kind != DiagKind::None) {
      fault = Fault::LocalQpOp;
      note = FaultNote{seq.kind, seq.a, seq.b, seq.c};
    } else if (idx == q.errorAt) {
      fault = Fault::RemoteAccess;
      note = FaultNote{DiagKind::InjectedError, N::status(Fault::RemoteAccess), 0, 0};
    } else if (!p.sink) {
      fault = executeWqe<N>(p, q, w, all, lane, width, &note);
      // In-order placement, and data before the completion entry: each lane orders its own stores.
      if (fault == Fault::None && w.op != rdma::WqeOp::Nop) gpu::fenceSystem();
    }
  }
  gpu::waveSync(all);
  if (lane == 0) {
    g.nextPsn = nextPsn;
    if (fault != Fault::None && fault != Fault::Flushed) {
      g.qpError = 1;
      setFlags(q, kQpError);
      report(p, note.kind, qi, idx, note.a, note.b, note.c);
    }
    if (w.signal || fault != Fault::None) {
      if (cqRoom<N>(p, q, g, fault != Fault::Flushed)) {
        CompletionSpec s{};
        s.lastWqe = idx;
        s.sqDepth = q.ep.sqDepth;
        s.qpn = q.ep.qpn;
        s.error = fault != Fault::None;
        s.status = N::status(fault);
        s.wqeOpcode = N::wqeOpcode(w);
        N::writeCompletion(q, g.cqProduced, s);
        ++g.cqProduced;
      } else if (fault != Fault::Flushed) {
        // A NIC whose CQ overflows moves the CQ and its QPs to the error state. (Flush entries
        // that find no room are dropped: the GPU stopped at the first error entry.)
        g.qpError = 1;
        setFlags(q, kQpError);
        report(p, DiagKind::CqOverrun, qi, idx, g.cqProduced, g.cqConsumer, 0);
      }
    }
  }
  gpu::waveSync(all);
}

// Serves QP `qi`: consumes what its doorbell announced. True if anything was consumed.
template <class N>
__device__ bool serveQp(const ModelLaunch& p, uint32_t qi, uint8_t* staging, LaneMask all, int lane, int width) {
  const ModelQp& q = p.qps[qi];
  if (!q.live) return false;
  ModelQpProgress& g = p.progress[qi];
  const uint64_t consumed = g.sqConsumed;
  if (g.stalled) return false;
  uint32_t pos = 0;
  int rung = 0;
  if (lane == 0) rung = N::announcedPosition(q, &pos) ? 1 : 0;
  rung = gpu::shfl(all, rung, 0);
  pos = gpu::shfl(all, pos, 0);
  if (!rung) return false;
  const uint32_t fresh = (pos - static_cast<uint32_t>(consumed)) & (N::sqModulus(q.ep.sqDepth) - 1);
  if (fresh == 0) return false;
  if (fresh >= q.ep.sqDepth) {
    // More than a ring ahead of what we consumed: no NIC can act on that announcement.
    if (lane == 0 && !g.badDoorbell) {
      g.badDoorbell = 1;
      report(p, DiagKind::BadDoorbell, qi, consumed, pos, consumed, 0);
    }
    gpu::waveSync(all);
    return false;
  }
  // Lane 0's acquire load saw the announcement; the warp barrier and every lane's acquire fence
  // order all lanes' reads of the WQEs (and the PSN table) after it.
  if (lane == 0) gpu::atomicFetchAdd<Order::Relaxed, Scope::Agent>(&p.shared->busyWarps, 1u);
  gpu::waveSync(all);
  gpu::atomicFence<Order::Acquire, Scope::System>();

  uint64_t end = consumed + fresh;
  bool stallNow = false;
  if (q.stallAfter != kNever && end > q.stallAfter) {
    end = consumed > q.stallAfter ? consumed : q.stallAfter;
    stallNow = true;
  }
  for (uint64_t first = consumed; first < end;) {
    const uint32_t count =
        end - first < static_cast<uint64_t>(width) ? static_cast<uint32_t>(end - first) : static_cast<uint32_t>(width);
    stageSlots<N>(q, first, count, staging, lane, width);
    gpu::waveSync(all);
    for (uint32_t j = 0; j < count; ++j)
      processWqe<N>(p, qi, q, g, first + j, staging + j * N::kSlotBytes, all, lane, width);
    first += count;
    if (lane == 0) g.sqConsumed = first;
  }
  if (lane == 0) {
    if (stallNow) {
      g.stalled = 1;
      setFlags(q, kQpStalled);
      report(p, DiagKind::Stalled, qi, end, end, 0, 0);
    }
    gpu::atomicStore<Order::Relaxed, Scope::System>(&q.status->consumed, end);
    gpu::atomicFetchMax<Order::Relaxed, Scope::Agent>(&p.shared->activity, gpu::wallClock());
    gpu::atomicFetchAdd<Order::Relaxed, Scope::Agent>(&p.shared->busyWarps, ~0u);  // -1
  }
  gpu::waveSync(all);
  return true;
}

template <class N>
__global__ void __launch_bounds__(kBlockThreads) modelKernel(ModelLaunch p) {
  const int width = gpu::waveSize();
  const int lane = gpu::laneId();
  const uint32_t warpsPerBlock = blockDim.x / static_cast<uint32_t>(width);
  const uint32_t warpInBlock = threadIdx.x / static_cast<uint32_t>(width);
  const uint32_t warp = blockIdx.x * warpsPerBlock + warpInBlock;
  const uint32_t warps = gridDim.x * warpsPerBlock;
  if (warp >= p.numQps) return;
  // Blocks are whole warps (kBlockThreads is a multiple of every wave size).
  const LaneMask all = width == 64 ? ~LaneMask{0} : (LaneMask{1} << width) - 1;
  (void)warpInBlock;
  uint8_t* staging = p.staging + static_cast<size_t>(warp) * gpu::kMaxWaveSize * kMaxSlotBytes;
  if (warp == 0 && lane == 0) gpu::atomicStore<Order::Relaxed, Scope::System>(&p.control->startedLaunch, p.launchSeq);
  uint64_t lastWork = gpu::wallClock();
  for (uint32_t round = 1;; ++round) {
    if (warp == 0 && lane == 0 && round % kBeatRounds == 0)
      gpu::atomicStore<Order::Relaxed, Scope::System>(&p.control->beat, uint64_t{round});
    bool did = false;
    for (uint32_t qi = warp; qi < p.numQps; qi += warps) did |= serveQp<N>(p, qi, staging, all, lane, width);
    const uint64_t now = gpu::wallClock();
    if (did) {
      lastWork = now;
      if ((round & 63) != 0) continue;  // busy: look at the host's control word now and then only
    }
    int leave = 0;
    if (lane == 0) {
      // Idle means idle for every warp of the launch (none consuming, none for idleTicks): a QP
      // whose warp left would otherwise wait for the launch's slowest warp before being served.
      const uint64_t others = gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&p.shared->activity);
      const uint64_t recent = others > lastWork ? others : lastWork;
      const bool idle = !did && now > recent && now - recent > p.idleTicks &&
                        gpu::atomicLoad<Order::Relaxed, Scope::Agent>(&p.shared->busyWarps) == 0u;
      leave = idle || gpu::atomicLoad<Order::Relaxed, Scope::System>(&p.control->generation) != p.generation ||
              gpu::atomicLoad<Order::Relaxed, Scope::System>(&p.control->stop) != 0u;
    }
    if (gpu::shfl(all, leave, 0)) break;
    if (!did) gpu::spinPause();
  }
}

template <class N>
hipError_t launchFor(const ModelLaunch& p, uint32_t blocks, hipStream_t stream) {
  modelKernel<N><<<blocks, kBlockThreads, 0, stream>>>(p);
  return hipGetLastError();
}

template <class N>
hipError_t preload(int carveout) {
  hipFuncAttributes attr;
  const void* f = reinterpret_cast<const void*>(&modelKernel<N>);
  hipError_t e = hipFuncGetAttributes(&attr, f);
#if MORI_PLATFORM_NVIDIA  // AMD's LDS is not carved out of a shared cache
  if (e == hipSuccess && carveout >= 0)
    e = hipFuncSetAttribute(f, hipFuncAttributePreferredSharedMemoryCarveout, carveout);
#else
  (void)carveout;
#endif
  return e;
}

}  // namespace

hipError_t launchModelKernel(rdma::Provider provider, const ModelLaunch& p, uint32_t blocks, hipStream_t stream) {
  switch (provider) {
    case rdma::Provider::Mlx5: return launchFor<NicMlx5>(p, blocks, stream);
    case rdma::Provider::Bnxt: return launchFor<NicBnxt>(p, blocks, stream);
    case rdma::Provider::Ionic: return launchFor<NicIonic>(p, blocks, stream);
    default: return hipErrorInvalidValue;
  }
}

hipError_t preloadModelKernels(int carveout) {
  hipError_t e = preload<NicMlx5>(carveout);
  if (e == hipSuccess) e = preload<NicBnxt>(carveout);
  if (e == hipSuccess) e = preload<NicIonic>(carveout);
  return e;
}

uint32_t modelBlocks(uint32_t numQps, uint32_t waveSize) {
  const uint32_t warps = numQps < kMaxWarps ? numQps : kMaxWarps;
  const uint32_t perBlock = kBlockThreads / waveSize;
  return (warps + perBlock - 1) / perBlock;
}

}  // namespace mori::test::nicmodel
