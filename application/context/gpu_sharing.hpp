// Whether kernels of several processes that share one GPU run at the same time. PEs that wait
// for each other inside kernels (signals, barriers, RDMA completions through the NIC model) need
// that; PEs that only write, barrier on the host and read do not.
//   NVIDIA: only under CUDA MPS (the device attribute cudaDevAttrMpsEnabled); without it the
//     driver time-slices the processes' contexts, and a cross-process spin-wait never ends.
//   AMD: the hardware scheduler (HWS, amdgpu sched_policy 0 or 1) runs the queues of up to
//     hws_max_conc_proc processes at once (default: the VMIDs reserved for KFD, 8 on gfx9);
//     hws_max_conc_proc=0 or more sharing processes than that time-slices them.
#pragma once

#include <string>

namespace mori::context {

struct GpuSharing {
  bool concurrent = false;
  std::string how;  // the mechanism that decided, or why not: for logs and skip messages
};

// `processes` processes (>= 1) use device `device` of this process. Reads only driver state;
// callable before mori_shmem_init.
GpuSharing gpuSharing(int device, int processes);

}  // namespace mori::context
