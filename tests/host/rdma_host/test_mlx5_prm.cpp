// mlx5 DevX command encoding: every command mori-shmem sends is compared, byte for byte, with an
// image built here bit by bit from the field offsets of the public PRM layouts (Linux
// include/linux/mlx5/mlx5_ifc.h, struct mlx5_ifc_<name>_bits; rdma-core providers/mlx5/mlx5_ifc.h
// has the same offsets). Offsets below are absolute bit positions in the command, MSB first;
// each names its layout path so that a reviewer can check it against mlx5_ifc.h.
#include <gtest/gtest.h>
#include <string.h>

#include <vector>

#include "transport/rdma/mlx5/mlx5_commands.hpp"

using namespace mori::rdma::mlx5;

namespace {

// Independent of mlx5_prm.cpp: one bit at a time, bit 0 = MSB of byte 0.
struct Image {
  std::vector<uint8_t> b;
  explicit Image(size_t bytes) : b(bytes, 0) {}
  Image& set(unsigned bit, unsigned width, uint64_t value) {
    for (unsigned i = 0; i < width; ++i) {
      const unsigned pos = bit + i;
      const uint8_t mask = static_cast<uint8_t>(0x80u >> (pos % 8));
      if ((value >> (width - 1 - i)) & 1)
        b[pos / 8] |= mask;
      else
        b[pos / 8] &= static_cast<uint8_t>(~mask);
    }
    return *this;
  }
  Image& bytes(unsigned bit, const uint8_t* src, size_t n) {
    memcpy(b.data() + bit / 8, src, n);
    return *this;
  }
};

template <size_t N>
void expectSame(const std::array<uint8_t, N>& got, const Image& want) {
  ASSERT_EQ(N, want.b.size());
  for (size_t i = 0; i < N; ++i)
    EXPECT_EQ(got[i], want.b[i]) << "byte " << i << " (bits 0x" << std::hex << i * 8 << "..0x" << i * 8 + 7 << ")";
}

}  // namespace

TEST(Mlx5Prm, CommandSizes) {
  EXPECT_EQ(sizeof(CreateCqIn), 272u);          // create_cq_in without pas: 0x880 bits
  EXPECT_EQ(sizeof(CreateQpIn), 272u);          // create_qp_in without pas: 0x880 bits
  EXPECT_EQ(sizeof(ModifyQpIn), 272u);          // rst2init/init2rtr/rtr2rts_qp_in: 0x880 bits
  EXPECT_EQ(sizeof(QueryHcaCapIn), 16u);        // query_hca_cap_in: 0x80 bits
  EXPECT_EQ(query_hca_cap_out::kBytes, 4112u);  // 0x80 header + 0x8000 capability union
}

TEST(Mlx5Prm, CreateCq) {
  CqParams p;
  p.logSize = 10;
  p.uarPage = 0xabcde1;
  p.eqn = 0x12345678;
  p.umemId = 0x89abcdef;
  p.cqOffset = 0x0000123456789000ull;
  p.dbrecOffset = 0x1122334455667788ull;
  Image want(272);
  want.set(0x000, 16, 0x400)                  // create_cq_in.opcode = MLX5_CMD_OP_CREATE_CQ
      .set(0x086, 1, 1)                       // create_cq_in.cq_context.dbr_umem_valid (cqc at 0x80, +0x06)
      .set(0x088, 3, 0)                       // create_cq_in.cq_context.cqe_sz = 64-byte CQEs
      .set(0x08b, 1, 0)                       // create_cq_in.cq_context.cc (not collapsed)
      .set(0x08e, 1, 0)                       // create_cq_in.cq_context.oi (overrun checked)
      .set(0x0a0, 32, 0x89abcdef)             // create_cq_in.cq_context.dbr_umem_id (+0x20)
      .set(0x0e3, 5, 10)                      // create_cq_in.cq_context.log_cq_size (+0x63)
      .set(0x0e8, 24, 0xabcde1)               // create_cq_in.cq_context.uar_page (+0x68)
      .set(0x120, 32, 0x12345678)             // create_cq_in.cq_context.c_eqn_or_apu_element (+0xa0)
      .set(0x240, 64, 0x1122334455667788ull)  // create_cq_in.cq_context.dbr_addr (+0x1c0)
      .set(0x280, 64, 0x0000123456789000ull)  // create_cq_in.cq_umem_offset
      .set(0x2c0, 32, 0x89abcdef)             // create_cq_in.cq_umem_id
      .set(0x2e0, 1, 1);                      // create_cq_in.cq_umem_valid
  expectSame(buildCreateCq(p), want);
}

TEST(Mlx5Prm, CreateQp) {
  QpParams p;
  p.pdn = 0x00c0ffee;
  p.uarPage = 0x00beef;
  p.cqn = 0x0abcde;
  p.logSqSize = 10;
  p.umemId = 0x13572468;
  p.wqOffset = 0x1000;
  p.dbrecOffset = 0x23000;
  p.tsFormat = kTsFormatDefault;
  p.userIndex = 0xffffff;
  Image want(272);
  want.set(0x000, 16, 0x500)       // create_qp_in.opcode = MLX5_CMD_OP_CREATE_QP
      .set(0x0c8, 8, 0x0)          // create_qp_in.qpc.st = MLX5_QPC_ST_RC (qpc at 0xc0, +0x08)
      .set(0x0d3, 2, 0x3)          // create_qp_in.qpc.pm_state = MIGRATED (+0x13)
      .set(0x0e8, 24, 0x00c0ffee)  // create_qp_in.qpc.pd (+0x28)
      .set(0x109, 4, 0)            // create_qp_in.qpc.log_rq_size (+0x49)
      .set(0x111, 4, 10)           // create_qp_in.qpc.log_sq_size (+0x51)
      .set(0x118, 2, 1)            // create_qp_in.qpc.ts_format = DEFAULT (+0x58)
      .set(0x128, 24, 0x00beef)    // create_qp_in.qpc.uar_page (+0x68)
      .set(0x148, 24, 0xffffff)    // create_qp_in.qpc.user_index (+0x88)
      .set(0x4a8, 24, 0x0abcde)    // create_qp_in.qpc.cqn_snd (+0x3e8)
      .set(0x5a8, 24, 0x0abcde)    // create_qp_in.qpc.cqn_rcv (+0x4e8)
      .set(0x5c0, 64, 0x23000)     // create_qp_in.qpc.dbr_addr (+0x500), an umem offset
      .set(0x625, 3, 0x3)          // create_qp_in.qpc.rq_type = ZERO_SIZE_RQ (+0x565)
      .set(0x6f0, 8, 0)            // create_qp_in.qpc.cs_req (+0x630)
      .set(0x6f8, 8, 0)            // create_qp_in.qpc.cs_res (+0x638)
      .set(0x743, 1, 1)            // create_qp_in.qpc.dbr_umem_valid (+0x683)
      .set(0x7e0, 32, 0x13572468)  // create_qp_in.qpc.dbr_umem_id (+0x720)
      .set(0x800, 64, 0x1000)      // create_qp_in.wq_umem_offset
      .set(0x840, 32, 0x13572468)  // create_qp_in.wq_umem_id
      .set(0x860, 1, 1);           // create_qp_in.wq_umem_valid
  expectSame(buildCreateQp(p), want);
}

TEST(Mlx5Prm, Rst2Init) {
  Rst2InitParams p;
  p.qpn = 0x00a1b2c3;
  p.port = 2;
  p.pkeyIndex = 0;
  Image want(272);
  want.set(0x000, 16, 0x502)     // rst2init_qp_in.opcode = MLX5_CMD_OP_RST2INIT_QP
      .set(0x048, 24, 0xa1b2c3)  // rst2init_qp_in.qpn
      .set(0x0d3, 2, 0x3)        // rst2init_qp_in.qpc.pm_state = MIGRATED
      .set(0x120, 8, 0)          // rst2init_qp_in.qpc.counter_set_id
      .set(0x190, 16, 0)         // rst2init_qp_in.qpc.primary_address_path.pkey_index (ads at 0x180)
      .set(0x2a8, 8, 2)          // rst2init_qp_in.qpc.primary_address_path.vhca_port_num (+0x128)
      .set(0x54c, 4, 0x3)        // rst2init_qp_in.qpc.atomic_mode = 8-byte atomics (+0x48c)
      .set(0x550, 1, 1)          // rst2init_qp_in.qpc.rre (+0x490)
      .set(0x551, 1, 1)          // rst2init_qp_in.qpc.rwe (+0x491)
      .set(0x552, 1, 1);         // rst2init_qp_in.qpc.rae (+0x492)
  expectSame(buildRst2Init(p), want);
}

TEST(Mlx5Prm, Init2RtrRoce) {
  Init2RtrParams p;
  p.qpn = 0x000123;
  p.port = 1;
  p.pathMtu = 3;  // IBV_MTU_1024: a 1500-byte Ethernet
  p.logMsgMax = 30;
  p.remoteQpn = 0x00fedcba;
  p.remotePsn = 0x00345678;
  p.logRraMax = 4;
  p.minRnrNak = 12;
  p.roce = true;
  const uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 7, 9};
  const uint8_t mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
  memcpy(p.remoteGid, gid, 16);
  memcpy(p.remoteMac, mac, 6);
  p.sgidIndex = 3;
  p.hopLimit = 64;
  p.udpSport = 0xc123;
  p.trafficClass = 0x68;  // DSCP 26
  p.ethPrio = 5;
  Image want(272);
  want.set(0x000, 16, 0x503)      // init2rtr_qp_in.opcode = MLX5_CMD_OP_INIT2RTR_QP
      .set(0x048, 24, 0x000123)   // init2rtr_qp_in.qpn
      .set(0x100, 3, 3)           // init2rtr_qp_in.qpc.mtu (+0x40)
      .set(0x103, 5, 30)          // init2rtr_qp_in.qpc.log_msg_max (+0x43)
      .set(0x168, 24, 0xfedcba)   // init2rtr_qp_in.qpc.remote_qpn (+0xa8)
      .set(0x1c8, 8, 3)           // init2rtr_qp_in.qpc.primary_address_path.src_addr_index (ads +0x48)
      .set(0x1d8, 8, 64)          // ...primary_address_path.hop_limit (ads +0x58)
      .set(0x1e4, 8, 0x68)        // ...primary_address_path.tclass (ads +0x64)
      .bytes(0x200, gid, 16)      // ...primary_address_path.rgid_rip (ads +0x80, 16 bytes)
      .set(0x28a, 6, 26)          // ...primary_address_path.dscp (ads +0x10a)
      .set(0x290, 16, 0xc123)     // ...primary_address_path.udp_sport (ads +0x110)
      .set(0x2a1, 3, 5)           // ...primary_address_path.eth_prio (ads +0x121)
      .set(0x2a8, 8, 1)           // ...primary_address_path.vhca_port_num (ads +0x128)
      .bytes(0x2b0, mac, 6)       // ...primary_address_path.rmac_47_32 + rmac_31_0 (ads +0x130)
      .set(0x548, 3, 4)           // init2rtr_qp_in.qpc.log_rra_max (+0x488)
      .set(0x563, 5, 12)          // init2rtr_qp_in.qpc.min_rnr_nak (+0x4a3)
      .set(0x568, 24, 0x345678);  // init2rtr_qp_in.qpc.next_rcv_psn (+0x4a8)
  expectSame(buildInit2Rtr(p), want);
}

TEST(Mlx5Prm, Init2RtrInfiniBand) {
  Init2RtrParams p;
  p.qpn = 0x42;
  p.port = 1;
  p.pathMtu = 5;  // IBV_MTU_4096
  p.logMsgMax = 30;
  p.remoteQpn = 0x77;
  p.remotePsn = 0x1;
  p.logRraMax = 3;
  p.minRnrNak = 12;
  p.roce = false;
  p.remoteLid = 0xbeef;
  p.sl = 0;
  Image want(272);
  want.set(0x000, 16, 0x503)   // init2rtr_qp_in.opcode
      .set(0x048, 24, 0x42)    // init2rtr_qp_in.qpn
      .set(0x100, 3, 5)        // init2rtr_qp_in.qpc.mtu
      .set(0x103, 5, 30)       // init2rtr_qp_in.qpc.log_msg_max
      .set(0x168, 24, 0x77)    // init2rtr_qp_in.qpc.remote_qpn
      .set(0x1a8, 1, 0)        // ...primary_address_path.grh (ads +0x28)
      .set(0x1a9, 7, 0)        // ...primary_address_path.mlid (ads +0x29)
      .set(0x1b0, 16, 0xbeef)  // ...primary_address_path.rlid (ads +0x30)
      .set(0x2a4, 4, 0)        // ...primary_address_path.sl (ads +0x124)
      .set(0x2a8, 8, 1)        // ...primary_address_path.vhca_port_num
      .set(0x548, 3, 3)        // init2rtr_qp_in.qpc.log_rra_max
      .set(0x563, 5, 12)       // init2rtr_qp_in.qpc.min_rnr_nak
      .set(0x568, 24, 0x1);    // init2rtr_qp_in.qpc.next_rcv_psn
  expectSame(buildInit2Rtr(p), want);
}

TEST(Mlx5Prm, Rtr2Rts) {
  Rtr2RtsParams p;
  p.qpn = 0xabcdef;
  p.localPsn = 0x00aa55;
  p.logSraMax = 4;
  p.retryCount = 7;
  p.rnrRetry = 7;
  p.ackTimeout = 20;
  Image want(272);
  want.set(0x000, 16, 0x504)      // rtr2rts_qp_in.opcode = MLX5_CMD_OP_RTR2RTS_QP
      .set(0x048, 24, 0xabcdef)   // rtr2rts_qp_in.qpn
      .set(0x1c0, 5, 20)          // rtr2rts_qp_in.qpc.primary_address_path.ack_timeout (ads +0x40)
      .set(0x440, 4, 0)           // rtr2rts_qp_in.qpc.log_ack_req_freq (+0x380)
      .set(0x448, 3, 4)           // rtr2rts_qp_in.qpc.log_sra_max (+0x388)
      .set(0x44d, 3, 7)           // rtr2rts_qp_in.qpc.retry_count (+0x38d)
      .set(0x450, 3, 7)           // rtr2rts_qp_in.qpc.rnr_retry (+0x390)
      .set(0x488, 24, 0x00aa55);  // rtr2rts_qp_in.qpc.next_send_psn (+0x3c8)
  expectSame(buildRtr2Rts(p), want);
}

TEST(Mlx5Prm, QueryHcaCap) {
  Image general(16), roce(16);
  general.set(0x00, 16, 0x100).set(0x30, 16, 0x1);  // query_hca_cap_in.opcode, .op_mod = GENERAL << 1 | CUR
  roce.set(0x00, 16, 0x100).set(0x30, 16, 0x9);     // .op_mod = MLX5_CAP_ROCE (4) << 1 | CUR
  expectSame(buildQueryHcaCap(kHcaCapOpModGeneralCur), general);
  expectSame(buildQueryHcaCap(kHcaCapOpModRoceCur), roce);

  // A reply with the fields mori-shmem reads (capability union at 0x80, struct
  // mlx5_ifc_cmd_hca_cap_bits / mlx5_ifc_roce_cap_bits).
  Image out(4112);
  out.set(0x108, 8, 17)   // query_hca_cap_out.capability.cmd_hca_cap.log_max_qp_sz (+0x88)
      .set(0x148, 8, 22)  // ...cmd_hca_cap.log_max_cq_sz (+0xc8)
      .set(0x1ca, 6, 4)   // ...cmd_hca_cap.log_max_ra_req_qp (+0x14a)
      .set(0x1da, 6, 5)   // ...cmd_hca_cap.log_max_ra_res_qp (+0x15a)
      .set(0x236, 2, 1)   // ...cmd_hca_cap.port_type = Ethernet (+0x1b6)
      .set(0x243, 5, 30)  // ...cmd_hca_cap.log_max_msg (+0x1c3)
      .set(0x27c, 4, 1)   // ...cmd_hca_cap.cqe_version (+0x1fc)
      .set(0x29e, 1, 1)   // ...cmd_hca_cap.atomic (+0x21e)
      .set(0x2eb, 5, 9)   // ...cmd_hca_cap.log_bf_reg_size (+0x26b)
      .set(0x4c0, 2, 0);  // ...cmd_hca_cap.sq_ts_format (+0x440)
  Image roceOut(4112);
  roceOut.set(0x9e, 2, 1);  // query_hca_cap_out.capability.roce_caps.qp_ts_format (+0x1e)
  HcaCaps c = parseHcaCaps(out.b.data(), nullptr);
  EXPECT_EQ(c.logMaxQpSz, 17u);
  EXPECT_EQ(c.logMaxCqSz, 22u);
  EXPECT_EQ(c.logMaxRaReqQp, 4u);
  EXPECT_EQ(c.logMaxRaResQp, 5u);
  EXPECT_EQ(c.portType, kPortTypeEthernet);
  EXPECT_EQ(c.logMaxMsg, 30u);
  EXPECT_EQ(c.cqeVersion, 1u);
  EXPECT_TRUE(c.atomic);
  EXPECT_EQ(c.logBfRegSize, 9u);
  EXPECT_EQ(c.qpTsFormat, kTsFormatFreeRunning);  // sq_ts_format = 0: no choice
  EXPECT_EQ(parseHcaCaps(out.b.data(), roceOut.b.data()).qpTsFormat, kTsFormatDefault);
}

TEST(Mlx5Prm, OutputStatusAndSyndrome) {
  uint8_t out[16] = {};
  out[0] = 0x05;                                               // status (bits 0x00..0x07)
  out[4] = 0xde, out[5] = 0xad, out[6] = 0xbe, out[7] = 0xef;  // syndrome (bits 0x20..0x3f)
  out[9] = 0x12, out[10] = 0x34, out[11] = 0x56;               // create_qp_out.qpn (bits 0x48..0x5f)
  EXPECT_EQ(outStatus(out), 5u);
  EXPECT_EQ(outSyndrome(out), 0xdeadbeefu);
  EXPECT_EQ(prmGet(out, create_qp_out::qpn), 0x123456u);
  EXPECT_EQ(prmGet(out, create_cq_out::cqn), 0x123456u);
}

TEST(Mlx5Prm, SettersLeaveNeighboursAlone) {
  std::array<uint8_t, 16> buf;
  buf.fill(0xff);
  prmSet(buf.data(), PrmField{0x0b, 3}, 0);  // 3 bits inside byte 1
  EXPECT_EQ(buf[1], 0xe3);
  EXPECT_EQ(buf[0], 0xff);
  EXPECT_EQ(buf[2], 0xff);
  prmSet(buf.data(), PrmField{0x20, 64}, 0x0102030405060708ull);
  EXPECT_EQ(buf[4], 0x01);
  EXPECT_EQ(buf[11], 0x08);
  EXPECT_EQ(buf[12], 0xff);
  EXPECT_EQ(prmGet(buf.data(), PrmField{0x20, 64}), 0x0102030405060708ull);
  prmSet(buf.data(), PrmField{0x68, 24}, 0x1abcdef);  // wider value: truncated to the field
  EXPECT_EQ(buf[12], 0xff);
  EXPECT_EQ(prmGet(buf.data(), PrmField{0x68, 24}), 0xabcdefu);
}
