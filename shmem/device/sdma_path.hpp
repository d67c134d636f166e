// SHMEM operations on an SDMA peer (device library only). The table gives SDMA to same-node peers
// whose memory this PE maps; the engines copy through that mapping (mori/transport/sdma/sdma_ops.hpp
// posts their packets). What goes where:
//   put, put-with-signal   at least GpuStates::sdmaMinBytes: the peer's SDMA queues (put-with-signal:
//                          the copy and its signal in one queue, so the engine applies the signal
//                          after the data); smaller: P2P stores, as on a P2P peer
//   get                    at least sdmaMinBytes: the engine copies peer -> local and the scope
//                          waits for it (blocking even in the nbi form); smaller: P2P loads
//   p, g, atomics, signals P2P (one packet costs far more than one store); an ordered signal
//                          first completes the peer's queues (fence semantics)
//   quiet / fence          every SDMA queue (all peers, or one), besides the RDMA endpoints
// The size test for put and get is in mori_shmemi_p2p_window (rma_general.cpp): below the
// threshold the inline caller copies through the window itself.
#pragma once

#include "mori/shmem/impl/operations.hpp"
#include "mori/transport/sdma/sdma_ops.hpp"

#if MORI_GPU_COMPILER
namespace mori::shmem::impl {

MORI_DEVICE_INLINE bool sdmaTakes(const GpuStates& s, size_t bytes) { return bytes >= s.sdmaMinBytes; }

// Blocking forms wait for the peer's queues: the source may be reused on return.
template <class S>
MORI_DEVICE_NOINLINE void sdmaPut(const GpuStates& s, const Region& dr, void* dest, const void* src, size_t bytes,
                                  int pe, bool blocking) {
  const sdma::SdmaPeerDevice& p = s.sdmaPeers[pe];
  sdma::put<S>(p, p2pAddress(s, dr, pe, dest), src, bytes);
  if (blocking) sdma::quiet<S>(p);
}

template <class S>
MORI_DEVICE_NOINLINE void sdmaGet(const GpuStates& s, const Region& sr, void* dest, const void* src, size_t bytes,
                                  int pe) {
  sdma::get<S>(s.sdmaPeers[pe], dest, p2pAddress(s, sr, pe, src), bytes);
}

// Put-with-signal: below the threshold, P2P stores and the ordered P2P signal (as the inline
// path does for a P2P peer).
template <class S>
MORI_DEVICE_NOINLINE void sdmaPutSignal(const GpuStates& s, const Region& dr, void* dest, const void* src, size_t bytes,
                                        uint64_t* sigRemote, uint64_t value, SignalOp op, int pe, bool blocking) {
  void* remote = p2pAddress(s, dr, pe, dest);
  const sdma::SdmaPeerDevice& p = s.sdmaPeers[pe];
  if (!sdmaTakes(s, bytes)) {
    scopeCopy<S>(remote, src, bytes);
    S::sync();
    if (S::rank() == 0) p2pSignal(sigRemote, value, op, true);
    S::sync();
    return;
  }
  sdma::putSignal<S>(p, remote, src, bytes, sigRemote, value,
                     op == SignalOp::Set ? sdma::AtomicOp::Swap64 : sdma::AtomicOp::Add64);
  if (blocking) sdma::quiet<S>(p);
}

// Every SDMA queue of this PE, divided among the scope's threads (every thread calls).
template <class S>
MORI_DEVICE_INLINE void sdmaQuietAll(const GpuStates& s) {
  if (s.sdmaPeers != nullptr) sdma::quietAll<S>(s.sdmaPeers, s.nPes);
}

MORI_DEVICE_INLINE void sdmaQuietPe(const GpuStates& s, int pe) {
  if (s.sdmaPeers != nullptr && s.sdmaPeers[pe].count != 0) sdma::quiet<ThreadScope>(s.sdmaPeers[pe]);
}

}  // namespace mori::shmem::impl
#endif
