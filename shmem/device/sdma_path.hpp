// SHMEM operations on an SDMA peer (device library only). The table gives SDMA to same-node peers
// whose memory this PE maps; the engines copy through that mapping (mori/transport/sdma/sdma_ops.hpp
// posts their packets). What goes where:
//   put                    at least GpuStates::sdmaMinBytes: the peer's SDMA queues; smaller: P2P
//                          stores, as on a P2P peer
//   get                    at least sdmaMinBytes: the engine copies peer -> local and the scope
//                          waits for it (blocking even in the nbi form); smaller: P2P loads
//   signals                unordered (signal_op), or ordered with the peer's queues idle: a P2P
//                          atomic; ordered behind copies still in the engines (put-with-signal, the
//                          barrier): posted to an engine queue, applied after those copies
//   p, g, atomics          P2P (one packet costs far more than one store)
//   quiet / fence          every SDMA queue (all peers, or one), besides the RDMA endpoints
// The size test for put and get is in mori_shmemi_p2p_window (rma_general.cpp): below the
// threshold the inline caller copies through the window itself.
#pragma once

#include "mori/shmem/impl/operations.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"
#include "shmem/device/general_path.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

MORI_DEVICE_INLINE bool sdmaTakes(const GpuStates& s, size_t bytes) { return bytes >= s.sdmaMinBytes; }

// Every SDMA wait reads the runtime's abort word (the device error record), as the P2P and RDMA
// waits do: a dead peer never hangs one.
MORI_DEVICE_INLINE sdma::AbortRecord sdmaAbort(const GpuStates& s) { return s.errorRecord; }

// Blocking forms wait for the peer's queues: the source may be reused on return.
template <class S>
MORI_LIB_NOINLINE void sdmaPut(const GpuStates& s, const Region& dr, void* dest, const void* src, size_t bytes, int pe,
                               bool blocking) {
  const sdma::SdmaPeerDevice& p = s.sdmaPeers[pe];
  sdma::put<S>(p, p2pAddress(s, dr, pe, dest), src, bytes, sdmaAbort(s));
  if (blocking) sdma::quiet<S>(p, sdmaAbort(s));
}

template <class S>
MORI_LIB_NOINLINE void sdmaGet(const GpuStates& s, const Region& sr, void* dest, const void* src, size_t bytes,
                               int pe) {
  sdma::get<S>(s.sdmaPeers[pe], dest, p2pAddress(s, sr, pe, src), bytes, sdmaAbort(s));
}

// A signal to an SDMA peer, from one thread: unordered (signal_op), or ordered with nothing
// outstanding on the peer's queues, a P2P atomic; ordered behind copies still in the engines,
// the engine applies it after them (sdma::signalAfterCopies).
inline MORI_LIB_NOINLINE void sdmaSignal(const GpuStates& s, uint64_t* remote, uint64_t value, SignalOp op, int pe,
                                         bool ordered) {
  const sdma::SdmaPeerDevice& p = s.sdmaPeers[pe];
  if (!ordered || sdma::idle(p)) return p2pSignal(remote, value, op, ordered);
  sdma::signalAfterCopies(p, remote, value, op == SignalOp::Set ? sdma::AtomicOp::Swap64 : sdma::AtomicOp::Add64,
                          sdmaAbort(s));
}

// Every SDMA queue of this PE, divided among the scope's threads (every thread calls).
template <class S>
MORI_DEVICE_INLINE void sdmaQuietAll(const GpuStates& s) {
  if (s.sdmaPeers != nullptr) sdma::quietAll<S>(s.sdmaPeers, s.nPes, sdmaAbort(s));
}

MORI_DEVICE_INLINE void sdmaQuietPe(const GpuStates& s, int pe) {
  if (s.sdmaPeers != nullptr && s.sdmaPeers[pe].count != 0) sdma::quiet<ThreadScope>(s.sdmaPeers[pe], sdmaAbort(s));
}

}  // namespace mori::shmem::impl
#endif
