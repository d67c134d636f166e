// mori_shmem_my_pe / n_pes / ptr for GPU compilers: one name, callable from host and device
// code. The host path calls the runtime (mori_shmemi_*); the device path reads this module's
// GpuStates (mori_shmem_device_states). Plain C/C++ compilers see ordinary host functions (mori/shmem.h).
#pragma once

#include "mori/shmem/impl/address.hpp"
#include "mori/shmem/impl/device_library.hpp"

static __host__ __device__ inline int mori_shmem_my_pe(void) {
#if MORI_DEVICE_COMPILE
  return mori::shmem::impl::states().myPe;
#else
  return mori_shmemi_my_pe();
#endif
}

static __host__ __device__ inline int mori_shmem_n_pes(void) {
#if MORI_DEVICE_COMPILE
  return mori::shmem::impl::states().nPes;
#else
  return mori_shmemi_n_pes();
#endif
}

// Load/store address of `pe`'s copy of the symmetric object `dest`, or NULL when `pe` is not
// mapped (RDMA peers) or dest is not symmetric. SDMA peers are mapped: their engines copy
// through the same mapping.
static __host__ __device__ inline void* mori_shmem_ptr(const void* dest, int pe) {
#if MORI_DEVICE_COMPILE
  namespace impl = mori::shmem::impl;
  const mori::shmem::GpuStates& s = impl::states();
  if (pe < 0 || pe >= s.nPes) return nullptr;
  const mori::shmem::Transport t = impl::transportTo(s, pe);
  if (t != mori::shmem::Transport::P2P && t != mori::shmem::Transport::Sdma) return nullptr;
  const mori::shmem::Region* r = impl::localRegion(s, dest);
  return r ? impl::p2pAddress(s, *r, pe, const_cast<void*>(dest)) : nullptr;
#else
  return mori_shmemi_ptr(dest, pe);
#endif
}
