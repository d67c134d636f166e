// One RC QP + CQ of the NIC model. Its GPU memory has the real provider's layout
// (endpointLayout(): SQ, CQ, doorbell records, state, result-busy flags, atomic results), so the
// device code posts through it exactly as through a real NIC's endpoint; only the doorbell
// registers are host-mapped words the model watches (model_device.hpp).
#pragma once

#include <stdint.h>

#include "tests/support/nic_model/host_mapped.hpp"
#include "tests/support/nic_model/model_device.hpp"
#include "transport/rdma/core/endpoint_layout.hpp"
#include "transport/rdma/core/gpu_buffer.hpp"

namespace mori::test::nicmodel {

class ModelEndpoint final : public rdma::Endpoint {
 public:
  ModelEndpoint(ModelDevice& dev, const rdma::EndpointConfig& cfg) : dev_(dev), cfg_(cfg) {}
  ~ModelEndpoint() override;
  Status create();

  rdma::EndpointWireInfo localInfo() const override { return local_; }
  // Checks that `remote` is the model's endpoint of the same provider on PE cfg.peer, paired
  // with this one (same QP index), then lets the model serve this QP.
  Status connect(const rdma::EndpointWireInfo& remote) override;
  const rdma::EndpointDevice& deviceHandle() const override { return handle_; }
  size_t deviceMemoryBytes() const override { return layout_.totalBytes; }

 private:
  Status initQueues(uint8_t* sq, uint8_t* cq, uint32_t providerWord, uint32_t initialPsn);

  ModelDevice& dev_;
  rdma::EndpointConfig cfg_;
  rdma::EndpointLayout layout_;
  rdma::GpuBuffer buf_;
  rdma::GpuBuffer queues_;  // ionic: the SQ and CQ the provider library would allocate
  HostMapped registers_;    // SQ doorbell, CQ doorbell, ModelQpStatus
  uint32_t slot_ = ~0u;
  uint32_t resultKeyEntry_ = ~0u;
  bool connected_ = false;
  rdma::EndpointWireInfo local_{};
  rdma::EndpointDevice handle_{};
};

}  // namespace mori::test::nicmodel
