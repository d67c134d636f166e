#include "tests/host/bootstrap/bootstrap_test_util.hpp"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "tests/support/free_port.hpp"
#include "tests/support/test_env.hpp"

namespace mori::test {

env::Config bootstrapConfig(double timeoutS) {
  std::string t = std::to_string(timeoutS);
  setenv("MORI_SHMEM_BOOTSTRAP_TIMEOUT", t.c_str(), 1);
  env::Config cfg;
  EXPECT_EQ(env::load(&cfg), Status::Success);
  unsetenv("MORI_SHMEM_BOOTSTRAP_TIMEOUT");
  EXPECT_DOUBLE_EQ(cfg.bootstrapTimeout, timeoutS);
  return cfg;
}

uint8_t payloadByte(uint64_t seed, int pe, uint64_t tag, size_t i) {
  uint64_t z = seed ^ (static_cast<uint64_t>(pe) << 48) ^ (tag << 24) ^ i;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<uint8_t>(z ^ (z >> 31));
}

void fillPayload(void* buf, size_t n, uint64_t seed, int pe, uint64_t tag) {
  auto* p = static_cast<uint8_t*>(buf);
  for (size_t i = 0; i < n; ++i) p[i] = payloadByte(seed, pe, tag, i);
}

long long firstMismatch(const void* buf, size_t n, uint64_t seed, int pe, uint64_t tag) {
  const auto* p = static_cast<const uint8_t*>(buf);
  for (size_t i = 0; i < n; ++i)
    if (p[i] != payloadByte(seed, pe, tag, i)) return static_cast<long long>(i);
  return -1;
}

const std::vector<size_t>& payloadSizes() {
  static const std::vector<size_t> sizes = {0, 1, 3, 8, 61, 4093, (1u << 20) + 13};
  return sizes;
}

void checkCollectives(bootstrap::Bootstrap& b, uint64_t seed) {
  const int n = b.size(), me = b.rank();
  uint64_t tag = 0;
  for (size_t bytes : payloadSizes()) {
    SCOPED_TRACE("payload " + std::to_string(bytes) + " B, PE " + std::to_string(me) + " of " + std::to_string(n));
    // allGather from a separate buffer and in place.
    for (int inPlace = 0; inPlace < 2; ++inPlace) {
      ++tag;
      std::vector<uint8_t> in(bytes + 1), out(n * bytes + 1, 0xee);
      fillPayload(in.data(), bytes, seed, me, tag);
      const void* src = in.data();
      if (inPlace) {
        memcpy(out.data() + me * bytes, in.data(), bytes);
        src = out.data() + me * bytes;
      }
      ASSERT_EQ(b.allGather(src, out.data(), bytes), Status::Success) << "allGather inPlace=" << inPlace;
      for (int r = 0; r < n; ++r)
        ASSERT_EQ(firstMismatch(out.data() + r * bytes, bytes, seed, r, tag), -1)
            << "allGather inPlace=" << inPlace << ": block of PE " << r << " differs at that byte";
      EXPECT_EQ(out[n * bytes], 0xee) << "allGather wrote past the end";
    }
    // allToAll: block d of PE s carries payload tag*65536 + s*256 + d; also in place.
    const size_t a2a = bytes;
    for (int inPlace = 0; inPlace < 2; ++inPlace) {
      ++tag;
      std::vector<uint8_t> in(n * a2a + 1), out(n * a2a + 1, 0xee);
      for (int d = 0; d < n; ++d) fillPayload(in.data() + d * a2a, a2a, seed, me, tag * 65536 + d);
      if (inPlace) out = in;
      ASSERT_EQ(b.allToAll(inPlace ? out.data() : in.data(), out.data(), a2a), Status::Success)
          << "allToAll inPlace=" << inPlace << ", " << a2a << " B per pair";
      for (int s = 0; s < n; ++s)
        ASSERT_EQ(firstMismatch(out.data() + s * a2a, a2a, seed, s, tag * 65536 + me), -1)
            << "allToAll inPlace=" << inPlace << ": block from PE " << s << " differs at that byte";
    }
    // broadcast from every root.
    for (int root = 0; root < n; ++root) {
      ++tag;
      std::vector<uint8_t> buf(bytes + 1, 0xee);
      if (me == root) fillPayload(buf.data(), bytes, seed, root, tag);
      ASSERT_EQ(b.broadcast(buf.data(), bytes, root), Status::Success) << "broadcast from " << root;
      ASSERT_EQ(firstMismatch(buf.data(), bytes, seed, root, tag), -1) << "broadcast from " << root;
      EXPECT_EQ(buf[bytes], 0xee) << "broadcast wrote past the end";
    }
    ASSERT_EQ(b.barrier(), Status::Success);
  }
  for (int i = 0; i < 20; ++i) ASSERT_EQ(b.barrier(), Status::Success) << "barrier " << i;
}

void checkLocalRanks(bootstrap::Bootstrap& b, MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int nodeRank = -1, nodeSize = 0;
  MPI_Comm_rank(node, &nodeRank);
  MPI_Comm_size(node, &nodeSize);
  MPI_Comm_free(&node);
  EXPECT_EQ(b.localRank(), nodeRank);
  EXPECT_EQ(b.localSize(), nodeSize);
  EXPECT_FALSE(bootstrap::hostIdentity().empty());
  EXPECT_NE(bootstrap::hostIdentity().find('/'), std::string::npos) << bootstrap::hostIdentity();
}

mori_shmem_uniqueid_t sharedUid(const env::Config& cfg) {
  mori_shmem_uniqueid_t uid{};
  int rc = 0;
  if (worldRank() == 0) rc = static_cast<int>(bootstrap::generateUniqueId(cfg, &uid));
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_EQ(rc, 0) << "generateUniqueId on PE 0";
  MPI_Bcast(&uid, sizeof(uid), MPI_BYTE, 0, MPI_COMM_WORLD);
  return uid;
}

int sharedFreePort() {
  int port = worldRank() == 0 ? freeLoopbackPort() : 0;
  MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_GT(port, 1) << "no free loopback port below the ephemeral range";
  return port;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  const char* old = getenv(name);
  had_ = old != nullptr;
  if (had_) old_ = old;
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (had_)
    setenv(name_.c_str(), old_.c_str(), 1);
  else
    unsetenv(name_.c_str());
}

}  // namespace mori::test
