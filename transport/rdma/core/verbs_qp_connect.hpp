// RESET -> INIT -> RTR -> RTS of an RC QP through ibv_modify_qp semantics, for providers whose
// QPs are verbs objects (bnxt_re, ionic). mlx5 builds the same transitions as DevX commands.
#pragma once

#include <infiniband/verbs.h>

#include "transport/rdma/core/verbs_device.hpp"

namespace mori::rdma {

// ibv_modify_qp or a provider's equivalent (bnxt_re_dv_modify_qp); returns 0 or an errno value.
using ModifyQpFn = int (*)(ibv_qp* qp, ibv_qp_attr* attr, int mask, void* cookie);

// `peer`/`qpIndex` name the endpoint in error messages.
Status connectRcQp(const VerbsDevice& dev, ModifyQpFn modify, void* cookie, ibv_qp* qp, uint32_t localPsn,
                   const EndpointWireInfo& remote, int pathMtu, int peer, uint32_t qpIndex);

}  // namespace mori::rdma
