// The DMA-engine model's own reading of SDMA packets (the engine side): written from the public
// layout (amdgpu vega10_sdma_pkt_open.h: each field's dword offset, mask and shift) without the
// encoders in include/mori/transport/sdma, so the golden tests can check one against the other.
// Host and device (the model kernel decodes with it). Test-only; never installed.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::test::dma {

// Field = (dword offset, mask, shift), as the driver header lists them.
struct Field {
  uint32_t dw, mask, shift;
};
MORI_HOST_DEVICE_INLINE constexpr uint32_t get(const uint32_t* p, Field f) { return (p[f.dw] >> f.shift) & f.mask; }
MORI_HOST_DEVICE_INLINE constexpr uint64_t get64(const uint32_t* p, uint32_t loDw) {
  return static_cast<uint64_t>(p[loDw]) | static_cast<uint64_t>(p[loDw + 1]) << 32;
}

// SDMA_PKT_HEADER
constexpr Field kOp{0, 0xFF, 0}, kSubOp{0, 0xFF, 8};
// SDMA_OP_*
constexpr uint32_t kNop = 0, kCopy = 1, kWrite = 2, kIndirect = 4, kFence = 5, kTrap = 6, kSem = 7, kPollRegmem = 8,
                   kCondExe = 9, kAtomic = 10, kConstFill = 11, kTimestamp = 13;
// SDMA_PKT_NOP: count 29:16, then count payload dwords
constexpr Field kNopCount{0, 0x3FFF, 16};
// SDMA_PKT_COPY_LINEAR: encrypt 16, tmz 18, broadcast 27; COUNT dw1 21:0; PARAMETER dw2 dst_sw
// 17:16, src_sw 25:24; SRC_ADDR dw3-4; DST_ADDR dw5-6
constexpr Field kCopyEncrypt{0, 1, 16}, kCopyTmz{0, 1, 18}, kCopyBroadcast{0, 1, 27}, kCopyCount{1, 0x3FFFFF, 0},
    kCopyDstSw{2, 3, 16}, kCopySrcSw{2, 3, 24};
constexpr uint32_t kCopySrcLo = 3, kCopyDstLo = 5, kCopyLinearDw = 7;
// SDMA_PKT_ATOMIC: loop 16, tmz 18, atomic_op 31:25; ADDR dw1-2, SRC_DATA dw3-4, CMP_DATA dw5-6,
// LOOP_INTERVAL dw7 12:0
constexpr Field kAtomicLoop{0, 1, 16}, kAtomicTmz{0, 1, 18}, kAtomicOp{0, 0x7F, 25}, kAtomicLoopInterval{7, 0x1FFF, 0};
constexpr uint32_t kAtomicAddrLo = 1, kAtomicSrcLo = 3, kAtomicCmpLo = 5, kAtomicDw = 8;
// TC_OP_ATOMIC_*_RTN_64
constexpr uint32_t kTcSwap64 = 0x27, kTcCmpSwap64 = 0x28, kTcAdd64 = 0x2F;
// SDMA_PKT_FENCE: mtype 18:16; ADDR dw1-2; DATA dw3
constexpr Field kFenceMtype{0, 7, 16};
constexpr uint32_t kFenceAddrLo = 1, kFenceData = 3, kFenceDw = 4;
// SDMA_PKT_POLL_REGMEM: hdp_flush 26, func 30:28, mem_poll 31; ADDR dw1-2; VALUE dw3; MASK dw4;
// DW5 interval 15:0, retry_count 27:16
constexpr Field kPollHdpFlush{0, 1, 26}, kPollFunc{0, 7, 28}, kPollMem{0, 1, 31}, kPollInterval{5, 0xFFFF, 0},
    kPollRetry{5, 0xFFF, 16};
constexpr uint32_t kPollAddrLo = 1, kPollValue = 3, kPollMask = 4, kPollDw = 6;
// SDMA_PKT_TRAP: INT_CONTEXT dw1 27:0
constexpr Field kTrapContext{1, 0x0FFFFFFF, 0};
constexpr uint32_t kTrapDw = 2;

// Dwords of the packet starting at p, or 0 for an opcode the model does not execute.
MORI_HOST_DEVICE_INLINE uint32_t packetDwords(const uint32_t* p) {
  switch (get(p, kOp)) {
    case kNop: return 1 + get(p, kNopCount);
    case kCopy: return get(p, kSubOp) == 0 ? kCopyLinearDw : 0;
    case kFence: return kFenceDw;
    case kPollRegmem: return kPollDw;
    case kAtomic: return kAtomicDw;
    case kTrap: return kTrapDw;
    default: return 0;
  }
}

}  // namespace mori::test::dma
