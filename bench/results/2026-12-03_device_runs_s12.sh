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
  { grep -E '^#' tools/perf/standard.list
    cat <<'LIST'
cd_fcollect_t    fcollect_latency -s thread -b 128 -e 64K -f 8 -n 100 -w 10
cd_alltoall_t    alltoall_latency -s thread -b 128 -e 64K -f 8 -n 100 -w 10
cd_bcast_t       bcast_latency -s thread -b 512 -e 64K -f 8 -n 100 -w 10
cd_reduce_t      reduction_latency -d float -s thread -b 4 -e 64K -f 16 -n 100 -w 10
LIST
  } > /tmp/s12B.list
  mkdir -p /tmp/jobB
  for run in np4_r1 np4_r2 np2_r1; do
    np=${run:2:1}
    for v in s t8 ru2; do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np)) MORI_PERF_LIST=/tmp/s12B.list MORI_PERF_NP=$np \
        MORI_COMMIT=$v timeout 90 tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobB/${v}_$run \
        > /tmp/jobB/${v}_$run.log 2>&1
      echo "$v $run: exit $? ($((SECONDS - start)) s)"
    done
    (cd /tmp && tar -czf "$OUT/jobB.tgz" jobB)
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
