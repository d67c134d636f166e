// Offset allocator of the symmetric heap. Deterministic: the same sequence of requests gives
// the same offsets on every PE, which is what makes allocations symmetric. Best fit with
// coalescing; every block is a multiple of kGranule and aligned to at least kGranule.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <map>

namespace mori::memory {

class HeapAllocator {
 public:
  static constexpr uint64_t kGranule = 256;

  explicit HeapAllocator(uint64_t capacity);

  // Allocates `size` bytes aligned to `align` (a power of two). False when no block fits.
  bool allocate(uint64_t size, uint64_t align, uint64_t* offset);
  // Frees the block starting at `offset`; false if no block starts there.
  bool release(uint64_t offset);

  uint64_t capacity() const { return capacity_; }
  uint64_t freeBytes() const { return freeBytes_; }
  uint64_t largestFreeBlock() const;
  // Size of the live block at offset (0 if none starts there).
  uint64_t blockSize(uint64_t offset) const;
  size_t liveBlocks() const { return used_.size(); }

 private:
  uint64_t capacity_;
  uint64_t freeBytes_;
  std::map<uint64_t, uint64_t> free_;  // offset -> size
  std::map<uint64_t, uint64_t> used_;  // offset -> size
};

}  // namespace mori::memory
