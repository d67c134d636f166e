// mlx5 PRM command layouts, as facts: every field's bit offset and width in its structure, as the
// public PRM and the Linux kernel's include/linux/mlx5/mlx5_ifc.h define them (struct
// mlx5_ifc_<name>_bits; offsets count bits from the structure's first bit, MSB first, in
// big-endian dwords). Only the fields mori-shmem sets or reads are listed.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace mori::rdma::mlx5 {

struct PrmField {
  uint32_t bit;    // offset of the field's most significant bit
  uint32_t width;  // in bits: 1..32 within one dword, or 64 at a dword-aligned offset
};
// The same field inside a structure embedded at bit `base` (DEVX_ADDR_OF + DEVX_SET).
constexpr PrmField at(uint32_t base, PrmField f) { return PrmField{base + f.bit, f.width}; }

// Writes `value` into `f` of the big-endian command buffer.
void prmSet(uint8_t* buf, PrmField f, uint64_t value);
uint64_t prmGet(const uint8_t* buf, PrmField f);
// Copies `n` bytes to a byte-aligned field (GIDs, MACs).
void prmSetBytes(uint8_t* buf, PrmField f, const uint8_t* bytes, size_t n);

// ---- opcodes and constants
constexpr uint32_t kOpQueryHcaCap = 0x100;
constexpr uint32_t kOpCreateCq = 0x400;
constexpr uint32_t kOpCreateQp = 0x500;
constexpr uint32_t kOpRst2InitQp = 0x502;
constexpr uint32_t kOpInit2RtrQp = 0x503;
constexpr uint32_t kOpRtr2RtsQp = 0x504;

constexpr uint32_t kHcaCapOpModGeneralCur = (0x0 << 1) | 1;  // MLX5_CAP_GENERAL, HCA_CAP_OPMOD_GET_CUR
constexpr uint32_t kHcaCapOpModRoceCur = (0x4 << 1) | 1;     // MLX5_CAP_ROCE, HCA_CAP_OPMOD_GET_CUR

constexpr uint32_t kQpcStRc = 0x0;                              // MLX5_QPC_ST_RC
constexpr uint32_t kQpcPmStateMigrated = 0x3;                   // MLX5_QPC_PM_STATE_MIGRATED
constexpr uint32_t kQpcRqTypeZeroSize = 0x3;                    // MLX5_QPC_RQ_TYPE_ZERO_SIZE_RQ (MLX5_ZERO_LEN_RQ)
constexpr uint32_t kQpcAtomicModeUpTo8B = 0x3;                  // 8-byte IB atomics (MLX5_ATOMIC_MODE_8B)
constexpr uint32_t kTsFormatFreeRunning = 0x0;                  // MLX5_QPC_TIMESTAMP_FORMAT_FREE_RUNNING
constexpr uint32_t kTsFormatDefault = 0x1;                      // MLX5_QPC_TIMESTAMP_FORMAT_DEFAULT
constexpr uint32_t kCqeSize64 = 0x0;                            // MLX5_CQE_SIZE_64B
constexpr uint32_t kPortTypeIb = 0x0, kPortTypeEthernet = 0x1;  // cmd_hca_cap.port_type

// ---- struct mlx5_ifc_cqc_bits (64 bytes)
namespace cqc {
constexpr PrmField dbr_umem_valid{0x06, 1};
constexpr PrmField cqe_sz{0x08, 3};
constexpr PrmField cc{0x0b, 1};
constexpr PrmField oi{0x0e, 1};
constexpr PrmField dbr_umem_id{0x20, 32};
constexpr PrmField page_offset{0x54, 6};
constexpr PrmField log_cq_size{0x63, 5};
constexpr PrmField uar_page{0x68, 24};
constexpr PrmField c_eqn{0xa0, 32};  // c_eqn_or_apu_element (older layouts: 8-bit c_eqn ending at bit 0xbf)
constexpr PrmField log_page_size{0xc3, 5};
constexpr PrmField dbr_addr{0x1c0, 64};
}  // namespace cqc

// ---- struct mlx5_ifc_create_cq_in_bits (272 bytes without pas) / create_cq_out (16 bytes)
namespace create_cq_in {
constexpr size_t kBytes = 0x880 / 8;
constexpr PrmField opcode{0x00, 16};
constexpr PrmField op_mod{0x30, 16};
constexpr uint32_t cq_context = 0x80;  // struct mlx5_ifc_cqc_bits
constexpr PrmField cq_umem_offset{0x280, 64};
constexpr PrmField cq_umem_id{0x2c0, 32};
constexpr PrmField cq_umem_valid{0x2e0, 1};
}  // namespace create_cq_in
namespace create_cq_out {
constexpr size_t kBytes = 16;
constexpr PrmField cqn{0x48, 24};
}  // namespace create_cq_out

// ---- struct mlx5_ifc_ads_bits (address path, 44 bytes)
namespace ads {
constexpr PrmField pkey_index{0x10, 16};
constexpr PrmField grh{0x28, 1};
constexpr PrmField mlid{0x29, 7};
constexpr PrmField rlid{0x30, 16};
constexpr PrmField ack_timeout{0x40, 5};
constexpr PrmField src_addr_index{0x48, 8};
constexpr PrmField hop_limit{0x58, 8};
constexpr PrmField tclass{0x64, 8};
constexpr PrmField flow_label{0x6c, 20};
constexpr PrmField rgid_rip{0x80, 128};  // 16 bytes
constexpr PrmField dscp{0x10a, 6};
constexpr PrmField udp_sport{0x110, 16};
constexpr PrmField eth_prio{0x121, 3};
constexpr PrmField sl{0x124, 4};
constexpr PrmField vhca_port_num{0x128, 8};
constexpr PrmField rmac_47_32{0x130, 16};  // with rmac_31_0: the 6-byte remote MAC
}  // namespace ads

// ---- struct mlx5_ifc_qpc_bits (200 bytes)
namespace qpc {
constexpr PrmField st{0x08, 8};
constexpr PrmField pm_state{0x13, 2};
constexpr PrmField pd{0x28, 24};
constexpr PrmField mtu{0x40, 3};
constexpr PrmField log_msg_max{0x43, 5};
constexpr PrmField log_rq_size{0x49, 4};
constexpr PrmField log_rq_stride{0x4d, 3};
constexpr PrmField no_sq{0x50, 1};
constexpr PrmField log_sq_size{0x51, 4};
constexpr PrmField ts_format{0x58, 2};
constexpr PrmField counter_set_id{0x60, 8};
constexpr PrmField uar_page{0x68, 24};
constexpr PrmField user_index{0x88, 24};
constexpr PrmField log_page_size{0xa3, 5};
constexpr PrmField remote_qpn{0xa8, 24};
constexpr uint32_t primary_address_path = 0xc0;  // struct mlx5_ifc_ads_bits
constexpr PrmField log_ack_req_freq{0x380, 4};
constexpr PrmField log_sra_max{0x388, 3};
constexpr PrmField retry_count{0x38d, 3};
constexpr PrmField rnr_retry{0x390, 3};
constexpr PrmField next_send_psn{0x3c8, 24};
constexpr PrmField cqn_snd{0x3e8, 24};
constexpr PrmField log_rra_max{0x488, 3};
constexpr PrmField atomic_mode{0x48c, 4};
constexpr PrmField rre{0x490, 1};
constexpr PrmField rwe{0x491, 1};
constexpr PrmField rae{0x492, 1};
constexpr PrmField page_offset{0x494, 6};
constexpr PrmField min_rnr_nak{0x4a3, 5};
constexpr PrmField next_rcv_psn{0x4a8, 24};
constexpr PrmField cqn_rcv{0x4e8, 24};
constexpr PrmField dbr_addr{0x500, 64};
constexpr PrmField rq_type{0x565, 3};
constexpr PrmField cs_req{0x630, 8};
constexpr PrmField cs_res{0x638, 8};
constexpr PrmField dbr_umem_valid{0x683, 1};
constexpr PrmField dbr_umem_id{0x720, 32};
}  // namespace qpc

// ---- struct mlx5_ifc_create_qp_in_bits (272 bytes without pas) / create_qp_out (16 bytes)
namespace create_qp_in {
constexpr size_t kBytes = 0x880 / 8;
constexpr PrmField opcode{0x00, 16};
constexpr PrmField op_mod{0x30, 16};
constexpr PrmField opt_param_mask{0x80, 32};
constexpr uint32_t qpc = 0xc0;  // struct mlx5_ifc_qpc_bits
constexpr PrmField wq_umem_offset{0x800, 64};
constexpr PrmField wq_umem_id{0x840, 32};
constexpr PrmField wq_umem_valid{0x860, 1};
}  // namespace create_qp_in
namespace create_qp_out {
constexpr size_t kBytes = 16;
constexpr PrmField qpn{0x48, 24};
}  // namespace create_qp_out

// ---- rst2init_qp_in / init2rtr_qp_in / rtr2rts_qp_in share one layout (272 bytes); their
// outputs are 16 bytes.
namespace modify_qp_in {
constexpr size_t kBytes = 0x880 / 8;
constexpr PrmField opcode{0x00, 16};
constexpr PrmField op_mod{0x30, 16};
constexpr PrmField qpn{0x48, 24};
constexpr PrmField opt_param_mask{0x80, 32};
constexpr uint32_t qpc = 0xc0;  // struct mlx5_ifc_qpc_bits
}  // namespace modify_qp_in
namespace modify_qp_out {
constexpr size_t kBytes = 16;
}

// ---- every command output starts with status (8 bits) and syndrome (32 bits)
namespace cmd_out {
constexpr PrmField status{0x00, 8};
constexpr PrmField syndrome{0x20, 32};
}  // namespace cmd_out

// ---- struct mlx5_ifc_query_hca_cap_in_bits (16 bytes) / query_hca_cap_out (4112 bytes)
namespace query_hca_cap_in {
constexpr size_t kBytes = 16;
constexpr PrmField opcode{0x00, 16};
constexpr PrmField op_mod{0x30, 16};
}  // namespace query_hca_cap_in
namespace query_hca_cap_out {
constexpr size_t kBytes = 0x8080 / 8;
constexpr uint32_t capability = 0x80;  // union mlx5_ifc_hca_cap_union_bits
}  // namespace query_hca_cap_out

// struct mlx5_ifc_cmd_hca_cap_bits (general device capabilities)
namespace cmd_hca_cap {
constexpr PrmField log_max_qp_sz{0x88, 8};
constexpr PrmField log_max_cq_sz{0xc8, 8};
constexpr PrmField log_max_ra_req_qp{0x14a, 6};
constexpr PrmField log_max_ra_res_qp{0x15a, 6};
constexpr PrmField port_type{0x1b6, 2};
constexpr PrmField log_max_msg{0x1c3, 5};
constexpr PrmField cqe_version{0x1fc, 4};
constexpr PrmField atomic{0x21e, 1};
constexpr PrmField log_bf_reg_size{0x26b, 5};
constexpr PrmField sq_ts_format{0x440, 2};
}  // namespace cmd_hca_cap

// struct mlx5_ifc_roce_cap_bits
namespace roce_cap {
constexpr PrmField qp_ts_format{0x1e, 2};
}

}  // namespace mori::rdma::mlx5
