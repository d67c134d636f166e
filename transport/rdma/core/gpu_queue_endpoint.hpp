// The host half every GPU-queue provider (mlx5, bnxt_re, ionic) shares: an endpoint's GPU memory
// (endpointLayout() -> one GpuBuffer holding the CQ's first image), the local MR over its atomic
// result words, the provider-neutral fields of its EndpointDevice, its wire info and the connect
// sequence. A provider derives and writes only its named steps:
//   checkDeviceLimits()   the device's own caps on the queue depth
//   createQueues()        umem, CQ, QP and doorbell mapping; sets the provider fields of handle_
//   connectQueuePair()    RESET -> INIT -> RTR -> RTS towards the peer
// with the helpers below for the steps two providers do alike (dma-buf-first umem registration,
// doorbell mapping).
#pragma once

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <memory>

#include "transport/rdma/core/endpoint_layout.hpp"
#include "transport/rdma/core/gpu_buffer.hpp"
#include "transport/rdma/core/rdma_device.hpp"
#include "transport/rdma/core/verbs_device.hpp"

namespace mori::rdma {

class GpuQueueEndpoint : public Endpoint {
 public:
  // Creates an endpoint of provider type E (constructible from (D&, const EndpointConfig&)) and
  // runs create(): what a provider Device's createEndpoint returns.
  template <class E, class D>
  static Status make(D& dev, const EndpointConfig& cfg, std::unique_ptr<Endpoint>* out) {
    std::unique_ptr<E> ep(new E(dev, cfg));
    MORI_TRY(ep->create());
    *out = std::move(ep);
    return Status::Success;
  }

  // Releases the atomic MR and the doorbell mapping; the provider's destructor has destroyed its
  // QP, CQ and umem first (the NIC stops using the queues before their memory goes away).
  ~GpuQueueEndpoint() override;

  EndpointWireInfo localInfo() const final { return local_; }
  const EndpointDevice& deviceHandle() const final { return handle_; }
  size_t deviceMemoryBytes() const override { return layout_.totalBytes; }
  // Refuses a second connect, checks `remote` against this port (VerbsDevice::checkRemote), then
  // runs connectQueuePair with the path MTU.
  Status connect(const EndpointWireInfo& remote) final;

 protected:
  GpuQueueEndpoint(VerbsDevice& dev, const EndpointConfig& cfg) : verbs_(dev), cfg_(cfg) {}

  // The shared sequence: depth checks, layout, GPU buffer (+ the CQ's first image where the CQ
  // lives in it), atomic MR, createQueues(), then the common EndpointDevice fields and the wire
  // info. On failure what was made so far is released by the destructors.
  Status create();

  // ---- provider steps
  // Limits of the device on cfg_.sqDepth beyond validateQpDepth (InvalidUsage naming them).
  virtual Status checkDeviceLimits() { return Status::Success; }
  // Creates the provider's CQ, QP and doorbell mapping and sets handle_.qpn, cqn, sqDbrec,
  // sqDoorbell, cqDbrec, cqDoorbell and providerWord. Where the layout puts the queues in buf_,
  // handle_.sq/sqDepth/sqSlotShift/cq/cqDepth are already set; a provider that allocates its own
  // rings (layout_.queuesFromProvider) sets them.
  virtual Status createQueues() = 0;
  // Moves the QP to RTS towards `remote`; `pathMtu` is the enum ibv_mtu both ports support.
  virtual Status connectQueuePair(const EndpointWireInfo& remote, int pathMtu) = 0;

  // ---- helpers for the steps
  // One umem registration call of the provider library over buf_: dmabufFd >= 0 registers the
  // dma-buf from `offset`, dmabufFd < 0 the virtual address. Returns the umem, or null with errno.
  using UmemRegFn = std::function<void*(int dmabufFd, uint64_t offset)>;
  // Registers buf_ as a queue umem: the dma-buf export first (no peer-memory module needed), then
  // the virtual address. `dmabufCall` / `vaCall` name the library calls in messages;
  // `dmabufCall` null: the library cannot take a dma-buf (`noDmabuf` says why).
  Status registerQueueUmem(const char* dmabufCall, const char* vaCall, const char* noDmabuf, const UmemRegFn& reg,
                           void** umem);
  // Maps `bytes` of the doorbell page at host address `mmio` for GPU stores (doorbell()).
  Status mapDoorbell(void* mmio, size_t bytes);
  // Undoes mapDoorbell (the destructor does it if the provider has not: mlx5 must before it
  // frees the page).
  void unmapDoorbell();
  uint64_t* doorbell() const { return static_cast<uint64_t*>(doorbellGpu_); }

  VerbsDevice& verbs_;
  EndpointConfig cfg_;
  EndpointLayout layout_;
  GpuBuffer buf_;  // layout_.allocBytes: queues (unless provider-allocated), state, atomic results
  EndpointWireInfo local_{};
  EndpointDevice handle_{};

 private:
  Status allocateQueueMemory();

  ibv_mr* atomicMr_ = nullptr;
  void* doorbellHost_ = nullptr;
  void* doorbellGpu_ = nullptr;
  const char* umemPath_ = nullptr;  // "dma-buf" / "virtual address" once registerQueueUmem succeeded
  bool connected_ = false;
};

}  // namespace mori::rdma
