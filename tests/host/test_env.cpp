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
