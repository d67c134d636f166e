// Host entry points of the NIC model's GPU kernel (model_kernel.cpp): one launch serves every QP
// of a Device that has work, in order per QP, then lingers for more until idle (see
// model_device.hpp for why the kernel is not persistent).
#pragma once

#include <stdint.h>

#include "mori/platform/gpu_runtime.hpp"
#include "tests/support/nic_model/model_state.hpp"

namespace mori::test::nicmodel {

// Launches the kernel for `provider` with `blocks` blocks of kBlockThreads on `stream`.
hipError_t launchModelKernel(rdma::Provider provider, const ModelLaunch& p, uint32_t blocks, hipStream_t stream);

// Loads the kernels' code now. With lazy module loading the first launch would otherwise load
// it, which waits for the device: a test kernel spinning on a completion would never let it.
// carveout >= 0: the kernels' preferred shared-memory carveout (MORI_NIC_MODEL_CARVEOUT).
hipError_t preloadModelKernels(int carveout);

// Blocks a launch needs to give each of `numQps` QPs a warp (at most kMaxWarps warps).
uint32_t modelBlocks(uint32_t numQps, uint32_t waveSize);

}  // namespace mori::test::nicmodel
