// Team creation logic without a runtime: strided and 2-D split arithmetic and argument checks,
// the verdict every parent PE draws from the exchanged records (identical text on every PE),
// common free slots, strided detection and translation, the P2P clique verdict.
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <set>

#include "shmem/team_logic.hpp"

using namespace mori::shmem::team;

namespace {

SplitRecord record(int worldPe, int start, int stride, int size, uint32_t freeSlots = ~0u) {
  SplitRecord r;
  memset(&r, 0, sizeof(r));
  r.magic = kSplitMagic;
  r.kind = static_cast<int32_t>(SplitKind::Strided);
  r.sequence = 1;
  r.start = start;
  r.stride = stride;
  r.size = size;
  r.contexts[0] = r.contexts[1] = -1;
  r.freeSlots = freeSlots;
  r.localOk = 1;
  r.worldPe = worldPe;
  return r;
}

}  // namespace

// MORI_SHMEM_COLLECTIVE_ENTRY: the PEs' settings agree, or init fails on every PE naming PE 0's and
// the first differing PE's.
TEST(TeamLogic, EntrySettings) {
  EXPECT_TRUE(callerEntry("caller"));
  EXPECT_TRUE(callerEntry("CALLER"));
  EXPECT_FALSE(callerEntry("wait"));
  EXPECT_FALSE(callerEntry(""));
  EXPECT_EQ(entrySettingsDiffer({}), "");
  EXPECT_EQ(entrySettingsDiffer({0}), "");
  EXPECT_EQ(entrySettingsDiffer({1, 1, 1, 1}), "");
  EXPECT_EQ(entrySettingsDiffer({0, 0, 0}), "");
  const std::string a = entrySettingsDiffer({0, 0, 1, 0, 1});
  EXPECT_NE(a.find("MORI_SHMEM_COLLECTIVE_ENTRY differs between PEs: PE 0 has wait, PE 2 has caller"),
            std::string::npos)
      << a;
  const std::string b = entrySettingsDiffer({1, 0});
  EXPECT_NE(b.find("PE 0 has caller, PE 1 has wait"), std::string::npos) << b;
}

TEST(TeamLogic, StridedChecksNameTheBadArgument) {
  EXPECT_EQ(checkStrided(8, 0, 1, 8), "");
  EXPECT_EQ(checkStrided(8, 1, 2, 4), "");  // 1 3 5 7
  EXPECT_EQ(checkStrided(8, 7, 0, 1), "");  // one PE: any stride
  EXPECT_EQ(checkStrided(3, 0, 2, 2), "");  // 0 2
  EXPECT_NE(checkStrided(8, 0, 1, 0).find("size 0 must be at least 1"), std::string::npos);
  EXPECT_NE(checkStrided(8, 8, 1, 1).find("start 8 is not a PE of the parent team (0..7)"), std::string::npos);
  EXPECT_NE(checkStrided(8, -1, 1, 1).find("start -1"), std::string::npos);
  EXPECT_NE(checkStrided(8, 0, 0, 2).find("stride 0 must be at least 1"), std::string::npos);
  EXPECT_NE(checkStrided(8, 0, -1, 2).find("stride -1"), std::string::npos);
  EXPECT_NE(checkStrided(8, 1, 2, 5).find("= 9, is outside the parent team (8 PEs)"), std::string::npos);
  // No overflow on huge strides.
  EXPECT_NE(checkStrided(8, 1, 1 << 30, 4).find("outside the parent team"), std::string::npos);
  EXPECT_NE(check2d(4, 0).find("xrange 0 must be at least 1"), std::string::npos);
  EXPECT_EQ(check2d(4, 9), "");
}

// TEAM_SAME_MYPE_NODE: hosts of 2, 2 and 1 PEs (world order interleaved on purpose).
TEST(TeamLogic, SameIndexOnEveryHost) {
  const std::vector<std::string> hosts = {"a", "b", "a", "c", "b"};  // indices 0 0 1 0 1
  EXPECT_EQ(sameIndexOnEveryHost(hosts, 0), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(sameIndexOnEveryHost(hosts, 3), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(sameIndexOnEveryHost(hosts, 2), (std::vector<int>{2, 4}));
  EXPECT_EQ(sameIndexOnEveryHost(hosts, 4), (std::vector<int>{2, 4}));
  EXPECT_EQ(sameIndexOnEveryHost({"h", "h", "h"}, 1), (std::vector<int>{1}));  // one host: this PE alone
  EXPECT_EQ(sameIndexOnEveryHost({"x"}, 0), (std::vector<int>{0}));
}

TEST(TeamLogic, StridedMembers) {
  EXPECT_EQ(stridedMembers(1, 3, 3), (std::vector<int>{1, 4, 7}));
  EXPECT_EQ(stridedMembers(5, 0, 1), (std::vector<int>{5}));
}

// Every PE lies in exactly one row and one column; rows are contiguous, columns strided by
// xrange; every parent size and xrange, non-powers of two included.
TEST(TeamLogic, TwoDSplitCoversTheGrid) {
  for (int n = 1; n <= 13; ++n)
    for (int xr = 1; xr <= n + 2; ++xr) {
      const int cols = xr < n ? xr : n;
      std::vector<int> rowCount(static_cast<size_t>(n), 0), colCount(static_cast<size_t>(n), 0);
      for (int me = 0; me < n; ++me) {
        std::vector<int> x, y;
        split2d(n, xr, me, &x, &y);
        ASSERT_GE(indexIn(x, me), 0) << n << " " << xr << " " << me;
        ASSERT_GE(indexIn(y, me), 0) << n << " " << xr << " " << me;
        EXPECT_EQ(x.front(), me / cols * cols);
        for (size_t i = 1; i < x.size(); ++i) EXPECT_EQ(x[i], x[i - 1] + 1);
        EXPECT_EQ(y.front(), me % cols);
        for (size_t i = 1; i < y.size(); ++i) EXPECT_EQ(y[i], y[i - 1] + cols);
        EXPECT_LT(y.back(), n);
        EXPECT_LE(static_cast<int>(x.size()), cols);
        // Members agree on their team: every member of my row computes the same row.
        for (int other : x) {
          std::vector<int> ox, oy;
          split2d(n, xr, other, &ox, &oy);
          EXPECT_EQ(ox, x);
        }
        for (int other : y) {
          std::vector<int> ox, oy;
          split2d(n, xr, other, &ox, &oy);
          EXPECT_EQ(oy, y);
        }
      }
    }
}

TEST(TeamLogic, VerdictAgreesAndNamesTheFirstDifferingPe) {
  std::vector<SplitRecord> all{record(0, 0, 2, 2), record(2, 0, 2, 2), record(4, 0, 2, 2)};
  EXPECT_EQ(verdict(all, "split"), "");
  all[2].stride = 1;
  const std::string v = verdict(all, "mori_shmem_team_split_strided");
  EXPECT_NE(v.find("parent PE 0 (world PE 0) called split_strided(start 0, stride 2, size 2, num_contexts -1) but "
                   "parent PE 2 (world PE 4) called split_strided(start 0, stride 1, size 2, num_contexts -1)"),
            std::string::npos)
      << v;
  // A PE making another call (2-D) or a later split.
  all[2] = record(4, 0, 2, 2);
  all[1].kind = static_cast<int32_t>(SplitKind::TwoD);
  EXPECT_NE(verdict(all, "x").find("parent PE 1 (world PE 2) called split_2d"), std::string::npos);
  all[1] = record(2, 0, 2, 2);
  all[1].sequence = 2;
  EXPECT_NE(verdict(all, "x").find("its split #2 from this parent, PE 0's #1"), std::string::npos);
  all[1] = record(2, 0, 2, 2);
  all[1].localOk = 0;
  EXPECT_NE(verdict(all, "x").find("parent PE 1 (world PE 2) rejected the call"), std::string::npos);
  all[1] = record(2, 0, 2, 2);
  all[0].magic = 0;
  EXPECT_NE(verdict(all, "x").find("parent PE 0 (world PE 0) sent no valid record"), std::string::npos);
}

// The verdict is a function of the records alone: any PE evaluating the same records (random
// disagreements) prints the same text.
TEST(TeamLogic, VerdictIsTheSameOnEveryPe) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 9);
    std::vector<SplitRecord> all;
    for (int pe = 0; pe < n; ++pe) all.push_back(record(pe, 0, 1, n));
    if (rng() % 2) all[rng() % n].size = static_cast<int32_t>(rng() % 5);
    const std::vector<SplitRecord> copy = all;
    EXPECT_EQ(verdict(all, "c"), verdict(copy, "c"));
  }
}

TEST(TeamLogic, CommonFreeSlots) {
  std::vector<SplitRecord> all{record(0, 0, 1, 2, 0xfffffff0u), record(1, 0, 1, 2, 0xffffffe8u)};
  EXPECT_EQ(commonFreeSlots(all, 1, 3), (std::vector<int>{5}));
  EXPECT_EQ(commonFreeSlots(all, 2, 3), (std::vector<int>{5, 6}));
  all[0].freeSlots = 0x7u;
  EXPECT_TRUE(commonFreeSlots(all, 1, 3).empty());
  all[0].freeSlots = 0x80000000u;
  all[1].freeSlots = 0x80000000u;
  EXPECT_EQ(commonFreeSlots(all, 1, 3), (std::vector<int>{31}));
  EXPECT_TRUE(commonFreeSlots(all, 2, 3).empty());
}

TEST(TeamLogic, StridedDetectionAndTranslation) {
  int start = -1, stride = -1;
  EXPECT_TRUE(asStrided({3}, &start, &stride));
  EXPECT_EQ(start, 3);
  EXPECT_EQ(stride, 1);
  EXPECT_TRUE(asStrided({1, 4, 7}, &start, &stride));
  EXPECT_EQ(start, 1);
  EXPECT_EQ(stride, 3);
  EXPECT_FALSE(asStrided({0, 1, 3}, &start, &stride));
  EXPECT_FALSE(asStrided({4, 2}, &start, &stride));
  EXPECT_FALSE(asStrided({}, &start, &stride));
  // Translation through world PEs: member i of a (1, 3) team of a 10-PE world, into (0, 1).
  const std::vector<int> a = stridedMembers(1, 3, 3), world = stridedMembers(0, 1, 10);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(indexIn(world, a[static_cast<size_t>(i)]), 1 + 3 * i);
  EXPECT_EQ(indexIn(a, 2), -1);
}

// The transport rows of 3 PEs of which 0 and 1 have copy engines (the SDMA size policy): they reach
// every other PE by SDMA, PE 2 reaches them by P2P. A team is a clique only where every member's
// row says P2P to every member, so PE 2 judges {0, 2} as PE 0 does although its own row says P2P.
TEST(TeamLogic, P2pCliqueFromEveryMembersRow) {
  const int n = 3;
  const std::vector<uint8_t> pairs = {1, 0, 0,   // PE 0: itself by P2P, PEs 1 and 2 by SDMA
                                      0, 1, 0,   // PE 1
                                      1, 1, 1};  // PE 2: no engines, every PE by P2P
  EXPECT_FALSE(p2pClique(pairs, n, {0, 1, 2}));
  EXPECT_FALSE(p2pClique(pairs, n, {0, 2}));
  EXPECT_FALSE(p2pClique(pairs, n, {2, 1}));
  EXPECT_FALSE(p2pClique(pairs, n, {0, 1}));
  for (int pe = 0; pe < n; ++pe) EXPECT_TRUE(p2pClique(pairs, n, {pe})) << "PE " << pe << " alone";
  // Every pair P2P but PE 3's row, which reaches PE 1 by RDMA: teams holding both 1 and 3 are not
  // cliques, the others are.
  std::vector<uint8_t> four(16, 1);
  four[3 * 4 + 1] = 0;
  EXPECT_TRUE(p2pClique(four, 4, {0, 1, 2}));
  EXPECT_TRUE(p2pClique(four, 4, {0, 2, 3}));
  EXPECT_FALSE(p2pClique(four, 4, {1, 3}));
  EXPECT_FALSE(p2pClique(four, 4, {0, 1, 2, 3}));
}
