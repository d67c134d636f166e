#!/bin/bash
# Device runs of the thirty-third session (2026-12-05), on ONE GPU: the PEs share it under CUDA
# MPS (4 PEs, 25% of the SMs each); no figure here is an interconnect figure.
#   b is this tree (main); o is .snapO, branch entry-overlap-self rebased on main (86e506a: a
#   push's own piece moves while its entry waits for the members; one direct entry round for teams
#   of up to 32).
#   A: both built side by side; main's test_symmetry_faults (np2: the transport-settings check,
#      never run on a GPU before); at 4 PEs the stream fcollect and alltoall of 64-512 KiB in all,
#      NVSHMEM / b / o interleaved, two rounds; the device fcollect and alltoall at every scope of
#      4-128 KiB in all (NVSHMEM, b, o); then o's team suites (collectives np2-5, teams, NVSHMEM
#      compatibility, the mlx5 model, examples) with the time left.
#      Prediction (commit message of 86e506a): the 128 KiB rows 15.4 / 15.9 -> 14.6-14.9 /
#      15.1-15.4 us on an H100 (NVSHMEM 14.3 / 15.1); a block's device fcollect of 32 KiB per
#      member ~0.5 us lower; 256 KiB and more (the spread form) unchanged within 0.3 us.
#   A's result (H100): the prediction failed. o slower than b on every push row: the stream
#      fcollect of 128 KiB in all b 15.12-15.17 us, o 15.23-15.40 (NVSHMEM 14.23-14.59), alltoall
#      b 15.59-15.77, o 15.99-16.07 (NVSHMEM 14.98-15.04); 256-512 KiB o +0.2-0.6; a block's device
#      fcollect of 32 KiB per member b 9.79, o 10.60 (NVSHMEM 9.48), one thread's 145 -> 181 us.
#      b's test_symmetry_faults passed (np2); o's team suites 31/31
#      (bench/results/2026-12-05T1830Z_h100x1_mps_entry_overlap_self.json).
#   B: o's team suites again if A ran out of time (SUITE_TESTS from the second argument).
#   C: s is .snapS, branch exp-stream-entry (an experiment, not for main): with
#      MORI_EXP_STREAM_ENTRY=1 the host's push collectives (fcollect / alltoall beyond the staged
#      limit, teams of up to 16 P2P members, stream not capturing) have each member's stream write
#      the call's count into every other member's entry word (cuStreamWriteValue64, with its
#      implicit system fence) before the kernel, whose push then waits for those words instead of
#      running its own entry sync. b, s without the switch, s with it, NVSHMEM, interleaved, three
#      rounds; then s's test_collectives np2-5 and test_nvshmem_compat np4 with the switch.
#      Prediction: the other members' words are written while this PE's kernel launches, so the
#      entry's wait is mostly over when the kernel starts: the 128 KiB rows 1-2 us lower (fcollect
#      15.1 -> 13.3-14.1 us, alltoall 15.7 -> 13.8-14.7; NVSHMEM 14.2-14.6 / 15.0), the spread
#      rows (256-512 KiB) 0.5-1.5 lower; s without the switch level with b.
#   C's result (H100): failed: with the switch every push row about doubled (128-512 KiB in all
#      28.5-30.7 us against b's 15.0-16.1); s without it level with b; the suites passed with it
#      (bench/results/2026-12-05T1850Z_h100x1_mps_stream_memop_entry.json).
#   D: this tree (main with MORI_SHMEM_COLLECTIVE_ENTRY: caller, OpenSHMEM's and NVSHMEM's
#      contract, skips the push entry): test_symmetry_faults np2 (the setting differing between
#      PEs fails init on every PE), test_collectives_caller_entry np2-np4 and through the mlx5
#      model at np3, the team suites (default setting); then at 4 PEs the stream fcollect and
#      alltoall of 64-512 KiB in all, NVSHMEM / wait / caller interleaved, two rounds, and the
#      device fcollect and alltoall at every scope of 4-128 KiB in all, once each.
#      Prediction: wait as b in A and C; caller 1.5-2.5 us lower on every push row (the stream's
#      128 KiB fcollect ~15.1 -> 12.8-13.6 us, alltoall ~15.7 -> 13.3-14.2, NVSHMEM 14.2-14.6 /
#      15.0; a block's device fcollect of 128 KiB in all 9.8 -> 7.5-8.5, NVSHMEM 9.5); the staged
#      and one-step rows (64 KiB in all and below for a block) level.
#   D's result (H100): as predicted: caller took the stream fcollect / alltoall of 128 KiB in all
#      to 13.2-13.3 / 13.8-14.3 us (wait 15.4-15.9 / 16.0-16.2, NVSHMEM 14.4-14.7 / 15.1-15.2), a
#      block's device fcollect of 128 KiB in all 9.73 -> 8.09 (9.61); suites passed
#      (bench/results/2026-12-05T1905Z_h100x1_mps_collective_entry_caller.json, with job E: the
#      collectives list at 4 PEs, run inline on the warm machine).
#   F: the committed form (pushEntry's scope syncs outside the caller branch: Debian's hipcc
#      failed the amdgcn link of D's early return): the same suites as D (caller entry np2-4 and
#      mlx5 np3, test_symmetry_faults np2, the team suites) and the stream rows once.
#      Prediction: as D.
#   F's result (H100): as D: the suites passed (team suites 35/35); stream fcollect 128 KiB wait
#      15.51, caller 13.29, NVSHMEM 14.17 us; alltoall 15.99 / 13.92 / 14.77 (the same record).
#   G: main (this tree): the one-step rows job E had behind, three rounds, NVSHMEM beside: a
#      block's fcollect of 64 B-1 KiB in all and a wave's broadcast of 128-512 B (4 PEs).
#      Prediction: none (a measurement: are they behind run after run, and by how much).
#   G's result (H100): level: a block's fcollect medians +0.2-1.1% against NVSHMEM's, a wave's
#      broadcast ahead (bench/results/2026-12-05T1940Z_h100x1_mps_one_step_rows_repeated.json).
set -uo pipefail
phase=$1
nv=o  # the tree whose NVSHMEM perf binary runs
[ "$phase" = C ] && nv=s
case "$phase" in D | F | G) nv=b ;; esac
suiteTree=o  # the tree whose team suites team_suites runs
[ "$phase" = D ] || [ "$phase" = F ] && suiteTree=b
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
say() { echo "$*" | tee -a "$OUT/steps.log"; }
tests="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline mori_nic_model"
build() {  # build <name> <source dir> <targets...>: configures (once) and builds ../build-<name>
  local name=$1 src=$2
  shift 2
  { [ -f ../build-$name/build.ninja ] ||
    cmake -S "$src" -B ../build-$name -G Ninja -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 \
      -DCMAKE_BUILD_TYPE=Release > "/tmp/${name}_configure.log" 2>&1; } &&
    ninja -C ../build-$name "$@" > "/tmp/${name}_build.log" 2>&1
  local rc=$?
  say "$name build exit $rc ($((SECONDS - start)) s)"
  [ $rc = 0 ] || tail -30 "/tmp/${name}_build.log" | tee -a "$OUT/steps.log"
}
# perf <name> <tree|nvshmem> <test> <args...>: one 4-PE run, its PERF lines' figures in steps.log
perf() {
  local name=$1 tree=$2 test=$3 bin pre=()
  shift 3
  if [ "$tree" = nvshmem ]; then
    bin=../build-$nv/tools/perf/mori-shmem-perf-nvshmem
    pre=("LD_LIBRARY_PATH=$(cat ../build-$nv/tools/perf/nvshmem_lib_dir.txt)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  else
    bin=../build-$tree/tools/perf/mori-shmem-perf
  fi
  env "${pre[@]}" timeout 90 mpirun -np 4 "$bin" "$test" "$@" --json "/tmp/job/$name.json" \
    < /dev/null > "/tmp/job/$name.log" 2>&1
  echo "$name exit $? $(grep -E '^&&&& PERF' "/tmp/job/$name.log" | grep -oE '[0-9.]+ -us' | tr '\n' ' ')" \
    >> "$OUT/steps.log"
}
team_suites() {  # team_suites <tag> <timeout> [regex]: o's team suites, logs in $OUT/suite<tag>.tgz
  SUITE_TESTS=${3:-'team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline'} \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=150 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-$suiteTree OUT=/tmp/suite$1 \
    timeout "$2" tools/gpu_suite.sh > /tmp/suite$1.log 2>&1
  say "team suites ($1) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suite$1.log | head -30 | tee -a "$OUT/steps.log"
  (cd /tmp && tar -czf "$OUT/suite$1.tgz" suite$1 suite$1.log)
}

case "$phase" in
A)
  mkdir -p /tmp/job
  build o .snapO $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b . mori_shmem_bootstrap_mpi mori_shmem_perf test_symmetry_faults &
  wait
  . tools/mps.sh
  mps_start
  (cd ../build-b && timeout 120 ctest -R '^test_symmetry_faults' --output-on-failure > /tmp/job/ctest_symmetry.log 2>&1)
  say "b test_symmetry_faults exit $? ($((SECONDS - start)) s)"
  grep -E "tests passed|FAILED|OK \]|Failed" /tmp/job/ctest_symmetry.log | head -20 | tee -a "$OUT/steps.log"
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  for round in 1 2; do
    for t in fcollect_on_stream alltoall_on_stream; do
      for tree in nvshmem b o; do perf "a${round}_${t}_$tree" $tree $t -b 64K -e 512K -f 2 -n 200 -w 20; done
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  for t in fcollect_latency alltoall_latency; do
    for tree in nvshmem b o; do perf "a_${t}_$tree" $tree $t -s all -b 4K -e 128K -f 2 -n 100 -w 10; done
  done
  say "device rows done ($((SECONDS - start)) s)"
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  team_suites A $((585 - SECONDS))
  mps_stop
  say "total $((SECONDS - start)) s"
  ;;
B)
  build o .snapO $tests mori_shmem_bootstrap_mpi
  . tools/mps.sh
  mps_start
  team_suites B $((585 - SECONDS)) "$2"
  mps_stop
  say "total $((SECONDS - start)) s"
  ;;
C)
  mkdir -p /tmp/job
  build s .snapS mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem test_collectives test_nvshmem_compat &
  build b . mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  for round in 1 2 3; do
    for t in fcollect_on_stream alltoall_on_stream; do
      perf "c${round}_${t}_nvshmem" nvshmem $t -b 64K -e 512K -f 2 -n 200 -w 20
      perf "c${round}_${t}_b" b $t -b 64K -e 512K -f 2 -n 200 -w 20
      perf "c${round}_${t}_s0" s $t -b 64K -e 512K -f 2 -n 200 -w 20
      export MORI_EXP_STREAM_ENTRY=1
      perf "c${round}_${t}_s1" s $t -b 64K -e 512K -f 2 -n 200 -w 20
      unset MORI_EXP_STREAM_ENTRY
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  (cd ../build-s && MORI_EXP_STREAM_ENTRY=1 timeout 200 ctest -R '^(test_collectives_np[2345]|test_nvshmem_compat_np4)$' \
    --output-on-failure > /tmp/job/ctest_s1.log 2>&1)
  say "s suites with the switch exit $? ($((SECONDS - start)) s)"
  grep -E "Test +#|tests passed|FAILED" /tmp/job/ctest_s1.log | sed 's/  */ /g' | tee -a "$OUT/steps.log"
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" job)
  say "total $((SECONDS - start)) s"
  ;;
D | F)
  mkdir -p /tmp/job
  build b . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem test_symmetry_faults \
    test_collectives_caller_entry || exit 1
  . tools/mps.sh
  mps_start
  (cd ../build-b && timeout 200 ctest -R '^(test_symmetry_faults_np2|test_collectives_caller_entry_.*)$' \
    --output-on-failure > /tmp/job/ctest_D.log 2>&1)
  say "caller-entry and symmetry suites exit $? ($((SECONDS - start)) s)"
  grep -E "Test +#|tests passed|FAILED" /tmp/job/ctest_D.log | sed 's/  */ /g' | tee -a "$OUT/steps.log"
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  rounds="1 2"
  [ "$phase" = F ] && rounds=1
  for round in $rounds; do
    for t in fcollect_on_stream alltoall_on_stream; do
      perf "d${round}_${t}_nvshmem" nvshmem $t -b 64K -e 512K -f 2 -n 200 -w 20
      perf "d${round}_${t}_wait" b $t -b 64K -e 512K -f 2 -n 200 -w 20
      export MORI_SHMEM_COLLECTIVE_ENTRY=caller
      perf "d${round}_${t}_caller" b $t -b 64K -e 512K -f 2 -n 200 -w 20
      unset MORI_SHMEM_COLLECTIVE_ENTRY
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  [ "$phase" = F ] || for t in fcollect_latency alltoall_latency; do
    perf "d_${t}_nvshmem" nvshmem $t -s all -b 4K -e 128K -f 2 -n 100 -w 10
    perf "d_${t}_wait" b $t -s all -b 4K -e 128K -f 2 -n 100 -w 10
    export MORI_SHMEM_COLLECTIVE_ENTRY=caller
    perf "d_${t}_caller" b $t -s all -b 4K -e 128K -f 2 -n 100 -w 10
    unset MORI_SHMEM_COLLECTIVE_ENTRY
  done
  say "device rows done ($((SECONDS - start)) s)"
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  (cd /tmp && tar -czf "$OUT/job$phase.tgz" job)
  team_suites "$phase" $((585 - SECONDS))
  mps_stop
  say "total $((SECONDS - start)) s"
  ;;
G)
  mkdir -p /tmp/job
  build b . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem || exit 1
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  for round in 1 2 3; do
    for tree in nvshmem b; do
      perf "g${round}_fcollect_block_$tree" $tree fcollect_latency -s block -b 64 -e 1K -f 4 -n 2000 -w 200
      perf "g${round}_bcast_warp_$tree" $tree bcast_latency -s warp -b 128 -e 512 -f 2 -n 2000 -w 200
    done
  done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobG.tgz" job)
  say "total $((SECONDS - start)) s"
  ;;
esac
