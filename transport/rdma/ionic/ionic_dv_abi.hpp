// ionic direct verbs, declared here from their published ABI because Debian 12's rdma-core 44
// ships no ionic_dv.h; resolved with dlsym from libionic.so.1 at run time.
//
// rdma-core's upstream ionic_dv.h (providers/ionic, v57+) offers only pipeline masks and the
// controller-memory-bar preference (ionic_dv_pd_set_sqcmb / _rqcmb). Queues can still be placed
// in GPU memory through a parent domain's allocator (the provider asks it for every ring,
// tagged IONIC_PD_TAG_*), but nothing upstream returns the doorbell page, the queue types or a
// queue's geometry. AMD's libionic (the ionic_dv.h of its driver package, which MORI builds
// against) adds them: ionic_dv_get_ctx, ionic_dv_get_cq, ionic_dv_get_qp,
// ionic_dv_qp_get_udma_idx. Those are required here.
#pragma once

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

namespace mori::rdma::ionic_dv {

// Parent-domain allocation tags: RDMA_DRIVER_IONIC (21 in enum rdma_driver_id) << 32 | kind.
constexpr uint64_t kRdmaDriverIonic = 21;
constexpr uint64_t kPdTag = kRdmaDriverIonic << 32;
constexpr uint64_t kPdTagCq = kPdTag | 1;
constexpr uint64_t kPdTagSq = kPdTag | 2;
constexpr uint64_t kPdTagRq = kPdTag | 3;

struct DvCtx {  // struct ionic_dv_ctx
  void* db_page;
  uint64_t* db_ptr;  // doorbell registers, indexed by queue type
  uint8_t sq_qtype;
  uint8_t rq_qtype;
  uint8_t cq_qtype;
};

struct DvQueue {  // struct ionic_dv_queue
  void* ptr;
  size_t size;
  uint64_t db_val;  // queue id << 24
  uint16_t mask;
  uint8_t depth_log2;
  uint8_t stride_log2;
};

struct DvCq {  // struct ionic_dv_cq
  DvQueue q;
};

struct DvQp {  // struct ionic_dv_qp
  DvQueue rq;
  DvQueue sq;
};

struct Api {
  // upstream
  int (*pdSetSqCmb)(ibv_pd* pd, bool enable, bool expdb, bool require);
  int (*pdSetRqCmb)(ibv_pd* pd, bool enable, bool expdb, bool require);
  // AMD libionic
  int (*getCtx)(DvCtx* out, ibv_context* ctx);
  int (*getCq)(DvCq* out, ibv_cq* cq, uint8_t udmaIdx);
  int (*getQp)(DvQp* out, ibv_qp* qp);
  uint8_t (*qpGetUdmaIdx)(ibv_qp* qp);
};

}  // namespace mori::rdma::ionic_dv
