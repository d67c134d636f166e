// How the DMA-engine model reads a ring: the packet at a ring byte offset, its length, and why it
// cannot be executed. Host and device: the model kernel (model_kernel.cpp) walks rings with it, and
// the host tests (tests/host/sdma_formats) walk encoded slots with the same code, so a layout the
// model would misread fails on the CPU too. Test-only; never installed.
#pragma once

#include <stdint.h>

#include "tests/support/dma_model/engine_packets.hpp"

namespace mori::test::dma {

// Why the model stopped a queue (ModelError::code; 0: it did not).
constexpr uint32_t kErrUnknownPacket = 1, kErrPastWritePointer = 2, kErrPollTimeout = 3, kErrMisaligned = 4;

// The longest packet the model executes (ATOMIC), and the longest run of one-dword NOPs it takes
// as one step (slot padding; the engine's fetch may take it at once too).
constexpr uint32_t kMaxPacketDwords = 8;
constexpr uint32_t kMaxNopRunDwords = 64;

// Reads the packet at ring byte `pos` (dword aligned) of the bytes [pos, to) the doorbell announced:
// pkt[0..kMaxPacketDwords) gets its dwords (those at or past `to` read as 0). Returns its length in
// dwords (a run of one-dword NOPs counts as one), or 0 with *error set: an opcode the model does
// not execute, a packet running past `to`, or an ATOMIC / FENCE / POLL_REGMEM address that is not
// aligned. `word(pos)` loads the ring dword at byte offset pos (the caller takes it modulo the
// ring size).
template <class Word>
MORI_HOST_DEVICE_INLINE uint32_t readPacket(Word word, uint64_t pos, uint64_t to, uint32_t* pkt, uint32_t* error) {
  for (uint32_t i = 0; i < kMaxPacketDwords; ++i) pkt[i] = pos + uint64_t{i} * 4 < to ? word(pos + uint64_t{i} * 4) : 0;
  uint32_t n = packetDwords(pkt);
  if (pkt[0] == 0)
    while (n < kMaxNopRunDwords && pos + uint64_t{n} * 4 < to && word(pos + uint64_t{n} * 4) == 0) ++n;
  const uint32_t op = get(pkt, kOp);
  *error = 0;
  if (n == 0)
    *error = kErrUnknownPacket;
  else if (pos + uint64_t{n} * 4 > to)
    *error = kErrPastWritePointer;
  else if ((op == kAtomic && (get64(pkt, kAtomicAddrLo) & 7)) || (op == kFence && (get64(pkt, kFenceAddrLo) & 3)) ||
           (op == kPollRegmem && (get64(pkt, kPollAddrLo) & 3)))
    *error = kErrMisaligned;
  return *error != 0 ? 0 : n;
}

}  // namespace mori::test::dma
