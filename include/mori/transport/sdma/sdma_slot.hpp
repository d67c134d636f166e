// One ring slot's contents (see device_host/sdma_queue.hpp for the slot layout): the packets an
// entry needs, then one-dword NOPs to the slot's end. Host and device: the golden tests walk
// rings of encoded slots across the wrap.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"
#include "mori/transport/sdma/device_host/sdma_queue.hpp"
#include "mori/transport/sdma/sdma_flow.hpp"
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
// completion word or its mirror: pollTarget in sdma_flow.hpp) until it is at least `value`
// (POLL_REGMEM, GreaterEqual unsigned, no retry limit).
struct PollDesc {
  uint64_t addr;
  uint32_t value;
};

// Largest packet sequences one slot holds: a copy with its signal and the completion FENCE pair,
// or up to kMaxSlotPolls waits with a signal and the pair (no copy).
constexpr uint32_t kMaxSlotPolls = 2;
constexpr uint32_t kCompletionDwords = 2 * kFenceDwords;  // mirror, then completion (sdma_flow.hpp)
static_assert(kCopyLinearDwords + kAtomicDwords + kCompletionDwords <= kSlotDwords, "an entry must fit one slot");
static_assert(kMaxSlotPolls * kPollRegmemDwords + kAtomicDwords + kCompletionDwords <= kSlotDwords,
              "a waiting signal must fit one slot");

// Writes the kSlotDwords dwords of a slot at p: [POLL_REGMEM per polls[0..nPolls)] [COPY_LINEAR
// if bytes (1..kMaxCopyBytes)] [ATOMIC if sig], one-dword NOPs, then, if completionAddr (the
// queue's completion word, 8-byte aligned, its mirror word after it), the completion pair in the
// slot's last kCompletionDwords dwords: FENCE fenceValue + kMirrorOffset to the mirror, FENCE
// fenceValue to the completion word. The completion FENCE ends the slot because its value frees
// the slot for the next lap (sdma_flow.hpp): once it is written a producer may rewrite the slot,
// so the engine must have nothing of it left to read (padding after it would be read after the
// rewrite: the next lap's dwords taken for packets). Polls and a copy never share a slot (nPolls
// <= kMaxSlotPolls, bytes 0 with polls). Returns the dwords of packets before the padding.
MORI_HOST_DEVICE_INLINE uint32_t encodeSlot(uint32_t* p, uint64_t dst, uint64_t src, uint64_t bytes,
                                            const SignalDesc* sig, uint64_t completionAddr, uint32_t fenceValue,
                                            const PollDesc* polls = nullptr, uint32_t nPolls = 0) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < nPolls; ++i)
    n += encodePollMemory(p + n, polls[i].addr, polls[i].value, 0xFFFFFFFFu, PollFunc::GreaterEqual);
  if (bytes != 0) n += encodeCopyLinear(p + n, dst, src, bytes);
  if (sig != nullptr) n += encodeAtomic(p + n, sig->op, sig->addr, sig->value);
  const uint32_t tail = completionAddr != 0 ? kCompletionDwords : 0;
  encodeNopPadding(p + n, kSlotDwords - tail - n);
  if (completionAddr != 0) {
    encodeFence(p + kSlotDwords - kCompletionDwords, completionAddr + 4, fenceValue + kMirrorOffset);
    encodeFence(p + kSlotDwords - kFenceDwords, completionAddr, fenceValue);
  }
  return n;
}

}  // namespace mori::sdma
