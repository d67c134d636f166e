// What the benchmarks write and what they must find afterwards, as functions callable on the host
// and on the GPU:
//   - the byte pattern of a buffer, reproducible from (seed, PE, byte index);
//   - the value an atomic benchmark leaves in each target word after k operations;
//   - the elements of a reduction benchmark's sources.
// The GPU generates and checks data with these; the CPU unit tests pin them down.
#pragma once

#include <stdint.h>

#include "tools/perf/perf_types.hpp"

namespace mori::perf {

// splitmix64 finaliser: a bijection on 64-bit words with good avalanche.
MORI_PERF_HD uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Per-(seed, PE) stream key; hoisted out of fill/check loops.
MORI_PERF_HD uint64_t patternKey(uint64_t seed, int pe) {
  return mix64(seed * 0x100000001b3ull ^ (static_cast<uint64_t>(static_cast<uint32_t>(pe)) << 40));
}

// The 8-byte word at word index w (bytes 8w .. 8w+7, little-endian) of the pattern.
MORI_PERF_HD uint64_t patternWord(uint64_t key, uint64_t w) { return mix64(key + w * 0xd1342543de82ef95ull); }

// The byte at index i of the pattern.
MORI_PERF_HD uint8_t patternByte(uint64_t key, uint64_t i) {
  return static_cast<uint8_t>(patternWord(key, i >> 3) >> ((i & 7) * 8));
}

// ---- reductions --------------------------------------------------------------------------------
// Element i of a reduction benchmark's source on the PE of `key`: an integer in [-64, 63], so
// that the sum over up to 4 PEs is exact in every -d type, in any order (bfloat16 holds every
// integer up to 256 exactly) and the expected result is the plain integer sum.
MORI_PERF_HD int reduceValue(uint64_t key, uint64_t i) { return static_cast<int>(patternWord(key, i) >> 57) - 64; }
constexpr int kReduceExactPes = 4;

// ---- atomics -----------------------------------------------------------------------------------
// Operation number k (k = 0, 1, 2, ... counted over the warm-up, the timed loop and the check that
// follows) on a target word uses operand amoOperand(op, k) and, for compare_swap, condition
// amoCond(op, k). Every target word receives exactly one operation per iteration, from one thread,
// so its value after k operations is amoExpected(op, k) whatever the timing.

MORI_PERF_HD uint64_t amoInitial(AtomicOp op) {
  switch (op) {
    case AtomicOp::And:
    case AtomicOp::FetchAnd: return ~0ull;  // and clears one bit per operation
    case AtomicOp::Fetch: return 0x5a5a5a5a12345678ull;
    default: return 0;
  }
}

MORI_PERF_HD uint64_t amoOperand(AtomicOp op, uint64_t k) {
  switch (op) {
    case AtomicOp::Inc:
    case AtomicOp::FetchInc: return 1;
    case AtomicOp::Add:
    case AtomicOp::FetchAdd: return (k & 7) + 1;
    case AtomicOp::Set:
    case AtomicOp::Swap:
    case AtomicOp::CompareSwap: return k + 1;
    case AtomicOp::And:
    case AtomicOp::FetchAnd: return ~(1ull << (k & 63));
    case AtomicOp::Or:
    case AtomicOp::FetchOr: return 1ull << ((k * 7) & 63);
    case AtomicOp::Xor:
    case AtomicOp::FetchXor: return mix64(k);
    case AtomicOp::Fetch: return 0;
  }
  return 0;
}

// compare_swap k expects the word to hold k (the value left by operation k - 1) and stores k + 1.
MORI_PERF_HD uint64_t amoCond(AtomicOp op, uint64_t k) { return op == AtomicOp::CompareSwap ? k : 0; }

// The word after applying operation k to v.
MORI_PERF_HD uint64_t amoApply(AtomicOp op, uint64_t v, uint64_t k) {
  const uint64_t x = amoOperand(op, k);
  switch (op) {
    case AtomicOp::Inc:
    case AtomicOp::FetchInc:
    case AtomicOp::Add:
    case AtomicOp::FetchAdd: return v + x;
    case AtomicOp::Set:
    case AtomicOp::Swap: return x;
    case AtomicOp::CompareSwap: return v == amoCond(op, k) ? x : v;
    case AtomicOp::And:
    case AtomicOp::FetchAnd: return v & x;
    case AtomicOp::Or:
    case AtomicOp::FetchOr: return v | x;
    case AtomicOp::Xor:
    case AtomicOp::FetchXor: return v ^ x;
    case AtomicOp::Fetch: return v;
  }
  return v;
}

// The word after operations 0 .. count-1 (host side; count is the number of iterations run).
inline uint64_t amoExpected(AtomicOp op, uint64_t count) {
  uint64_t v = amoInitial(op);
  for (uint64_t k = 0; k < count; ++k) v = amoApply(op, v, k);
  return v;
}

}  // namespace mori::perf
