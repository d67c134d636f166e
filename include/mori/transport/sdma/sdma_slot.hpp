// One ring slot's contents (see device_host/sdma_queue.hpp for the slot layout): the packets an
// entry needs, then one-dword NOPs to the slot's end. Host and device: the golden tests walk
// rings of encoded slots across the wrap.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"
#include "mori/transport/sdma/device_host/sdma_queue.hpp"
#include "mori/transport/sdma/sdma_packets.hpp"

namespace mori::sdma {

// The optional signal an entry carries after its copy: ATOMIC `op` with `value` on the 64-bit
// word at `addr` (already translated to an address the engine can write).
struct SignalDesc {
  uint64_t addr;
  uint64_t value;
  AtomicOp op;
};

// A wait an entry may start with: the engine polls the 32-bit word at `addr` (another queue's
// completion word) until it is at least `value` (POLL_REGMEM, GreaterEqual, no retry limit).
struct PollDesc {
  uint64_t addr;
  uint32_t value;
};

// Largest packet sequences one slot holds: a copy with its signal and fence, or up to kMaxSlotPolls
// waits with a signal and fence (no copy).
constexpr uint32_t kMaxSlotPolls = 3;
static_assert(kCopyLinearDwords + kAtomicDwords + kFenceDwords <= kSlotDwords, "an entry must fit one slot");
static_assert(kMaxSlotPolls * kPollRegmemDwords + kAtomicDwords + kFenceDwords <= kSlotDwords,
              "a waiting signal must fit one slot");

// Writes the kSlotDwords dwords of a slot at p: [POLL_REGMEM per polls[0..nPolls)] [COPY_LINEAR
// if bytes (1..kMaxCopyBytes)] [ATOMIC if sig], one-dword NOPs, then [FENCE of fenceValue to
// fenceAddr if fenceAddr] in the slot's last kFenceDwords dwords. The FENCE ends the slot because
// its value frees the slot for the next lap (sdma_flow.hpp): once it is written a producer may
// rewrite the slot, so the engine must have nothing of it left to read (padding after the FENCE
// would be read after the rewrite: the next lap's dwords taken for packets). Polls and a copy
// never share a slot (nPolls <= kMaxSlotPolls, bytes 0 with polls). Returns the dwords of packets
// before the padding.
MORI_HOST_DEVICE_INLINE uint32_t encodeSlot(uint32_t* p, uint64_t dst, uint64_t src, uint64_t bytes,
                                            const SignalDesc* sig, uint64_t fenceAddr, uint32_t fenceValue,
                                            const PollDesc* polls = nullptr, uint32_t nPolls = 0) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < nPolls; ++i)
    n += encodePollMemory(p + n, polls[i].addr, polls[i].value, 0xFFFFFFFFu, PollFunc::GreaterEqual);
  if (bytes != 0) n += encodeCopyLinear(p + n, dst, src, bytes);
  if (sig != nullptr) n += encodeAtomic(p + n, sig->op, sig->addr, sig->value);
  const uint32_t tail = fenceAddr != 0 ? kFenceDwords : 0;
  encodeNopPadding(p + n, kSlotDwords - tail - n);
  if (fenceAddr != 0) encodeFence(p + kSlotDwords - kFenceDwords, fenceAddr, fenceValue);
  return n;
}

}  // namespace mori::sdma
