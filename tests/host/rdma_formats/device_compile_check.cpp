// Compile-only check: instantiates every provider's device entry points (encode, ringDoorbell,
// readCompletion, releaseCompletions, through withProvider) and the NIC-side formats in a kernel,
// so that nvcc and hipcc compile them for the device. The kernel is never launched: the host
// tests run without a GPU.
#include <gtest/gtest.h>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/transport/rdma/providers/provider.hpp"
#include "tests/support/nic_model_formats/nic_formats.hpp"

namespace mori::test::formats {

template <class P>
__device__ void exerciseProvider(const rdma::EndpointDevice& ep, const rdma::WqeDesc& d, uint64_t* out) {
  void* slot = ep.sq + (static_cast<uint64_t>(out[0] & (ep.sqDepth - 1)) << ep.sqSlotShift);
  P::encode(ep, slot, static_cast<uint32_t>(out[0]), d);
  P::ringDoorbell(ep, out[0] + 1, slot);
  const rdma::Completion c = P::readCompletion(ep, out[1]);
  if (c.valid) P::releaseCompletions(ep, out[1] + 1);
  out[2] = rdma::completedThrough(ep, out[2], c.wqeIndex) + c.error + c.syndrome + P::fetchedValue(out[3], 4);
}

__global__ void rdmaFormatsDeviceCompileCheck(rdma::EndpointDevice ep, rdma::WqeDesc d, uint64_t* out) {
  rdma::withProvider(ep.provider, [&](auto p) { exerciseProvider<decltype(p)>(ep, d, out); });
  // Folded form: the provider known at compile time.
  out[3] = rdma::withProvider(rdma::Provider::Mlx5, [&](auto p) { return decltype(p)::kSlotBytes; });

  // NIC-side formats, as the NIC model kernel will use them.
  nic::ParsedWqe w;
  bool ok = nic::mlx5::parseWqe(ep.sq, &w);
  ok &= nic::bnxt::parseWqe(ep.sq, &w);
  ok &= nic::ionic::parseWqe(ep.sq, ep.providerWord, &w);
  nic::CompletionSpec s{};
  s.lastWqe = out[0];
  s.sqDepth = ep.sqDepth;
  nic::mlx5::writeCompletion(ep.cq, ep.cqDepth, out[1], s);
  nic::bnxt::writeCompletion(ep.cq, ep.cqDepth, out[1], s);
  nic::ionic::writeCompletion(ep.cq, ep.cqDepth, out[1], s);
  nic::mlx5::writeAtomicResult(out + 6, out[0], 4);
  nic::bnxt::writeAtomicResult(out + 6, out[0]);
  nic::ionic::writeAtomicResult(out + 6, out[0]);
  const nic::bnxt::Doorbell db = nic::bnxt::decodeDoorbell(out[4]);
  const nic::ionic::Doorbell idb = nic::ionic::decodeDoorbell(out[4]);
  const nic::bnxt::PsnEntry pe = nic::bnxt::readPsnEntry(ep.sq, 0, ep.providerWord != 0);
  out[5] = ok + w.bytes + db.index + idb.index + pe.nextPsn + nic::mlx5::sqProducer(ep.sqDbrec) +
           nic::mlx5::doorbellWqeIndex(out[4]);
}

// Keeps the kernel referenced from host code in every build.
TEST(RdmaFormatsDevice, ProviderEntryPointsCompileForTheDevice) {
  const void* kernel = reinterpret_cast<const void*>(&rdmaFormatsDeviceCompileCheck);
  EXPECT_NE(kernel, nullptr);
}

}  // namespace mori::test::formats
