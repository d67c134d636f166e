// Environment parsing: every size/int/bool/duration form, the bad values, and that every
// variable in the table is documented in README.md.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>

#include "src/common/env.hpp"
#include "tests/support/test_env.hpp"

using namespace mori;

namespace {
// Sets an environment variable for one scope (unset again after: the tests run without them).
struct ScopedEnvVar {
  ScopedEnvVar(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnvVar() { unsetenv(name_); }
  const char* name_;
};
}  // namespace

TEST(Env, ParseSize) {
  uint64_t v = 0;
  EXPECT_TRUE(env::parseSize("4096", &v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(env::parseSize("64K", &v));
  EXPECT_EQ(v, 64u << 10);
  EXPECT_TRUE(env::parseSize("3m", &v));
  EXPECT_EQ(v, 3u << 20);
  EXPECT_TRUE(env::parseSize("2G", &v));
  EXPECT_EQ(v, 2ull << 30);
  EXPECT_TRUE(env::parseSize("1GiB", &v));
  EXPECT_EQ(v, 1ull << 30);
  EXPECT_TRUE(env::parseSize("1T", &v));
  EXPECT_EQ(v, 1ull << 40);
  for (const char* bad : {"", "-1", "1X", "G", "1.5G", "12 K", "1Gx", "99999999999999999999", "20000000000T"})
    EXPECT_FALSE(env::parseSize(bad, &v)) << "accepted '" << bad << "'";
}

TEST(Env, ParseIntBoolSeconds) {
  int64_t i = 0;
  EXPECT_TRUE(env::parseInt("-3", &i));
  EXPECT_EQ(i, -3);
  EXPECT_FALSE(env::parseInt("3x", &i));
  EXPECT_FALSE(env::parseInt("", &i));
  bool b = false;
  EXPECT_TRUE(env::parseBool("yes", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(env::parseBool("OFF", &b));
  EXPECT_FALSE(b);
  EXPECT_FALSE(env::parseBool("2", &b));
  double s = 0;
  EXPECT_TRUE(env::parseSeconds("1.5", &s));
  EXPECT_DOUBLE_EQ(s, 1.5);
  EXPECT_TRUE(env::parseSeconds("500ms", &s));
  EXPECT_DOUBLE_EQ(s, 0.5);
  EXPECT_TRUE(env::parseSeconds("2m", &s));
  EXPECT_DOUBLE_EQ(s, 120);
  for (const char* bad : {"", "-1", "abc", "5h", "inf", "nan"}) EXPECT_FALSE(env::parseSeconds(bad, &s)) << bad;
}

// Regression: ' -1' was taken as 2^64-1 (strtoull skips blanks and wraps a minus); strtod took
// signs, blanks, "inf" and hex floats.
TEST(Env, BlanksAndSignsAreRejected) {
  uint64_t v = 0;
  for (const char* bad : {" -1", " 1", "+1", "-0", "\t4K", "1 ", "0x10"})
    EXPECT_FALSE(env::parseSize(bad, &v)) << "accepted size '" << bad << "' as " << v;
  int64_t i = 0;
  for (const char* bad : {" 1", "+1", " -1", "-", "--1", "1 "})
    EXPECT_FALSE(env::parseInt(bad, &i)) << "accepted int '" << bad << "'";
  EXPECT_TRUE(env::parseInt("-1", &i));
  EXPECT_EQ(i, -1);
  double s = 0;
  for (const char* bad : {" 1", "+1", "-0", "-1", "0x10", "0x1p3", "infinity", "NaN", ".", "1e", "1 s"})
    EXPECT_FALSE(env::parseSeconds(bad, &s)) << "accepted duration '" << bad << "'";
  EXPECT_TRUE(env::parseSeconds(".5", &s));
  EXPECT_DOUBLE_EQ(s, 0.5);
}

// Regression: 1e10 s overflowed the bootstrap deadline (init failed at once, then SIGSEGV under
// mpirun), 1e11 s became "no limit" on the device, 1e308m became infinity.
TEST(Env, DurationsBeyondTheLimitAreRejected) {
  double s = 0;
  EXPECT_TRUE(env::parseSeconds("1e7", &s));
  EXPECT_DOUBLE_EQ(s, env::kMaxSeconds);
  EXPECT_TRUE(env::parseSeconds("0", &s));
  EXPECT_DOUBLE_EQ(s, 0);
  for (const char* bad : {"1e10", "1e11", "1e308m", "1e308", "10000001", "2e5m", "1e400"})
    EXPECT_FALSE(env::parseSeconds(bad, &s)) << "accepted '" << bad << "' as " << s;
  for (const char* var : {"MORI_SHMEM_BOOTSTRAP_TIMEOUT", "MORI_SHMEM_TIMEOUT"})
    for (const char* bad : {"1e10", "1e11", "1e308m"}) {
      ScopedEnvVar set(var, bad);
      env::Config c;
      testing::internal::CaptureStderr();
      EXPECT_EQ(env::load(&c), Status::InvalidUsage) << var << "=" << bad;
      const std::string err = testing::internal::GetCapturedStderr();
      EXPECT_NE(err.find(std::string(var) + "='" + bad + "' is not valid"), std::string::npos) << err;
      EXPECT_NE(err.find("at most 1e7 s"), std::string::npos) << err;
    }
}

// Every variable is checked when read, whatever transports end up in use (QP_DEPTH=3 was
// ignored without RDMA peers).
TEST(Env, EveryVariableIsValidatedWhenRead) {
  const struct {
    const char* var;
    const char* value;
    const char* says;
  } cases[] = {
      {"MORI_SHMEM_QP_DEPTH", "3", "MORI_SHMEM_QP_DEPTH=3 is not valid: expected a power of two between 64 and 32768"},
      {"MORI_SHMEM_QP_DEPTH", "100", "MORI_SHMEM_QP_DEPTH=100 is not valid"},
      {"MORI_SHMEM_QP_DEPTH", "65536", "MORI_SHMEM_QP_DEPTH=65536 is not valid"},
      {"MORI_SHMEM_NUM_QP_PER_PE", "0", "MORI_SHMEM_NUM_QP_PER_PE=0 is not valid"},
      {"MORI_SHMEM_NUM_QP_PER_PE", "65", "MORI_SHMEM_NUM_QP_PER_PE=65 is not valid"},
      {"MORI_SHMEM_IB_GID_INDEX", "-2", "MORI_SHMEM_IB_GID_INDEX=-2 is not valid"},
      {"MORI_SHMEM_IB_GID_INDEX", "256", "MORI_SHMEM_IB_GID_INDEX=256 is not valid"},
      {"MORI_SHMEM_BOOTSTRAP_PORT", "-1", "MORI_SHMEM_BOOTSTRAP_PORT=-1 is not valid"},
      {"MORI_SHMEM_BOOTSTRAP_PORT", "65536", "MORI_SHMEM_BOOTSTRAP_PORT=65536 is not valid"},
      {"MORI_SHMEM_BOOTSTRAP", "tcp", "MORI_SHMEM_BOOTSTRAP='tcp' is not valid"},
      {"MORI_SHMEM_TRANSPORT", "nvlink", "MORI_SHMEM_TRANSPORT='nvlink' is not valid"},
      {"MORI_SHMEM_COLLECTIVE_ENTRY", "none",
       "MORI_SHMEM_COLLECTIVE_ENTRY='none' is not valid: expected one of wait, caller"},
      {"MORI_SHMEM_HEAP_SIZE", " -1", "MORI_SHMEM_HEAP_SIZE=' -1' is not valid"},
  };
  for (const auto& k : cases) {
    ScopedEnvVar set(k.var, k.value);
    env::Config c;
    testing::internal::CaptureStderr();
    EXPECT_EQ(env::load(&c), Status::InvalidUsage) << k.var << "=" << k.value;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(k.says), std::string::npos) << err;
  }
  for (const char* good : {"64", "1024", "32768"}) {
    ScopedEnvVar set("MORI_SHMEM_QP_DEPTH", good);
    env::Config c;
    EXPECT_EQ(env::load(&c), Status::Success) << good;
  }
}

TEST(Env, LoadRejectsBadValueNamingIt) {
  setenv("MORI_SHMEM_HEAP_SIZE", "12Q", 1);
  env::Config c;
  testing::internal::CaptureStderr();
  EXPECT_EQ(env::load(&c), Status::InvalidUsage);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("MORI_SHMEM_HEAP_SIZE='12Q'"), std::string::npos) << err;
  unsetenv("MORI_SHMEM_HEAP_SIZE");
  setenv("MORI_SHMEM_DISABLE_P2P", "maybe", 1);
  EXPECT_EQ(env::load(&c), Status::InvalidUsage);
  unsetenv("MORI_SHMEM_DISABLE_P2P");
}

TEST(Env, DefaultsAndOverrides) {
  unsetenv("MORI_SHMEM_HEAP_SIZE");
  env::Config c;
  ASSERT_EQ(env::load(&c), Status::Success);
  EXPECT_EQ(c.heapSize, 1ull << 30);
  setenv("MORI_SHMEM_HEAP_SIZE", "256M", 1);
  setenv("MORI_SHMEM_TIMEOUT", "30s", 1);
  ASSERT_EQ(env::load(&c), Status::Success);
  EXPECT_EQ(c.heapSize, 256ull << 20);
  EXPECT_DOUBLE_EQ(c.timeout, 30);
  unsetenv("MORI_SHMEM_TIMEOUT");
}

TEST(Env, EveryVariableIsDocumentedInReadme) {
  const char* path = getenv("MORI_TEST_README");
  ASSERT_NE(path, nullptr) << "MORI_TEST_README not set by ctest";
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string readme = ss.str();
  for (const auto& v : env::table())
    EXPECT_NE(readme.find(std::string("`") + v.name + "`"), std::string::npos)
        << v.name << " is read by mori-shmem but not documented in README.md";
}
