#include "transport/rdma/mlx5/mlx5_prm.hpp"

#include <string.h>

namespace mori::rdma::mlx5 {
namespace {

uint32_t loadBe32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

void storeBe32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

// A field of up to 32 bits within one dword: bit 0 of the structure is the MSB of dword 0.
void setInDword(uint8_t* buf, uint32_t bit, uint32_t width, uint32_t value) {
  uint8_t* dw = buf + (bit / 32) * 4;
  const uint32_t shift = 32 - (bit % 32) - width;
  const uint32_t mask = (width == 32 ? 0xffffffffu : ((1u << width) - 1)) << shift;
  storeBe32(dw, (loadBe32(dw) & ~mask) | ((value << shift) & mask));
}

uint32_t getInDword(const uint8_t* buf, uint32_t bit, uint32_t width) {
  const uint32_t shift = 32 - (bit % 32) - width;
  const uint32_t mask = width == 32 ? 0xffffffffu : ((1u << width) - 1);
  return (loadBe32(buf + (bit / 32) * 4) >> shift) & mask;
}

}  // namespace

void prmSet(uint8_t* buf, PrmField f, uint64_t value) {
  if (f.width == 64) {  // dword-aligned: high dword first
    setInDword(buf, f.bit, 32, static_cast<uint32_t>(value >> 32));
    setInDword(buf, f.bit + 32, 32, static_cast<uint32_t>(value));
    return;
  }
  setInDword(buf, f.bit, f.width, static_cast<uint32_t>(value));
}

uint64_t prmGet(const uint8_t* buf, PrmField f) {
  if (f.width == 64) return (uint64_t{getInDword(buf, f.bit, 32)} << 32) | getInDword(buf, f.bit + 32, 32);
  return getInDword(buf, f.bit, f.width);
}

void prmSetBytes(uint8_t* buf, PrmField f, const uint8_t* bytes, size_t n) { memcpy(buf + f.bit / 8, bytes, n); }

}  // namespace mori::rdma::mlx5
