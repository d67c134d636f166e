// <mori/nvshmem.h> in a host-only program (the host compiler, no device API): the NVSHMEM names a
// host program spells build, the constants the host stream calls take are visible, and before
// nvshmem_init the status says so and every call fails with mori's usage error, enqueuing nothing.
// Runs without a GPU (CI).
#include <gtest/gtest.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mori/nvshmem.h"

namespace {

TEST(NvshmemHost, NamesAndConstantsBeforeInit) {
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  // The values callers compare with: mori's (the header says which differ from NVSHMEM's).
  EXPECT_EQ(NVSHMEM_SIGNAL_SET, MORI_SHMEM_SIGNAL_SET);
  EXPECT_EQ(NVSHMEM_CMP_GE, MORI_SHMEM_CMP_GE);
  EXPECT_EQ(NVSHMEM_STATUS_IS_INITIALIZED, 2);

  int word[4] = {};
  uint64_t sig = 0;
  const int usage = MORI_SHMEM_ERROR_INVALID_USAGE;
  EXPECT_EQ(nvshmemx_putmem_nbi_on_stream(word, word + 1, sizeof(int), 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_getmem_nbi_on_stream(word, word + 1, sizeof(int), 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_int_put_on_stream(word, word + 1, 2, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_int_get_nbi_on_stream(word, word + 1, 2, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_put32_signal_nbi_on_stream(word, word + 1, 1, &sig, 1, NVSHMEM_SIGNAL_SET, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_double_put_signal_on_stream(reinterpret_cast<double*>(word), reinterpret_cast<double*>(word) + 1,
                                                 1, &sig, 1, NVSHMEM_SIGNAL_ADD, 0, nullptr),
            usage);
  EXPECT_EQ(nvshmemx_get64_on_stream(word, word + 2, 1, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_signal_wait_until_on_stream(&sig, NVSHMEM_CMP_EQ, 0, nullptr), usage);
  // The collectives on a stream are host functions here too (they were device-header only).
  EXPECT_EQ(nvshmemx_int_broadcast_on_stream(NVSHMEM_TEAM_WORLD, word, word + 1, 1, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_float_fcollect_on_stream(NVSHMEM_TEAM_WORLD, reinterpret_cast<float*>(word),
                                              reinterpret_cast<float*>(word) + 2, 1, nullptr),
            usage);
  EXPECT_EQ(nvshmemx_int64_alltoall_on_stream(NVSHMEM_TEAM_WORLD, reinterpret_cast<int64_t*>(word),
                                              reinterpret_cast<int64_t*>(word) + 1, 1, nullptr),
            usage);
  EXPECT_EQ(nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, word, word + 1, 1, nullptr), usage);
  EXPECT_EQ(nvshmemx_uint32_xor_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, reinterpret_cast<uint32_t*>(word),
                                                        reinterpret_cast<uint32_t*>(word) + 2, 1, nullptr),
            usage);
  EXPECT_EQ(nvshmem_double_max_reducescatter(NVSHMEM_TEAM_WORLD, reinterpret_cast<double*>(word),
                                             reinterpret_cast<double*>(word) + 1, 1),
            usage);
  // Host-initiated RMA and atomics: mori's forms refuse before init; NVSHMEM's names call them (a
  // fetching one returns 0 after the logged error).
  EXPECT_EQ(mori_shmem_host_putmem(word, word + 1, sizeof(int), 0), usage);
  EXPECT_EQ(mori_shmem_host_getmem_nbi(word, word + 1, sizeof(int), 0), usage);
  EXPECT_EQ(mori_shmem_host_quiet(), usage);
  EXPECT_EQ(mori_shmem_host_fence(), usage);
  nvshmem_putmem(word, word + 1, sizeof(int), 0);
  nvshmem_int_get_nbi(word, word + 1, 1, 0);
  nvshmem_put64(word, word + 2, 1, 0);
  nvshmem_quiet();
  nvshmem_fence();
  EXPECT_EQ(mori_shmem_host_p(word, word + 1, sizeof(int), 0), usage);
  EXPECT_EQ(mori_shmem_host_g(word, word + 1, sizeof(int), 0), usage);
  EXPECT_EQ(mori_shmem_host_atomic(MORI_SHMEM_AMO_ADD, word, word + 1, nullptr, nullptr, sizeof(int), 0), usage);
  nvshmem_int_p(word, 5, 0);
  EXPECT_EQ(nvshmem_int_g(word + 1, 0), 0);
  EXPECT_EQ(nvshmem_int_atomic_fetch_add(word, 3, 0), 0);
  EXPECT_EQ(nvshmem_uint64_atomic_compare_swap(reinterpret_cast<uint64_t*>(word), 0, 1, 0), 0u);
  nvshmem_long_atomic_inc(reinterpret_cast<long*>(word), 0);
  // Strided RMA, signals and single elements from host code and on a stream.
  EXPECT_EQ(mori_shmem_host_iput(word, word + 1, 1, 1, 2, sizeof(int), 0), usage);
  EXPECT_EQ(mori_shmem_host_iget(word, word + 1, 1, 1, 2, sizeof(int), 0), usage);
  EXPECT_EQ(mori_shmem_host_signal_op(&sig, 1, NVSHMEM_SIGNAL_ADD, 0), usage);
  EXPECT_EQ(mori_shmem_iput_on_stream(word, word + 1, 2, 1, 2, sizeof(int), 0, nullptr), usage);
  EXPECT_EQ(mori_shmem_p_on_stream(word, word + 1, sizeof(int), 0, nullptr), usage);
  nvshmem_int_iput(word, word + 1, 2, 1, 2, 0);
  nvshmem_iget64(word, word + 2, 1, 1, 1, 0);
  nvshmemx_signal_op(&sig, 5, NVSHMEM_SIGNAL_SET, 0);
  EXPECT_EQ(nvshmem_signal_fetch(&sig), 0u);
  EXPECT_EQ(nvshmemx_int_iput_on_stream(word, word + 1, 2, 1, 2, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_iget16_on_stream(word, word + 1, 1, 2, 2, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_float_p_on_stream(reinterpret_cast<float*>(word), 2.0f, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_long_g_on_stream(reinterpret_cast<long*>(word), 0, nullptr), 0);
  EXPECT_EQ(nvshmemx_signal_op_on_stream(&sig, 1, NVSHMEM_SIGNAL_SET, 0, nullptr), usage);
  EXPECT_EQ(sig, 0u);
  EXPECT_EQ(word[0], 0);  // nothing was written
  EXPECT_EQ(nvshmemx_cumodule_init(nullptr), usage);
  EXPECT_EQ(nvshmemx_sync_all_on_stream(nullptr), usage);
  EXPECT_EQ(nvshmem_sync_all(), usage);
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
}

// half and bfloat16 in host code, as NVSHMEM's header (which includes cuda_fp16.h) offers them: the
// typed stream RMA and every collective, blocking and on a stream. The vendor's 16-bit headers are
// on this test's include path on both platforms, so the types must be declared.
TEST(NvshmemHost, HalfAndBfloat16InHostCode) {
  static_assert(MORI_SHMEM_HAS_HALF_TYPES, "mori/shmem.h found no vendor 16-bit floating types");
  half h[4] = {};
  mori_shmem_bfloat16_t b[4] = {};
  const int usage = MORI_SHMEM_ERROR_INVALID_USAGE;
  EXPECT_EQ(nvshmemx_half_put_nbi_on_stream(h, h + 1, 1, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_bfloat16_get_on_stream(b, b + 1, 1, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_half_broadcast_on_stream(NVSHMEM_TEAM_WORLD, h, h + 1, 1, 0, nullptr), usage);
  EXPECT_EQ(nvshmemx_bfloat16_fcollect_on_stream(NVSHMEM_TEAM_WORLD, b, b + 2, 1, nullptr), usage);
  EXPECT_EQ(nvshmemx_half_alltoall_on_stream(NVSHMEM_TEAM_WORLD, h, h + 2, 1, nullptr), usage);
  EXPECT_EQ(nvshmemx_half_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, h, h + 1, 1, nullptr), usage);
  EXPECT_EQ(nvshmemx_bfloat16_max_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, b, b + 2, 1, nullptr), usage);
  EXPECT_EQ(nvshmem_half_broadcast(NVSHMEM_TEAM_WORLD, h, h + 1, 1, 0), usage);
  EXPECT_EQ(nvshmem_bfloat16_prod_reduce(NVSHMEM_TEAM_WORLD, b, b + 1, 1), usage);
  EXPECT_EQ(nvshmem_half_min_reducescatter(NVSHMEM_TEAM_WORLD, h, h + 2, 1), usage);
}

// The status names NVSHMEM programs compare results with, and the unique ID's initializer.
TEST(NvshmemHost, InfoVersionAndName) {
  int major = -1, minor = -1;
  nvshmem_info_get_version(&major, &minor);
  EXPECT_EQ(major, NVSHMEM_MAJOR_VERSION);
  EXPECT_EQ(minor, NVSHMEM_MINOR_VERSION);
  EXPECT_EQ(major * 100 + minor, 103);  // NVSHMEM's OpenSHMEM version
  char name[NVSHMEM_MAX_NAME_LEN];
  memset(name, 'x', sizeof(name));
  nvshmem_info_get_name(name);
  EXPECT_STREQ(name, NVSHMEM_VENDOR_STRING);
  EXPECT_EQ(strncmp(name, "mori-shmem ", 11), 0) << name;
  int patch = -1;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  EXPECT_EQ(major, MORI_SHMEM_VERSION_MAJOR);
  EXPECT_EQ(minor, MORI_SHMEM_VERSION_MINOR);
  EXPECT_EQ(patch, MORI_SHMEM_VERSION_PATCH);
  EXPECT_EQ(NVSHMEM_VENDOR_MAJOR_VERSION, major);
  EXPECT_EQ(NVSHMEM_VENDOR_MINOR_VERSION, minor);
  EXPECT_EQ(NVSHMEM_VENDOR_PATCH_VERSION, patch);
  EXPECT_EQ(NVSHMEM_VENDOR_PACKAGE_VERSION, 0);
  EXPECT_EQ(NVSHMEM_VENDOR_VERSION, major * 10000 + minor * 100 + patch);
  int level = -1;
  nvshmem_query_thread(&level);
  EXPECT_EQ(level, NVSHMEM_THREAD_FUNNELED);
  EXPECT_LT(NVSHMEM_THREAD_SINGLE, NVSHMEM_THREAD_FUNNELED);
  EXPECT_LT(NVSHMEM_THREAD_SERIALIZED, NVSHMEM_THREAD_MULTIPLE);
}

// The team constants with an exact counterpart: the config initializer and mask, the invalid PE.
TEST(NvshmemHost, TeamConfigConstants) {
  const nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  EXPECT_EQ(cfg.version, MORI_SHMEM_TEAM_CONFIG_VERSION);
  EXPECT_EQ(cfg.num_contexts, 0);
  EXPECT_EQ(NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, NVSHMEM_TEAM_NUM_CONTEXTS);
  EXPECT_EQ(NVSHMEM_PE_INVALID, -1);
  EXPECT_EQ(nvshmem_team_translate_pe(NVSHMEM_TEAM_INVALID, 0, NVSHMEM_TEAM_WORLD), NVSHMEM_PE_INVALID);
}

// No team has a multicast object: NULL for every team and address, as NVSHMEM without NVLS.
TEST(NvshmemHost, NoMulticastPointer) {
  int x = 0;
  EXPECT_EQ(nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, &x), nullptr);
  EXPECT_EQ(nvshmemx_mc_ptr(NVSHMEMX_TEAM_NODE, nullptr), nullptr);
  EXPECT_EQ(nvshmemx_mc_ptr(NVSHMEM_TEAM_INVALID, &x), nullptr);
}

// The element type a typed wait on a stream passes (MORI_SHMEMI_DT_INTEGER): signedness and width
// of every integer type NVSHMEM's wait names take, with no unsigned value compared below 0.
static_assert(MORI_SHMEMI_DT_INTEGER(short) == MORI_SHMEM_DTYPE_INT16, "short");
static_assert(MORI_SHMEMI_DT_INTEGER(unsigned short) == MORI_SHMEM_DTYPE_UINT16, "unsigned short");
static_assert(MORI_SHMEMI_DT_INTEGER(int) == MORI_SHMEM_DTYPE_INT32, "int");
static_assert(MORI_SHMEMI_DT_INTEGER(unsigned int) == MORI_SHMEM_DTYPE_UINT32, "unsigned int");
static_assert(MORI_SHMEMI_DT_INTEGER(long long) == MORI_SHMEM_DTYPE_INT64, "long long");
static_assert(MORI_SHMEMI_DT_INTEGER(unsigned long long) == MORI_SHMEM_DTYPE_UINT64, "unsigned long long");
static_assert(MORI_SHMEMI_DT_INTEGER(size_t) == MORI_SHMEM_DTYPE_UINT64, "size_t");
static_assert(MORI_SHMEMI_DT_INTEGER(ptrdiff_t) == MORI_SHMEM_DTYPE_INT64, "ptrdiff_t");

TEST(NvshmemHost, StatusNamesAndUniqueIdInitializer) {
  EXPECT_EQ(NVSHMEMX_SUCCESS, 0);
  EXPECT_EQ(NVSHMEMX_ERROR_INVALID_VALUE, MORI_SHMEM_ERROR_INVALID_USAGE);
  EXPECT_EQ(NVSHMEMX_ERROR_OUT_OF_MEMORY, MORI_SHMEM_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(NVSHMEMX_ERROR_NOT_SUPPORTED, MORI_SHMEM_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(NVSHMEMX_ERROR_SYMMETRY, MORI_SHMEM_ERROR_REMOTE);
  EXPECT_EQ(NVSHMEMX_ERROR_INTERNAL, MORI_SHMEM_ERROR_INTERNAL);
  EXPECT_NE(nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, nullptr, nullptr, 1, nullptr), NVSHMEMX_SUCCESS);
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  for (unsigned char b : id.internal) EXPECT_EQ(b, 0);
  const nvshmemx_init_attr_t v1 = NVSHMEMX_INIT_ATTR_V1_INITIALIZER, v2 = NVSHMEMX_INIT_ATTR_INITIALIZER;
  EXPECT_EQ(memcmp(&v1, &v2, sizeof(v1)), 0) << "mori's init attr has one version";
}

}  // namespace

// nvshmem_global_exit before nvshmem_init: only this process exits, with the status, its stdio
// flushed, saying so (the death test runs it in a child process).
TEST(NvshmemHost, GlobalExitBeforeInitEndsThisProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        dup2(2, 1);                 // stdout into the stderr the death test reads
        printf("a buffered line");  // no newline: only the flush at exit writes it
        nvshmem_global_exit(3);
      },
      testing::ExitedWithCode(3), "only this process exits(.|\n)*a buffered line");
  EXPECT_EXIT(nvshmem_global_exit(0), testing::ExitedWithCode(0), "mori_shmem_global_exit\\(0\\)");
}
