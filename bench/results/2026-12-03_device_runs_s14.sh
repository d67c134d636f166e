#!/bin/bash
# Device runs of the fourteenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). The tree under test (the variant)
# is this script's tree; ../.snap2 is the base. MORI_COMMIT / MORI_BASE name them in the records.
#   S: the base (the runtime's kernels split out of the host tests' link, 5bcce1c, and the
#      runtime's host sources compiled as C++ on AMD) built whole, its whole GPU suite but the
#      NIC-model rate benchmarks; the variant's perf tools and team suites built beside it, its
#      team suites run after.
#      Prediction: the suite as at s12 (84 of 84, plus test_kernels_not_linked among the host tests).
#      Result (bench/results/2026-12-03T0849Z_h200x1_mps_gpu_suite_bbbf33a_ll_grouped_sends.json):
#      the base build failed here (its source path, fixed since); the variant's team suites passed
#      (21 of 21); the base's whole suite, run by hand after V, passed 84 of 84.
#   V: the variant: the one-step (LL) sends of a wave or block go to the load/store peers in
#      groups of threads, a peer per group, where that takes fewer passes over the words than
#      every thread on one peer after another (as the receive does). The collectives' 4-PE list
#      (s11's) for variant and base, 2 interleaved rounds, NVSHMEM beside the variant; then the
#      2-PE list once each.
#      Prediction (4 PEs): a block's one-step fcollect of 32 and 256 B per member 3.6 -> 3.2-3.4 us
#      (NVSHMEM 2.6-2.7), a wave's of 256 B 4.6 -> ~4.2 (3.9); a wave's broadcast of 64 and 512 B
#      3.1-3.2 -> ~2.9 (2.7-3.0), a block's of 4 KiB 4.9 -> ~4.3 (3.6); the thread rows and the
#      rows above the one-step limit unchanged.
#      Result (the same file): no row changed beyond noise; not kept. On this machine the wave's
#      and block's one-step rows were 0.5-2.3 us above s13's in both trees: phase A.
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
case "$phase" in
A | R) ;;
S)
  build base ../.snap2 &
  build v . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  wait
  SUITE_EXCLUDE='nic_model_rate' SUITE_BUILD=0 SUITE_TEST_TIMEOUT=90 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-base \
    OUT=/tmp/suite timeout $((480 - (SECONDS - start))) tools/gpu_suite.sh > /tmp/suite.log 2>&1
  echo "gpu_suite (base) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suite.log | head -20
  (cd /tmp && tar -czf "$OUT/suite.tgz" suite suite.log)
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=100 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-v OUT=/tmp/suiteV \
    timeout $((585 - (SECONDS - start))) tools/gpu_suite.sh > /tmp/suiteV.log 2>&1
  echo "team suites (variant) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteV.log | head -20
  (cd /tmp && tar -czf "$OUT/suiteV.tgz" suiteV suiteV.log)
  ;;
V)
  build v . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base ../.snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s14V4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s14V2.list
  [ "$(grep -c . /tmp/s14V2.list)" -gt 19 ] && [ "$(grep -c . /tmp/s14V4.list)" -gt 12 ] || { echo "lists: not found"; exit 2; }
  mkdir -p /tmp/jobV
  for run in np4_r1 np4_r2 np2_r1; do
    np=${run:2:1}
    for v in v base; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s14V$np.list MORI_PERF_NP=$np \
        MORI_COMMIT=$v timeout 140 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobV/${v}_$run \
        > /tmp/jobV/${v}_$run.log 2>&1
      echo "$v $run: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobV.tgz" jobV)
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
esac
# A (after V): V found the wave's and block's one-step rows 0.5-2.3 us slower than s13's D at
# 5e0f25a, in the variant and the base alike (NVSHMEM's and the thread rows as in s13): the base
# (bbbf33a, .snap2) against 5e0f25a (.snap3) in one job, the 4-PE broadcast, fcollect and
# reduction rows, 3 interleaved rounds, NVSHMEM beside 5e0f25a in the first.
# Result (the same file): equal on every row, at s13's levels: V's difference was the machine's.
if [ "$phase" = A ]; then
  build old .snap3 mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base .snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^cd_(bcast|fcollect|reduce)4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s14A.list
  [ "$(grep -c '^c' /tmp/s14A.list)" = 3 ] || { echo "list: not found"; exit 2; }
  mkdir -p /tmp/jobA
  for r in 1 2 3; do
    for v in old base; do
      [ $r = 1 ] || [ $v = base ] || rm -f ../build-old/tools/perf/mori-shmem-perf-nvshmem
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 MORI_PERF_LIST=/tmp/s14A.list MORI_PERF_NP=4 MORI_COMMIT=$v \
        timeout 100 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobA/${v}_r$r > /tmp/jobA/${v}_r$r.log 2>&1
      echo "$v r$r: exit $? ($((SECONDS - start)) s)"
    done
  done
  (cd /tmp && tar -czf "$OUT/jobA.tgz" jobA)
  mps_stop
  echo "total $((SECONDS - start)) s"
fi
# R: one thread's direct-load reduction (above the one-step limit, every member P2P) loads 2
# units of 4 members at once (one group: a member's loads no longer wait for the previous
# member's combine), where it loaded 4 units of one member at a time. The team suites for the
# variant (this tree), then the reduction rows, 4 PEs (float, every scope; double, one thread;
# the stream form) 2 interleaved rounds with base (.snap2, bbbf33a), NVSHMEM beside the variant,
# and 2 PEs (float, every scope) once each.
# Prediction: one thread's float reduction of 1 and 16 KiB at 4 PEs 65-67 -> ~35 and 889 -> ~470
# us (NVSHMEM 55, 741-765); at 2 PEs no change (2 real members of 4: as many loads in flight as
# before); the wave, block and stream rows unchanged.
# Result (bench/results/2026-12-03T0920Z_h200x1_mps_thread_reduction_member_groups.json; the list
# check refused the lists as first written - the 2-PE line twice, a double row the perf tool does
# not take - and the runs went by hand with the lists as now): the suites passed; one thread 10-12%
# faster (4 PEs 65.5 -> 59.0 and 889 -> 797 us, NVSHMEM 55.3, 763); a wave's 16 KiB 75 -> 88 us
# at 4 PEs and 32 -> 44 at 2 from the rewritten loop alone: the wave and block keep the old one.
if [ "$phase" = R ]; then
  build r . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base .snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=100 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-r OUT=/tmp/suiteR \
    tools/gpu_suite.sh > /tmp/suiteR.log 2>&1
  echo "team suites (variant) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteR.log | head -20
  (cd /tmp && tar -czf "$OUT/suiteR.tgz" suiteR suiteR.log)
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^c[ds]_reduce4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s14R4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^cd_reduce /{p;q}" bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s14R2.list
  [ "$(grep -c '^c' /tmp/s14R4.list)" = 2 ] && [ "$(grep -c '^c' /tmp/s14R2.list)" = 1 ] || { echo "lists: not found"; exit 2; }
  mkdir -p /tmp/jobR
  for run in np4_r1 np4_r2 np2_r1; do
    np=${run:2:1}
    for v in r base; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s14R$np.list MORI_PERF_NP=$np \
        MORI_COMMIT=$v timeout 100 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobR/${v}_$run \
        > /tmp/jobR/${v}_$run.log 2>&1
      echo "$v $run: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobR.tgz" jobR)
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
fi
