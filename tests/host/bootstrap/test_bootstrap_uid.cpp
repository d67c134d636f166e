// What only the unique-ID socket bootstrap does: ID layout, interface choice, strangers refused
// while the real PEs complete, rendezvous errors (missing PE, unreachable root, nranks mismatch,
// duplicate rank) and PEs dying mid-collective. The ID is made on PE 0 and shared with
// MPI_Bcast, as an application would. The contract every bootstrap keeps is
// test_bootstrap_typed.cpp.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/socket_wire.hpp"
#include "application/bootstrap/uniqueid.hpp"
#include "tests/host/bootstrap/bootstrap_test_util.hpp"
#include "tests/support/test_env.hpp"

using namespace mori;
using mori::test::PeSync;

namespace {

using test::sharedUid;

std::unique_ptr<bootstrap::Bootstrap> makeUid(double timeoutS, Status* st = nullptr) {
  env::Config cfg = test::bootstrapConfig(timeoutS);
  mori_shmem_uniqueid_t uid = sharedUid(cfg);
  std::unique_ptr<bootstrap::Bootstrap> b;
  Status s = bootstrap::createUniqueId(test::worldRank(), test::worldSize(), uid, cfg, &b);
  if (st)
    *st = s;
  else
    EXPECT_EQ(s, Status::Success);
  return b;
}

bootstrap::UniqueIdInfo decoded(const mori_shmem_uniqueid_t& uid) {
  bootstrap::UniqueIdInfo info;
  EXPECT_EQ(bootstrap::decodeUniqueId(uid, &info), Status::Success);
  return info;
}

// A connected TCP socket to `addr`, or -1.
int dial(const bootstrap::SockAddr& addr, std::string* local) {
  int fd = socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, addr.get(), addr.len) != 0) {
    close(fd);
    return -1;
  }
  bootstrap::SockAddr me;
  me.len = sizeof(me.storage);
  getsockname(fd, me.get(), &me.len);
  *local = me.str();
  return fd;
}

// Reads whatever the root answers until it closes or 10 s pass.
std::string drain(int fd) {
  std::string got;
  char buf[2048];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) break;
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    got.append(buf, n);
  }
  return got;
}

std::string bcastString(std::string s, int root) {
  int len = static_cast<int>(s.size());
  MPI_Bcast(&len, 1, MPI_INT, root, MPI_COMM_WORLD);
  s.resize(len);
  MPI_Bcast(&s[0], len, MPI_CHAR, root, MPI_COMM_WORLD);
  return s;
}

}  // namespace

TEST(BootstrapUid, LayoutRoundTripAndCorruption) {
  PeSync sync;
  env::Config cfg = test::bootstrapConfig(5);
  mori_shmem_uniqueid_t uid{};
  ASSERT_EQ(bootstrap::generateUniqueId(cfg, &uid), Status::Success);
  bootstrap::UniqueIdInfo info = decoded(uid);
  EXPECT_NE(info.root.port(), 0);
  bool allZero = true;
  for (uint8_t x : info.secret.bytes) allZero &= x == 0;
  EXPECT_FALSE(allZero) << "the secret must be random";
  mori_shmem_uniqueid_t again{};
  bootstrap::encodeUniqueId(info, &again);
  EXPECT_EQ(memcmp(&uid, &again, sizeof(uid)), 0);
  // Two IDs differ in port and secret.
  mori_shmem_uniqueid_t other{};
  ASSERT_EQ(bootstrap::generateUniqueId(cfg, &other), Status::Success);
  bootstrap::UniqueIdInfo info2 = decoded(other);
  EXPECT_FALSE(bootstrap::secretsEqual(info.secret, info2.secret));
  EXPECT_NE(info.root.port(), info2.root.port());
  // Corruption and foreign bytes are refused, naming why.
  testing::internal::CaptureStderr();
  mori_shmem_uniqueid_t bad = uid;
  bad.internal[20] ^= 1;
  EXPECT_EQ(bootstrap::decodeUniqueId(bad, &info2), Status::InvalidUsage);
  mori_shmem_uniqueid_t zero{};
  EXPECT_EQ(bootstrap::decodeUniqueId(zero, &info2), Status::InvalidUsage);
  std::unique_ptr<bootstrap::Bootstrap> b;
  EXPECT_EQ(bootstrap::createUniqueId(0, 0, uid, cfg, &b), Status::InvalidUsage);
  EXPECT_EQ(bootstrap::createUniqueId(2, 2, uid, cfg, &b), Status::InvalidUsage);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("checksum"), std::string::npos) << err;
  EXPECT_NE(err.find("bad magic"), std::string::npos) << err;
  EXPECT_NE(err.find("rank 2 of nranks 2"), std::string::npos) << err;
  // The listeners opened for these IDs are released by single-PE bootstraps on them.
  ASSERT_EQ(bootstrap::createUniqueId(0, 1, uid, cfg, &b), Status::Success);
  EXPECT_EQ(b->size(), 1);
  ASSERT_EQ(bootstrap::createUniqueId(0, 1, other, cfg, &b), Status::Success);
  EXPECT_EQ(bootstrap::pendingUniqueIdListeners(), 0u);
}

TEST(BootstrapUid, InterfaceChoice) {
  PeSync sync;
  {
    // Default: never the wildcard address; a non-loopback interface when the host has one.
    env::Config cfg = test::bootstrapConfig(5);
    mori_shmem_uniqueid_t uid{};
    ASSERT_EQ(bootstrap::generateUniqueId(cfg, &uid), Status::Success);
    bootstrap::UniqueIdInfo info = decoded(uid);
    EXPECT_EQ(info.root.str().rfind("0.0.0.0:", 0), std::string::npos) << info.root.str();
    EXPECT_EQ(info.root.str().rfind("[::]:", 0), std::string::npos) << info.root.str();
    std::unique_ptr<bootstrap::Bootstrap> b;
    ASSERT_EQ(bootstrap::createUniqueId(0, 1, uid, cfg, &b), Status::Success);
  }
  {
    test::ScopedEnv ifname("MORI_SHMEM_SOCKET_IFNAME", "lo");
    env::Config cfg = test::bootstrapConfig(5);
    mori_shmem_uniqueid_t uid{};
    ASSERT_EQ(bootstrap::generateUniqueId(cfg, &uid), Status::Success);
    bootstrap::UniqueIdInfo info = decoded(uid);
    EXPECT_TRUE(info.root.isLoopback()) << info.root.str();
    std::unique_ptr<bootstrap::Bootstrap> b;
    ASSERT_EQ(bootstrap::createUniqueId(0, 1, uid, cfg, &b), Status::Success);
  }
  {
    test::ScopedEnv ifname("MORI_SHMEM_SOCKET_IFNAME", "nosuchif9");
    env::Config cfg = test::bootstrapConfig(5);
    mori_shmem_uniqueid_t uid{};
    testing::internal::CaptureStderr();
    EXPECT_EQ(bootstrap::generateUniqueId(cfg, &uid), Status::InvalidUsage);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("MORI_SHMEM_SOCKET_IFNAME='nosuchif9' matches no interface"), std::string::npos) << err;
    EXPECT_NE(err.find("this host has: "), std::string::npos) << err;
    EXPECT_NE(err.find("lo"), std::string::npos) << err;
  }
  EXPECT_EQ(bootstrap::pendingUniqueIdListeners(), 0u);
}

TEST(BootstrapUid, CollectivesOverLoopback) {
  PeSync sync;
  test::ScopedEnv ifname("MORI_SHMEM_SOCKET_IFNAME", "lo");
  auto b = makeUid(30);
  ASSERT_TRUE(b);
  std::vector<int> all(b->size());
  int v = b->rank() * 11;
  ASSERT_EQ(b->allGather(&v, all.data(), sizeof(v)), Status::Success);
  for (int r = 0; r < b->size(); ++r) EXPECT_EQ(all[r], r * 11);
}

TEST(BootstrapUid, SinglePeCollectives) {
  PeSync sync;
  env::Config cfg = test::bootstrapConfig(5);
  mori_shmem_uniqueid_t uid{};
  ASSERT_EQ(bootstrap::generateUniqueId(cfg, &uid), Status::Success);
  std::unique_ptr<bootstrap::Bootstrap> b;
  ASSERT_EQ(bootstrap::createUniqueId(0, 1, uid, cfg, &b), Status::Success);
  EXPECT_EQ(b->localRank(), 0);
  EXPECT_EQ(b->localSize(), 1);
  test::checkCollectives(*b, 0x1111);
}

TEST(BootstrapUid, RankZeroListensWhereAForeignIdSays) {
  PeSync sync;
  // An ID this process did not make (e.g. written by a launcher): rank 0 binds its address.
  bootstrap::UniqueIdInfo info;
  int port = test::sharedFreePort();
  auto* a = reinterpret_cast<sockaddr_in*>(&info.root.storage);
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  info.root.len = sizeof(sockaddr_in);
  info.root.setPort(static_cast<uint16_t>(port));
  for (int i = 0; i < 16; ++i) info.secret.bytes[i] = static_cast<uint8_t>(i * 37 + port);
  mori_shmem_uniqueid_t uid{};
  bootstrap::encodeUniqueId(info, &uid);
  env::Config cfg = test::bootstrapConfig(30);
  std::unique_ptr<bootstrap::Bootstrap> b;
  ASSERT_EQ(bootstrap::createUniqueId(test::worldRank(), test::worldSize(), uid, cfg, &b), Status::Success);
  int v = b->rank() + 5, sum = 0;
  std::vector<int> all(b->size());
  ASSERT_EQ(b->allGather(&v, all.data(), sizeof(v)), Status::Success);
  for (int x : all) sum += x;
  EXPECT_EQ(sum, b->size() * 5 + b->size() * (b->size() - 1) / 2);
}

TEST(BootstrapUid, IdMadeByANonZeroRankIsRefused) {
  PeSync sync;
  env::Config cfg = test::bootstrapConfig(5);
  mori_shmem_uniqueid_t uid{};
  ASSERT_EQ(bootstrap::generateUniqueId(cfg, &uid), Status::Success);
  std::unique_ptr<bootstrap::Bootstrap> b;
  testing::internal::CaptureStderr();
  EXPECT_EQ(bootstrap::createUniqueId(1, 2, uid, cfg, &b), Status::InvalidUsage);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("must be rank 0"), std::string::npos) << err;
  ASSERT_EQ(bootstrap::createUniqueId(0, 1, uid, cfg, &b), Status::Success);  // releases the listener
}

TEST(BootstrapUid, StrangersAreRefusedAndLoggedWhileThePesComplete) {
  PeSync sync;
  const int me = test::worldRank(), n = test::worldSize();
  env::Config cfg = test::bootstrapConfig(20);
  mori_shmem_uniqueid_t uid = sharedUid(cfg);
  bootstrap::UniqueIdInfo info = decoded(uid);
  // PE n-1 plays three strangers before it joins: a hello with a wrong secret, bytes that are
  // not a hello, and a connection that says nothing and stays open.
  std::string wrongSecretAddr, garbageAddr, silentAddr, refusal, garbageAnswer;
  int silent = -1;
  if (me == n - 1) {
    int fd = dial(info.root, &wrongSecretAddr);
    ASSERT_GE(fd, 0);
    // Answers the root's challenge, proving a secret one bit off.
    uint8_t challenge[bootstrap::wire::kChallengeBytes];
    ASSERT_EQ(recv(fd, challenge, sizeof(challenge), MSG_WAITALL), static_cast<ssize_t>(sizeof(challenge)));
    bootstrap::wire::Hello h;
    h.rank = n - 1;
    h.nranks = n;
    bootstrap::Secret wrong = info.secret;
    wrong.bytes[3] ^= 0x40;
    uint8_t buf[bootstrap::wire::kHelloBytes];
    ASSERT_TRUE(bootstrap::wire::encodeSigned(h, wrong, bootstrap::wire::decodeChallenge(challenge).nonce, buf));
    ASSERT_EQ(send(fd, buf, sizeof(buf), 0), static_cast<ssize_t>(sizeof(buf)));
    int g = dial(info.root, &garbageAddr);
    ASSERT_GE(g, 0);
    std::string junk(100, 'x');
    junk.replace(0, 18, "GET / HTTP/1.0\r\n\r\n");
    ASSERT_EQ(send(g, junk.data(), junk.size(), 0), static_cast<ssize_t>(junk.size()));
    silent = dial(info.root, &silentAddr);
    ASSERT_GE(silent, 0);
    // The root answers the refused ones (rank 0 is already waiting in createUniqueId).
    refusal = drain(fd);
    garbageAnswer = drain(g);
    close(fd);
    close(g);
  }
  std::unique_ptr<bootstrap::Bootstrap> b;
  if (me == 0) testing::internal::CaptureStderr();
  Status st = bootstrap::createUniqueId(me, n, uid, cfg, &b);
  std::string err = me == 0 ? testing::internal::GetCapturedStderr() : "";
  EXPECT_EQ(st, Status::Success) << err;
  if (me == n - 1) {
    close(silent);
    EXPECT_NE(refusal.find("wrong secret"), std::string::npos) << "the refused PE is told why: " << refusal;
    EXPECT_NE(garbageAnswer.find("not a mori-shmem bootstrap hello"), std::string::npos) << garbageAnswer;
  }
  wrongSecretAddr = bcastString(wrongSecretAddr, n - 1);
  garbageAddr = bcastString(garbageAddr, n - 1);
  silentAddr = bcastString(silentAddr, n - 1);
  if (me == 0) {
    EXPECT_NE(err.find("WARN"), std::string::npos) << err;
    EXPECT_NE(err.find("refused a connection from " + wrongSecretAddr), std::string::npos) << err;
    EXPECT_NE(err.find("wrong secret"), std::string::npos) << err;
    EXPECT_NE(err.find("refused a connection from " + garbageAddr), std::string::npos) << err;
    EXPECT_NE(err.find("connection from " + silentAddr + " sent 0 of 80 hello bytes"), std::string::npos) << err;
  }
  ASSERT_TRUE(b);
  test::checkCollectives(*b, 0x5eed1002);
}

TEST(BootstrapUid, RootTimeoutNamesThePeThatNeverConnects) {
  PeSync sync;
  const int me = test::worldRank(), n = test::worldSize(), absent = n - 1;
  env::Config cfg = test::bootstrapConfig(1.0);
  mori_shmem_uniqueid_t uid = sharedUid(cfg);
  if (me != absent) {
    std::unique_ptr<bootstrap::Bootstrap> b;
    testing::internal::CaptureStderr();
    Status st = bootstrap::createUniqueId(me, n, uid, cfg, &b);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(st, Status::Timeout) << err;
    EXPECT_NE(err.find("PE " + std::to_string(absent) + " did not connect within 1.0 s"), std::string::npos) << err;
    EXPECT_FALSE(b);
  }
}

TEST(BootstrapUid, PeThatCannotReachTheRootSaysWhereAndWhy) {
  PeSync sync;
  // A port that is bound but not listening: connections are refused.
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  bootstrap::UniqueIdInfo info;
  memcpy(&info.root.storage, &a, sizeof(a));
  info.root.len = sizeof(a);
  mori_shmem_uniqueid_t uid{};
  bootstrap::encodeUniqueId(info, &uid);
  env::Config cfg = test::bootstrapConfig(0.5);
  std::unique_ptr<bootstrap::Bootstrap> b;
  testing::internal::CaptureStderr();
  Status st = bootstrap::createUniqueId(3, 4, uid, cfg, &b);
  std::string err = testing::internal::GetCapturedStderr();
  close(fd);
  EXPECT_EQ(st, Status::Timeout) << err;
  std::string want = "PE 3 could not reach the bootstrap root at 127.0.0.1:" + std::to_string(ntohs(a.sin_port)) +
                     " within 0.5 s: Connection refused";
  EXPECT_NE(err.find(want), std::string::npos) << err;
}

TEST(BootstrapUid, NranksMismatchIsAnErrorThatSaysSo) {
  PeSync sync;
  const int me = test::worldRank(), n = test::worldSize();
  env::Config cfg = test::bootstrapConfig(2.0);
  mori_shmem_uniqueid_t uid = sharedUid(cfg);
  // PE 1 believes in one PE more. The other PEs stay away, so the rendezvous cannot complete
  // before PE 1's hello is judged.
  if (me == 0 || me == 1) {
    std::unique_ptr<bootstrap::Bootstrap> b;
    testing::internal::CaptureStderr();
    Status st = bootstrap::createUniqueId(me, me == 1 ? n + 1 : n, uid, cfg, &b);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(st, Status::InvalidUsage) << err;
    EXPECT_NE(err.find("PE 1 at"), std::string::npos) << err;
    EXPECT_NE(
        err.find("was started with nranks=" + std::to_string(n + 1) + ", but the root has nranks=" + std::to_string(n)),
        std::string::npos)
        << err;
  }
}

TEST(BootstrapUid, DuplicateRankIsAnErrorThatSaysSo) {
  PeSync sync;
  const int me = test::worldRank(), n = test::worldSize();
  if (n < 3) GTEST_SKIP() << "needs a third PE to claim a rank twice";
  env::Config cfg = test::bootstrapConfig(3.0);
  mori_shmem_uniqueid_t uid = sharedUid(cfg);
  if (me <= 2) {
    // PEs 1 and 2 both claim rank 1; PE 3 (if any) stays away so that the rendezvous cannot
    // complete before both claims are in.
    std::unique_ptr<bootstrap::Bootstrap> b;
    testing::internal::CaptureStderr();
    Status st = bootstrap::createUniqueId(me == 2 ? 1 : me, n, uid, cfg, &b);
    std::string err = testing::internal::GetCapturedStderr();
    if (me == 0) {
      EXPECT_EQ(st, Status::InvalidUsage) << err;
      EXPECT_NE(err.find("rank 1 was claimed twice"), std::string::npos) << err;
    } else {
      EXPECT_NE(st, Status::Success) << err;
    }
  }
}

TEST(BootstrapUid, PeDyingMidCollectiveIsNamed) {
  PeSync sync;
  auto b = makeUid(10);
  ASSERT_TRUE(b);
  const int n = b->size(), me = b->rank(), dying = n - 1;
  if (me == dying) {
    // To the others, a process that exits looks like this: its connections close.
    b.reset();
    return;
  }
  std::vector<char> in(100, 1), out(100 * n);
  testing::internal::CaptureStderr();
  Status st = b->allGather(in.data(), out.data(), 100);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(st, Status::Remote) << err;
  EXPECT_NE(err.find("PE " + std::to_string(dying) + " ("), std::string::npos) << err;
  EXPECT_NE(err.find("closed its bootstrap connection during allGather"), std::string::npos) << err;
}

TEST(BootstrapUid, RootDyingIsReported) {
  PeSync sync;
  auto b = makeUid(10);
  ASSERT_TRUE(b);
  if (b->rank() == 0) {
    b.reset();
    return;
  }
  testing::internal::CaptureStderr();
  Status st = b->barrier();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(st, Status::Remote) << err;
  EXPECT_NE(err.find("the bootstrap root (PE 0 at"), std::string::npos) << err;
  EXPECT_NE(err.find("closed the connection"), std::string::npos) << err;
}
