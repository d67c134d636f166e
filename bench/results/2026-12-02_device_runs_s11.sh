#!/bin/bash
# Device runs of the eleventh session (2026-12-02), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). The tree under test is unpacked
# at .snap (this script's tree), the commit it is compared with at ../.snap2; $OUT comes back.
# MORI_COMMIT names the tree in the records, MORI_BASE the commit at .snap2.
#   A: the device library's collectives as one function per collective and scope (broadcast,
#      fcollect, collect, alltoall; before: one per scope holding all four, dispatched by kind),
#      and a broadcast's root checked against the team. The team suites (phase S of the s9 script)
#      for .snap, then the collectives' whole list (s8 M) at 2 PEs for .snap with NVSHMEM beside
#      and for the base (7551d58) alone, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per PE.
#      Prediction: the functions' stack frames shrink (NVIDIA, the perf tool's link: 264-352 B ->
#      176-280 B); every row within noise of base or faster by up to 0.1-0.2 us (less spilling in
#      the LL paths), none slower by more than noise (~0.1 us).
#   B: the collectives at 4 PEs (the perf tool now runs collective tests on any PE count from 2),
#      mori-shmem and NVSHMEM side by side, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 per PE: the first
#      figures with more than 2 PEs beside NVSHMEM (before, only the suites ran at 3 and 4 PEs).
#      Uses ../build-s from A when the machine is still warm, else builds the perf tools.
#   C: "quick" (../.snap3: this tree with llReceive loading a pass's missing pairs again inline, up
#      to 8 times, before its out-of-line waits; before, a miss went straight to one out-of-line
#      wait per word of the pair, then every pair of the pass was loaded again) against this tree,
#      mori-shmem only, the LL rows of every scope, the two builds interleaved, 3 rounds.
#      Prediction: each LL row whose first poll misses (most: the peer is still storing) saves one
#      or two load round trips, 0.2-0.5 us of the 2-4 us rows; the pull-form rows unchanged.
#   D: this tree (C's re-polls kept, and the same in llCombine, the one-step reductions' receive)
#      against 7551d58 ("base", ../.snap2): the team suites; then the stream rows (A measured every
#      stream row of the new tree 1-3 us slower than base's, in one run each: noise of the host's
#      launches, or the kernels per kind?) and the small reductions, the two builds interleaved,
#      3 rounds; then the whole list (A's) and B's 4-PE list once each, NVSHMEM beside.
#      Prediction: stream rows equal within their noise (+-0.5 us); one thread's reduction of 64 B
#      4.3 -> ~3 us, the small reductions of a wave and block 0.1-0.4 us faster.
#   E: D's 4-PE rows behind NVSHMEM (barrier 5.6-7.0 us against 4.0; a wave's or block's broadcast
#      of 64 B-4 KiB 3.8-4.6 against 2.7-3.7; a block's fcollect of 128 B-1 KiB 4.0-4.4 against 2.6)
#      against this tree: the collectives' release sync direct for teams of up to 32 (one fence,
#      a signal to and a wait for every other member; before: dissemination with a fence per
#      round), and the one-step receive's regions in flight together (a wave's or block's threads
#      split over the other members; before: one member's region after another). The suites,
#      then the 4-PE list twice for this tree (NVSHMEM beside once) and for 844d1bd ("base",
#      ../.snap2), and the one-step and sync rows at 2 PEs once each.
#      Prediction (4 PEs): barrier 5.6-7.0 -> 3.5-4.5 us (stream 12.0 -> ~9); a wave's or block's
#      small broadcast 4.4 -> ~3.2, a block's small fcollect 4.0-4.4 -> ~3.0, small alltoalls
#      4.1-5.0 -> ~3.2; 2 PEs: every row as base within 0.1 us (one other member: one group).
#   F: E found at 4 PEs a wave's fcollect and alltoall of 2 KiB per member 5.77 -> 6.86 us (3 groups
#      of 10 lanes take more passes than 32 lanes one region after another) and a wave's broadcast
#      of 4 KiB 5.04 -> 5.36 (the root's words by 29-30 lanes); and one thread's broadcasts of 8-64 B
#      and its reduction of 4 B 0.45-0.6 us slower (the reduction's one-step code is unchanged).
#      At 2 PEs E's tree also lost 0.15-0.3 us on a wave's and block's fcollect and alltoall (one
#      other member: the new loop's shape alone). This tree splits only where that takes fewer
#      passes, and otherwise (one thread always) runs the loop of before unchanged. The suites,
#      then the 4-PE list for this tree and for 844d1bd ("base") and the 2-PE one-step and sync
#      rows for this tree, once each, mori-shmem only (little device time left; NVSHMEM's figures:
#      E; base's 2-PE rows: E).
#      Prediction: the wave rows of 2 KiB per member and 4 KiB back at base's; E's gains kept; the
#      thread rows unexplained, measured again.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
perf="mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem"
side_by_side() {  # side_by_side <list> <job dir> <build> <commit> <np>: mori-shmem (and NVSHMEM when built)
  MORI_PERF_LIST=$1 MORI_PERF_NP=$5 MORI_COMMIT=$4 timeout "${JOB_TIMEOUT:-300}" \
    tools/perf/run_benchmarks.sh "$3" "$2" > "$2.log" 2>&1
  echo "$(basename "$2"): run_benchmarks exit $? ($((SECONDS - start)) s)"
  grep -E "rows below|runs:" "$2/bench_summary.txt" 2>/dev/null
  (cd "$(dirname "$2")" && tar -czf "$(basename "$2").tgz" "$(basename "$2")" "$(basename "$2").log" &&
    rm -rf "$(basename "$2")" "$(basename "$2").log")
}
whole_list() {  # the collectives' whole list (s8 M)
  grep -E '^#' tools/perf/standard.list
  sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh
}
np4_list() {
  grep -E '^#' tools/perf/standard.list
  cat <<'LIST'
cd_alltoall4     alltoall_latency -s all -b 128 -e 64K -f 8 -n 100 -w 10
cd_bcast4        bcast_latency -s all -b 8 -e 64K -f 8 -n 100 -w 10
cd_fcollect4     fcollect_latency -s all -b 128 -e 64K -f 8 -n 100 -w 10
cd_reduce4       reduction_latency -d float -s all -b 4 -e 64K -f 16 -n 100 -w 10
cd_barrier4      barrier_latency -s all -n 1000 -w 100
cd_sync4         sync_latency -s all -n 1000 -w 100
cs_alltoall4     alltoall_on_stream -b 128 -e 1M -f 16 -n 100 -w 10
cs_bcast4        broadcast_on_stream -b 8 -e 1M -f 16 -n 100 -w 10
cs_fcollect4     fcollect_on_stream -b 128 -e 1M -f 16 -n 100 -w 10
cs_reduce4       reduction_on_stream -d bfloat16 -b 4 -e 1M -f 16 -n 100 -w 10
cs_barrier4      barrier_on_stream -n 300 -w 30
cs_sync4         sync_on_stream -n 300 -w 30
LIST
}
suites_beside_base() {  # .snap's suites (s9 S) and ../.snap2's perf tool, then MPS at 50% per PE
  { cmake -S ../.snap2 -B ../build-base -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
      > /tmp/base_configure.log 2>&1 && ninja -C ../build-base mori_shmem_bootstrap_mpi mori_shmem_perf \
      > /tmp/base_build.log 2>&1
    echo "base build exit $? ($((SECONDS - start)) s)"; } &
  S_TARGETS="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline mori_nic_model $perf" \
    bash bench/results/2026-12-02_device_runs_s9.sh S
  wait
  (cd "$OUT" && tar -czf suite_logs.tgz s_configure.log s_build.log suite.log suite && rm -rf s_*.log suite.log suite)
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  whole_list > /tmp/s11A.list
  [ "$(grep -c . /tmp/s11A.list)" -gt 19 ] || { echo "whole list: not found"; exit 2; }
}
case "$phase" in
A)
  start=$SECONDS
  suites_beside_base
  JOB_TIMEOUT=200 side_by_side /tmp/s11A.list "$OUT/jobA_new" "$PWD/../build-s" "${MORI_COMMIT:-unknown}" 2
  JOB_TIMEOUT=110 side_by_side /tmp/s11A.list "$OUT/jobA_base" "$PWD/../build-base" "${MORI_BASE:-unknown}" 2
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
B)
  start=$SECONDS
  [ -x ../build-s/tools/perf/mori-shmem-perf-nvshmem ] || {
    cmake -S . -B ../build-s -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release > /tmp/s_configure.log 2>&1 &&
      ninja -C ../build-s $perf > /tmp/s_build.log 2>&1
    echo "build exit $? ($((SECONDS - start)) s)"; }
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  np4_list > /tmp/s11B.list
  JOB_TIMEOUT=400 side_by_side /tmp/s11B.list "$OUT/jobB_np4" "$PWD/../build-s" "${MORI_COMMIT:-unknown}" 4
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
C)
  start=$SECONDS
  for v in s:. quick:../.snap3; do
    [ -x "../build-${v%%:*}/tools/perf/mori-shmem-perf" ] && continue
    { cmake -S "${v#*:}" -B "../build-${v%%:*}" -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
        > "/tmp/${v%%:*}_configure.log" 2>&1 &&
        ninja -C "../build-${v%%:*}" mori_shmem_bootstrap_mpi mori_shmem_perf > "/tmp/${v%%:*}_build.log" 2>&1
      echo "${v%%:*} build exit $? ($((SECONDS - start)) s)"; } &
  done
  wait
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    cat <<'LIST'
cd_alltoall_t    alltoall_latency -s thread -b 16 -e 256 -f 2 -n 200 -w 20
cd_fcollect_t    fcollect_latency -s thread -b 16 -e 256 -f 2 -n 200 -w 20
cd_bcast_t       bcast_latency -s thread -b 8 -e 128 -f 2 -n 200 -w 20
cd_bcast_ll      bcast_latency -s all -b 256 -e 16K -f 4 -n 200 -w 20
cd_fcollect_ll   fcollect_latency -s all -b 256 -e 16K -f 4 -n 200 -w 20
cd_alltoall_ll   alltoall_latency -s all -b 256 -e 16K -f 4 -n 200 -w 20
cs_bcast         broadcast_on_stream -b 8 -e 8K -f 32 -n 300 -w 30
LIST
  } > /tmp/s11C.list
  mkdir -p /tmp/jobC
  for round in 1 2 3; do
    for v in s quick; do
      MORI_PERF_LIST=/tmp/s11C.list MORI_COMMIT=$v timeout 80 tools/perf/run_benchmarks.sh "$PWD/../build-$v" \
        /tmp/jobC/${v}_r$round > /tmp/jobC/${v}_r$round.log 2>&1
      echo "$v round $round: exit $? ($((SECONDS - start)) s)"
    done
  done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" jobC)
  echo "total $((SECONDS - start)) s"
  ;;
D)
  start=$SECONDS
  suites_beside_base
  { grep -E '^#' tools/perf/standard.list
    grep -E '^cs_(alltoall|bcast|fcollect|reduce|barrier|sync) ' /tmp/s11A.list
    cat <<'LIST'
cd_reduce_s      reduction_latency -d float -s all -b 4 -e 1K -f 4 -n 200 -w 20
LIST
  } > /tmp/s11D.list
  mkdir -p /tmp/jobD
  for round in 1 2 3; do
    for v in s base; do
      MORI_PERF_LIST=/tmp/s11D.list MORI_COMMIT=$v timeout 80 tools/perf/run_benchmarks.sh "$PWD/../build-$v" \
        /tmp/jobD/${v}_r$round > /tmp/jobD/${v}_r$round.log 2>&1
      echo "$v round $round: exit $? ($((SECONDS - start)) s)"
    done
  done
  (cd /tmp && tar -czf "$OUT/jobD.tgz" jobD)
  JOB_TIMEOUT=120 side_by_side /tmp/s11A.list "$OUT/jobD_whole" "$PWD/../build-s" "${MORI_COMMIT:-unknown}" 2
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  np4_list > /tmp/s11B.list
  JOB_TIMEOUT=100 side_by_side /tmp/s11B.list "$OUT/jobD_np4" "$PWD/../build-s" "${MORI_COMMIT:-unknown}" 4
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
E)
  start=$SECONDS
  suites_beside_base
  { grep -E '^#' tools/perf/standard.list
    grep -E '^cd_(bcast|fcollect|alltoall)_ll |^c[ds]_(barrier|sync) ' /tmp/s11A.list
  } > /tmp/s11E2.list
  np4_list > /tmp/s11B.list
  mkdir -p /tmp/jobE
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  JOB_TIMEOUT=100 side_by_side /tmp/s11B.list "$OUT/jobE_np4" "$PWD/../build-s" "${MORI_COMMIT:-unknown}" 4
  for v in base s base; do
    MORI_PERF_LIST=/tmp/s11B.list MORI_PERF_NP=4 MORI_COMMIT=$v timeout 60 tools/perf/run_benchmarks.sh \
      "$PWD/../build-$v" /tmp/jobE/${v}_np4_$SECONDS > /tmp/jobE/${v}_np4_$SECONDS.log 2>&1
    echo "$v np4: exit $? ($((SECONDS - start)) s)"
  done
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  for v in s base; do
    MORI_PERF_LIST=/tmp/s11E2.list MORI_COMMIT=$v timeout 60 tools/perf/run_benchmarks.sh "$PWD/../build-$v" \
      /tmp/jobE/${v}_np2 > /tmp/jobE/${v}_np2.log 2>&1
    echo "$v np2: exit $? ($((SECONDS - start)) s)"
  done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobE.tgz" jobE)
  echo "total $((SECONDS - start)) s"
  ;;
F)
  start=$SECONDS
  perf="mori_shmem_bootstrap_mpi mori_shmem_perf"
  suites_beside_base
  { grep -E '^#' tools/perf/standard.list
    grep -E '^cd_(bcast|fcollect|alltoall)_ll |^c[ds]_(barrier|sync) ' /tmp/s11A.list
  } > /tmp/s11E2.list
  np4_list > /tmp/s11B.list
  mkdir -p /tmp/jobF
  for v in s base; do
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 MORI_PERF_LIST=/tmp/s11B.list MORI_PERF_NP=4 MORI_COMMIT=$v timeout 40 \
      tools/perf/run_benchmarks.sh "$PWD/../build-$v" /tmp/jobF/${v}_np4 > /tmp/jobF/${v}_np4.log 2>&1
    echo "$v np4: exit $? ($((SECONDS - start)) s)"
    (cd /tmp && tar -czf "$OUT/jobF.tgz" jobF)  # what ran so far comes back if the call's time runs out
    [ $v = base ] && break
    MORI_PERF_LIST=/tmp/s11E2.list MORI_COMMIT=$v timeout 30 tools/perf/run_benchmarks.sh "$PWD/../build-$v" \
      /tmp/jobF/${v}_np2 > /tmp/jobF/${v}_np2.log 2>&1
    echo "$v np2: exit $? ($((SECONDS - start)) s)"
  done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobF.tgz" jobF)
  echo "total $((SECONDS - start)) s"
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
