// The DMA-engine model as an SDMA plugin (MORI_SHMEM_SDMA_PLUGIN; contract in
// transport/sdma/sdma_plugin.hpp): the only symbols the library exports. The runtime then drives
// the model's queues exactly as it drives the KFD's. Its own setting, read from the environment
// (a test's, never the runtime's):
//   MORI_DMA_MODEL_RING_SLOTS  largest ring the model takes (a power of two >= 4; default: no
//                              limit), so that a stress wraps a small ring
//   MORI_DMA_MODEL_ON_PES      the PEs whose GPU has engines, as a comma-separated list (default:
//                              every PE); the open fails on the others, as on a GPU without SDMA,
//                              so that PEs reach each other by different transports
#include <stdio.h>
#include <stdlib.h>

#include <memory>

#include "mori/platform/gpu_runtime.hpp"
#include "tests/support/dma_model/dma_model.hpp"
#include "tests/support/dma_model/engine_pes.hpp"
#include "transport/sdma/sdma_plugin.hpp"

extern "C" __attribute__((visibility("default"))) int mori_shmem_sdma_plugin_interface(void) {
  return mori::sdma::kSdmaPluginInterface;
}

extern "C" __attribute__((visibility("default"))) int mori_shmem_sdma_plugin_open(int myPe, int hipDevice,
                                                                                  mori::sdma::QueueEngine** out) {
  if (!out) return static_cast<int>(mori::Status::InvalidUsage);
  if (const char* v = getenv("MORI_DMA_MODEL_ON_PES")) {
    bool valid = false;
    const bool listed = mori::test::dma::listNamesPe(v, myPe, &valid);
    if (!valid) {
      fprintf(stderr, "DMA model (PE %d): MORI_DMA_MODEL_ON_PES='%s' is not a comma-separated list of PEs\n", myPe, v);
      return static_cast<int>(mori::Status::InvalidUsage);
    }
    if (!listed) {
      fprintf(stderr, "DMA model (PE %d): no engines on this PE's GPU (MORI_DMA_MODEL_ON_PES=%s)\n", myPe, v);
      return static_cast<int>(mori::Status::NotSupported);
    }
  }
  mori::test::dma::ModelOptions o;
  if (const char* v = getenv("MORI_DMA_MODEL_RING_SLOTS")) {
    char* end = nullptr;
    const unsigned long slots = strtoul(v, &end, 10);
    if (end == v || *end != '\0' || slots < 4 || slots > (1ul << 20) || (slots & (slots - 1)) != 0) {
      fprintf(stderr, "DMA model (PE %d): MORI_DMA_MODEL_RING_SLOTS='%s' is not a power of two in 4..2^20\n", myPe, v);
      return static_cast<int>(mori::Status::InvalidUsage);
    }
    o.maxRingSlots = static_cast<uint32_t>(slots);
  }
  // This library has its own GPU runtime: make the runtime's GPU current for it too (the model's
  // streams and its thread use the GPU current at construction).
  if (hipSetDevice(hipDevice) != hipSuccess) {
    fprintf(stderr, "DMA model (PE %d): cannot select GPU %d\n", myPe, hipDevice);
    return static_cast<int>(mori::Status::System);
  }
  *out = new mori::test::dma::DmaModelEngine(o);
  return 0;
}
