// Context: who is who. Gathers every PE's host identity, GPU (PCI bus id, UUID) and what it can
// reach; probes P2P; opens an RDMA device when some pair needs one; builds the per-PE transport
// table (identical reasoning on every PE); creates and connects the RDMA endpoints.
#pragma once

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "mori/shmem/device_host/gpu_states.hpp"
#include "src/common/env.hpp"
#include "src/common/status.hpp"
#include "transport/rdma/core/rdma_device.hpp"
#include "transport/sdma/sdma_queues.hpp"

namespace mori::context {

// What each PE publishes about itself (Allgather, fixed size).
struct PeInfo {
  char hostId[112];  // boot id + hostname
  char pciBusId[32];
  uint8_t uuid[16];
  int32_t pid;
  int32_t gpu;  // device ordinal in its own process
};

class Context {
 public:
  // Collective. Selects the GPU (the current one if the caller already made one current, else
  // local rank modulo the number of visible GPUs).
  static Status create(bootstrap::Bootstrap& boot, const env::Config& cfg, std::unique_ptr<Context>* out);
  ~Context();

  int myPe() const { return myPe_; }
  int nPes() const { return nPes_; }
  int gpu() const { return gpu_; }
  const std::vector<PeInfo>& peers() const { return peers_; }
  shmem::Transport transport(int pe) const { return transports_[pe]; }
  const std::vector<shmem::Transport>& transports() const { return transports_; }
  bool usesRdma() const { return rdma_ != nullptr; }
  // PEs on this host (world numbering, ascending); this PE's index among them.
  const std::vector<int>& nodePes() const { return nodePes_; }
  int nodeRank() const { return nodeRank_; }
  // PEs of this host on this PE's GPU, this one included.
  int sharedGpuPes() const { return sharedGpuPes_; }
  rdma::Device* rdmaDevice() const { return rdma_.get(); }
  bootstrap::Bootstrap& bootstrap() const { return boot_; }

  // RDMA endpoints: [pe * numQpPerPe + qp]; null for peers not reached by RDMA.
  uint32_t numQpPerPe() const { return numQp_; }
  const rdma::Endpoint* endpoint(int pe, uint32_t qp) const { return endpoints_[pe * numQp_ + qp].get(); }
  // SDMA queues to the peers the table gives SDMA (null when there are none).
  const sdma::SdmaQueues* sdmaQueues() const { return sdma_.get(); }
  // Creates an endpoint per RDMA peer and QP, exchanges their addresses (AllToAll), connects.
  Status connectEndpoints(const env::Config& cfg);

 private:
  explicit Context(bootstrap::Bootstrap& boot) : boot_(boot) {}
  Status gatherIdentities();
  Status probeP2P(std::vector<uint8_t>* row) const;
  void warnIfGpuSharedWithoutConcurrency();

  bootstrap::Bootstrap& boot_;
  int myPe_ = 0, nPes_ = 0, gpu_ = 0;
  std::vector<PeInfo> peers_;
  std::vector<shmem::Transport> transports_;
  std::vector<int> nodePes_;
  int nodeRank_ = 0;
  int sharedGpuPes_ = 1;
  std::unique_ptr<rdma::Device> rdma_;
  uint32_t numQp_ = 0;
  std::vector<std::unique_ptr<rdma::Endpoint>> endpoints_;
  std::unique_ptr<sdma::SdmaQueues> sdma_;
};

}  // namespace mori::context
