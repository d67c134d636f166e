#include "transport/rdma/core/verbs_qp_connect.hpp"

#include <string.h>

#include <algorithm>

#include "transport/rdma/core/memory_registration.hpp"

namespace mori::rdma {
namespace {

Status step(ModifyQpFn modify, void* cookie, const VerbsDevice& dev, ibv_qp* qp, ibv_qp_attr* attr, int mask,
            const char* what, int peer, uint32_t qpIndex) {
  int rc = modify(qp, attr, mask, cookie);
  if (rc != 0)
    return MORI_FAIL(Status::System, log::kRdma, "ibv_modify_qp(%s, QP 0x%x, %s) for PE %d #%u failed: %s", dev.name(),
                     qp->qp_num, what, peer, qpIndex, strerror(rc > 0 ? rc : -rc));
  return Status::Success;
}

}  // namespace

Status connectRcQp(const VerbsDevice& dev, ModifyQpFn modify, void* cookie, ibv_qp* qp, uint32_t localPsn,
                   const EndpointWireInfo& remote, int pathMtu, int peer, uint32_t qpIndex) {
  const uint8_t rdAtomic =
      static_cast<uint8_t>(std::min(dev.deviceAttr().max_qp_rd_atom > 0 ? dev.deviceAttr().max_qp_rd_atom : 1, 255));
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = static_cast<uint8_t>(dev.port());
  a.qp_access_flags = kHeapAccess;
  MORI_TRY(step(modify, cookie, dev, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
                "RESET->INIT", peer, qpIndex));

  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = static_cast<ibv_mtu>(pathMtu);
  a.dest_qp_num = remote.qpn;
  a.rq_psn = remote.psn;
  a.max_dest_rd_atomic = rdAtomic;
  a.min_rnr_timer = 12;
  a.ah_attr.port_num = static_cast<uint8_t>(dev.port());
  if (dev.ethernet()) {
    a.ah_attr.is_global = 1;
    memcpy(a.ah_attr.grh.dgid.raw, remote.gid, 16);
    a.ah_attr.grh.sgid_index = static_cast<uint8_t>(dev.gidIndex());
    a.ah_attr.grh.hop_limit = 64;
  } else {
    a.ah_attr.dlid = remote.lid;
  }
  MORI_TRY(step(modify, cookie, dev, qp, &a,
                IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
                "INIT->RTR", peer, qpIndex));

  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = localPsn;
  a.timeout = 20;  // 4.096 us * 2^20 ~ 4.3 s before a retry
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.max_rd_atomic = rdAtomic;
  return step(
      modify, cookie, dev, qp, &a,
      IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
      "RTR->RTS", peer, qpIndex);
}

}  // namespace mori::rdma
