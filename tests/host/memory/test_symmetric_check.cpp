// The collective symmetry check of malloc/free/register (CPU, over the MPI bootstrap): matching
// calls pass; a PE asking a different size fails every PE with both requests named; a PE that
// rejected the call locally fails every PE; the sequence number catches a skipped call.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "application/bootstrap/bootstrap.hpp"
#include "application/memory/symmetric_check.hpp"
#include "tests/support/test_env.hpp"

MORI_TEST_REQUIRES_PES(2);

using namespace mori;
using memory::SymmetricCallChecker;
using memory::SymmetricOp;

namespace {

std::unique_ptr<bootstrap::Bootstrap> makeBoot() {
  env::Config cfg;
  EXPECT_EQ(env::load(&cfg), Status::Success);
  std::unique_ptr<bootstrap::Bootstrap> b;
  EXPECT_EQ(bootstrap::createMpi(nullptr, cfg, &b), Status::Success);
  return b;
}

TEST(SymmetricCheck, MatchingCallsPass) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(c.check("malloc", SymmetricOp::Malloc, 1000 + i, 256), Status::Success);
  EXPECT_EQ(c.check("free", SymmetricOp::Free, 4096, 0), Status::Success);
  EXPECT_EQ(c.calls(), 101u);
}

TEST(SymmetricCheck, MismatchedSizeFailsEverywhereNamingBoth) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  const uint64_t mine = boot->rank() == 1 ? 2048 : 1024;
  testing::internal::CaptureStderr();
  EXPECT_EQ(c.check("malloc", SymmetricOp::Malloc, mine, 256), Status::Remote);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("differs between PEs"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(1024, 256)"), std::string::npos) << err;
  EXPECT_NE(err.find("malloc(2048, 256)"), std::string::npos) << err;
}

TEST(SymmetricCheck, DifferentOperationOrSkippedCallFails) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  testing::internal::CaptureStderr();
  const SymmetricOp op = boot->rank() == 0 ? SymmetricOp::Free : SymmetricOp::Malloc;
  EXPECT_EQ(c.check("free", op, 64, 0), Status::Remote);
  // PE 0 has made one more symmetric call than the others (it uses `c`, they a fresh checker):
  // the sequence numbers differ and every PE fails.
  SymmetricCallChecker fresh(*boot);
  SymmetricCallChecker& mine = boot->rank() == 0 ? c : fresh;
  EXPECT_EQ(mine.check("malloc", SymmetricOp::Malloc, 64, 256), Status::Remote);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("symmetric call #"), std::string::npos) << err;
}

TEST(SymmetricCheck, LocalRejectionFailsEveryPe) {
  auto boot = makeBoot();
  SymmetricCallChecker c(*boot);
  const bool ok = boot->rank() != boot->size() - 1;
  testing::internal::CaptureStderr();
  const Status s = c.check("register", SymmetricOp::Register, 4096, 0, ok);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s, ok ? Status::Remote : Status::InvalidUsage);
  if (ok) {
    EXPECT_NE(err.find("failed on PE " + std::to_string(boot->size() - 1)), std::string::npos) << err;
  }
}

}  // namespace
