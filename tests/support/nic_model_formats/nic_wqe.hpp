// The NIC's side of the provider formats, for the test-only NIC model: what a parsed WQE says,
// what a completion entry should report, and byte access helpers. Written independently of
// include/mori/transport/rdma/providers/ (straight from the published layouts, own constants,
// own byte order code) so that an encoder bug is caught, not mirrored. Host and device.
#pragma once

#include <stdint.h>

#include "mori/platform/atomic.hpp"
#include "mori/platform/device.hpp"
#include "mori/transport/rdma/device_host/endpoint.hpp"

namespace mori::test::nic {

using rdma::WqeOp;

constexpr uint32_t kMaxParsedInline = 128;

// A WQE as the NIC understands it, in host byte order.
struct ParsedWqe {
  WqeOp op;
  uint8_t signal;  // a completion entry is requested
  uint8_t fence;
  uint8_t atomicBytes;  // 4 or 8 for atomics, else 0
  uint32_t bytes;       // payload length (Write/WriteInline/Read), 0 for atomics and NOPs
  uint64_t localAddr;
  uint32_t lkey;
  uint64_t remoteAddr;
  uint32_t rkey;
  uint64_t operand;  // add value or swap value
  uint64_t compare;
  uint32_t wqeIndex;   // index carried inside the WQE (mlx5 ctrl, ionic base); ~0u where none
  uint32_t qpn;        // mlx5 ctrl qpn; ~0u where none
  uint32_t wireBytes;  // bytes of the slot the NIC reads for this WQE
  uint8_t color;       // ionic: the WQE's color flag
  uint8_t inlineData[kMaxParsedInline];
};

// What the NIC reports in a completion entry.
struct CompletionSpec {
  uint64_t lastWqe;      // monotonic index of the last WQE the entry completes
  uint32_t sqDepth;      // SQ ring size (bnxt reports positions modulo it)
  uint32_t qpn;          // QPN (bnxt: written as qp_handle, ionic: queue id)
  uint8_t error;         // write an error entry
  uint8_t status;        // error syndrome / status code
  uint8_t vendorStatus;  // mlx5 vendor syndrome
  uint8_t wqeOpcode;     // mlx5: opcode of the failed WQE (in s_wqe_opcode_qpn)
};

namespace bytes {

MORI_HOST_DEVICE_INLINE uint32_t u8(const void* p, uint32_t off) { return static_cast<const uint8_t*>(p)[off]; }
MORI_HOST_DEVICE_INLINE uint64_t be(const void* p, uint32_t off, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < n; ++i) v = v << 8 | u8(p, off + i);
  return v;
}
MORI_HOST_DEVICE_INLINE uint64_t le(const void* p, uint32_t off, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t i = n; i-- > 0;) v = v << 8 | u8(p, off + i);
  return v;
}
MORI_HOST_DEVICE_INLINE void putBe(void* p, uint32_t off, uint64_t v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) static_cast<uint8_t*>(p)[off + i] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
}
MORI_HOST_DEVICE_INLINE void putLe(void* p, uint32_t off, uint64_t v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) static_cast<uint8_t*>(p)[off + i] = static_cast<uint8_t>(v >> (8 * i));
}
MORI_HOST_DEVICE_INLINE void copy(void* dst, const void* src, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) static_cast<uint8_t*>(dst)[i] = static_cast<const uint8_t*>(src)[i];
}
MORI_HOST_DEVICE_INLINE void zero(void* dst, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) static_cast<uint8_t*>(dst)[i] = 0;
}

// Publishes a completion entry: every byte but the aligned 4-byte word holding the ownership bit
// is written already; `word` (its memory image) goes last, after a fence, so a poller that sees
// the new owner sees the whole entry — as a NIC writes it.
MORI_HOST_DEVICE_INLINE void publishWord(void* entry, uint32_t off, uint32_t word) {
  uint32_t* p = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(entry) + off);
#if MORI_DEVICE_COMPILE
  gpu::fenceSystem();
  gpu::atomicStore<gpu::Order::Release, gpu::Scope::System>(p, word);
#else
  __atomic_store_n(p, word, __ATOMIC_RELEASE);
#endif
}

}  // namespace bytes

MORI_HOST_DEVICE_INLINE void clearParsed(ParsedWqe* w) {
  bytes::zero(w, sizeof(*w));
  w->wqeIndex = ~0u;
  w->qpn = ~0u;
}

}  // namespace mori::test::nic
