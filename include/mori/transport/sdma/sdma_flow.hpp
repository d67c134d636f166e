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
// has at most 2^20), so a wrap-aware difference orders them on the GPU (completionReached).
//
// The engine cannot subtract: an ordered signal's POLL_REGMEM compares a 32-bit word unsigned
// (GreaterEqual), so a target and a value on either side of 2^32 compare the wrong way (a word
// that wrapped past the target reads as below it: the poll never ends; a target that wrapped
// reads as below the word: the poll passes before the copies are done). So every batch's end is
// written twice (sdma_slot.hpp): to the completion word and, plus 2^31, to the mirror word after
// it; a poll uses whichever of the two holds the target in [2^30, 3 * 2^30) (pollTarget), where
// every value within 2^30 of it compares unsigned as it compares serially. That holds while the
// polled queue is less than 2^30 slots past the target when the engine reads the word (it was at
// most a ring, 2^20 slots, behind it when the poll was posted).
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

// The mirror word (completion word + 1) holds the completion value plus kMirrorOffset.
constexpr uint32_t kMirrorOffset = 1u << 31;

// What an engine's POLL_REGMEM (GreaterEqual, unsigned) waits for so that it ends once the polled
// queue's completion reaches `target` (serially): `value` in word `word` (0: the completion word,
// 1: its mirror), always in [2^30, 3 * 2^30).
struct PollTarget {
  uint32_t word;
  uint32_t value;
};
MORI_HOST_DEVICE_INLINE constexpr PollTarget pollTarget(uint32_t target) {
  return target - (1u << 30) < (1u << 31) ? PollTarget{0, target} : PollTarget{1, target + kMirrorOffset};
}

}  // namespace mori::sdma
