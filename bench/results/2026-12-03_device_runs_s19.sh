#!/bin/bash
# Device runs of the nineteenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). Trees: .snapB is 9b46b57 (the
# base); x is this tree; .snapZ is x with stagedExchange MORI_DEVICE_NOINLINE; .snapY is x with a
# wave staged too (kStagedScope: Block or Warp).
#   A: a block's fcollect and alltoall above the one-step limit and up to 64 KiB for all members
#      together are staged (collectives.hpp: stagedExchange): puts into every member's stage
#      area, a quiet, an arrival word per member, a copy of the others' regions into dest by its
#      own PE; no entry sync and no exit barrier, where the push pays both. Builds b, x, z, y; the
#      device and stream rows of fcollect and alltoall at 2-32 KiB per member at 4 PEs
#      (b x z y y z x b) and 4-64 KiB at 2 PEs (b x z y); x beside NVSHMEM at both counts; x's
#      team suites; s11's full 4-PE list with NVSHMEM beside x if time is left.
#      Prediction: a block's fcollect and alltoall of 8 and 16 KiB per member at 4 PEs 8.2-8.8 ->
#      6.0-7.0 us (NVSHMEM 7.8-8.7): the entry sync (~1.5 us, the block's team sync at 4 PEs)
#      replaced by a copy of 24-48 KiB from the GPU's own memory (~0.3-0.5 us); the stream rows
#      of the same sizes (one 256-thread block) as much lower; z level with x or up to 0.3 us
#      slower (a call) but the block's one-step rows where b has them; y's wave rows of 16 KiB
#      per member higher than b's (a wave copies 48 KiB out at 4 PEs: ~2-3 us more, ~1.5 us
#      less sync); rows outside the staged sizes level.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
i=0
tests="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline mori_nic_model"
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
team_suites() {  # team_suites <tree> <tag> <timeout>: the team suites of ../build-<tree>, logs in $OUT/suite<tag>.tgz
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=100 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-$1 OUT=/tmp/suite$2 \
    timeout $3 tools/gpu_suite.sh > /tmp/suite$2.log 2>&1
  echo "team suites ($1) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suite$2.log | head -20
  (cd /tmp && tar -czf "$OUT/suite$2.tgz" suite$2 suite$2.log)
}
perfrun() {  # perfrun <tree> <np> <tag> [list]
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s19P$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}

case "$phase" in
A)
  mkdir -p /tmp/job
  build x . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build z .snapZ mori_shmem_bootstrap_mpi mori_shmem_perf &
  build y .snapY mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      for c in fcollect alltoall; do
        echo "cds_$c  ${c}_latency -s all -b $((2048 * np)) -e $((65536 * np)) -f 2 -n 100 -w 10"
        echo "css_$c  ${c}_on_stream -b $((2048 * np)) -e $((65536 * np)) -f 2 -n 100 -w 10"
      done
    } > /tmp/s19P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s19F4.list
  . tools/mps.sh
  mps_start
  nv=../build-x/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b x z y y z x b; do perfrun $v 4 a$((++i)); done
  for v in b x z y; do perfrun $v 2 a$((++i)); done
  mv $nv.off $nv
  perfrun x 4 nv
  perfrun x 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  team_suites x X 130
  if [ $SECONDS -lt 470 ]; then
    mps_start
    perfrun x 4 full /tmp/s19F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  fi
  echo "total $((SECONDS - start)) s"
  ;;
esac
