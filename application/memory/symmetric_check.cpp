#include "application/memory/symmetric_check.hpp"

#include <string>
#include <vector>

namespace mori::memory {
namespace {

// `result` of an allocation that found no block.
constexpr uint64_t kNoBlock = ~uint64_t{0};

struct Request {
  uint64_t sequence;
  uint32_t op;
  uint32_t ok;
  uint64_t a, b;
  uint64_t result;  // allocate(): the offset this PE got, or kNoBlock
};
static_assert(sizeof(Request) == 40, "exchanged as raw bytes");

const char* opName(uint32_t op) {
  switch (static_cast<SymmetricOp>(op)) {
    case SymmetricOp::Malloc: return "malloc";
    case SymmetricOp::Calloc: return "calloc";
    case SymmetricOp::Free: return "free";
    case SymmetricOp::Register: return "register";
    case SymmetricOp::Deregister: return "deregister";
  }
  return "?";
}

std::string pes(const std::vector<int>& list) {
  std::string s = list.size() == 1 ? "PE " : "PEs ";
  for (size_t i = 0; i < list.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(list[i]);
  if (list.size() > 16) s += " and " + std::to_string(list.size() - 16) + " more";
  return s;
}

}  // namespace

Status SymmetricCallChecker::check(const char* call, SymmetricOp op, uint64_t a, uint64_t b, bool localOk) {
  return exchange(call, op, a, b, localOk, 0, false);
}

Status SymmetricCallChecker::exchange(const char* call, SymmetricOp op, uint64_t a, uint64_t b, bool localOk,
                                      uint64_t result, bool checkResult) {
  const Request mine{sequence_++, static_cast<uint32_t>(op), localOk ? 1u : 0u, a, b, result};
  std::vector<Request> all(boot_.size());
  MORI_TRY(boot_.allGather(&mine, all.data(), sizeof(Request)));
  for (int pe = 0; pe < boot_.size(); ++pe) {
    const Request& r = all[pe];
    if (r.op != mine.op || r.sequence != mine.sequence || r.a != mine.a || r.b != mine.b)
      return MORI_FAIL(Status::Remote, log::kMem,
                       "mori_shmem_%s: symmetric call #%llu differs between PEs: PE %d called %s(%llu, %llu) but PE %d "
                       "called %s(%llu, %llu); every PE must make the same symmetric calls with the same sizes in the "
                       "same order",
                       call, static_cast<unsigned long long>(mine.sequence), boot_.rank(), opName(mine.op),
                       static_cast<unsigned long long>(mine.a), static_cast<unsigned long long>(mine.b), pe,
                       opName(r.op), static_cast<unsigned long long>(r.a), static_cast<unsigned long long>(r.b));
  }
  for (int pe = 0; pe < boot_.size(); ++pe)
    if (!all[pe].ok)
      return pe == boot_.rank()
                 ? Status::InvalidUsage
                 : MORI_FAIL(Status::Remote, log::kMem, "mori_shmem_%s failed on PE %d (see its log)", call, pe);
  if (!checkResult) return Status::Success;
  std::vector<int> full;
  for (int pe = 0; pe < boot_.size(); ++pe)
    if (all[pe].result == kNoBlock) full.push_back(pe);
  if (!full.empty())
    return MORI_FAIL(
        Status::OutOfMemory, log::kMem,
        "PE %d: mori_shmem_%s(%llu bytes, align %llu): %s could not satisfy it from the symmetric heap, so "
        "it returns NULL on every PE (the heaps stay as they were); raise MORI_SHMEM_HEAP_SIZE",
        boot_.rank(), call, static_cast<unsigned long long>(a), static_cast<unsigned long long>(b), pes(full).c_str());
  for (int pe = 0; pe < boot_.size(); ++pe)
    if (all[pe].result != mine.result)
      return MORI_FAIL(Status::Internal, log::kMem,
                       "PE %d: mori_shmem_%s(%llu bytes): the symmetric heaps have drifted: offset %llu here, %llu on "
                       "PE %d; NULL on every PE",
                       boot_.rank(), call, static_cast<unsigned long long>(a),
                       static_cast<unsigned long long>(mine.result), static_cast<unsigned long long>(all[pe].result),
                       pe);
  return Status::Success;
}

Status SymmetricCallChecker::allocate(const char* call, SymmetricOp op, HeapAllocator& heap, uint64_t size,
                                      uint64_t align, bool argsOk, uint64_t* offset) {
  *offset = 0;
  uint64_t got = 0;
  const bool want = argsOk && size != 0;
  const bool have = want && heap.allocate(size, align, &got);
  if (want && !have)
    MORI_LOG_ERROR(log::kMem,
                   "PE %d: mori_shmem_%s: symmetric heap exhausted: requested %llu bytes (align %llu), %llu of %llu "
                   "bytes free, largest free block %llu bytes",
                   boot_.rank(), call, static_cast<unsigned long long>(size), static_cast<unsigned long long>(align),
                   static_cast<unsigned long long>(heap.freeBytes()), static_cast<unsigned long long>(heap.capacity()),
                   static_cast<unsigned long long>(heap.largestFreeBlock()));
  const Status st = exchange(call, op, size, align, argsOk, want ? (have ? got : kNoBlock) : 0, want);
  if (!ok(st)) {
    if (have) heap.release(got);  // every PE gives its block back: the heaps stay identical
    return st;
  }
  *offset = got;
  return Status::Success;
}

Status checkSameHeapSize(bootstrap::Bootstrap& boot, uint64_t heapBytes) {
  std::vector<uint64_t> all(boot.size());
  MORI_TRY(boot.allGather(&heapBytes, all.data(), sizeof(uint64_t)));
  bool same = true;
  for (uint64_t s : all) same &= s == heapBytes;
  if (same) return Status::Success;
  std::string sizes;
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (pe == 16 && boot.size() > 17) {
      sizes += ", ...";
      break;
    }
    sizes += (pe ? ", PE " : "PE ") + std::to_string(pe) + ": " + std::to_string(all[pe]) + " bytes";
  }
  return MORI_FAIL(Status::InvalidUsage, log::kMem,
                   "PE %d: MORI_SHMEM_HEAP_SIZE differs between PEs (%s); the symmetric heap must have the same size "
                   "on every PE",
                   boot.rank(), sizes.c_str());
}

}  // namespace mori::memory
