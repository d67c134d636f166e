#include "transport/rdma/mlx5/mlx5_commands.hpp"

namespace mori::rdma::mlx5 {

CreateCqIn buildCreateCq(const CqParams& p) {
  CreateCqIn in{};
  uint8_t* b = in.data();
  const uint32_t c = create_cq_in::cq_context;
  prmSet(b, create_cq_in::opcode, kOpCreateCq);
  prmSet(b, at(c, cqc::cqe_sz), kCqeSize64);
  prmSet(b, at(c, cqc::cc), 0);
  prmSet(b, at(c, cqc::oi), 0);
  prmSet(b, at(c, cqc::log_cq_size), p.logSize);
  prmSet(b, at(c, cqc::uar_page), p.uarPage);
  prmSet(b, at(c, cqc::c_eqn), p.eqn);
  prmSet(b, at(c, cqc::dbr_umem_valid), 1);
  prmSet(b, at(c, cqc::dbr_umem_id), p.umemId);
  prmSet(b, at(c, cqc::dbr_addr), p.dbrecOffset);  // an offset into the umem once dbr_umem_valid
  prmSet(b, create_cq_in::cq_umem_valid, 1);
  prmSet(b, create_cq_in::cq_umem_id, p.umemId);
  prmSet(b, create_cq_in::cq_umem_offset, p.cqOffset);
  return in;
}

CreateQpIn buildCreateQp(const QpParams& p) {
  CreateQpIn in{};
  uint8_t* b = in.data();
  const uint32_t q = create_qp_in::qpc;
  prmSet(b, create_qp_in::opcode, kOpCreateQp);
  prmSet(b, at(q, qpc::st), kQpcStRc);
  prmSet(b, at(q, qpc::pm_state), kQpcPmStateMigrated);
  prmSet(b, at(q, qpc::pd), p.pdn);
  prmSet(b, at(q, qpc::uar_page), p.uarPage);
  prmSet(b, at(q, qpc::user_index), p.userIndex);
  prmSet(b, at(q, qpc::cqn_snd), p.cqn);
  prmSet(b, at(q, qpc::cqn_rcv), p.cqn);
  prmSet(b, at(q, qpc::log_sq_size), p.logSqSize);
  prmSet(b, at(q, qpc::rq_type), kQpcRqTypeZeroSize);
  prmSet(b, at(q, qpc::log_rq_size), 0);
  prmSet(b, at(q, qpc::ts_format), p.tsFormat);
  // No scatter-to-CQE: READ and atomic responses always land in memory, where the device reads them.
  prmSet(b, at(q, qpc::cs_req), 0);
  prmSet(b, at(q, qpc::cs_res), 0);
  prmSet(b, at(q, qpc::dbr_umem_valid), 1);
  prmSet(b, at(q, qpc::dbr_umem_id), p.umemId);
  prmSet(b, at(q, qpc::dbr_addr), p.dbrecOffset);
  prmSet(b, create_qp_in::wq_umem_valid, 1);
  prmSet(b, create_qp_in::wq_umem_id, p.umemId);
  prmSet(b, create_qp_in::wq_umem_offset, p.wqOffset);
  return in;
}

ModifyQpIn buildRst2Init(const Rst2InitParams& p) {
  ModifyQpIn in{};
  uint8_t* b = in.data();
  const uint32_t q = modify_qp_in::qpc;
  const uint32_t path = q + qpc::primary_address_path;
  prmSet(b, modify_qp_in::opcode, kOpRst2InitQp);
  prmSet(b, modify_qp_in::qpn, p.qpn);
  prmSet(b, at(q, qpc::rwe), 1);
  prmSet(b, at(q, qpc::rre), 1);
  prmSet(b, at(q, qpc::rae), 1);
  prmSet(b, at(q, qpc::atomic_mode), kQpcAtomicModeUpTo8B);
  prmSet(b, at(q, qpc::pm_state), kQpcPmStateMigrated);
  prmSet(b, at(q, qpc::counter_set_id), 0);
  prmSet(b, at(path, ads::vhca_port_num), p.port);
  prmSet(b, at(path, ads::pkey_index), p.pkeyIndex);
  return in;
}

ModifyQpIn buildInit2Rtr(const Init2RtrParams& p) {
  ModifyQpIn in{};
  uint8_t* b = in.data();
  const uint32_t q = modify_qp_in::qpc;
  const uint32_t path = q + qpc::primary_address_path;
  prmSet(b, modify_qp_in::opcode, kOpInit2RtrQp);
  prmSet(b, modify_qp_in::qpn, p.qpn);
  prmSet(b, at(q, qpc::mtu), p.pathMtu);
  prmSet(b, at(q, qpc::log_msg_max), p.logMsgMax);
  prmSet(b, at(q, qpc::remote_qpn), p.remoteQpn);
  prmSet(b, at(q, qpc::next_rcv_psn), p.remotePsn);
  prmSet(b, at(q, qpc::log_rra_max), p.logRraMax);
  prmSet(b, at(q, qpc::min_rnr_nak), p.minRnrNak);
  prmSet(b, at(path, ads::vhca_port_num), p.port);
  if (p.roce) {
    prmSetBytes(b, at(path, ads::rgid_rip), p.remoteGid, 16);
    prmSetBytes(b, at(path, ads::rmac_47_32), p.remoteMac, 6);
    prmSet(b, at(path, ads::src_addr_index), p.sgidIndex);
    prmSet(b, at(path, ads::hop_limit), p.hopLimit);
    prmSet(b, at(path, ads::udp_sport), p.udpSport);
    prmSet(b, at(path, ads::tclass), p.trafficClass);
    prmSet(b, at(path, ads::dscp), p.trafficClass >> 2);
    prmSet(b, at(path, ads::eth_prio), p.ethPrio);
  } else {
    prmSet(b, at(path, ads::rlid), p.remoteLid);
    prmSet(b, at(path, ads::sl), p.sl);
    prmSet(b, at(path, ads::grh), 0);
    prmSet(b, at(path, ads::mlid), 0);
  }
  return in;
}

ModifyQpIn buildRtr2Rts(const Rtr2RtsParams& p) {
  ModifyQpIn in{};
  uint8_t* b = in.data();
  const uint32_t q = modify_qp_in::qpc;
  const uint32_t path = q + qpc::primary_address_path;
  prmSet(b, modify_qp_in::opcode, kOpRtr2RtsQp);
  prmSet(b, modify_qp_in::qpn, p.qpn);
  prmSet(b, at(q, qpc::log_ack_req_freq), 0);  // request an ACK for every packet
  prmSet(b, at(q, qpc::log_sra_max), p.logSraMax);
  prmSet(b, at(q, qpc::next_send_psn), p.localPsn);
  prmSet(b, at(q, qpc::retry_count), p.retryCount);
  prmSet(b, at(q, qpc::rnr_retry), p.rnrRetry);
  prmSet(b, at(path, ads::ack_timeout), p.ackTimeout);
  return in;
}

QueryHcaCapIn buildQueryHcaCap(uint32_t opMod) {
  QueryHcaCapIn in{};
  prmSet(in.data(), query_hca_cap_in::opcode, kOpQueryHcaCap);
  prmSet(in.data(), query_hca_cap_in::op_mod, opMod);
  return in;
}

HcaCaps parseHcaCaps(const uint8_t* generalOut, const uint8_t* roceOut) {
  const uint32_t cap = query_hca_cap_out::capability;
  auto get = [&](PrmField f) { return static_cast<uint32_t>(prmGet(generalOut, at(cap, f))); };
  HcaCaps c;
  c.portType = get(cmd_hca_cap::port_type);
  c.cqeVersion = get(cmd_hca_cap::cqe_version);
  c.logMaxQpSz = get(cmd_hca_cap::log_max_qp_sz);
  c.logMaxCqSz = get(cmd_hca_cap::log_max_cq_sz);
  c.logMaxMsg = get(cmd_hca_cap::log_max_msg);
  c.logMaxRaReqQp = get(cmd_hca_cap::log_max_ra_req_qp);
  c.logMaxRaResQp = get(cmd_hca_cap::log_max_ra_res_qp);
  c.logBfRegSize = get(cmd_hca_cap::log_bf_reg_size);
  c.atomic = get(cmd_hca_cap::atomic) != 0;
  const uint32_t supported = roceOut ? static_cast<uint32_t>(prmGet(roceOut, at(cap, roce_cap::qp_ts_format)))
                                     : get(cmd_hca_cap::sq_ts_format);
  c.qpTsFormat = supported ? kTsFormatDefault : kTsFormatFreeRunning;
  return c;
}

}  // namespace mori::rdma::mlx5
