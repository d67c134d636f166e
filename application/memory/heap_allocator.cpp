#include "application/memory/heap_allocator.hpp"

#include <iterator>

namespace mori::memory {

namespace {
uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
}  // namespace

HeapAllocator::HeapAllocator(uint64_t capacity)
    : capacity_(capacity & ~(kGranule - 1)), freeBytes_(capacity & ~(kGranule - 1)) {
  if (capacity_) free_[0] = capacity_;
}

bool HeapAllocator::allocate(uint64_t size, uint64_t align, uint64_t* offset) {
  if (size == 0 || align == 0 || (align & (align - 1)) != 0 || size > capacity_) return false;
  if (align < kGranule) align = kGranule;
  const uint64_t need = roundUp(size, kGranule);
  auto best = free_.end();
  uint64_t bestWaste = ~uint64_t{0};
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t start = roundUp(it->first, align);
    const uint64_t pad = start - it->first;
    if (pad >= it->second || it->second - pad < need) continue;
    const uint64_t waste = it->second - need;
    if (waste < bestWaste) {
      best = it;
      bestWaste = waste;
      if (waste == 0) break;
    }
  }
  if (best == free_.end()) return false;
  const uint64_t blockStart = best->first, blockSize = best->second;
  const uint64_t start = roundUp(blockStart, align), end = start + need;
  free_.erase(best);
  if (start > blockStart) free_[blockStart] = start - blockStart;
  if (blockStart + blockSize > end) free_[end] = blockStart + blockSize - end;
  used_[start] = need;
  freeBytes_ -= need;
  *offset = start;
  return true;
}

bool HeapAllocator::release(uint64_t offset) {
  auto it = used_.find(offset);
  if (it == used_.end()) return false;
  uint64_t start = it->first, size = it->second;
  used_.erase(it);
  freeBytes_ += size;
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = size;
  return true;
}

uint64_t HeapAllocator::largestFreeBlock() const {
  uint64_t best = 0;
  for (const auto& [off, size] : free_) best = size > best ? size : best;
  return best;
}

uint64_t HeapAllocator::blockSize(uint64_t offset) const {
  auto it = used_.find(offset);
  return it == used_.end() ? 0 : it->second;
}

}  // namespace mori::memory
