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

// Largest packet sequence one slot holds.
static_assert(kCopyLinearDwords + kAtomicDwords + kFenceDwords <= kSlotDwords, "an entry must fit one slot");

// Writes the kSlotDwords dwords of a slot at p: [COPY_LINEAR if bytes (1..kMaxCopyBytes)]
// [ATOMIC if sig] [FENCE of fenceValue to fenceAddr if fenceAddr] then NOPs. Returns the dwords
// of packets before the padding.
MORI_HOST_DEVICE_INLINE uint32_t encodeSlot(uint32_t* p, uint64_t dst, uint64_t src, uint64_t bytes,
                                            const SignalDesc* sig, uint64_t fenceAddr, uint32_t fenceValue) {
  uint32_t n = 0;
  if (bytes != 0) n += encodeCopyLinear(p + n, dst, src, bytes);
  if (sig != nullptr) n += encodeAtomic(p + n, sig->op, sig->addr, sig->value);
  if (fenceAddr != 0) n += encodeFence(p + n, fenceAddr, fenceValue);
  encodeNopPadding(p + n, kSlotDwords - n);
  return n;
}

}  // namespace mori::sdma
