// SDMA engines from a plugin (MORI_SHMEM_SDMA_PLUGIN): a shared library that plays the engines in
// place of the KFD's (the test-only DMA-engine model, tests/support/dma_model). The contract is a
// QueueEngine (queue_engine.hpp) handed across as a C++ object, so a plugin must be built from the
// same sources and compiler as the runtime that loads it; the interface number below is checked
// first and refuses any other.
//
// A plugin exports, with C linkage and default visibility:
//   int mori_shmem_sdma_plugin_interface(void)  returns kSdmaPluginInterface
//   int mori_shmem_sdma_plugin_open(int myPe, int hipDevice, mori::sdma::QueueEngine** out)
//       0 and a new engine for GPU hipDevice (the caller owns it), or a mori_shmem_status_t;
//       its messages name myPe.
#pragma once

#include <memory>
#include <string>

#include "transport/sdma/queue_engine.hpp"

namespace mori::sdma {

constexpr int kSdmaPluginInterface = 1;

using SdmaPluginInterfaceFn = int (*)();
using SdmaPluginOpenFn = int (*)(int myPe, int hipDevice, QueueEngine** out);

// The engines this PE drives: the plugin at `pluginPath` if set, else the KFD's (AMD builds; an
// NVIDIA build fails saying SDMA engines exist only on AMD GPUs). Failures name myPe and the step.
// The plugin stays loaded for the life of the process (its engine's threads and GPU code).
Status openQueueEngine(int myPe, int hipDevice, const std::string& pluginPath, std::unique_ptr<QueueEngine>* out);

}  // namespace mori::sdma
