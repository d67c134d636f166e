#include "application/memory/symmetric_check.hpp"

#include <vector>

namespace mori::memory {
namespace {

struct Request {
  uint64_t sequence;
  uint32_t op;
  uint32_t ok;
  uint64_t a, b;
};
static_assert(sizeof(Request) == 32, "exchanged as raw bytes");

const char* opName(uint32_t op) {
  switch (static_cast<SymmetricOp>(op)) {
    case SymmetricOp::Malloc: return "malloc";
    case SymmetricOp::Free: return "free";
    case SymmetricOp::Register: return "register";
    case SymmetricOp::Deregister: return "deregister";
  }
  return "?";
}

}  // namespace

Status SymmetricCallChecker::check(const char* call, SymmetricOp op, uint64_t a, uint64_t b, bool localOk) {
  const Request mine{sequence_++, static_cast<uint32_t>(op), localOk ? 1u : 0u, a, b};
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
  return Status::Success;
}

}  // namespace mori::memory
