#!/bin/bash
# Device runs of the fifteenth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure).
# The experimental trees are e3e7498 with one patch of this folder applied (patch -p1):
# .snapP 2026-12-03_s15_P2_ll_profile.patch (P ran its subset without the LLSEND timing), the
# variant of V1/V2 2026-12-03_s15_V_ll_send_batch.patch, .snapU1 2026-12-03_s15_U1_ll_one_unit.patch,
# .snapU2 2026-12-03_s15_U2_ll_out_of_line.patch; .snap2 is e3e7498 itself.
#   P: where a one-step (LL) collective's time goes. .snapP is HEAD (e3e7498) with thread 0 of
#      llExchange reading clock64 between its phases (begin: scope sync and the call count; send;
#      own block copied; receive; end: scope sync and count stored; "between": from the end of
#      one call to the start of the next, the library call and the team lookup included) and
#      printing the mean cycles of the 99 timed calls after the first of each row (LLPROF lines in
#      the runs' logs). 4 PEs at 25%, the rows behind NVSHMEM: a block's and a wave's fcollect of
#      32 and 256 B per member, a block's broadcast of 8 B-4 KiB, a wave's of 64 and 512 B;
#      NVSHMEM beside it.
#      Prediction: the local phases (between, begin, send, own, end) take 1-1.5 us of a block's
#      3.6 us fcollect of 32 B per member, the receive (the wait for the others' words) the rest.
#      Result (bench/results/2026-12-03T1107Z_h200x1_mps_ll_send_profile.json): the send is half of
#      every row's cycles: ~3000-4300 cycles for thread 0 (a broadcast's non-root sends one word to
#      each of 3 peers in ~3050), ~1000 per peer whatever the words.
#   P2: the same rows with the send split (.snapP now also times, for thread 0: the wait for the
#      call count's load; per peer, up to 3, the peer's address and the stores); the device
#      library's SASS of the broadcast and fcollect of a block dumped beside.
#      Prediction: the cost is one dependent memory access per peer (~1000 cycles each).
#      Result (the same file): each peer's address took thread 0 800-1000 cycles (the call count's
#      load 300, each peer's stores 400-500); the SASS shows two dependent indexed constant loads
#      per peer (the transport byte and the inline window), behind spill reloads.
#   V1, V2: the variant (this tree): llSend computes the addresses of up to 4 peers together, then
#      stores the words to all of them, each unit of the source loaded once. The base is e3e7498
#      (.snap2). V1: both built, the variant's team suites, the 4-PE list (s11's) once each, NVSHMEM
#      beside the variant; V2: the 4-PE list again (base first), the 2-PE list (s8's) once each.
#      Prediction (4 PEs): a block's one-step fcollect of 32 and 256 B per member 3.6 -> 2.6-2.9 us
#      (NVSHMEM 2.5-2.7), its broadcasts 3.2 -> 2.5-2.8, a wave's fcollect and broadcast rows
#      0.5-1 us lower; the thread rows 0.3-1 us lower; rows above the one-step limits unchanged.
#      Result (bench/results/2026-12-03T1127Z_h200x1_mps_ll_send_batch.json): slower on every
#      one-step row of a wave or block, 2 PEs (one peer) included: a block's fcollect of 32 B per
#      member 3.64 -> 4.22 us at 4 PEs, 2.35 -> 2.65 at 2; a wave's 4.71 -> 5.71. Not kept. Extra
#      code and spills cost more than the overlapped address loads gain.
#   U: is the one-step path's cost its code (instruction fetch, spills) rather than its memory
#      accesses? Two variants of e3e7498 against it (.snap2): U1 (.snapU1) one unit in flight per
#      thread for a wave or block (kLlInFlight 1: each loop body once, not unrolled 2-4 times);
#      U2 (.snapU2) llWrite and llReceive out of line (one copy each per scope instead of one
#      per call site). The one-step rows at 4 PEs, 2 interleaved rounds (NVSHMEM beside the base
#      in the first), and at 2 PEs once.
#      Prediction: if instruction fetch dominates, U1 and U2 are 0.3-1 us faster on a wave's and
#      block's rows of 32-256 B per member; if not, they are slower (U1: larger rows, more passes).
#      Result (bench/results/2026-12-03T1136Z_h200x1_mps_ll_in_flight.json): U1 faster on most
#      small rows (4 PEs: a wave's fcollect of 32 B per member 4.70 -> 3.15 us, NVSHMEM 4.51; its
#      reduction of 4 B 5.55 -> 3.92; a block's fcollect of 32 B 3.67 -> 3.35, its broadcast of
#      4 KiB 4.93 -> 4.55) and slower where a wave makes more passes (fcollect of 2 KiB per member
#      6.34 -> 9.88, broadcast of 512 B 3.18 -> 3.65); U2 slower on nearly every row.
#   W: the variant (this tree): one unit in flight for a block; for a wave, one up to 256 B per
#      member (U1's path), 4 above (the base's). Built beside the base (.snap2); W's team suites;
#      the U rows at 4 PEs (2 interleaved rounds, NVSHMEM beside the base in the first) and 2 PEs;
#      then s11's stream rows at 4 PEs (the small stream forms run a block's path).
#      Prediction: W as U1 on the rows up to 256 B per member, as the base on a wave's larger rows.
#      Result (bench/results/2026-12-03T1221Z_h200x1_mps_ll_in_flight_by_size.json): team suites
#      21 of 21; a wave's fcollect of 32 B per member 4.66 -> 3.65 us (U1 3.15 in its job), of
#      2 KiB as the base; a block's fcollect of 32 B 3.69 -> 3.35; slower: a block's one-step
#      reduction 4.3 -> 4.8 (NVSHMEM 5.6-11.6). Kept.
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
  } > /tmp/s15V4.list
  { grep -E '^#' tools/perf/standard.list
    sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
  } > /tmp/s15V2.list
  [ "$(grep -c . /tmp/s15V2.list)" -gt 19 ] && [ "$(grep -c . /tmp/s15V4.list)" -gt 12 ] || { echo "lists: not found"; exit 2; }
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
    } > /tmp/s15V$np.list
  done
}
perfrun() {  # perfrun <tree> <np> <tag>
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=/tmp/s15V$2.list MORI_PERF_NP=$2 MORI_COMMIT=$1 \
    timeout 150 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/jobV/$1_np$2_$3 > /tmp/jobV/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}
case "$phase" in
W)
  build w . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf &
  build base .snap2 mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  wait
  team_suites w W 120
  one_step_lists
  { grep -E '^#' tools/perf/standard.list
    sed -n -E "/^cs_(alltoall|bcast|fcollect|reduce)4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s15S4.list
  [ "$(grep -c '^cs' /tmp/s15S4.list)" = 4 ] || { echo "stream list: not found"; exit 2; }
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobV
  nv=../build-base/tools/perf/mori-shmem-perf-nvshmem
  perfrun base 4 r1
  mv $nv $nv.off
  perfrun w 4 r1
  perfrun w 4 r2
  perfrun base 4 r2
  perfrun base 2 r1
  perfrun w 2 r1
  cp /tmp/s15S4.list /tmp/s15V4.list
  perfrun w 4 stream
  perfrun base 4 stream
  (cd /tmp && tar -czf "$OUT/jobW.tgz" jobV)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
U)
  build base .snap2 mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build u1 .snapU1 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build u2 .snapU2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  one_step_lists
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobV
  nv=../build-base/tools/perf/mori-shmem-perf-nvshmem
  perfrun base 4 r1
  mv $nv $nv.off
  perfrun u1 4 r1
  perfrun u2 4 r1
  perfrun u2 4 r2
  perfrun u1 4 r2
  perfrun base 4 r2
  mv $nv.off $nv
  perfrun base 2 r1
  perfrun u1 2 r1
  perfrun u2 2 r1
  (cd /tmp && tar -czf "$OUT/jobU.tgz" jobV)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
V1)
  build v . test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline \
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build base .snap2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  lists
  team_suites v V 200
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobV
  perfrun v 4 r1
  perfrun base 4 r1
  (cd /tmp && tar -czf "$OUT/jobV1.tgz" jobV)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
V2)
  lists
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/jobV
  nv=../build-v/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  perfrun base 4 r2
  perfrun v 4 r2
  mv $nv.off $nv
  perfrun v 2 r1
  perfrun base 2 r1
  (cd /tmp && tar -czf "$OUT/jobV2.tgz" jobV/*_r2* jobV/*np2*)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
P | P2)
  build p .snapP mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem
  . tools/mps.sh
  mps_start
  { grep -E '^#' tools/perf/standard.list
    echo "cdp_fcb   fcollect_latency -s block -b 128 -e 1024 -f 8 -n 100 -w 10"
    echo "cdp_fcw   fcollect_latency -s warp -b 128 -e 1024 -f 8 -n 100 -w 10"
    echo "cdp_bcb   bcast_latency -s block -b 8 -e 4096 -f 8 -n 100 -w 10"
    echo "cdp_bcw   bcast_latency -s warp -b 64 -e 512 -f 8 -n 100 -w 10"
  } > /tmp/s15P.list
  mkdir -p /tmp/jobP
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 MORI_PERF_LIST=/tmp/s15P.list MORI_PERF_NP=4 MORI_COMMIT=e3e7498+llprof \
    timeout 200 tools/perf/run_benchmarks.sh "$PWD/../build-p" /tmp/jobP/p > /tmp/jobP/p.log 2>&1
  echo "p: exit $? ($((SECONDS - start)) s)"
  grep -h LLSEND /tmp/jobP/p/*.log | sort | head -100
  if [ "$phase" = P2 ]; then
    for f in ../build-p/tools/perf/mori-shmem-perf $(find ../build-p -name 'libmori_shmem.so*' -type f | head -1); do
      for fn in mori_shmemi_team_broadcast_block mori_shmemi_team_fcollect_block; do
        cuobjdump -sass -fun "$fn" "$f" > "$OUT/sass_${fn}_$(basename "$f").txt" 2>&1
      done
    done
    ls -la "$OUT"
  fi
  grep -h LLPROF /tmp/jobP/p/*.log | sort | head -100
  (cd /tmp && tar -czf "$OUT/jobP.tgz" jobP)
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
esac
