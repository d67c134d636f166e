#include "tests/support/nic_model/host_mapped.hpp"

#include <string.h>

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/gpu_check.hpp"

namespace mori::test::nicmodel {

Status HostMapped::create(size_t bytes) {
  unsigned flags = hipHostMallocMapped | hipHostMallocPortable;
#if MORI_PLATFORM_AMD
  // Coherent (uncached on the GPU): the model kernel polls words another kernel of the same GPU
  // stores, and the host reads what the model stores.
  flags |= hipHostMallocCoherent;
#endif
  MORI_HIP_TRY(hipHostMalloc(&host_, bytes, flags), log::kRdma);
  memset(host_, 0, bytes);
  MORI_HIP_TRY(hipHostGetDevicePointer(&device_, host_, 0), log::kRdma);
  return Status::Success;
}

HostMapped::~HostMapped() {
  if (host_) (void)hipHostFree(host_);
}

}  // namespace mori::test::nicmodel
