// How the runtime reaches its own kernels: the launch functions of device_ops.cpp,
// stream_rma_kernels.cpp and team_kernels.cpp, the object library mori_shmem_kernels.
// libmori_shmem and the GPU tests of internals link them. The host tests of internals link the
// runtime's other objects alone and so need no device link (on AMD, that link compiled the whole
// device library again for every test: ~35 of its ~38 s). The runtime declares each launch
// function weak (MORI_RUNTIME_KERNEL): such a program links, and a launch there fails naming the
// call (Runtime::launch) instead of jumping to address 0.
#pragma once

#include "src/common/status.hpp"

#define MORI_RUNTIME_KERNEL __attribute__((weak))

namespace mori::shmem {

// The failure of a launch in a program linked without the runtime's kernels: NotSupported,
// logged naming `call`.
Status kernelsNotLinked(const char* call);

}  // namespace mori::shmem
