// Byte order and bit helpers usable in host and device code alike (NIC formats are big-endian).
#pragma once

#include <stdint.h>

#include "mori/platform/device.hpp"

namespace mori::gpu {

MORI_HOST_DEVICE_INLINE uint16_t bswap16(uint16_t v) { return static_cast<uint16_t>((v >> 8) | (v << 8)); }
MORI_HOST_DEVICE_INLINE uint32_t bswap32(uint32_t v) {
#if MORI_DEVICE_COMPILE && MORI_PLATFORM_NVIDIA
  return __byte_perm(v, 0, 0x0123);
#else
  return __builtin_bswap32(v);
#endif
}
MORI_HOST_DEVICE_INLINE uint64_t bswap64(uint64_t v) {
  return (static_cast<uint64_t>(bswap32(static_cast<uint32_t>(v))) << 32) | bswap32(static_cast<uint32_t>(v >> 32));
}
// Host-endian (little on every supported CPU and GPU) to big-endian and back.
MORI_HOST_DEVICE_INLINE uint16_t toBe16(uint16_t v) { return bswap16(v); }
MORI_HOST_DEVICE_INLINE uint32_t toBe32(uint32_t v) { return bswap32(v); }
MORI_HOST_DEVICE_INLINE uint64_t toBe64(uint64_t v) { return bswap64(v); }
MORI_HOST_DEVICE_INLINE uint16_t fromBe16(uint16_t v) { return bswap16(v); }
MORI_HOST_DEVICE_INLINE uint32_t fromBe32(uint32_t v) { return bswap32(v); }
MORI_HOST_DEVICE_INLINE uint64_t fromBe64(uint64_t v) { return bswap64(v); }

MORI_HOST_DEVICE_INLINE constexpr bool isPow2(uint64_t v) { return v && !(v & (v - 1)); }
MORI_HOST_DEVICE_INLINE constexpr uint32_t log2Pow2(uint64_t v) {
  uint32_t r = 0;
  while (v > 1) v >>= 1, ++r;
  return r;
}

}  // namespace mori::gpu
