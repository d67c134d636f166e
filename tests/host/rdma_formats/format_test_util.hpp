// Shared pieces of the provider-format tests: a reproducible random WqeDesc generator and an
// endpoint whose queues live in host memory.
#pragma once

#include <gtest/gtest.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <random>
#include <vector>

#include "mori/transport/rdma/device_host/endpoint.hpp"

namespace mori::test::formats {

using rdma::EndpointDevice;
using rdma::Provider;
using rdma::WqeDesc;
using rdma::WqeOp;

constexpr int kIterations = 5000;

// Seed of every randomised test: MORI_TEST_SEED if set, else fixed; printed so a failure can be
// replayed.
inline uint64_t testSeed(const char* test) {
  const char* env = getenv("MORI_TEST_SEED");
  const uint64_t seed = env ? strtoull(env, nullptr, 0) : 0x6d6f72692d726d61ull;
  printf("[%s] seed 0x%llx (set MORI_TEST_SEED to replay)\n", test, static_cast<unsigned long long>(seed));
  return seed;
}

constexpr WqeOp kAllOps[] = {WqeOp::Write,          WqeOp::WriteInline,       WqeOp::Read,
                             WqeOp::AtomicFetchAdd, WqeOp::AtomicCompareSwap, WqeOp::Nop};

inline const char* opName(WqeOp op) {
  switch (op) {
    case WqeOp::Write: return "Write";
    case WqeOp::WriteInline: return "WriteInline";
    case WqeOp::Read: return "Read";
    case WqeOp::AtomicFetchAdd: return "AtomicFetchAdd";
    case WqeOp::AtomicCompareSwap: return "AtomicCompareSwap";
    case WqeOp::Nop: return "Nop";
  }
  return "?";
}

struct DescGen {
  explicit DescGen(uint64_t seed) : rng(seed) {}
  std::mt19937_64 rng;
  uint8_t inlineBuf[256];

  uint64_t u64() { return rng(); }
  uint32_t u32() { return static_cast<uint32_t>(rng()); }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng() % n); }

  // A random length: often 0 or tiny, sometimes up to `max`.
  uint32_t length(uint32_t max) {
    switch (below(4)) {
      case 0: return below(2) ? 0 : 1;
      case 1: return below(max < 64 ? max + 1 : 65);
      case 2: return below(max + 1);
      default: return max;
    }
  }

  // A desc for `op`; the payload of WriteInline points into inlineBuf (valid until the next call).
  WqeDesc make(WqeOp op, uint32_t maxInline, uint32_t maxMessage, bool atomic32) {
    WqeDesc d{};
    d.op = op;
    d.signal = below(2);
    d.fence = below(2);
    d.localAddr = u64();
    d.remoteAddr = u64();
    d.lkey = u32();
    d.rkey = u32();
    switch (op) {
      case WqeOp::Write:
      case WqeOp::Read: d.bytes = length(maxMessage); break;
      case WqeOp::WriteInline:
        d.bytes = length(maxInline);
        for (auto& b : inlineBuf) b = static_cast<uint8_t>(rng());
        d.inlineData = inlineBuf;
        break;
      case WqeOp::AtomicFetchAdd:
      case WqeOp::AtomicCompareSwap:
        d.atomicBytes = atomic32 && below(2) ? 4 : 8;
        d.operand = u64();
        d.compare = u64();
        if (d.atomicBytes == 4) {
          d.operand &= 0xffffffffu;
          d.compare &= 0xffffffffu;
        }
        break;
      case WqeOp::Nop:
        d.localAddr = d.remoteAddr = 0;
        d.lkey = d.rkey = 0;
        break;
    }
    return d;
  }
};

// An endpoint whose SQ (plus `sqExtraBytes` after it) and CQ are host vectors.
struct HostEndpoint {
  std::vector<uint8_t> sqMem;
  std::vector<uint8_t> cqMem;
  rdma::EndpointState state{};
  EndpointDevice ep{};

  HostEndpoint(Provider p, uint32_t sqDepth, uint32_t slotBytes, uint32_t cqDepth, uint32_t cqeBytes,
               size_t sqExtraBytes = 0)
      : sqMem(static_cast<size_t>(sqDepth) * slotBytes + sqExtraBytes + 64),
        cqMem(static_cast<size_t>(cqDepth) * cqeBytes + 64) {
    ep.provider = p;
    ep.sq = align64(sqMem.data());
    ep.sqDepth = sqDepth;
    ep.sqSlotShift = 0;
    while ((1u << ep.sqSlotShift) < slotBytes) ++ep.sqSlotShift;
    ep.cq = align64(cqMem.data());
    ep.cqDepth = cqDepth;
    ep.state = &state;
  }
  uint8_t* slot(uint64_t idx) { return ep.sq + ((idx & (ep.sqDepth - 1)) << ep.sqSlotShift); }
  uint8_t* entry(uint64_t idx, uint32_t cqeBytes) { return ep.cq + (idx & (ep.cqDepth - 1)) * cqeBytes; }
  static uint8_t* align64(uint8_t* p) {
    return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
  }
};

}  // namespace mori::test::formats
