/* <mori/nvshmem.h> from C, as NVSHMEM's host API is used from C host files: the names a host
 * program spells build with the C compiler (C11, -pedantic), the constants keep their values, and
 * before nvshmem_init every call fails with mori's usage error and writes nothing, as from C++
 * (test_nvshmem_host.cpp). Runs without a GPU (CI). A refused name's call from C fails to compile
 * naming it: test_nvshmem_unsupported_call_c / _constant_c (nvshmem_unsupported_c*.c). */
#include <mori/nvshmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK_EQ(got, want)                                                                                     \
  do {                                                                                                          \
    const long long got_ = (long long)(got), want_ = (long long)(want);                                         \
    if (got_ != want_) {                                                                                        \
      fprintf(stderr, "%s:%d: %s is %lld, expected %s (%lld)\n", __FILE__, __LINE__, #got, got_, #want, want_); \
      ++failures;                                                                                               \
    }                                                                                                           \
  } while (0)

int main(void) {
  int word[4] = {0, 0, 0, 0};
  uint64_t sig = 0;
  const int usage = MORI_SHMEM_ERROR_INVALID_USAGE;
  int major = -1, minor = -1, patch = -1, level = -1;
  char name[NVSHMEM_MAX_NAME_LEN];

  CHECK_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  CHECK_EQ(NVSHMEM_SIGNAL_SET, MORI_SHMEM_SIGNAL_SET);
  CHECK_EQ(NVSHMEM_CMP_GE, MORI_SHMEM_CMP_GE);
  CHECK_EQ(NVSHMEM_TEAM_WORLD, MORI_SHMEM_TEAM_WORLD);
  CHECK_EQ(NVSHMEM_TEAM_INVALID, MORI_SHMEM_TEAM_INVALID);
  CHECK_EQ(nvshmem_my_pe(), -1);
  CHECK_EQ(nvshmem_n_pes(), -1);
  CHECK_EQ(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD), -1);
  CHECK_EQ(nvshmem_malloc(64) == NULL, 1);

  /* RMA, signals and collectives on a stream, and from host code. */
  CHECK_EQ(nvshmemx_putmem_nbi_on_stream(word, word + 1, sizeof(int), 0, NULL), usage);
  CHECK_EQ(nvshmemx_int_put_on_stream(word, word + 1, 2, 0, NULL), usage);
  CHECK_EQ(nvshmemx_put32_signal_nbi_on_stream(word, word + 1, 1, &sig, 1, NVSHMEM_SIGNAL_SET, 0, NULL), usage);
  CHECK_EQ(nvshmemx_signal_wait_until_on_stream(&sig, NVSHMEM_CMP_EQ, 0, NULL), usage);
  CHECK_EQ(nvshmemx_int_wait_until_on_stream(word, NVSHMEM_CMP_EQ, 1, NULL), usage);
  CHECK_EQ(nvshmemx_long_g_on_stream((long*)(void*)word, 0, NULL), 0);
  CHECK_EQ(nvshmemx_int_broadcast_on_stream(NVSHMEM_TEAM_WORLD, word, word + 1, 1, 0, NULL), usage);
  CHECK_EQ(
      nvshmemx_int64_alltoall_on_stream(NVSHMEM_TEAM_WORLD, (int64_t*)(void*)word, (int64_t*)(void*)word + 1, 1, NULL),
      usage);
  CHECK_EQ(nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, word, word + 1, 1, NULL), usage);
  CHECK_EQ(nvshmem_float_fcollect(NVSHMEM_TEAM_WORLD, (float*)(void*)word, (float*)(void*)word + 2, 1), usage);
  CHECK_EQ(nvshmem_double_max_reducescatter(NVSHMEM_TEAM_WORLD, (double*)(void*)word, (double*)(void*)word + 1, 1),
           usage);
  nvshmem_putmem(word, word + 1, sizeof(int), 0);
  nvshmem_int_p(word, 5, 0);
  CHECK_EQ(nvshmem_int_g(word + 1, 0), 0);
  CHECK_EQ(nvshmem_int_atomic_fetch_add(word, 3, 0), 0);
  nvshmemx_signal_op(&sig, 5, NVSHMEM_SIGNAL_SET, 0);
  nvshmem_quiet();
  CHECK_EQ(nvshmem_sync_all(), usage);
  CHECK_EQ(nvshmemx_sync_all_on_stream(NULL), usage);
  CHECK_EQ(sig, 0);
  CHECK_EQ(word[0], 0); /* nothing was written */

  nvshmem_info_get_version(&major, &minor);
  CHECK_EQ(major * 100 + minor, 103);
  memset(name, 'x', sizeof(name));
  nvshmem_info_get_name(name);
  CHECK_EQ(strncmp(name, "mori-shmem ", 11), 0);
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  CHECK_EQ(NVSHMEM_VENDOR_VERSION, major * 10000 + minor * 100 + patch);
  nvshmem_query_thread(&level);
  CHECK_EQ(level, NVSHMEM_THREAD_FUNNELED);
  CHECK_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);

  printf("test_nvshmem_host_c: %s (%d failed checks)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
