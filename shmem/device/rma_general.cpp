// General paths of put and get (device library): the P2P window of registered regions and of PEs
// past the inline window, RDMA puts and gets, and their errors.
#include "mori/shmem/impl/operations.hpp"
#include "shmem/device/general_path.hpp"
#include "shmem/device/rdma_ops.hpp"

namespace mori::shmem::impl {
namespace {

// RDMA only: the inline caller took every P2P target (mori_shmemi_p2p_window).
template <class S>
MORI_DEVICE_INLINE void putRdma(void* dest, const void* src, size_t bytes, int pe, int qp, bool blocking) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, dest, bytes, pe);
  if (transportTo(s, pe) != Transport::Rdma) failTransport(s, pe, "put");
  rdmaPut<S>(s, r, dest, src, bytes, pe, qp, blocking);
}

template <class S>
MORI_DEVICE_INLINE void getRdma(void* dest, const void* src, size_t bytes, int pe, int qp, bool blocking) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, src, bytes, pe);
  if (transportTo(s, pe) != Transport::Rdma) failTransport(s, pe, "get");
  rdmaGet<S>(s, r, dest, src, bytes, pe, qp, blocking);
}

}  // namespace
}  // namespace mori::shmem::impl

using namespace mori::shmem;
using namespace mori::shmem::impl;

#define MORI_SHMEMI_RMA_GENERAL(SC, S)                                                                            \
  extern "C" __device__ __noinline__ void mori_shmemi_put_##SC(void* dest, const void* src, size_t bytes, int pe, \
                                                               int qp, int blocking) {                            \
    putRdma<S>(dest, src, bytes, pe, qp, blocking != 0);                                                          \
  }                                                                                                               \
  extern "C" __device__ __noinline__ void mori_shmemi_get_##SC(void* dest, const void* src, size_t bytes, int pe, \
                                                               int qp, int blocking) {                            \
    getRdma<S>(dest, src, bytes, pe, qp, blocking != 0);                                                          \
  }
MORI_SHMEMI_RMA_GENERAL(thread, ThreadScope)
MORI_SHMEMI_RMA_GENERAL(warp, WarpScope)
MORI_SHMEMI_RMA_GENERAL(block, BlockScope)

extern "C" __device__ __noinline__ void* mori_shmemi_p2p_window(const void* addr, size_t bytes, int pe) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, addr, bytes, pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P: return p2pAddress(s, r, pe, const_cast<void*>(addr));
    case Transport::Rdma: return nullptr;
    default: failTransport(s, pe, "put/get");
  }
}
