// impl::copyElements (include/mori/shmem/impl/copy.hpp) on the CPU: every rank of a group calls it
// in turn, as the threads of a wave or a block do on the GPU, for group sizes of a wave (32, 64)
// and of blocks (256, 1024), skews from 0 to size - 1, 1, 2 or 4 loads in flight, wave and block
// mode, and element counts around the group size (none; the one-access path of at most one
// element per thread; the loop and its remainder), with one destination and with several (a
// fanout). Every destination element must be written exactly once, with its source's value, and
// nothing around the destination at all.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "mori/shmem/impl/copy.hpp"

namespace {

using mori::shmem::impl::copyElements;

// The write counts of the array being checked: [begin, end) and one count per cell.
struct WriteLog {
  const void* begin = nullptr;
  const void* end = nullptr;
  std::vector<int> writes;
};
WriteLog* gLog = nullptr;

// An element that counts the assignments made to it inside gLog's array.
struct Cell {
  uint64_t value = 0;
  MORI_HOST_DEVICE Cell& operator=(const Cell& o) {
    value = o.value;
#if !MORI_DEVICE_COMPILE
    if (gLog && this >= gLog->begin && this < gLog->end)
      ++gLog->writes[static_cast<size_t>(this - static_cast<const Cell*>(gLog->begin))];
#endif
    return *this;
  }
};

constexpr size_t kGuard = 37;  // cells before and after the destination

// `dests` destinations (1 + MoreDests), each with kGuard cells on both sides, in one array.
template <int kUnroll, bool kOneWave, int kMore = 0>
void checkOne(size_t n, int size, size_t skew, std::mt19937_64& rng, int dests = 1) {
  const size_t span = n + 2 * kGuard;  // one destination and its guards
  std::vector<Cell> src(n + 1), arr(span * static_cast<size_t>(dests));
  for (Cell& c : src) c.value = rng();
  for (Cell& c : arr) c.value = 0xdeadbeefdeadbeefull;
  WriteLog log;
  log.begin = arr.data();
  log.end = arr.data() + arr.size();
  log.writes.assign(arr.size(), 0);
  gLog = &log;
  Cell* dst = arr.data() + kGuard;
  mori::shmem::impl::MoreDests<kMore> more;
  if constexpr (kMore > 0) {
    more.n = dests - 1;
    for (int d = 1; d < dests; ++d) more.by[d - 1] = static_cast<ptrdiff_t>(span * d * sizeof(Cell));
  }
  for (int rank = 0; rank < size; ++rank) copyElements<kUnroll, kOneWave>(dst, src.data(), n, rank, size, skew, more);
  gLog = nullptr;
  const std::string where = "n " + std::to_string(n) + ", size " + std::to_string(size) + ", skew " +
                            std::to_string(skew) + ", kUnroll " + std::to_string(kUnroll) +
                            (kOneWave ? ", wave mode" : ", block mode") + ", " + std::to_string(dests) +
                            " destination(s)";
  for (size_t i = 0; i < arr.size(); ++i) {
    const size_t at = i % span, d = i / span;
    const bool inside = at >= kGuard && at < kGuard + n;
    if (inside) {
      ASSERT_EQ(log.writes[i], 1) << "destination " << d << " element " << at - kGuard << " written " << log.writes[i]
                                  << " times: " << where;
      ASSERT_EQ(arr[i].value, src[at - kGuard].value)
          << "destination " << d << " element " << at - kGuard << ": " << where;
    } else {
      ASSERT_EQ(log.writes[i], 0) << "destination " << d << " cell "
                                  << static_cast<long long>(at) - static_cast<long long>(kGuard)
                                  << " outside the destination written: " << where;
      ASSERT_EQ(arr[i].value, 0xdeadbeefdeadbeefull) << "cell outside the destination changed: " << where;
    }
  }
}

template <int kUnroll, bool kOneWave>
void sweep(std::mt19937_64& rng) {
  for (int size : {32, 64, 256, 1024}) {
    const size_t s = static_cast<size_t>(size);
    for (size_t skew : {size_t{0}, size_t{1}, size_t{7}, s / 2, s - 1}) {
      std::vector<size_t> counts = {0,         1,         s - skew - 1, s - skew,      s - skew + 1,    s - 1,
                                    s,         s + 1,     2 * s - 1,    2 * s,         3 * s + 5,       4 * s,
                                    4 * s + 1, 5 * s - 1, 7 * s + 3,    8 * s + s / 2, 9 * s + skew + 1};
      for (int r = 0; r < 3; ++r) counts.push_back(rng() % (12 * s));
      for (size_t n : counts) checkOne<kUnroll, kOneWave>(n, size, skew, rng);
    }
  }
}

TEST(CopyPositions, EveryElementExactlyOnceBlockMode) {
  std::mt19937_64 rng(0xc0b1);
  sweep<1, false>(rng);
  sweep<2, false>(rng);
  sweep<4, false>(rng);
}

TEST(CopyPositions, EveryElementExactlyOnceWaveMode) {
  std::mt19937_64 rng(0xc0b2);
  sweep<1, true>(rng);
  sweep<2, true>(rng);
  sweep<4, true>(rng);
  sweep<8, true>(rng);  // a wave's puts in the team collectives
}

// A fanout (MoreDests: a wave's fcollect push to its load/store members): every element of every
// destination written once with its source's value, nothing around any of them; 1 to 4
// destinations (no further one, then up to kMore), wave and block mode.
TEST(CopyPositions, FanoutWritesEveryDestinationExactlyOnce) {
  std::mt19937_64 rng(0xc0b3);
  for (int dests = 1; dests <= 4; ++dests)
    for (int size : {32, 256}) {
      const size_t s = static_cast<size_t>(size);
      for (size_t skew : {size_t{0}, size_t{5}, s - 1})
        for (size_t n : {size_t{0}, size_t{1}, s - skew, s + 1, 4 * s, 8 * s + 3, 17 * s + skew + 1,
                         static_cast<size_t>(rng() % (20 * s))}) {
          checkOne<8, true, 3>(n, size, skew, rng, dests);
          checkOne<4, false, 3>(n, size, skew, rng, dests);
        }
    }
}

// moreDestsAfterFirst: the other destinations as byte offsets from the first, below it as well as
// above (a wave's push groups its latest member first), none past n; a wave's copy through them
// writes every destination and nothing between them.
TEST(CopyPositions, MoreDestsAfterFirstReachEveryDestination) {
  using mori::shmem::impl::moreDestsAfterFirst;
  constexpr uint64_t kFill = 0xdeadbeefdeadbeefull;
  constexpr size_t kN = 1000, kGap = 40, kSpan = kN + kGap;
  std::mt19937_64 rng(0xc0b4);
  for (int dests = 1; dests <= 4; ++dests) {
    std::vector<uint64_t> src(kN), arr(kGap + 4 * kSpan, kFill);
    for (uint64_t& v : src) v = rng();
    char* to[4] = {};
    for (int k = 0; k < dests; ++k)  // descending: every offset negative
      to[k] = reinterpret_cast<char*>(arr.data() + kGap + kSpan * static_cast<size_t>(3 - k));
    const auto more = moreDestsAfterFirst(to, dests);
    ASSERT_EQ(more.n, dests - 1);
    for (int k = 1; k < 4; ++k)
      EXPECT_EQ(more.by[k - 1], k < dests ? to[k] - to[0] : 0) << "destination " << k << " of " << dests;
    for (int rank = 0; rank < 32; ++rank)
      copyElements<8, true>(reinterpret_cast<uint64_t*>(to[0]), src.data(), kN, rank, 32, 0, more);
    for (size_t i = 0; i < arr.size(); ++i) {
      const size_t at = (i - kGap) % kSpan, slot = 3 - (i - kGap) / kSpan;
      const bool inside = i >= kGap && at < kN && static_cast<int>(slot) < dests;
      ASSERT_EQ(arr[i], inside ? src[at] : kFill) << "cell " << i << " with " << dests << " destination(s)";
    }
  }
}

// The skew groups a wave's positions on whole 128-byte lines of the destination: each group of
// `size` consecutive positions starts on a line, and the skew is the destination's offset into
// its line (in elements) when smaller than the group, else 0.
TEST(CopyPositions, LineSkewIsTheOffsetIntoTheLine) {
  for (uintptr_t dst = 0x10000; dst < 0x10000 + 256; dst += 16)
    for (int size : {4, 8, 32, 1024}) {
      const size_t skew = mori::shmem::impl::lineSkew(dst, 4, size);
      const size_t offset = (dst & 127) >> 4;
      EXPECT_EQ(skew, offset < static_cast<size_t>(size) ? offset : 0) << "dst 0x" << std::hex << dst;
      if (skew) EXPECT_EQ((dst - skew * 16) & 127, 0u) << "dst 0x" << std::hex << dst;
    }
  for (uintptr_t dst = 0x20000; dst < 0x20000 + 128; dst += 4)
    EXPECT_EQ(mori::shmem::impl::lineSkew(dst, 2, 64), (dst & 127) >> 2);
}

}  // namespace
