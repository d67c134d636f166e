// mori_shmem_global_exit for GPU compilers: one name, callable from host and device code. The host
// path is the runtime's (mori_shmemi_global_exit); the device path writes the request the
// runtime's peer monitor polls (mori_shmemi_global_exit_device, the device library). Plain C/C++
// compilers see the host function (mori/shmem.h).
#pragma once

#include "mori/shmem/impl/device_library.hpp"

[[noreturn]] static __host__ __device__ inline void mori_shmem_global_exit(int status) {
#if MORI_DEVICE_COMPILE
  mori_shmemi_global_exit_device(status);
#else
  mori_shmemi_global_exit(status);
#endif
}
