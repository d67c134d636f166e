// SDMA packet formats (SDMA 4.x and later: gfx90a, gfx940/942), one encoder per packet. Each
// encoder writes whole dwords into the ring at `p` and returns the dwords written; nothing else
// is touched. Field positions are those of the amdgpu kernel driver's public packet headers
// (drivers/gpu/drm/amd/amdgpu/vega10_sdma_pkt_open.h, the same layout in sdma_v4_4_2's and
// ROCr's sdma_registers.h); tests/host/sdma_formats checks every field against them.
//
// Engine rules the encoders rely on (same sources):
//   - COPY_LINEAR's count is bytes - 1 (22 bits): one packet moves at most kMaxCopyBytes.
//   - ATOMIC's operation is a TC atomic opcode; the 64-bit "returning" forms below are what
//     ROCr's blit kernels use (ADD64 = 47). The returned value is discarded by the engine.
//   - FENCE writes one 32-bit value after every earlier packet of the queue has completed.
//   - A zero dword is a one-dword NOP, so padding never needs the burst-NOP count field.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::sdma {

// ---- opcodes (SDMA_OP_*, SDMA_SUBOP_*)
constexpr uint32_t kOpNop = 0;
constexpr uint32_t kOpCopy = 1;
constexpr uint32_t kOpFence = 5;
constexpr uint32_t kOpTrap = 6;
constexpr uint32_t kOpPollRegmem = 8;
constexpr uint32_t kOpAtomic = 10;
constexpr uint32_t kSubOpCopyLinear = 0;

// ---- ATOMIC operations (TC_OP_ATOMIC_*_RTN_64)
enum class AtomicOp : uint32_t { Swap64 = 0x27, CmpSwap64 = 0x28, Add64 = 0x2F };

// ---- POLL_REGMEM compare functions
enum class PollFunc : uint32_t {
  Always = 0,
  Less = 1,
  LessEqual = 2,
  Equal = 3,
  NotEqual = 4,
  GreaterEqual = 5,
  Greater = 6
};

// ---- packet sizes in dwords
constexpr uint32_t kCopyLinearDwords = 7;
constexpr uint32_t kAtomicDwords = 8;
constexpr uint32_t kFenceDwords = 4;
constexpr uint32_t kPollRegmemDwords = 6;
constexpr uint32_t kTrapDwords = 2;

constexpr uint32_t kCopyCountMask = 0x003FFFFFu;
constexpr uint64_t kMaxCopyBytes = uint64_t{kCopyCountMask} + 1;  // 4 MiB per COPY_LINEAR
constexpr uint32_t kNopCountMask = 0x3FFFu;

namespace detail {
MORI_HOST_DEVICE_INLINE constexpr uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
MORI_HOST_DEVICE_INLINE constexpr uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
MORI_HOST_DEVICE_INLINE constexpr uint32_t header(uint32_t op, uint32_t subOp) { return op | subOp << 8; }
}  // namespace detail

// COPY_LINEAR: `bytes` (1..kMaxCopyBytes) from src to dst. Header: op 7:0, sub_op 15:8
// (encrypt 16, tmz 18, broadcast 27 left 0); DW1 count 21:0 = bytes - 1; DW2 parameter (swap
// modes 0); DW3/4 source, DW5/6 destination.
MORI_HOST_DEVICE_INLINE uint32_t encodeCopyLinear(uint32_t* p, uint64_t dst, uint64_t src, uint64_t bytes) {
  p[0] = detail::header(kOpCopy, kSubOpCopyLinear);
  p[1] = static_cast<uint32_t>(bytes - 1) & kCopyCountMask;
  p[2] = 0;
  p[3] = detail::lo32(src);
  p[4] = detail::hi32(src);
  p[5] = detail::lo32(dst);
  p[6] = detail::hi32(dst);
  return kCopyLinearDwords;
}

// ATOMIC on the 64-bit word at addr (8-byte aligned). Header: op 7:0, loop 16 (0: no retry
// loop), tmz 18, atomic_op 31:25; DW1/2 address, DW3/4 source data, DW5/6 compare data, DW7
// loop interval 12:0.
MORI_HOST_DEVICE_INLINE uint32_t encodeAtomic(uint32_t* p, AtomicOp op, uint64_t addr, uint64_t src, uint64_t cmp = 0) {
  p[0] = detail::header(kOpAtomic, 0) | static_cast<uint32_t>(op) << 25;
  p[1] = detail::lo32(addr);
  p[2] = detail::hi32(addr);
  p[3] = detail::lo32(src);
  p[4] = detail::hi32(src);
  p[5] = detail::lo32(cmp);
  p[6] = detail::hi32(cmp);
  p[7] = 0;
  return kAtomicDwords;
}

// FENCE: writes `data` to the 32-bit word at addr (4-byte aligned). Header: op 7:0, mtype
// 18:16 (0, default), cache-policy bits 0; DW1/2 address, DW3 data.
MORI_HOST_DEVICE_INLINE uint32_t encodeFence(uint32_t* p, uint64_t addr, uint32_t data) {
  p[0] = detail::header(kOpFence, 0);
  p[1] = detail::lo32(addr);
  p[2] = detail::hi32(addr);
  p[3] = data;
  return kFenceDwords;
}

// POLL_REGMEM on memory: the engine waits until func((*addr & mask), value) holds, re-reading
// every `interval` (x16 clocks), at most `retries` times (0xFFF: forever). Header: op 7:0,
// hdp_flush 26 (0), func 30:28, mem_poll 31 (1); DW1/2 address, DW3 value, DW4 mask, DW5
// interval 15:0, retry_count 27:16.
MORI_HOST_DEVICE_INLINE uint32_t encodePollMemory(uint32_t* p, uint64_t addr, uint32_t value, uint32_t mask,
                                                  PollFunc func, uint32_t interval = 10, uint32_t retries = 0xFFF) {
  p[0] = detail::header(kOpPollRegmem, 0) | (static_cast<uint32_t>(func) & 7u) << 28 | 1u << 31;
  p[1] = detail::lo32(addr);
  p[2] = detail::hi32(addr);
  p[3] = value;
  p[4] = mask;
  p[5] = (interval & 0xFFFFu) | (retries & 0xFFFu) << 16;
  return kPollRegmemDwords;
}

// TRAP: raises the queue's interrupt with int_context 27:0 in DW1 (not used by the device
// path; kept for the host-side self-test of an engine).
MORI_HOST_DEVICE_INLINE uint32_t encodeTrap(uint32_t* p, uint32_t context) {
  p[0] = detail::header(kOpTrap, 0);
  p[1] = context & 0x0FFFFFFFu;
  return kTrapDwords;
}

// `dwords` dwords of padding (any count, 0 included): each one a one-dword NOP (header 0,
// count 0), valid on every firmware (the burst-NOP count field is not).
MORI_HOST_DEVICE_INLINE uint32_t encodeNopPadding(uint32_t* p, uint32_t dwords) {
  for (uint32_t i = 0; i < dwords; ++i) p[i] = 0;
  return dwords;
}

// One NOP packet of `dwords` (1..kNopCountMask + 1) dwords: header count 29:16 = dwords - 1,
// then that many payload dwords (0). For engines whose firmware supports burst NOPs.
MORI_HOST_DEVICE_INLINE uint32_t encodeBurstNop(uint32_t* p, uint32_t dwords) {
  p[0] = detail::header(kOpNop, 0) | ((dwords - 1) & kNopCountMask) << 16;
  for (uint32_t i = 1; i < dwords; ++i) p[i] = 0;
  return dwords;
}

}  // namespace mori::sdma
