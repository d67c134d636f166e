// The NIC model's settings, from the environment when the plugin is opened:
//   MORI_NIC_MODEL_PROVIDER=mlx5|bnxt|ionic  provider whose formats the model plays (default mlx5)
//   MORI_NIC_MODEL_ERROR=pe:qp:wqe          on PE pe, WQE number wqe (0-based, counted per QP) of
//                                           every QP with index qp completes with a remote
//                                           access error; the QP then flushes
//   MORI_NIC_MODEL_STALL=pe:qp:n            on PE pe, QPs with index qp consume n WQEs, then none
//   MORI_NIC_MODEL_SINK=1                   complete WQEs without moving data (posting rates)
//   MORI_NIC_MODEL_BNXT_PSN_EXT=1           bnxt: PSN-search retransmission table (default MSN)
//   MORI_NIC_MODEL_IONIC_FW=1|2             ionic: firmware RDMA version (default 2)
//   MORI_NIC_MODEL_IDLE_US=n                a model kernel returns after n us without work (100)
//   MORI_NIC_MODEL_CARVEOUT=n               NVIDIA: the model kernel's preferred shared-memory
//                                           carveout, percent 0..100 (default 0); decides which
//                                           SMs it may share with an application's kernels
//                                           (bench/micro/coresidency_probe); -1: the driver's
// A malformed value is an error naming the variable, never a silent default.
#pragma once

#include <stdint.h>

#include "mori/transport/rdma/device_host/endpoint.hpp"
#include "src/common/status.hpp"
#include "tests/support/nic_model/model_state.hpp"

namespace mori::test::nicmodel {

// One fault aimed at PE `pe`'s QPs of index `qp`, at WQE count `wqe`.
struct QpFault {
  int pe = -1;
  int qp = -1;
  uint64_t wqe = kNever;
  // The WQE count this fault sets for PE `myPe`'s QP of index `qpIndex`, or kNever.
  uint64_t at(int myPe, uint32_t qpIndex) const { return pe == myPe && qp == static_cast<int>(qpIndex) ? wqe : kNever; }
};

struct ModelConfig {
  rdma::Provider provider = rdma::Provider::Mlx5;
  QpFault error;
  QpFault stall;
  bool sink = false;
  bool bnxtPsnSearchExt = false;
  uint32_t bnxtMtuShift = 10;  // 1024-byte path MTU: large WQEs span several PSNs
  uint32_t ionicFirmware = 2;
  uint64_t idleNs = 100000;
  // 0: the smallest carveout. With the driver's choice, the model never started beside a test
  // kernel with a block on every SM (test_rma, block scope, 132 blocks; H200s, CUDA 13).
  int carveout = 0;
};

Status loadModelConfig(ModelConfig* out);

const char* providerName(rdma::Provider p);

}  // namespace mori::test::nicmodel
