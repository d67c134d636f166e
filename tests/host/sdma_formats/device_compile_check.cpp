// Compile-only check: instantiates the SDMA device operations (every scope) and the DMA model's
// packet reader in a kernel, so that nvcc and hipcc compile them for the device in CI. The
// kernel is never launched: the host tests run without a GPU.
#include <gtest/gtest.h>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"
#include "tests/support/dma_model/engine_packets.hpp"

namespace mori::test::dma {

// The device API's scope shapes (rank, size, sync), declared here so this check does not
// depend on the API's headers.
struct OneThread {
  __device__ static int rank() { return 0; }
  __device__ static int size() { return 1; }
  __device__ static void sync() {}
};
struct OneWave {
  __device__ static int rank() { return gpu::laneId(); }
  __device__ static int size() { return gpu::waveSize(); }
  __device__ static void sync() { gpu::waveSync(~gpu::LaneMask{0}); }
};
struct OneBlock {
  __device__ static int rank() { return static_cast<int>(threadIdx.x); }
  __device__ static int size() { return static_cast<int>(blockDim.x); }
  __device__ static void sync() { __syncthreads(); }
};

template <class G>
__device__ void exercise(const sdma::SdmaPeerDevice& p, uint8_t* dst, const uint8_t* src, uint64_t n, uint64_t* sig) {
  sdma::put<G>(p, dst, src, n);
  sdma::putSignal<G>(p, dst, src, n, sig, 1, sdma::AtomicOp::Add64);
  sdma::signalOp<G>(p, sig, 7, sdma::AtomicOp::Swap64);
  sdma::get<G>(p, dst, src, n);
  sdma::fence<G>(p);
  sdma::quiet<G>(p);
  sdma::quietAll<G>(&p, 1);
}

__global__ void sdmaDeviceCompileCheck(sdma::SdmaPeerDevice p, uint8_t* dst, const uint8_t* src, uint64_t n,
                                       uint64_t* out) {
  exercise<OneThread>(p, dst, src, n, out);
  exercise<OneWave>(p, dst, src, n, out);
  exercise<OneBlock>(p, dst, src, n, out);
  out[1] = packetDwords(reinterpret_cast<const uint32_t*>(src));
}

TEST(SdmaFormats, DeviceEntryPointsCompile) {
  // The kernel exists for the device compilers; taking its address keeps it in the binary.
  EXPECT_NE(reinterpret_cast<const void*>(&sdmaDeviceCompileCheck), nullptr);
}

}  // namespace mori::test::dma
