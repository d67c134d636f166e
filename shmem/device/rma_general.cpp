// General paths of put and get (device library): the P2P window of registered regions and of PEs
// past the inline window, RDMA and SDMA puts and gets, and their errors.
#include "mori/shmem/impl/operations.hpp"
#include "shmem/device/general_path.hpp"
#include "shmem/device/rdma_ops.hpp"
#include "shmem/device/sdma_path.hpp"

namespace mori::shmem::impl {
namespace {

// RDMA and SDMA: the inline caller took every P2P target (mori_shmemi_p2p_window), SDMA ones
// below the size threshold included.
template <class S>
MORI_DEVICE_INLINE void putEngine(void* dest, const void* src, size_t bytes, int pe, int qp, bool blocking) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, dest, bytes, pe);
  switch (transportTo(s, pe)) {
    case Transport::Rdma: return rdmaPut<S>(s, r, dest, src, bytes, pe, qp, blocking);
    case Transport::Sdma: return sdmaPut<S>(s, r, dest, src, bytes, pe, blocking);
    default: failTransport(s, pe, "put");
  }
}

template <class S>
MORI_DEVICE_INLINE void getEngine(void* dest, const void* src, size_t bytes, int pe, int qp, bool blocking) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, src, bytes, pe);
  switch (transportTo(s, pe)) {
    case Transport::Rdma: return rdmaGet<S>(s, r, dest, src, bytes, pe, qp, blocking);
    case Transport::Sdma: return sdmaGet<S>(s, r, dest, src, bytes, pe);
    default: failTransport(s, pe, "get");
  }
}

}  // namespace
}  // namespace mori::shmem::impl

using namespace mori::shmem;
using namespace mori::shmem::impl;

#define MORI_SHMEMI_RMA_GENERAL(SC, S)                                                                              \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_put_##SC(void* dest, const void* src, size_t bytes, int pe, int qp, \
                                                         int blocking) {                                            \
    putEngine<S>(dest, src, bytes, pe, qp, blocking != 0);                                                          \
  }                                                                                                                 \
  extern "C" MORI_LIB_NOINLINE void mori_shmemi_get_##SC(void* dest, const void* src, size_t bytes, int pe, int qp, \
                                                         int blocking) {                                            \
    getEngine<S>(dest, src, bytes, pe, qp, blocking != 0);                                                          \
  }
MORI_SHMEMI_RMA_GENERAL(thread, ThreadScope)
MORI_SHMEMI_RMA_GENERAL(warp, WarpScope)
MORI_SHMEMI_RMA_GENERAL(block, BlockScope)

extern "C" MORI_LIB_NOINLINE void* mori_shmemi_p2p_window(const void* addr, size_t bytes, int pe) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, addr, bytes, pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P: return p2pAddress(s, r, pe, const_cast<void*>(addr));
    case Transport::Rdma: return nullptr;
    case Transport::Sdma: return sdmaTakes(s, bytes) ? nullptr : p2pAddress(s, r, pe, const_cast<void*>(addr));
    default: failTransport(s, pe, "put/get");
  }
}
