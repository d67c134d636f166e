// The DevX commands that create an RC QP and CQ in GPU memory and walk the QP to RTS, built from
// plain parameters into PRM byte images (mlx5_prm.hpp) so that their encoding is tested without a
// NIC. mlx5_device.cpp sends them with mlx5dv_devx_obj_create / _obj_modify / _general_cmd.
#pragma once

#include <stdint.h>

#include <array>

#include "transport/rdma/mlx5/mlx5_prm.hpp"

namespace mori::rdma::mlx5 {

using CreateCqIn = std::array<uint8_t, create_cq_in::kBytes>;
using CreateQpIn = std::array<uint8_t, create_qp_in::kBytes>;
using ModifyQpIn = std::array<uint8_t, modify_qp_in::kBytes>;
using QueryHcaCapIn = std::array<uint8_t, query_hca_cap_in::kBytes>;

// CQ whose entries and doorbell record live in one umem (GPU memory).
struct CqParams {
  uint32_t logSize = 0;      // log2 entries
  uint32_t uarPage = 0;      // UAR page index (mlx5dv_devx_uar::page_id)
  uint32_t eqn = 0;          // completion event queue (mlx5dv_devx_query_eqn); never armed
  uint32_t umemId = 0;       // umem holding the entries and the doorbell record
  uint64_t cqOffset = 0;     // of the entries inside the umem
  uint64_t dbrecOffset = 0;  // of the 8-byte doorbell record inside the umem
};
// 64-byte CQEs, not collapsed; overrun checking stays on (oi = 0): the device flow control never
// lets more than depth completions be outstanding, so an overrun is a bug that must surface as a
// CQ error instead of silently overwritten entries.
CreateCqIn buildCreateCq(const CqParams& p);

// RC QP without a receive queue (zero-length RQ: only WRITE/READ/ATOMIC are posted), SQ at
// `wqOffset` of the umem, doorbell record (RQ counter, then SQ counter) at `dbrecOffset`.
struct QpParams {
  uint32_t pdn = 0;
  uint32_t uarPage = 0;
  uint32_t cqn = 0;        // send and (unused) receive completions
  uint32_t logSqSize = 0;  // log2 of 64-byte basic blocks
  uint32_t umemId = 0;
  uint64_t wqOffset = 0;
  uint64_t dbrecOffset = 0;
  uint32_t tsFormat = kTsFormatFreeRunning;  // what the device supports (HcaCaps::qpTsFormat)
  uint32_t userIndex = 0xffffff;             // reported in CQEs (cqe_version 1); unused
};
CreateQpIn buildCreateQp(const QpParams& p);

// RESET -> INIT: remote write/read/atomic access, 8-byte atomics, the port.
struct Rst2InitParams {
  uint32_t qpn = 0;
  uint32_t port = 1;
  uint32_t pkeyIndex = 0;
};
ModifyQpIn buildRst2Init(const Rst2InitParams& p);

// INIT -> RTR towards the peer.
struct Init2RtrParams {
  uint32_t qpn = 0;
  uint32_t port = 1;
  uint32_t pathMtu = 0;  // enum ibv_mtu == PRM mtu encoding (1 = 256 B ... 5 = 4096 B)
  uint32_t logMsgMax = 30;
  uint32_t remoteQpn = 0;
  uint32_t remotePsn = 0;  // next PSN expected from the peer
  uint32_t logRraMax = 0;  // responder READ/atomic depth
  uint32_t minRnrNak = 12;
  bool roce = false;
  // InfiniBand
  uint32_t remoteLid = 0;
  uint32_t sl = 0;
  // RoCE
  uint8_t remoteGid[16] = {};
  uint8_t remoteMac[6] = {};  // next-hop MAC resolved by the kernel (an address handle)
  uint32_t sgidIndex = 0;
  uint32_t hopLimit = 64;
  uint32_t udpSport = 0xc000;
  uint32_t trafficClass = 0;  // DSCP << 2 | ECN
  uint32_t ethPrio = 0;
};
ModifyQpIn buildInit2Rtr(const Init2RtrParams& p);

// RTR -> RTS.
struct Rtr2RtsParams {
  uint32_t qpn = 0;
  uint32_t localPsn = 0;   // first PSN this QP sends
  uint32_t logSraMax = 0;  // requester READ/atomic depth
  uint32_t retryCount = 7;
  uint32_t rnrRetry = 7;
  uint32_t ackTimeout = 20;  // 4.096 us * 2^20 ~ 4.3 s before a retry
};
ModifyQpIn buildRtr2Rts(const Rtr2RtsParams& p);

QueryHcaCapIn buildQueryHcaCap(uint32_t opMod);

// What mori-shmem needs from QUERY_HCA_CAP (general and, on Ethernet ports, RoCE).
struct HcaCaps {
  uint32_t portType = 0;
  uint32_t cqeVersion = 0;
  uint32_t logMaxQpSz = 0;
  uint32_t logMaxCqSz = 0;
  uint32_t logMaxMsg = 0;
  uint32_t logMaxRaReqQp = 0;
  uint32_t logMaxRaResQp = 0;
  uint32_t logBfRegSize = 0;
  bool atomic = false;
  uint32_t qpTsFormat = kTsFormatFreeRunning;
};
// From a general-capability reply; `roceOut` (a RoCE-capability reply, or null) decides the QP
// timestamp format as the kernel does: DEFAULT where the device can choose, else FREE_RUNNING.
HcaCaps parseHcaCaps(const uint8_t* generalOut, const uint8_t* roceOut);

inline uint32_t outStatus(const uint8_t* out) { return static_cast<uint32_t>(prmGet(out, cmd_out::status)); }
inline uint32_t outSyndrome(const uint8_t* out) { return static_cast<uint32_t>(prmGet(out, cmd_out::syndrome)); }

}  // namespace mori::rdma::mlx5
