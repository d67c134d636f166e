// JIT-module binding (shmem/jit_modules.hpp) without a GPU: fake modules whose device state is host
// memory. Checks what mori_shmem_module_init_kind promises: binding before and after init,
// idempotence, finalize clearing, and each refusal (no symbol, other ABI, null, bad kind, runtime
// failures) with nothing remembered.
#include <gtest/gtest.h>
#include <string.h>

#include <map>
#include <random>
#include <vector>

#include "shmem/jit_modules.hpp"

using namespace mori::shmem;
using namespace mori::shmem::jit;
using mori::Status;

namespace {

struct FakeModule {
  bool hasState = true;
  size_t bytes = sizeof(GpuStates);
  bool lookupFails = false;
  std::vector<unsigned char> memory = std::vector<unsigned char>(sizeof(GpuStates), 0xee);
};

std::map<void*, FakeModule> gModules;
int gCopies = 0;
bool gCopyFails = false;

Lookup fakeFind(void* handle, Kind, const char* name, uint64_t* addr, size_t* bytes, std::string* err) {
  EXPECT_STREQ(name, "mori_shmem_device_states");
  auto it = gModules.find(handle);
  if (it == gModules.end() || it->second.lookupFails) return *err = "fake lookup failure", Lookup::Failed;
  if (!it->second.hasState) return Lookup::Missing;
  *addr = reinterpret_cast<uint64_t>(it->second.memory.data());
  *bytes = it->second.bytes;
  return Lookup::Found;
}

int fakeCopy(uint64_t addr, const void* src, size_t bytes, std::string* err) {
  if (gCopyFails) return *err = "fake copy failure", 700;
  memcpy(reinterpret_cast<void*>(addr), src, bytes);
  ++gCopies;
  return 0;
}

void* handle(uintptr_t i) { return reinterpret_cast<void*>(0x1000 + 16 * i); }

GpuStates randomStates(std::mt19937_64& rng) {
  GpuStates s;
  auto* b = reinterpret_cast<unsigned char*>(&s);
  for (size_t i = 0; i < sizeof(s); ++i) b[i] = static_cast<unsigned char>(rng());
  s.magic = kGpuStatesMagic;
  return s;
}

bool holds(void* h, const GpuStates& s) { return memcmp(gModules[h].memory.data(), &s, sizeof(s)) == 0; }

class JitModules : public ::testing::Test {
 protected:
  void SetUp() override {
    gModules.clear();
    gCopies = 0;
    gCopyFails = false;
  }
  Modules m{GpuOps{&fakeFind, &fakeCopy}};
  std::mt19937_64 rng{std::random_device{}()};
};

}  // namespace

TEST_F(JitModules, BeforeInitRememberedThenBoundAtInit) {
  gModules[handle(1)];
  gModules[handle(2)];
  EXPECT_EQ(m.init(handle(1), 0), Status::Success);
  EXPECT_EQ(m.init(handle(2), 0), Status::Success);
  EXPECT_EQ(gCopies, 0);  // nothing to copy before init
  EXPECT_FALSE(m.bound());
  const GpuStates s = randomStates(rng);
  EXPECT_EQ(m.bindAll(&s, sizeof(s)), 0);
  EXPECT_TRUE(m.bound());
  EXPECT_EQ(gCopies, 2);
  EXPECT_TRUE(holds(handle(1), s));
  EXPECT_TRUE(holds(handle(2), s));
}

TEST_F(JitModules, AfterInitBoundAtOnceAndIdempotent) {
  const GpuStates s = randomStates(rng);
  EXPECT_EQ(m.bindAll(&s, sizeof(s)), 0);
  for (uintptr_t i = 0; i < 50; ++i) {
    gModules[handle(i)];
    EXPECT_EQ(m.init(handle(i), 0), Status::Success);
    EXPECT_TRUE(holds(handle(i), s)) << "module " << i;
  }
  EXPECT_EQ(gCopies, 50);
  // A second init of the same module: success, no GPU work (legal during graph capture).
  EXPECT_EQ(m.init(handle(7), 0), Status::Success);
  EXPECT_EQ(gCopies, 50);
  EXPECT_EQ(m.count(), 50u);
  // The same pointer value as another kind is another module.
  EXPECT_EQ(m.init(handle(7), 1), Status::Success);
  EXPECT_EQ(m.count(), 51u);
}

TEST_F(JitModules, FinalizeClearsAndReinitRebinds) {
  gModules[handle(1)];
  const GpuStates s = randomStates(rng);
  m.bindAll(&s, sizeof(s));
  ASSERT_EQ(m.init(handle(1), 0), Status::Success);
  GpuStates zero;
  memset(&zero, 0, sizeof(zero));
  EXPECT_EQ(m.bindAll(&zero, sizeof(zero)), 0);
  EXPECT_FALSE(m.bound());
  EXPECT_TRUE(holds(handle(1), zero));
  gModules[handle(2)];
  const int before = gCopies;
  EXPECT_EQ(m.init(handle(2), 0), Status::Success);  // not bound: remembered only
  EXPECT_EQ(gCopies, before);
  const GpuStates s2 = randomStates(rng);
  m.bindAll(&s2, sizeof(s2));
  EXPECT_TRUE(holds(handle(1), s2));
  EXPECT_TRUE(holds(handle(2), s2));
}

TEST_F(JitModules, RefusalsRememberNothing) {
  const GpuStates s = randomStates(rng);
  m.bindAll(&s, sizeof(s));
  gModules[handle(1)].hasState = false;               // not linked with the device library
  gModules[handle(2)].bytes = sizeof(GpuStates) + 8;  // another device ABI
  gModules[handle(3)].lookupFails = true;
  gModules[handle(4)];
  EXPECT_EQ(m.init(handle(1), 0), Status::InvalidUsage);
  EXPECT_EQ(m.init(handle(2), 0), Status::InvalidUsage);
  EXPECT_EQ(m.init(handle(3), 0), Status::System);
  EXPECT_EQ(m.init(nullptr, 0), Status::InvalidUsage);
  EXPECT_EQ(m.init(handle(4), 2), Status::InvalidUsage);
  EXPECT_EQ(m.init(handle(4), -1), Status::InvalidUsage);
  gCopyFails = true;
  EXPECT_EQ(m.init(handle(4), 0), Status::System);
  EXPECT_EQ(m.count(), 0u);
  EXPECT_EQ(gCopies, 0);
  gCopyFails = false;
  EXPECT_EQ(m.init(handle(4), 0), Status::Success);  // a later attempt succeeds
  EXPECT_TRUE(holds(handle(4), s));
}

TEST_F(JitModules, UsesDeviceApi) {
  gModules[handle(1)];
  gModules[handle(2)].hasState = false;
  gModules[handle(3)].lookupFails = true;
  EXPECT_EQ(m.usesDeviceApi(handle(1), 0), 1);
  EXPECT_EQ(m.usesDeviceApi(handle(2), 0), 0);
  EXPECT_EQ(m.usesDeviceApi(handle(3), 0), static_cast<int>(Status::System));
  EXPECT_EQ(m.usesDeviceApi(nullptr, 0), static_cast<int>(Status::InvalidUsage));
  EXPECT_EQ(m.usesDeviceApi(handle(1), 5), static_cast<int>(Status::InvalidUsage));
  EXPECT_EQ(m.count(), 0u);  // a query binds nothing
}

TEST_F(JitModules, ForgetStopsBinding) {
  gModules[handle(1)];
  gModules[handle(2)];
  m.init(handle(1), 0);
  m.init(handle(2), 0);
  EXPECT_EQ(m.forget(handle(1), 0), Status::Success);
  EXPECT_EQ(m.forget(handle(1), 0), Status::InvalidUsage);  // already forgotten
  EXPECT_EQ(m.forget(handle(9), 0), Status::InvalidUsage);  // never initialised
  const GpuStates s = randomStates(rng);
  m.bindAll(&s, sizeof(s));
  EXPECT_FALSE(holds(handle(1), s));
  EXPECT_TRUE(holds(handle(2), s));
  EXPECT_EQ(gCopies, 1);
}

TEST_F(JitModules, BindAllReportsTheFirstCopyFailureAndKeepsGoing) {
  gModules[handle(1)];
  m.init(handle(1), 0);
  gCopyFails = true;
  const GpuStates s = randomStates(rng);
  EXPECT_EQ(m.bindAll(&s, sizeof(s)), 700);
  EXPECT_TRUE(m.bound());  // the runtime is bound; the module is reported, not dropped
  EXPECT_EQ(m.count(), 1u);
  EXPECT_NE(m.bindAll(&s, sizeof(s) - 1), 0);  // a state of the wrong size is refused
}
