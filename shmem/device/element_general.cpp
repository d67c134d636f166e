// General paths of the single-element operations (device library): p, g, atomics and signals
// to registered regions, PEs past the inline window and RDMA peers, and their errors. Values
// travel as their low `bytes` bytes.
#include "mori/shmem/impl/operations.hpp"
#include "shmem/device/general_path.hpp"
#include "shmem/device/rdma_ops.hpp"
#include "shmem/device/sdma_path.hpp"

namespace mori::shmem::impl {
namespace {

template <typename T>
MORI_DEVICE_INLINE T* at(void* p) {
  return static_cast<T*>(p);
}

MORI_DEVICE_INLINE void p2pPBytes(void* remote, uint64_t value, uint32_t bytes) {
  switch (bytes) {
    case 1: p2pP(at<uint8_t>(remote), static_cast<uint8_t>(value)); break;
    case 2: p2pP(at<uint16_t>(remote), static_cast<uint16_t>(value)); break;
    case 4: p2pP(at<uint32_t>(remote), static_cast<uint32_t>(value)); break;
    default: p2pP(at<uint64_t>(remote), value); break;
  }
}

MORI_DEVICE_INLINE uint64_t p2pGBytes(const void* remote, uint32_t bytes) {
  switch (bytes) {
    case 1: return p2pG(static_cast<const uint8_t*>(remote));
    case 2: return p2pG(static_cast<const uint16_t*>(remote));
    case 4: return p2pG(static_cast<const uint32_t*>(remote));
    default: return p2pG(static_cast<const uint64_t*>(remote));
  }
}

template <typename T>
MORI_DEVICE_INLINE T amoGeneral(const GpuStates& s, Amo op, T* dest, T value, T cond, int pe, int qp, bool fetch) {
  checkPe(s, pe);
  const Region& r = regionOf(s, dest, sizeof(T), pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P:  // single elements to an SDMA peer are P2P too (sdma_path.hpp)
    case Transport::Sdma: return p2pAmo(op, p2pAddress(s, r, pe, dest), value, cond, fetch);
    case Transport::Rdma: return rdmaAmo(s, r, op, dest, value, cond, pe, qp, fetch);
    default: failTransport(s, pe, "atomic");
  }
}

}  // namespace
}  // namespace mori::shmem::impl

using namespace mori::shmem;
using namespace mori::shmem::impl;

extern "C" MORI_LIB_NOINLINE void mori_shmemi_p(void* dest, uint64_t value, uint32_t bytes, int pe, int qp) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, dest, bytes, pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P:  // single elements to an SDMA peer are P2P too (sdma_path.hpp)
    case Transport::Sdma: return p2pPBytes(p2pAddress(s, r, pe, dest), value, bytes);
    case Transport::Rdma: return rdmaP(s, r, dest, value, bytes, pe, qp);
    default: failTransport(s, pe, "p");
  }
}

extern "C" MORI_LIB_NOINLINE uint64_t mori_shmemi_g(const void* src, uint32_t bytes, int pe, int qp) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, src, bytes, pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P:  // single elements to an SDMA peer are P2P too (sdma_path.hpp)
    case Transport::Sdma: return p2pGBytes(p2pAddress(s, r, pe, src), bytes);
    case Transport::Rdma: return rdmaG(s, r, src, bytes, pe, qp);
    default: failTransport(s, pe, "g");
  }
}

extern "C" MORI_LIB_NOINLINE uint64_t mori_shmemi_amo(uint32_t op, void* dest, uint64_t value, uint64_t cond,
                                                      uint32_t bytes, int pe, int qp, int fetch) {
  const GpuStates& s = libStates();
  const Amo o = static_cast<Amo>(op);
  if (bytes == 4)
    return amoGeneral<uint32_t>(s, o, static_cast<uint32_t*>(dest), static_cast<uint32_t>(value),
                                static_cast<uint32_t>(cond), pe, qp, fetch != 0);
  return amoGeneral<uint64_t>(s, o, static_cast<uint64_t*>(dest), value, cond, pe, qp, fetch != 0);
}

extern "C" MORI_LIB_NOINLINE void mori_shmemi_signal(uint64_t* sig, uint64_t value, int op, int pe, int qp,
                                                     int ordered) {
  const GpuStates& s = libStates();
  checkPe(s, pe);
  const Region& r = regionOf(s, sig, sizeof(uint64_t), pe);
  switch (transportTo(s, pe)) {
    case Transport::P2P: return p2pSignal(p2pAddress(s, r, pe, sig), value, static_cast<SignalOp>(op), ordered != 0);
    case Transport::Sdma:
      return sdmaSignal(s, p2pAddress(s, r, pe, sig), value, static_cast<SignalOp>(op), pe, ordered != 0);
    case Transport::Rdma: return rdmaSignal(s, r, sig, value, static_cast<SignalOp>(op), pe, qp);
    default: failTransport(s, pe, "signal_op");
  }
}
