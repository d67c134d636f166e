// The check every collective memory call makes: all PEs are making the same call (operation,
// sequence number, size/alignment or offset) and none failed its own local checks. One
// Allgather of 32 bytes per call, so it is always on; a mismatch is reported on every PE with
// both PEs' requests.
#pragma once

#include <stdint.h>

#include "application/bootstrap/bootstrap.hpp"
#include "src/common/status.hpp"

namespace mori::memory {

enum class SymmetricOp : uint32_t { Malloc = 1, Free = 2, Register = 3, Deregister = 4 };

class SymmetricCallChecker {
 public:
  explicit SymmetricCallChecker(bootstrap::Bootstrap& boot) : boot_(boot) {}
  // Collective. `call` names the API for messages; `a`, `b` are the call's arguments; localOk is
  // false when this PE already rejected the call (and logged why): every PE then fails.
  Status check(const char* call, SymmetricOp op, uint64_t a, uint64_t b, bool localOk = true);
  uint64_t calls() const { return sequence_; }

 private:
  bootstrap::Bootstrap& boot_;
  uint64_t sequence_ = 0;
};

}  // namespace mori::memory
