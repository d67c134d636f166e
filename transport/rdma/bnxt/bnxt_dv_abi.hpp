// bnxt_re direct verbs, declared here from their published ABI because Debian 12's rdma-core 44
// ships no header for them; resolved with dlsym from libbnxt_re.so.1 at run time.
//
// Two ABIs share the function names, with different structures:
//  * Broadcom's libbnxt_re (the bnxt_re_dv.h of Broadcom's driver package, which MORI builds
//    against): umems registered with bnxt_re_dv_umem_reg, objects queried with
//    bnxt_re_dv_init_obj, QPs modified with bnxt_re_dv_modify_qp. Recognised by the exported
//    bnxt_re_dv_umem_reg. This is the ABI used below.
//  * rdma-core's upstream series (providers/bnxt_re/bnxt_re_dv.h, symbol version BNXT_RE_1.1,
//    commit 8c85ed87a "bnxt_re/lib: Direct Verbs: Support QP verbs"): buffers are struct
//    ibv_buf from ibv_alloc_user_buf (IBVERBS_1.19); no call returns a CQ's hardware id.
#pragma once

#include <infiniband/verbs.h>
#include <stdint.h>

namespace mori::rdma::bnxt_dv {

// ---- Broadcom libbnxt_re ABI
struct DbRegionAttr {  // struct bnxt_re_dv_db_region_attr
  uint32_t handle;
  uint32_t dpi;
  uint64_t umdbr;
  uint64_t* dbr;  // host mapping of the doorbell page
};

constexpr uint64_t kUmemFlagDmabuf = 1u << 0;  // enum bnxt_re_dv_umem_in_flags
struct UmemRegAttr {                           // struct bnxt_re_dv_umem_reg_attr
  void* addr;
  size_t size;
  uint32_t access_flags;
  uint64_t pgsz_bitmap;
  uint64_t comp_mask;
  int dmabuf_fd;
};

struct CqInitAttr {  // struct bnxt_re_dv_cq_init_attr
  uint64_t cq_handle;
  void* umem_handle;
  uint64_t cq_umem_offset;
  uint32_t ncqe;
};

struct QpInitAttr {  // struct bnxt_re_dv_qp_init_attr
  ibv_qp_type qp_type;
  uint32_t max_send_wr;
  uint32_t max_recv_wr;
  uint32_t max_send_sge;
  uint32_t max_recv_sge;
  uint32_t max_inline_data;
  ibv_cq* send_cq;
  ibv_cq* recv_cq;
  ibv_srq* srq;
  uint64_t qp_handle;  // reported in CQEs
  void* dbr_handle;    // from bnxt_re_dv_alloc_db_region; null: the context's default page
  void* sq_umem_handle;
  uint64_t sq_umem_offset;
  uint32_t sq_len;    // ring plus search table
  uint32_t sq_slots;  // 16-byte slots
  void* rq_umem_handle;
  uint64_t rq_umem_offset;
  uint32_t sq_wqe_sz;
  uint32_t sq_psn_sz;
  uint32_t sq_npsn;
  uint32_t rq_len;
  uint32_t rq_slots;
  uint32_t rq_wqe_sz;
  uint64_t comp_mask;
};

struct DvCq {  // struct bnxt_re_dv_cq
  uint32_t cqn;
  uint32_t cqe_size;
  uint64_t comp_mask;
};
struct DvObj {  // struct bnxt_re_dv_obj; only the CQ member is used
  struct {
    ibv_qp* in;
    void* out;
  } qp;
  struct {
    ibv_cq* in;
    DvCq* out;
  } cq;
  struct {
    ibv_srq* in;
    void* out;
  } srq;
  struct {
    ibv_ah* in;
    void* out;
  } ah;
  struct {
    ibv_pd* in;
    void* out;
  } pd;
};
constexpr uint64_t kObjCq = 1u << 1;  // BNXT_RE_DV_OBJ_CQ

struct BroadcomApi {
  void* (*umemReg)(ibv_context* ctx, UmemRegAttr* in);
  int (*umemDereg)(void* umem);
  ibv_cq* (*createCq)(ibv_context* ctx, CqInitAttr* attr);
  int (*destroyCq)(ibv_cq* cq);
  ibv_qp* (*createQp)(ibv_pd* pd, QpInitAttr* attr);
  int (*destroyQp)(ibv_qp* qp);
  int (*modifyQp)(ibv_qp* qp, ibv_qp_attr* attr, int mask, uint32_t type, uint32_t value);
  int (*initObj)(DvObj* obj, uint64_t type);
  int (*getDefaultDbRegion)(ibv_context* ctx, DbRegionAttr* out);
};

}  // namespace mori::rdma::bnxt_dv
