#!/bin/bash
# Device runs of the nineteenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). Trees: .snapB is 9b46b57 (the
# base). Phase A: x is b7f788b's tree; .snapZ is x with stagedExchange MORI_DEVICE_NOINLINE; .snapY
# is x with a wave staged too (kStagedScope: Block or Warp). Phase B: y2 is this tree (a block and
# a wave staged, the others' regions copied out in one loop, 8 vectors in flight per thread:
# stagedCopyOut); .snapX2 is y2 with a block only staged; .snapY as in A. Phase C: x2 is this
# tree (x2 of B, kept); .snapT is x2 with the host forms' spread threshold (shmem/team_spread.hpp:
# kSpreadFromBytes) at 512 KiB instead of 256.
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
B)
  #    Result of A (bench/results/2026-12-03T2250Z_h200x1_mps_staged_exchange.json): a block's
  #    rows at 4 PEs level or worse (8 KiB per member 7.85 -> 7.64-7.98 us, 16 KiB 8.2 -> 8.45-8.78;
  #    NVSHMEM 6.82, 7.92), at 2 PEs 16 KiB per member 4.90 -> 4.34-4.50; z 2-3 us slower; y's wave
  #    rows of 8-16 KiB per member at 4 PEs 13.6 -> 11.1-11.2 and 16.3 -> 15.1 us (fcollect), its
  #    one-step rows of a wave 0.2-0.7 us slower. Suites on x: 21/21.
  #    B: the copy out in one loop over the others' regions (y2, x2), 8 vectors in flight, where x
  #    and y copied one member's region after another, 4 in flight: 3 dependent passes of a
  #    256-thread block over 48 KiB at 4 PEs become 2. Builds b, y2, x2, y; the same rows at 4 PEs
  #    (b y2 x2 y y x2 y2 b) and 2 PEs (b y2 x2 y); y2 beside NVSHMEM; y2's team suites; the
  #    full 4-PE list of y2 with NVSHMEM.
  #    Prediction: a block's 8 KiB per member at 4 PEs 7.6-8.0 -> 6.6-7.0 us and 16 KiB 8.5 ->
  #    7.8-8.1 (NVSHMEM 6.8, 7.9); a wave's 8-16 KiB per member 0.5-1.5 us below y's.
  #    Result (bench/results/2026-12-03T2250Z_h200x1_mps_staged_exchange.json): a block as
  #    predicted (fcollect 7.9 -> 6.5-6.9 us and 8.2-8.4 -> 7.7-7.9, alltoall 8.1-8.3 -> 7.0-7.2 and
  #    8.7 -> 8.1-8.2); a wave not (16 KiB per member 16.3 -> 16.5, its one-step rows 0.4-0.7 us
  #    slower): x2 kept. y2's team suites 21/21.
  mkdir -p /tmp/job
  build y2 . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build x2 .snapX2 mori_shmem_bootstrap_mpi mori_shmem_perf &
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
  nv=../build-y2/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b y2 x2 y y x2 y2 b; do perfrun $v 4 b$((++i)); done
  for v in b y2 x2 y; do perfrun $v 2 b$((++i)); done
  mv $nv.off $nv
  perfrun y2 4 nv
  perfrun y2 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobB.tgz" job)
  team_suites y2 Y2 130
  if [ $SECONDS -lt 470 ]; then
    mps_start
    perfrun y2 4 full /tmp/s19F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobB.tgz" job)
  fi
  echo "total $((SECONDS - start)) s"
  ;;
C)
  #    C: the stream collectives at the spread threshold. B's lists showed the stream fcollect and
  #    alltoall of 64 KiB per member at 4 PEs (256 KiB into each PE, the first spread size) at
  #    20.4-21.4 us against NVSHMEM's 15.9-17.1, the one-kernel form of 32 KiB per member at
  #    13.8-14.4. Builds x2, t; the stream broadcast, fcollect, alltoall and bfloat16 reduction of
  #    64 KiB-2 MiB into each PE at 4 PEs (x2 t t x2) and 2 PEs (x2 t), then x2 beside NVSHMEM.
  #    Prediction: t's 256 KiB rows 20.4-21.4 -> 16-17.5 us (the block's device fcollect of 64 KiB
  #    per member takes 11.4 us, plus ~5 us of stream launch and sync), its 512 KiB rows level.
  #    Result (bench/results/2026-12-03T2256Z_h200x1_mps_spread_threshold.json): at 4 PEs the data
  #    collectives of 256 KiB as predicted (fcollect 20.5-20.9 -> 16.3-17.1 us, NVSHMEM 16.1;
  #    alltoall 20.9-21.8 -> 17.7-17.9, 17.3), but the bfloat16 reduction of 64 KiB at 4 PEs
  #    24.1-24.9 -> 28.1 and of 128 KiB at 2 PEs 12.8 -> 29.2, the 2-PE fcollect of 256-512 KiB
  #    0.3-0.7 us higher. Not kept.
  mkdir -p /tmp/job
  build x2 . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build t .snapT mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cst_fcollect  fcollect_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_alltoall  alltoall_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_bcast     broadcast_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_reduce    reduction_on_stream -d bfloat16 -b 16K -e 2M -f 2 -n 100 -w 10"
    } > /tmp/s19P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-x2/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in x2 t t x2; do perfrun $v 4 c$((++i)); done
  for v in x2 t; do perfrun $v 2 c$((++i)); done
  mv $nv.off $nv
  perfrun x2 4 nv
  perfrun x2 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
esac
