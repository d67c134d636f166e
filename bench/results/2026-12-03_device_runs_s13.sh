#!/bin/bash
# Device runs of the thirteenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). The tree under test is unpacked
# at .snap (this script's tree); ../.snap2 is the base, ../.snap3 a variant. MORI_COMMIT names the
# tree in the records.
#   P: fcollect and alltoall above the one-step limit push instead of pull: an arrival sync (a
#      release of this GPU's own memory first: fence.release.gpu), puts into every member's dest,
#      a barrier (one system release) - where the pull form paid two release syncs (~1.4 us each
#      at 4 PEs, s12) around one-thread-per-vector remote loads. "ps" (../.snap3) is the push with
#      a system release sync at the entry (what the pull form had): P against ps is the price of
#      the entry's system release, ps against base (../.snap2, 2640d29, library = b7a7448) that of
#      stores against loads. The team suites for .snap, then the 4-PE fcollect and alltoall rows
#      (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25) of s, ps and base in 2 interleaved rounds, NVSHMEM
#      beside s; then the 2-PE rows (50) once each.
#      Prediction (4 PEs): a block's fcollect and alltoall of 16 KiB per member 10.3-10.7 ->
#      8.6-9.0 us (NVSHMEM 7.7, 8.9), one thread's fcollect of 256 B per member 9.4 -> ~7.8
#      (NVSHMEM 8.5), the stream forms of 8 KiB per member 14.6-15.0 -> ~13.3 (NVSHMEM 12.6-13.0)
#      and of 128 KiB 24.6-25.6 -> ~23.5 (NVSHMEM 22.0-22.4); ps 1.2-1.5 us above s on each; the
#      one-step rows unchanged.
#      Result (bench/results/2026-12-03T0625Z_h200x1_mps_push_fcollect_alltoall.json): the block
#      rows 8.5 and 8.9 us (NVSHMEM 7.8, 8.8), one thread's fcollect of 256 B per member 7.9, the
#      stream rows 13.4 and 23.4-23.7; but one thread's alltoall of 2 and 16 KiB per member 21.9 ->
#      31.3 and 121 -> 206 us and a wave's of 16 KiB 18.2 -> 22.9 (still below NVSHMEM's 51.7,
#      379, 28.7): the public thread put keeps 4 vectors in flight where the pull kept 8.
#   Q: P's push with one thread's puts to load/store peers 8 vectors in flight (copyThread<8>, as
#      its gets) in both trees, and a wave's too (copyBytes with 8 per lane) in .snap only; ../.snap3
#      ("s2") has the thread part alone. The team suites for .snap, then one thread's and a wave's
#      fcollect and alltoall rows (4 PEs, 2 interleaved rounds, and 2 PEs once) of s, s2 and base
#      (../.snap2: the pull, b7a7448's library), NVSHMEM beside s; then D's two lists for s and s2.
#      Prediction: one thread's alltoall rows back at the pull's (4 PEs: 21.9 and 121 us) or below,
#      its fcollect rows 1-2 us below the pull's; a wave's alltoall of 16 KiB per member ~18 in s
#      (22.9 in s2); the block and stream rows as in P.
#      Result (bench/results/2026-12-03T0640Z_h200x1_mps_push_puts_8_in_flight_lists.json): the
#      suites passed; the interleaved rows did not run (the perf tool takes one scope or all, not
#      "thread,warp": exit 2); D's lists for s and s2 did: one thread's alltoall back at the pull's,
#      its fcollect below; a wave's 8 per lane kept.
#   D (07:18Z, for 5e0f25a): bench/results/2026-12-03T0720Z_h200x1_mps_lists_commit5e0f25a.json.
#   D: the collectives' 4-PE list (s11's) and whole 2-PE list (s8 M) once each for .snap (or
#      BUILD_D, into OUT_D), NVSHMEM beside.
#   S: the whole GPU suite for .snap but the NIC-model rate benchmarks.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
build() {  # build <name> <source dir> <targets...>: configures (once) and builds ../build-<name>
  local name=$1 src=$2
  shift 2
  { [ -f ../build-$name/build.ninja ] ||
    cmake -S "$src" -B ../build-$name -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
      > "/tmp/${name}_configure.log" 2>&1; } && ninja -C ../build-$name "$@" > "/tmp/${name}_build.log" 2>&1
  local rc=$?
  echo "$name build exit $rc ($((SECONDS - start)) s)"
  [ $rc = 0 ] || tail -20 "/tmp/${name}_build.log"
}
suites() {  # suites <out name>: the team suites of ../build-s
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=120 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-s OUT=/tmp/$1 \
    tools/gpu_suite.sh > /tmp/$1.log 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/$1.log | head -20
  (cd /tmp && tar -czf "$OUT/$1.tgz" $1 $1.log)
}
case "$phase" in
P)
  build s . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base ../.snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build ps ../.snap3 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  suites suiteP
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^c[ds]_(alltoall|fcollect)4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s13P4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^(cd_alltoall|cd_fcollect|cs_alltoall_big|cs_fcollect_big) /p" bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s13P2.list
  [ "$(grep -c '^c' /tmp/s13P4.list)" = 4 ] && [ "$(grep -c '^c' /tmp/s13P2.list)" = 4 ] || { echo "lists: not found"; exit 2; }
  mkdir -p /tmp/jobP
  for run in np4_r1 np4_r2 np2_r1; do
    np=${run:2:1}
    for v in s ps base; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s13P$np.list MORI_PERF_NP=$np \
        MORI_COMMIT=$v timeout 100 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobP/${v}_$run \
        > /tmp/jobP/${v}_$run.log 2>&1
      echo "$v $run: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobP.tgz" jobP)
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
Q)
  build s . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base ../.snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build s2 ../.snap3 mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  wait
  suites suiteQ
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^cd_(alltoall|fcollect)4 /p" bench/results/2026-12-02_device_runs_s11.sh | sed 's/-s all/-s thread,warp/'
  } > /tmp/s13Q4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^(cd_alltoall|cd_fcollect) /p" bench/results/2026-12-02_device_runs_s8.sh | sed 's/-s all/-s thread,warp/'
  } > /tmp/s13Q2.list
  [ "$(grep -c '^c' /tmp/s13Q4.list)" = 2 ] && [ "$(grep -c '^c' /tmp/s13Q2.list)" = 2 ] || { echo "lists: not found"; exit 2; }
  mkdir -p /tmp/jobQ
  for run in np4_r1 np4_r2 np2_r1; do
    np=${run:2:1}
    for v in s s2 base; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s13Q$np.list MORI_PERF_NP=$np \
        MORI_COMMIT=$v timeout 100 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobQ/${v}_$run \
        > /tmp/jobQ/${v}_$run.log 2>&1
      echo "$v $run: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobQ.tgz" jobQ)
  done
  mps_stop
  for v in s s2; do MORI_COMMIT=${MORI_COMMIT:-unknown}-$v OUT_D=/tmp/jobD_$v BUILD_D=$PWD/../build-$v bash "$0" D; done
  echo "total $((SECONDS - start)) s"
  ;;
D)
  [ -n "${BUILD_D:-}" ] || build s . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem
  . tools/mps.sh
  mps_start
  outd=${OUT_D:-/tmp/jobD} buildd=${BUILD_D:-$PWD/../build-s}
  mkdir -p "$outd"
  { grep -E '^#' tools/perf/standard.list
    sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s13D2.list
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s13D4.list
  [ "$(grep -c . /tmp/s13D2.list)" -gt 19 ] && [ "$(grep -c . /tmp/s13D4.list)" -gt 12 ] || { echo "lists: not found"; exit 2; }
  for np in 4 2; do
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s13D$np.list MORI_PERF_NP=$np \
      MORI_COMMIT=${MORI_COMMIT:-unknown} timeout 270 tools/perf/run_benchmarks.sh "$buildd" "$outd/np$np" \
      > "$outd/np$np.log" 2>&1
    echo "$(basename "$outd") np$np: exit $? ($((SECONDS - start)) s)"
    (cd "$(dirname "$outd")" && tar -czf "$OUT/$(basename "$outd").tgz" "$(basename "$outd")")
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
S)
  build s .
  SUITE_EXCLUDE='nic_model_rate' SUITE_BUILD=0 SUITE_TEST_TIMEOUT=90 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-s \
    OUT=/tmp/suite timeout $((570 - (SECONDS - start))) tools/gpu_suite.sh > /tmp/suite.log 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suite.log | head -20
  (cd /tmp && tar -czf "$OUT/suite.tgz" suite suite.log)
  ;;
esac
