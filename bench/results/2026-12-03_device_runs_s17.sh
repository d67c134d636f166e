#!/bin/bash
# Device runs of the seventeenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). Trees: .snapB is 11a1c8b (the
# base); this tree is V1; .snapV2 is the base with
# 2026-12-03_s17_V2_direct_reduction_fixed_op_every_scope.patch of this folder applied (patch -p1
# in .snapV2's root, paths relative to it); .snapO holds team_general.cpp's objects of the base
# and V1 (nvcc -rdc, sm_90, built on the CPU machine) for their SASS.
#   R: the direct-load reduction (every member P2P, dest apart from source) with its operation
#      chosen once per call (withFixedOp), in a function of its own per scope, element type and
#      operation: V1 for one thread only, V2 for every scope. The base chooses it per element (a
#      switch in the loop): one thread issues every instruction of that loop itself, so the
#      switch is its time, not the loads (at 4 PEs one pass of 8 loads took ~1.8 us, at 2 PEs
#      ~0.7, where a pass has a third of the combines; a load's round trip is ~0.2 us).
#      Built beside the base; V1's team suites; the reduction rows (float, every scope, 4 B to
#      256 KiB) at 4 PEs (2 interleaved rounds, NVSHMEM beside the base in the first) and 2 PEs;
#      the SASS of one thread's float sum loop in the base and V1.
#      Prediction: one thread's float reduction of 1 KiB at 4 PEs 60 -> 30-40 us (NVSHMEM 54),
#      of 16 KiB 798 -> 400-550 (NVSHMEM 743); at 2 PEs 24 -> 15-20. V2 also a wave's 16 KiB
#      78 -> 50-65 and a block's less (its loop has 32 threads per instruction, the switch is a
#      smaller share); the one-step rows (up to 1 KiB for a wave and block) unchanged within
#      noise, or moved by the changed function around them (0.1-0.4 us).
#      Result (bench/results/2026-12-03T1600Z_h200x1_mps_direct_reduction_fixed_op.json): better
#      than predicted; one thread's 1 KiB 60.4 -> 21.8 us at 4 PEs (both V1 and V2), 16 KiB 797 ->
#      178; V2 also a wave's 16 KiB 78 -> 36.7 and a block's 256 KiB 80 -> 37.4, a block's one-step
#      rows 3.6 -> 3.2. V2 kept (this tree from phase S on).
#   S: this tree (V2 with comments: "c") against two variants of it: V3 (.snapV3,
#      2026-12-03_s17_V3_spread_reduction_fixed_op.patch) launches the host's spread reduction
#      kernel once per element type and operation (Fixed<O> instead of AnyOp); V4 (.snapV4,
#      2026-12-03_s17_V4_direct_reduction_member_groups.patch) has a wave and block load 4
#      members' units at once in the direct path, as one thread does. c's team suites; the
#      device reduction rows (c against V4) and the stream reduction rows (c against V3) at 4 PEs
#      (2 interleaved rounds) and 2 PEs; then s11's full 4-PE list and s8's 2-PE list with
#      NVSHMEM beside c.
#      Prediction: V3: the stream reductions of 1 MiB and more (bfloat16) 20-50% faster (the
#      block's 256 KiB direct path halved with the switch gone); V4: a wave's and block's 16 and
#      256 KiB 10-30% faster (the switch had hidden the loads in flight: grouped members were
#      slower with it, a wave's 16 KiB 75 -> 88 us).
#      Result (bench/results/2026-12-03T1600Z_h200x1_mps_direct_reduction_fixed_op.json): V4 as
#      predicted at 4 PEs (a wave's 16 KiB 35.0 -> 24.3 us), level at 2: kept (720a9c2). V3 0-7%:
#      not kept. Full lists of c: no reduction row behind NVSHMEM.
#   T: this tree ("f", then: 720a9c2 + 2026-12-03_s17_T_spread_one_kernel_not_kept.patch; the
#      host's spread form as one kernel, the first block to start running the entry sync, the last
#      to finish the exit sync, where it was three kernels) against .snapB2
#      (720a9c2, the three kernels) and .snapF64 (f with the spread threshold kSpreadFromBytes at
#      64 KiB instead of 256). f's team suites (V4's too: f holds 720a9c2); stream rows around the
#      threshold at 4 PEs (b2, f, f64, f, b2, f64) and 2 PEs; then s11's full 4-PE list and s8's
#      2-PE list with NVSHMEM beside f.
#      Prediction: the spread rows 2-5 us faster (two launches fewer): at 4 PEs the stream alltoall
#      and fcollect of 128 KiB per member 23-25 -> 19-21 us (NVSHMEM 22.2-22.5); rows under the
#      threshold unchanged; f64 faster than f from 64 KiB to the threshold.
#      Result (bench/results/2026-12-03T1710Z_h200x1_mps_spread_exit_in_kernel.json): f's team
#      suites hung in test_collectives_np2 (suite timeout): with no MPS thread limit one PE's
#      waiting blocks (one per multiprocessor at 72 registers) held the SMs that the other PE's
#      first block needed for its entry. The spread rows as predicted or better (4 PEs, the stream
#      alltoall of 128 KiB per member 22.4-22.9 -> 17.3-17.6 us) but a 4 MiB bfloat16 reduction
#      49 -> 63. f64 slower at 128 KiB (14.6 -> 16.2-17.1). Neither kept.
#   U: this tree ("u": the entry sync stays a kernel of one block; the data kernel's last block to
#      finish runs the exit sync, so no block waits for another; the data kernels capped at 64
#      registers, two blocks per multiprocessor) against .snapB2 (720a9c2: three kernels). u's team
#      suites; T's stream rows at 4 PEs (b2, u, u, b2) and 2 PEs; then s11's full 4-PE list and
#      s8's 2-PE list with NVSHMEM beside u.
#      Prediction: the spread rows about half of T's gain (one launch fewer: 4 PEs, the stream
#      alltoall of 128 KiB per member 22.4-22.9 -> 19.5-20.5 us, NVSHMEM 22.2-22.5); the 4 MiB
#      bfloat16 reduction at b2's 48-50 us or better; the rows under the threshold unchanged.
#      Result (bench/results/2026-12-03T1710Z_h200x1_mps_spread_exit_in_kernel.json): suites 21 of
#      21; 2 PEs better than predicted (the spread rows up to 1 MiB 17-19 -> 11-12.8 us), 4 PEs
#      1-3 us lower (alltoall of 128 KiB per member 23.7-24.5 -> 21.7-22.9), the 4 MiB reduction
#      back at b2's.
#      Kept.
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
reduce_lists() {  # the reduction rows of every scope, 4 and 2 PEs
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdr_reduce    reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 50 -w 5"
    } > /tmp/s17V$np.list
    { grep -E '^#' tools/perf/standard.list
      echo "csr_reduce    reduction_on_stream -d bfloat16 -b 4 -e 16M -f 16 -n 50 -w 5"
      echo "csr_reducef   reduction_on_stream -d float -b 64K -e 16M -f 16 -n 50 -w 5"
    } > /tmp/s17S$np.list
  done
}
lists() {
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s17F4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s17F2.list
  [ "$(grep -c . /tmp/s17F2.list)" -gt 19 ] && [ "$(grep -c . /tmp/s17F4.list)" -gt 12 ] || { echo "lists: not found"; exit 2; }
}
perfrun() {  # perfrun <tree> <np> <tag> [list]
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s17V$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}
sass() {  # the SASS of team_general.cpp's objects in .snapO (one thread's direct float reductions)
  command -v cuobjdump > /dev/null || { echo "sass: no cuobjdump"; return; }
  for o in .snapO/*.o; do cuobjdump -sass "$o" > "/tmp/job/$(basename "$o" .o).sass" 2>&1; done
  echo "sass done ($((SECONDS - start)) s)"
}
stream_lists() {  # the stream rows around the spread threshold, 4 and 2 PEs
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      for c in alltoall fcollect; do echo "csx_$c  ${c}_on_stream -b $((8192 * np)) -e $((1048576 * np)) -f 4 -n 100 -w 10"; done
      echo "csx_bcast     broadcast_on_stream -b 16K -e 4M -f 4 -n 100 -w 10"
      echo "csx_reduce    reduction_on_stream -d bfloat16 -b 16K -e 4M -f 4 -n 100 -w 10"
      echo "csx_sync      sync_on_stream -n 300 -w 30"
    } > /tmp/s17X$np.list
  done
}
case "$phase" in
R)
  mkdir -p /tmp/job
  sass
  build v1 . $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v2 .snapV2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build base .snapB mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  wait
  reduce_lists
  . tools/mps.sh
  mps_start
  nv=../build-base/tools/perf/mori-shmem-perf-nvshmem
  perfrun base 4 r1
  mv $nv $nv.off
  perfrun v1 4 r1
  perfrun v2 4 r1
  perfrun v2 4 r2
  perfrun v1 4 r2
  perfrun base 4 r2
  for v in base v1 v2; do perfrun $v 2 r1; done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobR.tgz" job)
  [ $SECONDS -lt 480 ] && team_suites v1 V1 100
  echo "total $((SECONDS - start)) s"
  ;;
S)
  mkdir -p /tmp/job
  build c . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build v3 .snapV3 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v4 .snapV4 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  team_suites c C 100
  reduce_lists
  lists
  . tools/mps.sh
  mps_start
  nv=../build-c/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  perfrun c 4 r1
  perfrun v4 4 r1
  perfrun v4 4 r2
  perfrun c 4 r2
  perfrun c 2 r1
  perfrun v4 2 r1
  perfrun c 4 s1 /tmp/s17S4.list
  perfrun v3 4 s1 /tmp/s17S4.list
  perfrun v3 4 s2 /tmp/s17S4.list
  perfrun c 4 s2 /tmp/s17S4.list
  perfrun c 2 s1 /tmp/s17S2.list
  perfrun v3 2 s1 /tmp/s17S2.list
  mv $nv.off $nv
  [ $SECONDS -lt 420 ] && perfrun c 4 full /tmp/s17F4.list
  [ $SECONDS -lt 480 ] && perfrun c 2 full /tmp/s17F2.list
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobS.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
T)
  mkdir -p /tmp/job
  build f . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b2 .snapB2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build f64 .snapF64 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  team_suites f F 100
  lists
  stream_lists
  . tools/mps.sh
  mps_start
  nv=../build-f/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b2 f f64 f b2 f64; do perfrun $v 4 x$((++i)) /tmp/s17X4.list; done
  for v in b2 f f64; do perfrun $v 2 x$((++i)) /tmp/s17X2.list; done
  mv $nv.off $nv
  [ $SECONDS -lt 430 ] && perfrun f 4 full /tmp/s17F4.list
  [ $SECONDS -lt 490 ] && perfrun f 2 full /tmp/s17F2.list
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobT.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
U)
  mkdir -p /tmp/job
  build u . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b2 .snapB2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  team_suites u U 120
  lists
  stream_lists
  . tools/mps.sh
  mps_start
  nv=../build-u/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b2 u u b2; do perfrun $v 4 x$((++i)) /tmp/s17X4.list; done
  for v in b2 u; do perfrun $v 2 x$((++i)) /tmp/s17X2.list; done
  mv $nv.off $nv
  [ $SECONDS -lt 440 ] && perfrun u 4 full /tmp/s17F4.list
  [ $SECONDS -lt 490 ] && perfrun u 2 full /tmp/s17F2.list
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobU.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
esac
