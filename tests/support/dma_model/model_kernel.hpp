// The DMA-engine model's device half: consumes one queue's ring from `from` to `to` (bytes,
// monotonic offsets as the doorbell announced them) in order, executing COPY_LINEAR, ATOMIC,
// FENCE, POLL_REGMEM, TRAP (recorded) and NOPs, and publishing the read pointer after each
// packet as the engine's write-back does. A packet it cannot execute stops it with an error.
#pragma once

#include <stdint.h>

#include "mori/platform/gpu_runtime.hpp"
#include "tests/support/dma_model/packet_walk.hpp"

namespace mori::test::dma {

// Written by the model kernel, read by the host thread (host-mapped).
struct ModelError {
  uint32_t code;  // 0: none; else a kErr* code (packet_walk.hpp)
  uint32_t header;
  uint64_t position;  // ring byte offset of the packet
};
const char* modelErrorName(uint32_t code);

// Launches the consumer (one block) on `stream`.
hipError_t launchConsume(const uint32_t* ring, uint64_t ringBytes, uint64_t from, uint64_t to, uint64_t* readPtr,
                         ModelError* error, uint64_t pollTimeoutNs, hipStream_t stream);

}  // namespace mori::test::dma
