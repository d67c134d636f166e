// Shared by the bootstrap suites: configuration with a chosen timeout, reproducible payloads,
// the collective checks every implementation must pass, and MPI-side helpers (the test main
// initialises MPI; it is used only to share IDs and ports and to keep PEs in step).
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "src/common/env.hpp"

namespace mori::test {

// env::Config as mori_shmem_init would load it, with MORI_SHMEM_BOOTSTRAP_TIMEOUT=timeoutS.
env::Config bootstrapConfig(double timeoutS);

// Byte i of PE pe's payload `tag` under `seed`: reproducible, different per PE, tag and index.
uint8_t payloadByte(uint64_t seed, int pe, uint64_t tag, size_t i);
void fillPayload(void* buf, size_t n, uint64_t seed, int pe, uint64_t tag);
// Index of the first byte of buf that differs from the payload, or -1.
long long firstMismatch(const void* buf, size_t n, uint64_t seed, int pe, uint64_t tag);

// Sizes every collective is checked with: 0, 1, odd, page-ish and > 1 MiB.
const std::vector<size_t>& payloadSizes();

// allGather (also in place), allToAll (also in place), broadcast from every root and barriers,
// byte for byte, on random payloads of every size in payloadSizes(). Collective.
void checkCollectives(bootstrap::Bootstrap& b, uint64_t seed);

// localRank/localSize against MPI's view of who shares this node (MPI_COMM_TYPE_SHARED).
void checkLocalRanks(bootstrap::Bootstrap& b, MPI_Comm comm);

// Ends a test with an MPI barrier, even when an ASSERT returned early, so that every PE enters
// the next test together.
struct PeSync {
  ~PeSync() { MPI_Barrier(MPI_COMM_WORLD); }
};

// freeLoopbackPort() (tests/support/free_port.hpp) chosen by PE 0 and broadcast.
int sharedFreePort();

// A unique ID made on PE 0 (generateUniqueId) and broadcast, as an application shares it.
mori_shmem_uniqueid_t sharedUid(const env::Config& cfg);

// Restores an environment variable to its value at construction.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);  // value nullptr: unset
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  bool had_;
  std::string old_;
};

}  // namespace mori::test
