// The check every collective memory call makes: all PEs are making the same call (operation,
// sequence number, size/alignment or offset) and none failed its own local checks. One
// Allgather of 40 bytes per call, so it is always on; a mismatch is reported on every PE with
// both PEs' requests. Allocation goes through allocate(), which decides out-of-heap
// collectively: the heap offsets every PE got travel with the check, so that a request one PE
// cannot satisfy returns NULL on every PE and leaves every heap as it was.
#pragma once

#include <stdint.h>

#include "application/bootstrap/bootstrap.hpp"
#include "application/memory/heap_allocator.hpp"
#include "src/common/status.hpp"

namespace mori::memory {

enum class SymmetricOp : uint32_t { Malloc = 1, Free = 2, Register = 3, Deregister = 4, Calloc = 5 };

class SymmetricCallChecker {
 public:
  explicit SymmetricCallChecker(bootstrap::Bootstrap& boot) : boot_(boot) {}
  // Collective. `call` names the API for messages; `a`, `b` are the call's arguments; localOk is
  // false when this PE already rejected the call (and logged why): every PE then fails.
  Status check(const char* call, SymmetricOp op, uint64_t a, uint64_t b, bool localOk = true);

  // Collective: allocates `size` bytes aligned to `align` from `heap` on every PE, or on none.
  // argsOk false: this PE rejected the arguments (and logged why). *offset is the block's offset
  // (the same on every PE); size 0 allocates nothing and succeeds. Out of heap on any PE:
  // OutOfMemory on every PE, naming the PEs that could not, and no heap changes. Offsets that
  // differ between PEs (heaps that drifted): Internal, and no heap changes.
  Status allocate(const char* call, SymmetricOp op, HeapAllocator& heap, uint64_t size, uint64_t align, bool argsOk,
                  uint64_t* offset);

  uint64_t calls() const { return sequence_; }

 private:
  Status exchange(const char* call, SymmetricOp op, uint64_t a, uint64_t b, bool localOk, uint64_t result,
                  bool checkResult);

  bootstrap::Bootstrap& boot_;
  uint64_t sequence_ = 0;
};

// Collective, at init: every PE's heap must have the same size (else allocations that fit on one
// PE do not on another, and offsets drift). A mismatch fails every PE, naming each PE's size.
Status checkSameHeapSize(bootstrap::Bootstrap& boot, uint64_t heapBytes);

}  // namespace mori::memory
