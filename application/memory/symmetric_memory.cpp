#include "application/memory/symmetric_memory.hpp"

#include <string.h>

#include "src/common/gpu_check.hpp"
#include "transport/p2p/ipc_handles.hpp"

namespace mori::memory {

using shmem::Transport;

namespace {

struct RemoteKey {
  uint64_t base;
  uint32_t rkey;
  uint32_t registered;
};

}  // namespace

Status SymmetricMemory::create(context::Context& ctx, uint64_t heapBytes, std::unique_ptr<SymmetricMemory>* out) {
  std::unique_ptr<SymmetricMemory> m(new SymmetricMemory(ctx));
  // Same size everywhere first (collective, so every PE fails together), then local checks.
  MORI_TRY(checkSameHeapSize(ctx.bootstrap(), heapBytes));
  if (heapBytes < 2 * kSyncAreaBytes)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "MORI_SHMEM_HEAP_SIZE=%llu is too small (minimum %llu bytes)",
                     static_cast<unsigned long long>(heapBytes), static_cast<unsigned long long>(2 * kSyncAreaBytes));
  m->heapSize_ = heapBytes;
  hipError_t err = hipMalloc(&m->heapBase_, heapBytes);
  if (err != hipSuccess) {
    m->heapBase_ = nullptr;
    size_t freeB = 0, totalB = 0;
    (void)hipMemGetInfo(&freeB, &totalB);
    MORI_LOG_ERROR(log::kMem,
                   "PE %d: cannot allocate the %llu-byte symmetric heap on GPU %d (%s; %zu of %zu bytes free); lower "
                   "MORI_SHMEM_HEAP_SIZE",
                   ctx.myPe(), static_cast<unsigned long long>(heapBytes), ctx.gpu(), hipGetErrorString(err), freeB,
                   totalB);
  }
  // Collective verdict: a PE whose heap allocation failed must not leave the others waiting.
  const Status agreed =
      m->checker_.check("init (symmetric heap)", SymmetricOp::Malloc, heapBytes, 0, err == hipSuccess);
  if (!ok(agreed)) return MORI_FAIL(err != hipSuccess ? Status::OutOfMemory : agreed, log::kMem, "  <- symmetric heap");
  MORI_HIP_TRY(hipMemset(m->heapBase_, 0, heapBytes), log::kMem);
  MORI_HIP_TRY(hipDeviceSynchronize(), log::kMem);
  m->alloc_ = std::make_unique<HeapAllocator>(heapBytes);
  if (!m->alloc_->allocate(kSyncAreaBytes, kSyncAreaBytes, &m->syncOffset_))
    return MORI_FAIL(Status::Internal, log::kMem, "cannot reserve the barrier area in the heap");
  m->slots_.resize(shmem::kMaxRegions);
  MORI_HIP_TRY(hipMalloc(&m->regionsDev_, sizeof(shmem::Region) * shmem::kMaxRegions), log::kMem);
  MORI_HIP_TRY(hipMemset(m->regionsDev_, 0, sizeof(shmem::Region) * shmem::kMaxRegions), log::kMem);
  MORI_HIP_TRY(hipMalloc(&m->countDev_, sizeof(uint32_t)), log::kMem);
  MORI_TRY(m->attachSlot(0, m->heapBase_, heapBytes));
  m->count_ = 1;
  MORI_HIP_TRY(hipMemcpy(m->countDev_, &m->count_, sizeof(uint32_t), hipMemcpyHostToDevice), log::kMem);
  *out = std::move(m);
  return Status::Success;
}

SymmetricMemory::~SymmetricMemory() {
  for (uint32_t i = static_cast<uint32_t>(slots_.size()); i-- > 0;)
    if (slots_[i].live) detachSlot(i);
  if (regionsDev_) (void)hipFree(regionsDev_);
  if (countDev_) (void)hipFree(countDev_);
  if (heapBase_) (void)hipFree(heapBase_);
}

Status SymmetricMemory::allocate(uint64_t size, uint64_t align, bool zero, void** out) {
  *out = nullptr;
  const bool alignOk = align != 0 && (align & (align - 1)) == 0;
  if (!alignOk)
    MORI_LOG_ERROR(log::kMem, "mori_shmem_align: alignment %llu is not a power of two",
                   static_cast<unsigned long long>(align));
  // Collective: NULL on every PE when any PE cannot satisfy the request.
  uint64_t offset = 0;
  MORI_TRY(checker_.allocate(zero ? "calloc" : "malloc", zero ? SymmetricOp::Calloc : SymmetricOp::Malloc, *alloc_,
                             size, align, alignOk, &offset));
  if (size == 0) return Status::Success;
  void* p = static_cast<char*>(heapBase_) + offset;
  if (zero) {
    MORI_HIP_TRY(hipMemset(p, 0, size), log::kMem);
    MORI_HIP_TRY(hipDeviceSynchronize(), log::kMem);
    // No PE may write into another's copy before that copy is zeroed.
    MORI_TRY(ctx_.bootstrap().barrier());
  }
  *out = p;
  return Status::Success;
}

Status SymmetricMemory::release(void* ptr) {
  const uint64_t addr = reinterpret_cast<uint64_t>(ptr);
  const uint64_t base = reinterpret_cast<uint64_t>(heapBase_);
  const uint64_t offset = ptr ? addr - base : ~uint64_t{0};
  const bool live =
      !ptr || (addr >= base && addr < base + heapSize_ && offset != syncOffset_ && alloc_->blockSize(offset));
  if (!live) MORI_LOG_ERROR(log::kMem, "mori_shmem_free(%p): not a live symmetric allocation", ptr);
  MORI_TRY(checker_.check("free", SymmetricOp::Free, offset, 0, live));
  if (ptr) alloc_->release(offset);
  return Status::Success;
}

int SymmetricMemory::findSlot(const void* p) const {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].live && a - slots_[i].base < slots_[i].size) return static_cast<int>(i);
  return -1;
}

Status SymmetricMemory::registerRegion(void* ptr, uint64_t size) {
  // Local checks first; their verdict travels with the symmetric check.
  const uint64_t a = reinterpret_cast<uint64_t>(ptr);
  bool overlaps = false;
  for (const Slot& s : slots_)
    if (s.live && a < s.base + s.size && s.base < a + size) overlaps = true;
  const bool valid = ptr && size && !overlaps;
  if (!valid)
    MORI_LOG_ERROR(log::kMem, "mori_shmem_register(%p, %llu): %s", ptr, static_cast<unsigned long long>(size),
                   overlaps ? "overlaps the symmetric heap or a registered region" : "null pointer or zero size");
  MORI_TRY(checker_.check("register", SymmetricOp::Register, size, 0, valid));
  uint32_t index = 1;
  while (index < slots_.size() && slots_[index].live) ++index;
  if (index == slots_.size())
    return MORI_FAIL(Status::OutOfMemory, log::kMem, "mori_shmem_register: all %u region slots are in use",
                     shmem::kMaxRegions - 1);
  MORI_TRY(attachSlot(index, ptr, size));
  if (index + 1 > count_) {
    count_ = index + 1;
    MORI_HIP_TRY(hipMemcpy(countDev_, &count_, sizeof(uint32_t), hipMemcpyHostToDevice), log::kMem);
  }
  return Status::Success;
}

Status SymmetricMemory::deregisterRegion(void* ptr) {
  const int index = findSlot(ptr);
  const bool valid = index > 0 && slots_[index].base == reinterpret_cast<uint64_t>(ptr);
  if (!valid) MORI_LOG_ERROR(log::kMem, "mori_shmem_deregister(%p): not the start of a registered region", ptr);
  MORI_TRY(checker_.check("deregister", SymmetricOp::Deregister, static_cast<uint64_t>(index), 0, valid));
  MORI_HIP_TRY(hipDeviceSynchronize(), log::kMem);
  MORI_TRY(ctx_.bootstrap().barrier());  // no peer still reaches into it
  detachSlot(static_cast<uint32_t>(index));
  return Status::Success;
}

void* SymmetricMemory::peerPointer(const void* p, int pe) const {
  const int i = findSlot(p);
  if (i < 0 || pe < 0 || pe >= ctx_.nPes()) return nullptr;
  const Slot& s = slots_[i];
  if (!s.peers[pe].p2pBase) return nullptr;
  return reinterpret_cast<void*>(s.peers[pe].p2pBase + (reinterpret_cast<uint64_t>(p) - s.base));
}

shmem::Region SymmetricMemory::deviceRegion(uint32_t index) const {
  const Slot& s = slots_[index];
  shmem::Region r{};
  r.base = s.base;
  r.size = s.size;
  r.lkey = s.reg.lkey;
  r.live = s.live ? 1 : 0;
  r.peers = s.peersDev;
  return r;
}

Status SymmetricMemory::uploadSlot(uint32_t index) {
  const shmem::Region r = deviceRegion(index);
  MORI_HIP_TRY(hipMemcpy(regionsDev_ + index, &r, sizeof(r), hipMemcpyHostToDevice), log::kMem);
  return Status::Success;
}

Status SymmetricMemory::attachSlot(uint32_t index, void* base, uint64_t size) {
  const int n = ctx_.nPes(), me = ctx_.myPe();
  Slot& s = slots_[index];
  s = Slot{};
  s.base = reinterpret_cast<uint64_t>(base);
  s.size = size;
  s.peers.assign(n, shmem::PeerWindow{});

  p2p::IpcExport mine{};
  Status local = p2p::exportRange(base, size, &mine);
  RemoteKey key{s.base, 0, 0};
  // Registration is collective for some devices (the NIC model): every PE calls it, whatever
  // happened locally before; the verdict exchange below settles the outcome.
  if (ctx_.rdmaDevice()) {
    const Status reg = ctx_.rdmaDevice()->registerMemory(base, size, &s.reg);
    if (ok(reg)) {
      s.registered = true;
      key.rkey = s.reg.rkey;
      key.registered = 1;
    } else if (ok(local)) {
      local = reg;
    }
  }
  std::vector<p2p::IpcExport> exports(n);
  std::vector<RemoteKey> keys(n);
  MORI_TRY(ctx_.bootstrap().allGather(&mine, exports.data(), sizeof(mine)));
  MORI_TRY(ctx_.bootstrap().allGather(&key, keys.data(), sizeof(key)));
  for (int pe = 0; ok(local) && pe < n; ++pe) {
    shmem::PeerWindow& w = s.peers[pe];
    w.remoteBase = keys[pe].base;
    w.rkey = keys[pe].rkey;
    if (pe == me) {
      w.p2pBase = s.base;
    } else if (ctx_.transport(pe) == Transport::P2P || ctx_.transport(pe) == Transport::Sdma) {
      // SDMA peers too: their engines copy through this mapping, and small operations use it.
      void *mapped = nullptr, *mapping = nullptr;
      local = p2p::openRange(exports[pe], pe, &mapped, &mapping);
      if (ok(local)) {
        w.p2pBase = reinterpret_cast<uint64_t>(mapped);
        s.mappings.push_back(mapping);
      }
    } else if (ctx_.transport(pe) == Transport::Rdma && !keys[pe].registered) {
      local =
          MORI_FAIL(Status::Remote, log::kMem, "PE %d could not register its copy of region %u for RDMA", pe, index);
    }
  }
  // Collective verdict: every PE learns whether the region is usable everywhere.
  uint8_t good = ok(local) ? 1 : 0;
  std::vector<uint8_t> verdicts(n);
  MORI_TRY(ctx_.bootstrap().allGather(&good, verdicts.data(), 1));
  for (int pe = 0; pe < n; ++pe)
    if (!verdicts[pe]) {
      s.live = true;  // so that detach releases what was set up
      detachSlot(index);
      return MORI_FAIL(ok(local) ? Status::Remote : local, log::kMem,
                       "PE %d: symmetric region %u (%p, %llu bytes) could not be set up on PE %d (see that PE's log)",
                       me, index, base, static_cast<unsigned long long>(size), pe);
    }
  MORI_HIP_TRY(hipMalloc(&s.peersDev, sizeof(shmem::PeerWindow) * n), log::kMem);
  MORI_HIP_TRY(hipMemcpy(s.peersDev, s.peers.data(), sizeof(shmem::PeerWindow) * n, hipMemcpyHostToDevice), log::kMem);
  s.live = true;
  return uploadSlot(index);
}

void SymmetricMemory::detachSlot(uint32_t index) {
  Slot& s = slots_[index];
  for (void* m : s.mappings) p2p::closeRange(m);
  s.mappings.clear();
  if (s.registered && ctx_.rdmaDevice()) {
    Status st = ctx_.rdmaDevice()->deregisterMemory(s.reg);
    if (!ok(st)) MORI_LOG_WARN(log::kMem, "deregistering region %u from the RDMA device failed", index);
  }
  s.registered = false;
  s.live = false;
  if (regionsDev_) (void)uploadSlot(index);
  if (s.peersDev) (void)hipFree(s.peersDev);
  s.peersDev = nullptr;
}

}  // namespace mori::memory
