// Flow control and completion arithmetic of an SDMA ring (host and device: the host tests drive
// it through a simulated engine).
//
// Room: a posting thread may write slots [base, base + k) once the engine has completed their
// previous lap, i.e. the queue's completion word has reached roomTarget(base, k, slots). The
// completion word is the value the FENCE of every batch's last slot writes (the batch's end), in
// GPU memory; it is polled instead of the engine's read pointer because the read pointer is a
// host-mapped word (the KFD's write-back, the model's pinned block) and every waiting thread of a
// grid polling it saturates the host link that the doorbells, the engine's write-backs and kernel
// launches need (test_sdma_stress_np2, 132 x 256 threads into 64-slot rings on one H200: ~200
// slots/s, queue tails past the 60 s wait limit). Completed implies fetched, so the wait is never
// shorter than the read pointer's. The slot below the target belongs to a batch that ends at or
// below `base` (k <= slots / 2 < slots), so the wait never depends on the waiting batch itself.
//
// Completion words count slots modulo 2^32; fewer than 2^31 slots are ever outstanding (a ring
// has at most 2^20), so a wrap-aware difference orders them.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::sdma {

// The completion value that frees slots [base, base + k) of a ring of `slots` slots (0: the
// first lap, free from the start).
MORI_HOST_DEVICE_INLINE constexpr uint64_t roomTarget(uint64_t base, uint32_t k, uint32_t slots) {
  return base + k > slots ? base + k - slots : 0;
}

// Whether the completion word `completion` (slots completed, mod 2^32) has reached `target`.
MORI_HOST_DEVICE_INLINE constexpr bool completionReached(uint32_t completion, uint64_t target) {
  return static_cast<int32_t>(completion - static_cast<uint32_t>(target)) >= 0;
}

}  // namespace mori::sdma
