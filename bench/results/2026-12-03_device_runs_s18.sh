#!/bin/bash
# Device runs of the eighteenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). Trees: .snapB is cbfdede (the
# base); "this tree" is the tree each phase ran on, given by a patch of this folder on the base:
# A, p = 2026-12-03_s18_p_push_arrivals.patch (.snapQ: p with push() MORI_DEVICE_NOINLINE, the
# team by value); B, s = 2026-12-03_s18_s_push_arrivals_pieces_apart.patch (.snapR: s with
# `direct` false in push()); C, the base (.snapW1, W2, W3, W13: the base with
# 2026-12-03_s18_C_<name>_push_loop.patch); D, c = 2026-12-03_s18_D_wave_sync_between_pieces.patch.
# None was kept: the committed tree is the base's code.
#   A: the push of fcollect and alltoall (above the one-step sizes) waits for each member's
#      arrival just before its put, where the base waits for every member first (pushEntry: a
#      dissemination sync), then puts; the host's spread entry kernel (pushEntry) waits directly
#      for every member's arrival flag instead of the dissemination rounds. Builds p, q and the
#      base; p's team suites; the push rows (device, every scope, 16-64 KiB per member at 4 and
#      2 PEs) and the stream spread rows of fcollect and alltoall at 4 PEs (b p q q p b)
#      and 2 PEs (b p q); the 4-PE rows of p once more with NVSHMEM beside it.
#      Prediction: a block's fcollect and alltoall of 16 KiB per member at 4 PEs 8.2-8.8 ->
#      7.5-8.2 us (NVSHMEM 8.0-8.7): members leave the previous call's barrier at different
#      times and the puts to those already in no longer wait for the last; one thread's rows
#      unchanged (its puts take 20-120 us); the stream spread rows at 4 PEs 0.3-1 us lower (one
#      signal trip instead of two dissemination rounds), at 2 PEs level (one round either way).
#      Result (bench/results/2026-12-03T1815Z_h200x1_mps_push_arrivals.json): mixed, and not by
#      the syncs: p took a wave's fcollect and alltoall of 16-64 KiB per member 24-41% lower at 4
#      PEs and 2, where the syncs are the same at 2 PEs; one thread's fcollect 38% higher, a
#      block's 0.6-1.6 us higher. The copy loops compile differently inside each function (ptxas:
#      spill loads of the functions 980 -> 1100 for one thread's fcollect, 1364 -> 1624 for a
#      wave's). q: a block's rows and one thread's alltoall worse than p's, one thread's fcollect
#      better (95 against 105 us), still worse than the base's. The stream spread rows level (the
#      entry kernel's direct waits: dropped). Neither kept as is.
#   B: the device collectives copy each member's piece out of line (pushPieceApart,
#      MORI_DEVICE_NOINLINE, one function per scope and collective; the host's spread kernel keeps
#      its copies inline, within its 64 registers): the loop is compiled on its own, whatever the
#      collective around it. "r": the base's order (the entry sync, then the pieces); "s": p's (the arrival flags,
#      each member's piece once its flag is there). Builds b, r, s; s's team suites; the device
#      rows of fcollect and alltoall (every scope, 32 B-64 KiB per member at 4 PEs and 2) and the
#      stream spread rows at 4 PEs (b s r r s b) and 2 PEs (b s r); the SASS of b's and s's
#      team_general.cpp objects; then s11's full 4-PE list (the stream barrier three times) and
#      s8's 2-PE list with NVSHMEM beside s.
#      Prediction: r and s both take the wave's gain of p and keep one thread's and a block's rows
#      at the base's or lower (their copy no longer shares registers with the one-step path); s a
#      block's 16 KiB per member at 4 PEs 0.2-0.5 us lower than r (p's order without its codegen);
#      the one-step rows (up to 2 KiB per member at 4 PEs) level.
#      Result (bench/results/2026-12-03T1830Z_h200x1_mps_push_pieces_apart.json): s as p (a
#      wave's rows 22-33% lower at 4 and 2 PEs, one thread's fcollect 41% higher at 4 PEs, a
#      block's 1.3-1.6 us higher); r level with the base for one thread, a wave's 4% and a block's
#      0.5-0.7 us higher. So the order, not the codegen, made p's figures. Neither kept.
#   C: what in p's order moves the rows. Three changes to the base, each alone, pieces inline as
#      in the base: W1, the scope syncs between two members' pieces; W2, rank 0 also polls an
#      arrival flag with an acquire load before the sync (ends at once: p's per-member wait without
#      waiting); W3, the entry waits directly on every member's arrival flag (p's flags, all
#      awaited before the first piece); W13, W1 and W3 together. Builds b, w1, w2, w3, w13; the
#      device rows of fcollect and alltoall at 4 PEs (b w1 w2 w3 w13 w13 w3 w2 w1 b) and 2 PEs
#      (b w1 w2 w3 w13); then w13's team suites.
#      Prediction: W2 reproduces p (a wave's 16 KiB per member ~25% lower, one thread's fcollect
#      30-40% higher: the acquire empties L1, which held the source for the next member); W1 and
#      W3 level with the base.
#      Result (bench/results/2026-12-03T1900Z_h200x1_mps_push_loop_forms.json): not as predicted.
#      Every variant took a wave's fcollect and alltoall of 16 KiB per member 18-31% lower at 4 PEs
#      (16.5 -> 11.5-13.6 us, 19.2 -> 13.2-13.5) and 25-34% at 2; every one took one thread's
#      16 KiB per member 4-7% higher and a block's 0.2-0.9 us higher. The wave's gain comes with any
#      change to the loop, not with one mechanism; W3's direct entry did not help a block.
#   D: the base with one change, "c" (this tree): a wave syncs between two members' pieces
#      (betweenPieces in fcollectPush and alltoallPush; one thread's and a block's functions
#      compile as in the base: ptxas gives them the same frames and spills). Builds b and c; c's
#      team suites; the device rows of fcollect and alltoall at 4 PEs (b c c b) and 2 PEs (b c).
#      Prediction: a wave's 16 KiB per member 16.5 -> 11.5-12.5 us (fcollect) and 19.2 -> 13-14
#      (alltoall) at 4 PEs, 9.4 -> 6.2-6.6 at 2; one thread's and a block's rows level (+-2%).
#      Result (bench/results/2026-12-03T1900Z_h200x1_mps_push_loop_forms.json): a wave's rows
#      where they were (4 PEs, fcollect 16.5 -> 17.1 us, alltoall 19.3 -> 19.0); one thread and a
#      block level. The wave's gain of C is not the sync. Not kept
#      (2026-12-03_s18_D_wave_sync_between_pieces.patch).
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
lists() {
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s18F4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s18F2.list
  [ "$(grep -c . /tmp/s18F2.list)" -gt 19 ] && [ "$(grep -c . /tmp/s18F4.list)" -gt 12 ] || { echo "lists: not found"; exit 2; }
}
perfrun() {  # perfrun <tree> <np> <tag> [list]
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s18P$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}

case "$phase" in
A)
  mkdir -p /tmp/job
  build p . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build q .snapQ mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  team_suites p P 120
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      for c in fcollect alltoall; do
        echo "cdp_$c  ${c}_latency -s all -b $((16384 * np)) -e $((65536 * np)) -f 2 -n 50 -w 5"
        echo "csp_$c  ${c}_on_stream -b 512K -e 4M -f 2 -n 100 -w 10"
      done
    } > /tmp/s18P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-p/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b p q q p b; do perfrun $v 4 a$((++i)); done
  for v in b p q; do perfrun $v 2 a$((++i)); done
  mv $nv.off $nv
  perfrun p 4 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
B)
  mkdir -p /tmp/job
  build s . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build r .snapR mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for v in b s; do
    cuobjdump -sass ../build-$v/shmem/device/CMakeFiles/mori_shmem_device.dir/team_general.cpp.o > /tmp/job/$v.sass 2>&1
  done
  team_suites s S 120
  lists
  sed -i '/^cs_barrier4 /{p;p}' /tmp/s18F4.list
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      for c in fcollect alltoall; do
        echo "cdq_$c  ${c}_latency -s all -b $((32 * np)) -e $((65536 * np)) -f 8 -n 50 -w 5"
        echo "csq_$c  ${c}_on_stream -b 512K -e 2M -f 2 -n 100 -w 10"
      done
    } > /tmp/s18P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-s/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b s r r s b; do perfrun $v 4 b$((++i)); done
  for v in b s r; do perfrun $v 2 b$((++i)); done
  mv $nv.off $nv
  [ $SECONDS -lt 440 ] && perfrun s 4 full /tmp/s18F4.list
  [ $SECONDS -lt 490 ] && perfrun s 2 full /tmp/s18F2.list
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobB.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
C)
  mkdir -p /tmp/job
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build w1 .snapW1 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build w2 .snapW2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build w3 .snapW3 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build w13 .snapW13 $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      for c in fcollect alltoall; do
        echo "cdw_$c  ${c}_latency -s all -b $((32 * np)) -e $((65536 * np)) -f 8 -n 50 -w 5"
      done
    } > /tmp/s18P$np.list
  done
  . tools/mps.sh
  mps_start
  for v in b w1 w2 w3 w13 w13 w3 w2 w1 b; do perfrun $v 4 c$((++i)); done
  for v in b w1 w2 w3 w13; do perfrun $v 2 c$((++i)); done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" job)
  [ $SECONDS -lt 480 ] && team_suites w13 W13 100
  echo "total $((SECONDS - start)) s"
  ;;
D)
  mkdir -p /tmp/job
  build c . $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  team_suites c C 80
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      for c in fcollect alltoall; do
        echo "cdw_$c  ${c}_latency -s all -b $((32 * np)) -e $((65536 * np)) -f 8 -n 50 -w 5"
      done
    } > /tmp/s18P$np.list
  done
  . tools/mps.sh
  mps_start
  for v in b c c b; do perfrun $v 4 d$((++i)); done
  for v in b c; do perfrun $v 2 d$((++i)); done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobD.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
esac
