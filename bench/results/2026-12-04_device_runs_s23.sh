#!/bin/bash
# Device runs of the twenty-third session (2026-12-04), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). .snapB is 396d6ef (the base, b).
#   A: f is this tree (b + the change below). impl::copyBytes takes the fanout's further
#      destinations itself (an optional MoreDests; a fanout skips the aligned fast path and moves
#      its head and tail a byte per thread), replacing copyBytesToEach, which repeated its split.
#      ptxas: every device-library function as in b but a wave's fcollect (spill loads 1476 ->
#      1592 bytes) and alltoall (1360 -> 1352). .snapG is f with the host collectives' one-block
#      kernel (256 threads) on a block scope whose puts to load/store peers keep 8 vectors in
#      flight per thread (coop.hpp: SmallBlock; Block keeps the public put's 4): that kernel's
#      fcollect 74 -> 96 registers, alltoall 72 -> 114, broadcast 78 -> 112, no spills; the
#      device library unchanged.
#      Builds f, b, g; a wave's fcollect and alltoall (256 B-256 KiB) and the stream fcollect,
#      alltoall (4-512 KiB) and broadcast (4-64 KiB) at 4 PEs (b f g g f b) and 2 PEs (b f g);
#      f and g beside NVSHMEM; g's team suites (its tree holds f's change).
#      Prediction: f level with b on every row (within the run-to-run spread, ~2%). g: 4 PEs, the
#      stream fcollect and alltoall of 128 KiB (one block's push) 14.3-15.2 -> 13.3-14.0 us
#      (NVSHMEM 13.9-14.4), the staged 32-64 KiB rows 0.3-0.8 lower, the one-step rows and the
#      spread ones (256 KiB and up: another kernel) level.
#   B: A's result: f level with b on a wave's fcollect pushes or lower (4 PEs, 16-256 KiB in all
#      8.15-8.19 -> 8.02-8.06 us, 256 KiB 27.2-27.5 -> 26.8), but its one-step rows of 512 B-4 KiB
#      0.08-0.1 us higher (4 KiB 4.05-4.07 -> 4.15-4.18; NVSHMEM 8.6): the function's spills
#      grew, and the one-step path shares them. g slower than f on the stream's 32-128 KiB at 4
#      PEs (fcollect of 128 KiB 13.9-14.5 -> 14.7-14.8, NVSHMEM 13.7; staged 32-64 KiB 0.3-0.6
#      higher): not kept. Suites on g 30/30.
#      .snapV3 is f with a wave's fanout copy out of line (coop.hpp: Warp::copyToEach, noinline;
#      ptxas: the wave fcollect function's spill loads 1592 -> 1172 bytes, b 1476; the copy's own
#      180); .snapV4 is f with a wave's whole fcollect push out of line (collectives.hpp:
#      fcollectPushApart; 1084, the push's own 348).
#      Builds b, f, v3, v4; a wave's fcollect (256 B-256 KiB) at 4 PEs (b f v3 v4 v4 v3 f b) and
#      2 PEs (b f v3 v4); v4 beside NVSHMEM; the team suites of v4 and v3.
#      Prediction: v3 and v4 at or below b on the one-step rows (512 B-4 KiB at 4 PEs 4.05 or
#      lower) and within 1% of f on the pushes (8 KiB per member and up: a call costs ~0.05 us).
#   C: B's result: v4 (a wave's whole fcollect push out of line) 4 PEs: 256 KiB in all 27.4 ->
#      16.8 us, 32 KiB 12.9 -> 10.1, the one-step 2-4 KiB 4.1-4.5 -> 3.7-3.9, but 256-512 B 2.9-3.1
#      -> 3.1-3.4 (NVSHMEM 4.5); 2 PEs 256 KiB 35.4 -> 18.5. v3 (the copy alone out of line)
#      between b and v4 on the pushes, slower than b at 4-16 KiB. Suites 30/30 on v4 and v3.
#      .snapV6 is v4 with a wave's one-step fcollect out of line too (collectives.hpp:
#      llExchangeApart; ptxas: spill loads 928 bytes there, the entry function's 140); .snapV7 is
#      v6 with a wave's alltoall push out of line (alltoallPushApart; 268 there, the alltoall
#      function's 1360 -> 1304).
#      Builds b, v4, v6, v7; a wave's fcollect and alltoall (256 B-256 KiB) at 4 PEs
#      (b v4 v6 v7 v7 v6 v4 b) and 2 PEs (b v4 v6 v7); v7 beside NVSHMEM; v7's team suites.
#      Prediction: v6 at or below b on a wave's fcollect of 256-512 B (2.9-3.1 us at 4 PEs) and as
#      v4 elsewhere; v7's wave alltoall of 32-256 KiB 15-40% below b's (256 KiB 45.4 -> 30-38 us,
#      NVSHMEM 95), its one-step rows within 0.1 us of b's.
#   D: C's result: v7's wave alltoall push out of line 4 PEs 32-256 KiB 14.8-45.7 -> 10.8-25.8 us
#      (NVSHMEM 17.4-95.6), 2 PEs 10.1-41.0 -> 6.9-22.1, its one-step rows level. v6 (a wave's
#      one-step fcollect out of line too) slower than b on every fcollect row at both counts (4
#      PEs 256 B 2.9-3.05 -> 3.47, 4 KiB 4.06 -> 5.0) and its pushes back at b's (v4's gain gone,
#      though ptxas reports the same push function); v4 repeated B. Suites 30/30 on v7.
#      .snapV8 is f with the pushes of a wave's fcollect and alltoall out of line, their one-step
#      paths inline (v4's fcollect functions and v7's alltoall functions, the same by ptxas);
#      .snapV9 is v8 with one thread's and a block's pushes out of line too.
#      Builds b, v8, v9; fcollect and alltoall at every scope (256 B-256 KiB) at 4 PEs
#      (b v8 v9 v9 v8 b) and 2 PEs (b v8 v9); v8 beside NVSHMEM; v9's team suites (its wave
#      functions are v8's).
#      Prediction: v8's wave rows as v4's (fcollect) and v7's (alltoall); thread and block rows of
#      v8 as b's; v9's thread pushes (2 KiB per member and up) 5-20% lower, its block pushes (32
#      KiB per member and up) level or lower.
#   E: D's result: v8 as predicted (kept: c5afc25), v9 slower on one thread's and a block's
#      pushes (bench/results/2026-12-04T1600Z_h200x1_mps_wave_push_apart.json). z is this tree
#      (the landed code). .snapV6 is C's v6 (the slow form with the same push function).
#      Builds z's perf tools and v6's team_general object; z's full 4-PE list with NVSHMEM; the
#      SASS of z's and v6's team_general (the wave fcollect entry around the push's call), for
#      the convergence lead in docs/TEAMS.md. The session's last ~290 s of device time.
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
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s23P$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}

case "$phase" in
A)
  mkdir -p /tmp/job
  build f . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build g .snapG $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s warp -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "cdl_alltoall  alltoall_latency -s warp -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 4K -e 512K -f 2 -n 100 -w 10"
      echo "csb_alltoall  alltoall_on_stream -b 4K -e 512K -f 2 -n 100 -w 10"
      echo "csb_bcast     broadcast_on_stream -b 4K -e 64K -f 2 -n 100 -w 10"
    } > /tmp/s23P$np.list
  done
  . tools/mps.sh
  mps_start
  for t in f g; do mv ../build-$t/tools/perf/mori-shmem-perf-nvshmem ../build-$t/tools/perf/nv.off; done
  for v in b f g g f b; do perfrun $v 4 a$((++i)); done
  for v in b f g; do perfrun $v 2 a$((++i)); done
  for t in f g; do mv ../build-$t/tools/perf/nv.off ../build-$t/tools/perf/mori-shmem-perf-nvshmem; done
  perfrun g 4 nv
  perfrun g 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  team_suites g G 200
  echo "total $((SECONDS - start)) s"
  ;;
B)
  mkdir -p /tmp/job
  build v4 .snapV4 $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build v3 .snapV3 $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  build f . mori_shmem_bootstrap_mpi mori_shmem_perf &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s warp -b 256 -e 256K -f 2 -n 100 -w 10"
    } > /tmp/s23P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-v4/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b f v3 v4 v4 v3 f b; do perfrun $v 4 b$((++i)); done
  for v in b f v3 v4; do perfrun $v 2 b$((++i)); done
  mv $nv.off $nv
  perfrun v4 4 nv
  perfrun v4 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobB.tgz" job)
  team_suites v4 V4 200
  [ $SECONDS -lt 440 ] && team_suites v3 V3 $((580 - SECONDS))
  echo "total $((SECONDS - start)) s"
  ;;
C)
  mkdir -p /tmp/job
  build v7 .snapV7 $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build v6 .snapV6 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v4 .snapV4 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s warp -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "cdl_alltoall  alltoall_latency -s warp -b 256 -e 256K -f 2 -n 100 -w 10"
    } > /tmp/s23P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-v7/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b v4 v6 v7 v7 v6 v4 b; do perfrun $v 4 c$((++i)); done
  for v in b v4 v6 v7; do perfrun $v 2 c$((++i)); done
  mv $nv.off $nv
  perfrun v7 4 nv
  perfrun v7 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" job)
  team_suites v7 V7 200
  echo "total $((SECONDS - start)) s"
  ;;
D)
  mkdir -p /tmp/job
  build v9 .snapV9 $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v8 .snapV8 mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s all -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "cdl_alltoall  alltoall_latency -s all -b 256 -e 256K -f 2 -n 100 -w 10"
    } > /tmp/s23P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-v8/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b v8 v9 v9 v8 b; do perfrun $v 4 d$((++i)); done
  for v in b v8 v9; do perfrun $v 2 d$((++i)); done
  mv $nv.off $nv
  perfrun v8 4 nv
  perfrun v8 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobD.tgz" job)
  team_suites v9 V9 $((560 - SECONDS))
  echo "total $((SECONDS - start)) s"
  ;;
E)
  mkdir -p /tmp/job
  build z . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build v6 .snapV6 shmem/device/CMakeFiles/mori_shmem_device.dir/team_general.cpp.o &
  wait
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s23F4.list
  . tools/mps.sh
  mps_start
  perfrun z 4 full /tmp/s23F4.list
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobE.tgz" job)
  for v in z v6; do
    cuobjdump -sass ../build-$v/shmem/device/CMakeFiles/mori_shmem_device.dir/team_general.cpp.o |
      gzip > "$OUT/sass_$v.gz"
  done
  echo "total $((SECONDS - start)) s"
  ;;
esac
