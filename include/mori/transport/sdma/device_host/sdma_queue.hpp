// One SDMA queue as the GPU sees it: the ring, the engine's read pointer, the write pointer and
// doorbell the engine watches, and the producers' counters. The host (transport/sdma, or the
// DMA-engine model in tests) fills it; device code (sdma_post.hpp) posts through it.
//
// Ring layout: the ring is split into fixed slots of kSlotBytes. An entry (one copy chunk, with
// its signal and completion packets) always fills exactly one slot, padded with one-dword NOPs
// before its completion FENCE (the slot's last packet: sdma_slot.hpp), so a packet never
// straddles the ring's end and wrapping needs no extra padding. Ring offsets (read pointer, write
// pointer, doorbell) are in bytes and grow monotonically (SDMA 4 and later: the engine takes them
// modulo the ring size).
#pragma once

#include <stdint.h>

namespace mori::sdma {

constexpr uint32_t kSlotShift = 7;
constexpr uint32_t kSlotBytes = 1u << kSlotShift;  // 32 dwords: COPY 7 + ATOMIC 8 + FENCE 4 fit
constexpr uint32_t kSlotDwords = kSlotBytes / 4;

// Producer counters, in GPU memory, touched by GPU threads only (agent-scope atomics).
struct SdmaQueueState {
  uint64_t reserved;  // slots handed out to posting threads
  uint64_t posted;    // slots announced to the engine (write pointer / kSlotBytes)
};
static_assert(sizeof(SdmaQueueState) == 16, "SdmaQueueState layout");

// Trivially copyable; borrowed: valid while the transport (or model) that made it lives.
struct SdmaQueueDevice {
  uint32_t* ring;           // kSlotBytes * slots bytes, GPU-visible
  const uint64_t* readPtr;  // engine-written: bytes of the ring consumed (fetched)
  uint64_t* writePtr;       // write-pointer shadow the engine (or KFD on resume) reads
  uint64_t* doorbell;       // 64-bit doorbell: the new write pointer, in bytes
  SdmaQueueState* state;    // producers' counters
  uint32_t* completion;     // engine-written (FENCE): [0] slots completed mod 2^32, [1] that + 2^31
                            // (the mirror word ordered signals poll near the wrap: sdma_flow.hpp)
  uint64_t timeoutTicks;    // device waits give up after this many wall-clock ticks; 0: never
  uint32_t slots;           // ring slots, a power of two >= 4
  int32_t myPe;             // for messages
  int32_t peer;             // PE whose memory this queue writes
  uint32_t queueIndex;      // queue of this peer, 0..queues-1
  uint32_t engine;          // engine id the host chose (or ~0u if the driver chose)
  uint32_t reserved0;
};
static_assert(sizeof(SdmaQueueDevice) == 80, "SdmaQueueDevice layout");

// The queues to one peer.
struct SdmaPeerDevice {
  SdmaQueueDevice* queues;  // `count` queues, GPU memory
  uint32_t count;
  uint32_t reserved0;
};

}  // namespace mori::sdma
