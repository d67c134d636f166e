// The symmetric heap (static mode) and registered user regions. One device allocation of
// MORI_SHMEM_HEAP_SIZE per PE, exported to P2P peers by IPC handle and registered as one RDMA
// region when RDMA is in use; allocation is collective and checked for symmetry on every call.
// Region 0 is the heap; registered buffers take slots 1..kMaxRegions-1. The device-visible
// region table (shmem::Region + PeerWindow arrays) is kept in GPU memory here.
#pragma once

#include <stdint.h>

#include <memory>
#include <vector>

#include "application/context/context.hpp"
#include "application/memory/heap_allocator.hpp"
#include "application/memory/symmetric_check.hpp"
#include "mori/shmem/device_host/gpu_states.hpp"
#include "transport/rdma/core/rdma_device.hpp"

namespace mori::memory {

class SymmetricMemory {
 public:
  // Collective.
  static Status create(context::Context& ctx, uint64_t heapBytes, std::unique_ptr<SymmetricMemory>* out);
  ~SymmetricMemory();

  // Collective; every PE must pass the same size/alignment in the same order. *out is null for
  // size 0.
  Status allocate(uint64_t size, uint64_t align, bool zero, void** out);
  Status release(void* ptr);  // collective; null is a no-op (but still collective)
  Status registerRegion(void* ptr, uint64_t size);
  Status deregisterRegion(void* ptr);

  // Load/store address of `pe`'s copy of the symmetric object at `p`, or null.
  void* peerPointer(const void* p, int pe) const;

  void* heapBase() const { return heapBase_; }
  uint64_t heapSize() const { return heapSize_; }
  // Device-visible tables for GpuStates.
  shmem::Region heapRegion() const { return deviceRegion(0); }
  const shmem::PeerWindow& heapPeerWindow(int pe) const { return slots_[0].peers[pe]; }
  const shmem::Region* deviceRegions() const { return regionsDev_; }
  const uint32_t* deviceRegionCount() const { return countDev_; }
  // Offset inside the heap of the barrier flags (kSyncAreaBytes, zeroed, symmetric).
  uint64_t syncOffset() const { return syncOffset_; }
  static constexpr uint64_t kSyncAreaBytes = 4096;

 private:
  struct Slot {
    bool live = false;
    uint64_t base = 0, size = 0;
    std::vector<shmem::PeerWindow> peers;
    std::vector<void*> mappings;  // IPC mappings to close
    rdma::MemoryRegistration reg;
    bool registered = false;
    shmem::PeerWindow* peersDev = nullptr;
  };

  explicit SymmetricMemory(context::Context& ctx) : ctx_(ctx), checker_(ctx.bootstrap()) {}
  // Fills slot `index` for [base, base+size): IPC exchange, RDMA registration, device tables.
  Status attachSlot(uint32_t index, void* base, uint64_t size);
  void detachSlot(uint32_t index);
  Status uploadSlot(uint32_t index);
  shmem::Region deviceRegion(uint32_t index) const;
  int findSlot(const void* p) const;

  context::Context& ctx_;
  SymmetricCallChecker checker_;
  void* heapBase_ = nullptr;
  uint64_t heapSize_ = 0;
  uint64_t syncOffset_ = 0;
  std::unique_ptr<HeapAllocator> alloc_;
  std::vector<Slot> slots_;
  shmem::Region* regionsDev_ = nullptr;
  uint32_t* countDev_ = nullptr;
  uint32_t count_ = 0;
};

}  // namespace mori::memory
