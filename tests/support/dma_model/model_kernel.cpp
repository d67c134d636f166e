#include "tests/support/dma_model/model_kernel.hpp"

#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"
#include "tests/support/dma_model/packet_walk.hpp"

namespace mori::test::dma {
namespace {

using gpu::Order;
using gpu::Scope;
constexpr int kThreads = 256;

__device__ uint32_t ringWord(const uint32_t* ring, uint64_t ringBytes, uint64_t pos) {
  return gpu::atomicLoad<Order::Relaxed, Scope::System>(ring + ((pos & (ringBytes - 1)) >> 2));
}

// Loads that bypass this SM's L1: the producers run concurrently on other SMs.
__device__ uint4 loadL2(const uint4* p) {
#if MORI_PLATFORM_NVIDIA
  return __ldcg(p);
#else
  return *p;
#endif
}
__device__ uint8_t loadL2(const uint8_t* p) {
#if MORI_PLATFORM_NVIDIA
  return static_cast<uint8_t>(__ldcg(reinterpret_cast<const char*>(p)));
#else
  return *p;
#endif
}

// Each thread loads up to kBurst elements before it stores any (the last burst predicated, so a
// copy of any size keeps them in flight). The compiler must assume a store may alias the next
// load, so a load-store loop keeps one load in flight per thread: 4 KiB per memory latency for the
// block, a few GB/s, against which test_sdma_two_pes_np2's ~100 MiB of large copies per PE (two
// models on one GPU) ran out of its receivers' 60 s.
constexpr int kBurst = 16;

template <class T>
__device__ void copyElements(T* dst, const T* src, uint64_t n) {
  constexpr uint64_t kStride = kThreads;
  for (uint64_t i = threadIdx.x; i < n; i += kBurst * kStride) {
    T r[kBurst] = {};
#pragma unroll
    for (int k = 0; k < kBurst; ++k)
      if (i + k * kStride < n) r[k] = loadL2(src + i + k * kStride);
#pragma unroll
    for (int k = 0; k < kBurst; ++k)
      if (i + k * kStride < n) dst[i + k * kStride] = r[k];
  }
}

__device__ void copyBytes(uint8_t* dst, const uint8_t* src, uint64_t n) {
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0) {
    const uint64_t v = n / 16;
    copyElements(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src), v);
    copyElements(dst + v * 16, src + v * 16, n - v * 16);
  } else {
    copyElements(dst, src, n);
  }
}

__device__ bool pollMet(uint32_t func, uint32_t v, uint32_t ref) {
  switch (func) {
    case 0: return true;
    case 1: return v < ref;
    case 2: return v <= ref;
    case 3: return v == ref;
    case 4: return v != ref;
    case 5: return v >= ref;
    case 6: return v > ref;
    default: return false;
  }
}

__global__ void __launch_bounds__(kThreads)
    consumeKernel(const uint32_t* ring, uint64_t ringBytes, uint64_t from, uint64_t to, uint64_t* readPtr,
                  ModelError* error, uint64_t pollTimeoutNs) {
  __shared__ uint32_t pkt[kMaxPacketDwords];
  __shared__ uint32_t pktDwords;
  __shared__ uint32_t stop;
  uint64_t pos = from;
  const auto word = [&](uint64_t at) { return ringWord(ring, ringBytes, at); };
  while (pos < to) {
    if (threadIdx.x == 0) {
      uint32_t code = 0;
      pktDwords = readPacket(word, pos, to, pkt, &code);
      stop = code != 0;
      if (code != 0) *error = ModelError{code, pkt[0], pos};
    }
    __syncthreads();
    if (stop) break;
    const uint32_t op = get(pkt, kOp);
    if (op == kCopy) {
      copyBytes(reinterpret_cast<uint8_t*>(get64(pkt, kCopyDstLo)),
                reinterpret_cast<const uint8_t*>(get64(pkt, kCopySrcLo)), uint64_t{get(pkt, kCopyCount)} + 1);
      // The engine runs a queue's packets in order: what follows sees this copy complete.
      gpu::fenceSystem();
    } else if (threadIdx.x == 0) {
      if (op == kAtomic) {
        auto* p = reinterpret_cast<uint64_t*>(get64(pkt, kAtomicAddrLo));
        const uint64_t src = get64(pkt, kAtomicSrcLo), cmp = get64(pkt, kAtomicCmpLo);
        switch (get(pkt, kAtomicOp)) {
          case kTcAdd64: gpu::atomicFetchAdd<Order::AcqRel, Scope::System>(p, src); break;
          case kTcSwap64: gpu::atomicExchange<Order::AcqRel, Scope::System>(p, src); break;
          case kTcCmpSwap64: gpu::atomicCompareExchange<Order::AcqRel, Scope::System>(p, cmp, src); break;
          default: *error = ModelError{kErrUnknownPacket, pkt[0], pos}; stop = 1;
        }
      } else if (op == kFence) {
        gpu::atomicStore<Order::Release, Scope::System>(reinterpret_cast<uint32_t*>(get64(pkt, kFenceAddrLo)),
                                                        pkt[kFenceData]);
      } else if (op == kPollRegmem) {
        const auto* p = reinterpret_cast<const uint32_t*>(get64(pkt, kPollAddrLo));
        const uint64_t start = gpu::wallClock();
        while (!pollMet(get(pkt, kPollFunc), gpu::atomicLoad<Order::Acquire, Scope::System>(p) & pkt[kPollMask],
                        pkt[kPollValue])) {
          if (gpu::wallClock() - start > gpu::nsToWallTicks(pollTimeoutNs)) {
            *error = ModelError{kErrPollTimeout, pkt[0], pos};
            stop = 1;
            break;
          }
        }
      }
    }
    __syncthreads();
    if (stop) break;
    pos += uint64_t{pktDwords} * 4;
    if (threadIdx.x == 0) gpu::atomicStore<Order::Release, Scope::System>(readPtr, pos);
    __syncthreads();
  }
}

}  // namespace

const char* modelErrorName(uint32_t code) {
  switch (code) {
    case 0: return "none";
    case kErrUnknownPacket: return "a packet the model cannot execute";
    case kErrPastWritePointer: return "a packet that runs past the write pointer the doorbell announced";
    case kErrPollTimeout: return "a POLL_REGMEM that never met its condition";
    case kErrMisaligned: return "a misaligned ATOMIC/FENCE/POLL address";
    default: return "unknown";
  }
}

hipError_t launchConsume(const uint32_t* ring, uint64_t ringBytes, uint64_t from, uint64_t to, uint64_t* readPtr,
                         ModelError* error, uint64_t pollTimeoutNs, hipStream_t stream) {
  consumeKernel<<<1, kThreads, 0, stream>>>(ring, ringBytes, from, to, readPtr, error, pollTimeoutNs);
  return hipGetLastError();
}

}  // namespace mori::test::dma
