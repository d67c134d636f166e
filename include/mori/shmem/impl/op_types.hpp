// Operation vocabulary shared by the device API layers.
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::shmem::impl {

// Atomic memory operations. Fetching forms return the value found before the operation.
enum class Amo : uint8_t { Fetch, Set, Swap, CompareSwap, Add, And, Or, Xor };

// Signal update of put-with-signal and signal_op.
enum class SignalOp : int { Set = 0, Add = 1 };

// wait_until / test comparators.
enum class Cmp : int { Eq = 0, Ne = 1, Gt = 2, Ge = 3, Lt = 4, Le = 5 };

template <typename T>
MORI_HOST_DEVICE_INLINE bool compare(T v, Cmp c, T ref) {
  switch (c) {
    case Cmp::Eq: return v == ref;
    case Cmp::Ne: return v != ref;
    case Cmp::Gt: return v > ref;
    case Cmp::Ge: return v >= ref;
    case Cmp::Lt: return v < ref;
    default: return v <= ref;
  }
}

// New value an AMO stores given the old one (Fetch stores nothing; CompareSwap is handled by the
// caller since it needs the comparand).
template <typename T>
MORI_HOST_DEVICE_INLINE T amoApply(Amo op, T old, T value) {
  switch (op) {
    case Amo::Set:
    case Amo::Swap: return value;
    case Amo::Add: return static_cast<T>(old + value);
    case Amo::And: return static_cast<T>(old & value);
    case Amo::Or: return static_cast<T>(old | value);
    case Amo::Xor: return static_cast<T>(old ^ value);
    default: return old;
  }
}

}  // namespace mori::shmem::impl
