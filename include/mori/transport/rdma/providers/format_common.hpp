// What the three provider formats share: building a WQE image in registers and copying it into
// its send-queue slot, loading the ownership word of a completion entry, and reporting a work
// request that violates the provider contract. Internal to providers/.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mori/platform/atomic.hpp"
#include "mori/platform/bits.hpp"
#include "mori/platform/device.hpp"
#include "mori/platform/mmio.hpp"

namespace mori::rdma::detail {

// A WQE is assembled in a local, zero-initialised image of whole 16-byte chunks (so reserved
// fields are zero) and copied out with 16-byte stores: the slot is aligned to its stride.
struct alignas(16) Chunk16 {
  uint64_t lo;
  uint64_t hi;
};
static_assert(sizeof(Chunk16) == 16, "one 16-byte store");

template <typename T>
MORI_HOST_DEVICE_INLINE void putAt(void* image, uint32_t offset, const T& field) {
  __builtin_memcpy(static_cast<unsigned char*>(image) + offset, &field, sizeof(T));
}

template <typename T>
MORI_HOST_DEVICE_INLINE T getAt(const void* bytes, uint32_t offset) {
  T v;
  __builtin_memcpy(&v, static_cast<const unsigned char*>(bytes) + offset, sizeof(T));
  return v;
}

// Copies the first `chunks` 16-byte chunks of `image` into `slot`.
MORI_HOST_DEVICE_INLINE void copyChunks(void* slot, const void* image, uint32_t chunks) {
  const unsigned char* src = static_cast<const unsigned char*>(image);
  Chunk16* dst = static_cast<Chunk16*>(slot);
  for (uint32_t i = 0; i < chunks; ++i) {
    Chunk16 c;
    __builtin_memcpy(&c, src + 16 * i, sizeof(c));
    dst[i] = c;
  }
}

// Little-endian host and device (mori/platform/bits.hpp): these are plain stores.
MORI_HOST_DEVICE_INLINE uint16_t toLe16(uint16_t v) { return v; }
MORI_HOST_DEVICE_INLINE uint32_t toLe32(uint32_t v) { return v; }
MORI_HOST_DEVICE_INLINE uint64_t toLe64(uint64_t v) { return v; }

// Loads the 4-byte word of a completion entry that holds its ownership bit, before any other
// byte of the entry: the NIC writes that word last, so what is read after it is complete.
MORI_HOST_DEVICE_INLINE uint32_t loadOwnerWord(const void* p) {
#if MORI_DEVICE_COMPILE
  return gpu::atomicLoad<gpu::Order::Acquire, gpu::Scope::System>(static_cast<const uint32_t*>(p));
#else
  return __atomic_load_n(static_cast<const uint32_t*>(p), __ATOMIC_ACQUIRE);
#endif
}

// A work request the provider cannot express (a caller bug: the mechanism checks the provider's
// constants first). Device: prints and traps. Host (tests, the NIC model): prints and aborts.
[[noreturn]] MORI_HOST_DEVICE_INLINE void contractViolation(const char* provider, const char* what,
                                                            unsigned long long value) {
#if MORI_DEVICE_COMPILE
  printf("mori-shmem: %s WQE: %s (0x%llx)\n", provider, what, value);
  gpu::trap();
#else
  fprintf(stderr, "mori-shmem: %s WQE: %s (0x%llx)\n", provider, what, value);
  abort();
#endif
}

// True in the second, fourth, ... pass over a ring of `depth` (a power of two) entries.
MORI_HOST_DEVICE_INLINE uint32_t oddPass(uint64_t index, uint32_t depth) { return (index & depth) ? 1u : 0u; }

}  // namespace mori::rdma::detail
