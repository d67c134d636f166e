#!/bin/bash
# Device runs of the twelfth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). The tree under test is unpacked
# at .snap (this script's tree), the commit it is compared with at ../.snap2; $OUT comes back.
# MORI_COMMIT names the tree in the records, MORI_BASE the commit at .snap2.
#   A: the barrier with one release. Before, a team barrier released twice (its quiet, then the
#      release sync's fence) and a block's quiet released in every thread. Now a block's quiet
#      syncs, then its rank 0 releases alone (NVSHMEM's block barrier does the same), and the
#      barrier's sync does not release again. s11 (4 PEs): barrier 4.5 (thread) / 5.8 (block) /
#      4.6 (warp) us against the team sync's 1.4 with no release, so one release costs ~1.4 us.
#      Prediction, 4 PEs: thread 4.5 -> ~3.1, block 5.8 -> ~3.3, warp 4.6 -> ~3.2 (NVSHMEM
#      3.9-4.7), the stream barrier 11.8 -> ~8.3 (NVSHMEM 8.4); 2 PEs: 0.2-0.5 us less; the team
#      sync unchanged. Builds the perf tools of .snap and ../.snap2, then the barrier and sync rows
#      at 4 PEs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25) and 2 PEs (50), the two trees interleaved,
#      3 rounds, NVSHMEM beside in every round of .snap.
#   B: one thread's pull forms and direct reductions at 4 PEs (1.16-1.24x of NVSHMEM at fc57bc1:
#      its fcollect of 256 B-16 KiB per member, its float reductions of 1 and 16 KiB). "t8"
#      (../.snap3: this tree with the collectives' one-thread gets from load/store peers keeping
#      8 vectors in flight; the public get keeps 4) and "ru2" (../.snap4: one thread's direct
#      reduction loading 2 units per member before combining instead of 4: fewer registers, fewer
#      spills under the library's cap of 64) against this tree, one thread's rows at 4 PEs (25%)
#      in 2 interleaved rounds, NVSHMEM beside this tree's, then at 2 PEs (50) once each.
#      Prediction: t8 halves the round trips of a thread's copy: fcollect of 2 KiB per member
#      32.7 -> ~20 us, 16 KiB 208 -> ~115, 256 B 10.4 -> ~8.8 (NVSHMEM 8.5, 27.5, 180); alltoall and
#      broadcast rows of the pull form alike; reductions unchanged. ru2: unknown (at 2 PEs 4 units
#      beat 2 by 18%; at 4 PEs the loop spills).
#   C: B's t8 kept (b7a7448), and one thread's direct reduction in teams of more than 2 loading 2
#      units of 3 members before combining them (6650d9e; B showed one member's loads waited for
#      at a time: 4 PEs took 2.6x the 2-PE time). The team suites for this tree, then one thread's
#      rows at 4 PEs (2 interleaved rounds) and 2 PEs (once) against acc1a2c ("base", ../.snap2),
#      NVSHMEM beside this tree's.
#      Prediction (4 PEs): float reduction of 16 KiB 890 -> ~600 us, 1 KiB 65 -> ~45 (NVSHMEM 763,
#      55.5); t8's rows as in B; 2 PEs: reductions unchanged (same path).
#   D: the collectives' 4-PE list (s11's) and whole 2-PE list (s8 M) once each for this tree,
#      NVSHMEM beside: where the rows stand after this session's changes.
#   E: a wave's or block's fcollect and alltoall pull (the pull form and the stream form's middle
#      kernel) from load/store peers in groups of whole waves, one member per group at a time, 8
#      vectors in flight per thread (before: one member after another through the blocking get,
#      each thread's share of a 16 KiB piece one pass of 4 vectors, one wait per member). The team
#      suites, then the 4-PE fcollect and alltoall rows against c67231a ("base", ../.snap2; its
#      library is b7a7448's) in 2 interleaved rounds, NVSHMEM beside this tree's; then D's two lists
#      for this tree, NVSHMEM beside (the final figures of the session).
#      Prediction (4 PEs): a block's fcollect and alltoall of 16 KiB per member 10.5-10.7 -> ~8.5 us
#      (NVSHMEM 7.6-8.8), a wave's 18 -> ~11 (NVSHMEM 18), the stream forms of 8 and 128 KiB per
#      member 1-3 us less (NVSHMEM 13.1 / 12.5 and 22.5 / 22.0); the one-step rows (up to 8 KiB
#      per member on 2 PEs, 2 KiB on 4) unchanged; at 2 PEs the pull rows 0.5-1 us less.
#      Result: see bench/results/2026-12-03T0150Z_h200x1_mps_grouped_pull.json; reverted (0a1795d).
#   F: the session's last tree (library = b7a7448's): the team suites, then D's two lists.
#   S: the whole GPU suite for .snap (quiet's change reaches every suite that completes a block's
#      operations): the build of A's tree completed, then ctest -L gpu but the NIC-model rate
#      benchmarks.
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
A)
  build s . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base ../.snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    cat <<'LIST'
cd_barrier       barrier_latency -s all -n 1000 -w 100
cd_sync          sync_latency -s all -n 1000 -w 100
cs_barrier       barrier_on_stream -n 300 -w 30
cs_sync          sync_on_stream -n 300 -w 30
LIST
  } > /tmp/s12A.list
  mkdir -p /tmp/jobA
  for round in 1 2 3; do
    for np in 4 2; do
      for v in s base; do
        CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s12A.list MORI_PERF_NP=$np \
          MORI_COMMIT=$v timeout 60 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobA/${v}_np${np}_r$round \
          > /tmp/jobA/${v}_np${np}_r$round.log 2>&1
        echo "$v np$np round $round: exit $? ($((SECONDS - start)) s)"
      done
    done
    (cd /tmp && tar -czf "$OUT/jobA.tgz" jobA)  # what ran so far comes back if the call's time runs out
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
B)
  build s . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build t8 ../.snap3 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build ru2 ../.snap4 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobB
  for run in np4_r1 np4_r2 np2_r1; do
    np=${run:2:1}
    for v in s t8 ru2; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=bench/results/2026-12-03_s12_thread_rows.list MORI_PERF_NP=$np \
        MORI_COMMIT=$v timeout 90 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobB/${v}_$run \
        > /tmp/jobB/${v}_$run.log 2>&1
      echo "$v $run: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobB.tgz" jobB)
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
C)
  build s . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base ../.snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=120 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-s OUT=/tmp/suiteC \
    tools/gpu_suite.sh > /tmp/suiteC.log 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteC.log | head -20
  (cd /tmp && tar -czf "$OUT/suiteC.tgz" suiteC suiteC.log)
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobC
  for run in np4_r1 np4_r2 np2_r1; do
    np=${run:2:1}
    for v in s base; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=bench/results/2026-12-03_s12_thread_rows.list \
        MORI_PERF_NP=$np MORI_COMMIT=$v timeout 90 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobC/${v}_$run \
        > /tmp/jobC/${v}_$run.log 2>&1
      echo "$v $run: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobC.tgz" jobC)
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
E | F)
  build s . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  [ "$phase" = E ] && build base ../.snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=120 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-s OUT=/tmp/suiteE \
    tools/gpu_suite.sh > /tmp/suiteE.log 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteE.log | head -20
  (cd /tmp && tar -czf "$OUT/suiteE.tgz" suiteE suiteE.log)
  [ "$phase" = F ] && exec bash "$0" D
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^c[ds]_(alltoall|fcollect)4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s12E.list
  mkdir -p /tmp/jobE
  for round in 1 2; do
    for v in s base; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 MORI_PERF_LIST=/tmp/s12E.list MORI_PERF_NP=4 MORI_COMMIT=$v timeout 90 \
        tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobE/${v}_np4_r$round > /tmp/jobE/${v}_np4_r$round.log 2>&1
      echo "$v np4 round $round: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobE.tgz" jobE)
  done
  mps_stop
  ;&
D)
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobD
  { grep -E '^#' tools/perf/standard.list
    sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s12D2.list
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s12D4.list
  [ "$(grep -c . /tmp/s12D2.list)" -gt 19 ] && [ "$(grep -c . /tmp/s12D4.list)" -gt 12 ] || { echo "lists: not found"; exit 2; }
  for np in 4 2; do
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s12D$np.list MORI_PERF_NP=$np \
      MORI_COMMIT=${MORI_COMMIT:-unknown} timeout 270 tools/perf/run_benchmarks.sh "$PWD/../build-s" /tmp/jobD/np$np \
      > /tmp/jobD/np$np.log 2>&1
    echo "np$np: exit $? ($((SECONDS - start)) s)"
    (cd /tmp && tar -czf "$OUT/jobD.tgz" jobD)
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
  (cd /tmp && tar -czf "$OUT/suite.tgz" suite suite.log s_build.log)
  echo "total $((SECONDS - start)) s"
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
