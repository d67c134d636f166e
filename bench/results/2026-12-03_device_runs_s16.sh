#!/bin/bash
# Device runs of the sixteenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). Trees: .snapB is 4817c8a (the
# base); .snapA is a9f8776 (A); .snapAB is A with llExchangeIn declared MORI_DEVICE_NOINLINE
# instead of MORI_DEVICE_INLINE; C's tree and .snapD are A with
# 2026-12-03_s16_C_broadcast_arrivals.patch and 2026-12-03_s16_D_broadcast_arrivals_apart.patch
# of this folder applied (patch -p1); F's tree (DF's "this tree") is A with
# 2026-12-03_s16_F_broadcast_arrivals_one_form.patch.
#   A: the variant (this tree): each team's device value carries a table of its members' slot
#      windows (mori_shmem_ptr of the slot on each member, 0 for RDMA members), filled at team
#      creation; the one-step send reads one entry per peer instead of mori_shmem_ptr's transport
#      byte and inline window (two dependent indexed constant loads after the team's fields'
#      spill reloads and an integer remainder). Built beside the base; the variant's team suites;
#      the one-step rows of every scope at 4 PEs (2 interleaved rounds, NVSHMEM beside the base in
#      the first) and 2 PEs; s11's stream rows at 4 PEs.
#      Prediction: the send's address part goes from 800-1000 cycles per peer to 300-400 (one
#      load), so at 4 PEs (3 peers) the one-step rows of a block and wave drop by 0.5-1 us (a
#      block's fcollect of 32 B per member 3.35 -> 2.5-2.9 us, NVSHMEM 2.67; a block's broadcast
#      of 4 KiB 4.55 -> 3.6-4.0, NVSHMEM 3.65); at 2 PEs (1 peer) by 0.2-0.4 us.
#   AB: A with llExchangeIn (the one-step broadcast, fcollect and alltoall) out of line (.snapAB:
#      one function per scope and count in flight, shared by the three collectives, with its own
#      registers: ptxas gives a wave's one-unit form 200 bytes of spill loads, where the wave's
#      fcollect had 1364 in all). Against A, the one-step rows at 4 PEs (2 interleaved rounds) and
#      2 PEs.
#      Prediction: a wave's rows up to 256 B per member 0.3-0.5 us faster (its own register
#      allocation, as U1's was); a block's within +-0.1 (the call costs what the spills saved).
#      Result (bench/results/2026-12-03T1335Z_h200x1_mps_team_slot_windows.json): A as predicted
#      (a block's fcollect of 32 B per member 3.35 -> 2.67 us, NVSHMEM 2.69; 2 PEs 0.1-0.25 us
#      lower), kept (a9f8776); AB 1-1.6 us slower on every one-step row of a wave or block: not kept.
#   C: A (.snapA, a9f8776) against the variant (this tree): a broadcast's arrival words are
#      waited for by the scope's last threads, one each, after their part of the root's words
#      when the two do not go together (A: one thread waited for them one after another: a
#      block's broadcast of 4 KiB at 4 PEs). Built beside A; C's team suites; the one-step rows at
#      4 PEs (2 interleaved rounds) and 2 PEs; then s11's full 4-PE list and s8's 2-PE list with
#      NVSHMEM beside C.
#      Prediction: a block's broadcast of 4 KiB at 4 PEs 3.91 -> 3.5-3.6 us (one arrival word's
#      wait less; NVSHMEM 3.63); the other rows unchanged within noise.
#      Result (bench/results/2026-12-03T1345Z_h200x1_mps_broadcast_arrivals.json): a block's
#      broadcast of 4 KiB 3.87 -> 2.73 us, more than predicted; but a wave's broadcasts slower at
#      4 PEs (512 B 2.70 -> 3.14, 4 KiB 4.17 -> 4.47) and its 4 KiB at 2 PEs 2.75 -> 3.48, where
#      its path is the same as A's: the code change moved the wave function's spills. Not kept.
#   DF: A (.snapA) against two smaller forms of C: D (.snapD) changes only the branch where the
#      arrival words do not go with the root's words (all threads the root's words, then thread
#      step - 1 - i arrival word i); F (this tree) has one form for both: the root's words on the
#      data lanes, then arrival word i on thread step - 1 - i (and every step-th after it, for
#      teams larger than the scope), two receive sites where A had four. Built beside A; F's team
#      suites; the one-step rows at 4 PEs (2 interleaved rounds: A, D, F, F, D, A) and 2 PEs.
#      Prediction: both keep C's block broadcast of 4 KiB (~2.7 us at 4 PEs); F's smaller code
#      leaves the wave's rows as A's (+-0.1 us), D's moves them as C's did. Then, time allowing,
#      s11's full 4-PE list and s8's 2-PE list with NVSHMEM beside F.
#      Result (bench/results/2026-12-03T1405Z_h200x1_mps_broadcast_arrivals_by_scope.json): both
#      as C on a block (its broadcast of 4 KiB 3.91 -> 3.09 (D) and 2.78 (F)) and faster on one
#      thread (8 B 2.82 -> 2.57); both slower on a wave (512 B at 4 PEs 2.70 -> 3.05 (D), 3.37
#      (F); 4 KiB at 2 PEs 2.76 -> 3.5). Neither kept as is.
#   G: (this tree) F's form for one thread and a block, A's for a wave (if constexpr on the
#      scope): the PTX of each collective function equals A's (wave) or F's (thread, block), call
#      sequence numbers aside, so the DF rows stand for it. Built; its team suites; the one-step
#      rows at 4 and 2 PEs once, as a check of the tree committed.
#      Prediction: the rows of F for one thread and a block, of A for a wave, within noise.
#      Result (the same file): as predicted (a block's broadcast of 4 KiB 2.75 us at 4 PEs, a
#      wave's of 512 B 2.69); team suites 21 of 21. Kept.
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
lists() {
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s16V4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s16V2.list
  [ "$(grep -c . /tmp/s16V2.list)" -gt 19 ] && [ "$(grep -c . /tmp/s16V4.list)" -gt 12 ] || { echo "lists: not found"; exit 2; }
}
team_suites() {  # team_suites <tree> <tag> <timeout>: the team suites of ../build-<tree>, logs in $OUT/suite<tag>.tgz
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=100 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-$1 OUT=/tmp/suite$2 \
    timeout $3 tools/gpu_suite.sh > /tmp/suite$2.log 2>&1
  echo "team suites ($1) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suite$2.log | head -20
  (cd /tmp && tar -czf "$OUT/suite$2.tgz" suite$2 suite$2.log)
}
one_step_lists() {  # the one-step rows of every scope, 4 and 2 PEs
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdu_bcast     bcast_latency -s all -b 8 -e 4096 -f 8 -n 100 -w 10"
      echo "cdu_fcollect  fcollect_latency -s all -b $((32 * np)) -e $((2048 * np)) -f 8 -n 100 -w 10"
      echo "cdu_alltoall  alltoall_latency -s all -b $((32 * np)) -e $((2048 * np)) -f 8 -n 100 -w 10"
      echo "cdu_reduce    reduction_latency -d float -s all -b 4 -e 1024 -f 16 -n 100 -w 10"
    } > /tmp/s16V$np.list
  done
}
perfrun() {  # perfrun <tree> <np> <tag>
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=/tmp/s16V$2.list MORI_PERF_NP=$2 MORI_COMMIT=$1 \
    timeout 150 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/jobV/$1_np$2_$3 > /tmp/jobV/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}
case "$phase" in
A)
  build a . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf &
  build base .snapB mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  wait
  team_suites a A 150
  one_step_lists
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^cs_(alltoall|bcast|fcollect|reduce)4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s16S4.list
  [ "$(grep -c '^cs' /tmp/s16S4.list)" = 4 ] || { echo "stream list: not found"; exit 2; }
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobV
  nv=../build-base/tools/perf/mori-shmem-perf-nvshmem
  perfrun base 4 r1
  mv $nv $nv.off
  perfrun a 4 r1
  perfrun a 4 r2
  perfrun base 4 r2
  perfrun base 2 r1
  perfrun a 2 r1
  cp /tmp/s16S4.list /tmp/s16V4.list
  perfrun a 4 stream
  perfrun base 4 stream
  (cd /tmp && tar -czf "$OUT/jobA.tgz" jobV)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
AB)
  build a . mori_shmem_bootstrap_mpi mori_shmem_perf &
  build ab .snapAB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  one_step_lists
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobV
  perfrun ab 4 r1
  perfrun a 4 r3
  perfrun a 4 r4
  perfrun ab 4 r2
  perfrun ab 2 r1
  perfrun a 2 r2
  (cd /tmp && tar -czf "$OUT/jobAB.tgz" jobV/ab_* jobV/a_np4_r3* jobV/a_np4_r4* jobV/a_np2_r2*)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
C)
  build c . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build a .snapA mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  team_suites c C 120
  one_step_lists
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobC
  nv=../build-c/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  perfrun() {  # perfrun <tree> <np> <tag> [list]
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s16V$2.list} MORI_PERF_NP=$2 \
      MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/jobC/$1_np$2_$3 \
      > /tmp/jobC/$1_np$2_$3.log 2>&1
    echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
  }
  perfrun a 4 r1
  perfrun c 4 r1
  perfrun c 4 r2
  perfrun a 4 r2
  perfrun c 2 r1
  perfrun a 2 r1
  mv $nv.off $nv
  lists
  perfrun c 4 full
  [ $SECONDS -lt 400 ] && perfrun c 2 full
  (cd /tmp && tar -czf "$OUT/jobC.tgz" jobC)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
DF)
  build f . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build d .snapD mori_shmem_bootstrap_mpi mori_shmem_perf &
  build a .snapA mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  team_suites f F 120
  one_step_lists
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobDF
  nv=../build-f/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  perfrun() {  # perfrun <tree> <np> <tag>
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=/tmp/s16V$2.list MORI_PERF_NP=$2 \
      MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/jobDF/$1_np$2_$3 \
      > /tmp/jobDF/$1_np$2_$3.log 2>&1
    echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
  }
  perfrun a 4 r1
  perfrun d 4 r1
  perfrun f 4 r1
  perfrun f 4 r2
  perfrun d 4 r2
  perfrun a 4 r2
  for v in a d f; do perfrun $v 2 r1; done
  mv $nv.off $nv
  lists
  [ $SECONDS -lt 420 ] && perfrun f 4 full
  [ $SECONDS -lt 470 ] && perfrun f 2 full
  (cd /tmp && tar -czf "$OUT/jobDF.tgz" jobDF)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
G)
  build g . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf
  team_suites g G 100
  one_step_lists
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobV
  perfrun g 4 r1
  perfrun g 2 r1
  (cd /tmp && tar -czf "$OUT/jobG.tgz" jobV)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
esac
