// The transport settings every PE builds the whole table from (application/context/
// transport_table.hpp: TransportSettings): the same on every PE pass; a PE whose
// MORI_SHMEM_DISABLE_P2P, MORI_SHMEM_TRANSPORT, MORI_SHMEM_SDMA_MIN_BYTES or MORI_SHMEM_NUM_QP_PER_PE
// differs from PE 0's is named with both settings. Init gathers them and fails on every PE with that message
// (tests/gpu/test_symmetry_faults.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "application/context/transport_table.hpp"

namespace ctx = mori::context;

namespace {

ctx::TransportSettings settings(bool disableP2P, ctx::ForcedTransport forced, bool sdmaPolicy, int qpPerPe = 2) {
  ctx::TransportInputs in;
  in.disableP2P = disableP2P;
  in.forced = forced;
  in.sdmaPolicy = sdmaPolicy;
  return ctx::transportSettings(in, qpPerPe);
}

TEST(TransportSettings, AlikeOnEveryPePass) {
  const ctx::TransportSettings s = settings(false, ctx::ForcedTransport::Auto, false);
  EXPECT_EQ(ctx::transportSettingsDiffer({s}), "");
  EXPECT_EQ(ctx::transportSettingsDiffer({s, s, s, s}), "");
  const ctx::TransportSettings t = settings(true, ctx::ForcedTransport::Rdma, true, 64);
  EXPECT_EQ(ctx::transportSettingsDiffer({t, t}), "");
}

TEST(TransportSettings, EachDifferenceNamesThePeAndBothSettings) {
  const ctx::TransportSettings base = settings(false, ctx::ForcedTransport::Auto, false);
  std::string why = ctx::transportSettingsDiffer({base, base, settings(true, ctx::ForcedTransport::Auto, false)});
  EXPECT_NE(why.find("PE 0 has MORI_SHMEM_DISABLE_P2P=0, MORI_SHMEM_TRANSPORT=auto, MORI_SHMEM_SDMA_MIN_BYTES 0"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("PE 2 has MORI_SHMEM_DISABLE_P2P=1"), std::string::npos) << why;
  why = ctx::transportSettingsDiffer({base, settings(false, ctx::ForcedTransport::Sdma, false)});
  EXPECT_NE(why.find("PE 1 has MORI_SHMEM_DISABLE_P2P=0, MORI_SHMEM_TRANSPORT=sdma"), std::string::npos) << why;
  why = ctx::transportSettingsDiffer({base, settings(false, ctx::ForcedTransport::Auto, true)});
  EXPECT_NE(why.find("PE 1 has MORI_SHMEM_DISABLE_P2P=0, MORI_SHMEM_TRANSPORT=auto, MORI_SHMEM_SDMA_MIN_BYTES set"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("every PE must set them alike"), std::string::npos) << why;
  // QP q to a peer connects to that peer's QP q: a PE with more QPs per peer would send the
  // endpoint exchange a different size.
  why = ctx::transportSettingsDiffer({base, base, base, settings(false, ctx::ForcedTransport::Auto, false, 4)});
  EXPECT_NE(why.find("PE 0 has MORI_SHMEM_DISABLE_P2P=0, MORI_SHMEM_TRANSPORT=auto, MORI_SHMEM_SDMA_MIN_BYTES 0, "
                     "MORI_SHMEM_NUM_QP_PER_PE=2, PE 3 has"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("PE 3 has MORI_SHMEM_DISABLE_P2P=0, MORI_SHMEM_TRANSPORT=auto, MORI_SHMEM_SDMA_MIN_BYTES 0, "
                     "MORI_SHMEM_NUM_QP_PER_PE=4; every PE must set them alike"),
            std::string::npos)
      << why;
  // The first PE that differs is named, PE 0's settings being the reference.
  why = ctx::transportSettingsDiffer(
      {settings(false, ctx::ForcedTransport::P2P, false), base, settings(true, ctx::ForcedTransport::Rdma, true)});
  EXPECT_NE(why.find("PE 0 has MORI_SHMEM_DISABLE_P2P=0, MORI_SHMEM_TRANSPORT=p2p"), std::string::npos) << why;
  EXPECT_NE(why.find("PE 1 has"), std::string::npos) << why;
  EXPECT_EQ(why.find("PE 2 has"), std::string::npos) << why;
}

}  // namespace
