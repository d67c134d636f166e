#!/bin/bash
# Device runs of the tenth session (2026-12-02), on nvidia-h200 (ONE H200: the PEs share the GPU
# under CUDA MPS; no figure here is an interconnect figure). The tree under test is unpacked at
# .snap (this script's tree), the commit it is compared with at ../.snap2; $OUT comes back.
# MORI_COMMIT names the tree in the records, MORI_BASE the commit at .snap2.
#   A: a broadcast's one-step words laid out apart from the others' arrival words, so that a
#      block's broadcast of 16 KiB (32 KiB of tagged words, a whole LL half) takes one step. The
#      suites' targets and perf tools of .snap (phase S of the s9 script: build, then the team
#      suites), the perf tools of .snap2 beside; then the broadcast rows of every scope, a block's
#      fcollect and alltoall (unchanged: their limit stays 8 KiB) three times for each build (2 PEs,
#      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per PE), and the broadcast rows once at 3 PEs (33 each:
#      a broadcast of 8 KiB from a wave or block now takes one step there).
#      Prediction: a block's broadcast of 16 KiB 4.4-4.5 -> ~3.5 us (NVSHMEM ~4.2; the 16 KiB
#      variant of 2026-12-02T1015Z took 3.53), the stream broadcast of 16 KiB (one 256-thread block)
#      about 1 us faster; every other 2-PE row unchanged (the same path; a broadcast's non-roots
#      store their arrival word elsewhere).
#   B: A measured the LL broadcasts that fit before slower: one thread's 64 and 128 B 2.19 -> 2.40
#      and 2.86 -> 3.30 us, a block's 4 and 8 KiB 2.64 -> 2.76 and 2.89 -> 3.06 (each the median of
#      3 tight runs), a wave's alike (its library function's registers and spills unchanged, where
#      the thread's and block's changed). Four builds of the perf tool side by side: "base"
#      (../.snap2), "new" (../.snap3, A's tree), "v2" (.snap: no arrival pointer in LlCall, the
#      root's data received before the arrival loop) and "v3" (v2 with each arrival unit on a
#      128-byte line of its own: whether sharing a line with the other half's arrival word costs).
#      One thread's and a block's broadcast rows, mori-shmem only, the builds interleaved, 3 rounds.
#      Prediction: v2 back at base's figures if the cost is the code (registers); v3 = v2 unless the
#      line sharing costs.
#   C: B found v2 and v3 as slow as "new" (the code is not the cause; where the arrival word lies
#      is). This tree ("v4", d92f6f2) keeps each member's region for a broadcast whose regions fit the half
#      (the place of every LL broadcast before) and uses the arrival units only where they do not
#      (a block's broadcast of more than 8 KiB to one other member, of 8 KiB to two). Its suites'
#      targets and perf tools (phase S of the s9 script, then the team suites) and the perf tool
#      of ../.snap2 ("base") beside; the broadcast rows of every scope and a block's fcollect, the
#      two builds interleaved, 3 rounds, NVSHMEM beside v4.
#      Prediction: v4 = base within noise everywhere except a block's broadcast of 16 KiB
#      (4.48 -> ~3.65 us) and the stream broadcast of 16 KiB.
#   D: phase C's job for "v5" (56490b1): C found v4 as slow as new for one thread's 64-128 B and a block's
#      8 KiB (and a wave's 4-8 KiB by 0.1-0.2 us in that job), so the cause is the code after all:
#      the library's collective functions are compiled under a 64-register cap, and any change to
#      the inline LL path moves their spills. v5 keeps one thread's and a wave's code that of the
#      regions alone (their SASS equals base's but for the limit check's few instructions) and
#      takes a block's broadcast with the arrival units out of line (llBroadcastApart).
#      Prediction: one thread's and a wave's rows at base's; a block's 16 KiB ~3.75 us; a block's
#      other LL rows within 0.1 us of base's (its collective function: spill stores 340 -> 408 B).
#      Without the NVSHMEM twin (little device time left; NVSHMEM's figures for these rows: jobs A
#      and C).
#   M: the whole list of 2026-12-02_device_runs_s8.sh M three times for .snap (its perf tools built
#      here unless A's build is still there). Not run: no device time was left.
# Outcome: not kept (D lost the 16 KiB gain; the inline forms slowed one thread's rows): the
# library's code is dce1152's again. Records: 2026-12-02T1650Z_*_ll_broadcast_16k.json (A, B),
# T1715Z_*_ll_broadcast_regions_kept.json (C), T1750Z_*_ll_broadcast_apart_out_of_line.json (D).
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
perf="mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem"
side_by_side() {  # side_by_side <list> <job dir> <build> <commit> [np]: mori-shmem and NVSHMEM
  local np=${5:-2} mpirun=mpirun
  if [ "$np" != 2 ]; then  # run_benchmarks.sh says -np 2: a wrapper replaces it
    mpirun=/tmp/mpirun_np$np
    printf '#!/bin/bash\nshift 2\nexec mpirun -np %s "$@"\n' "$np" > $mpirun && chmod +x $mpirun
  fi
  MORI_PERF_LIST=$1 MPIRUN=$mpirun MORI_COMMIT=$4 timeout "${JOB_TIMEOUT:-300}" \
    tools/perf/run_benchmarks.sh "$3" "$2" > "$2.log" 2>&1
  echo "$(basename "$2"): run_benchmarks exit $?"
  grep -E "latency|rows below|runs:" "$2/bench_summary.txt" 2>/dev/null
  (cd "$(dirname "$2")" && tar -czf "$(basename "$2").tgz" "$(basename "$2")" "$(basename "$2").log" &&
    rm -rf "$(basename "$2")" "$(basename "$2").log")
}
suites_beside_base() {  # suites_beside_base <base targets>: .snap's suites (s9 S) and ../.snap2's targets, then MPS
  { cmake -S ../.snap2 -B ../build-base -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
      > /tmp/base_configure.log 2>&1 && ninja -C ../build-base $1 > /tmp/base_build.log 2>&1
    echo "base build exit $? ($((SECONDS - start)) s)"; } &
  S_TARGETS="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline mori_nic_model $perf" \
    bash bench/results/2026-12-02_device_runs_s9.sh S
  wait
  (cd "$OUT" && tar -czf suite_logs.tgz s_configure.log s_build.log suite.log suite && rm -rf s_*.log suite.log suite)
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
}
case "$phase" in
A)
  start=$SECONDS
  suites_beside_base "$perf"
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2 3; do
      cat <<'LIST'
cd_bcast_b       bcast_latency -s block -b 1K -e 32K -f 2 -n 200 -w 20
cd_bcast_w       bcast_latency -s warp -b 1K -e 32K -f 2 -n 200 -w 20
cd_bcast_t       bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cs_bcast         broadcast_on_stream -b 1K -e 64K -f 2 -n 300 -w 30
cd_fcollect_b    fcollect_latency -s block -b 4K -e 32K -f 2 -n 200 -w 20
cd_alltoall_b    alltoall_latency -s block -b 4K -e 32K -f 2 -n 200 -w 20
LIST
    done
  } > /tmp/s10A.list
  JOB_TIMEOUT=150 side_by_side /tmp/s10A.list "$OUT/jobA_new" "$PWD/../build-s" "${MORI_COMMIT:-unknown}"
  JOB_TIMEOUT=150 side_by_side /tmp/s10A.list "$OUT/jobA_base" "$PWD/../build-base" "${MORI_BASE:-unknown}"
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=33
  { grep -E '^#' tools/perf/standard.list; grep -E '^cd_bcast_[bw] ' /tmp/s10A.list | sort -u; } > /tmp/s10A3.list
  JOB_TIMEOUT=90 side_by_side /tmp/s10A3.list "$OUT/jobA3_new" "$PWD/../build-s" "${MORI_COMMIT:-unknown}" 3
  JOB_TIMEOUT=90 side_by_side /tmp/s10A3.list "$OUT/jobA3_base" "$PWD/../build-base" "${MORI_BASE:-unknown}" 3
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
B)
  start=$SECONDS
  rm -rf ../.snap4 && cp -r . ../.snap4
  f=../.snap4/include/mori/shmem/team/team_types.hpp
  sed -i 's/constexpr size_t kLlArrivalBytes = 32;/constexpr size_t kLlArrivalBytes = 256;/' $f
  grep -q 'kLlArrivalBytes = 256;' $f || { echo "v3: no patch"; exit 2; }
  for v in base:../.snap2 new:../.snap3 v2:. v3:../.snap4; do
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
cd_bcast_t       bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cd_bcast_b       bcast_latency -s block -b 1K -e 32K -f 2 -n 200 -w 20
LIST
  } > /tmp/s10B.list
  mkdir -p /tmp/jobB
  for round in 1 2 3; do
    for v in base new v2 v3; do
      MORI_PERF_LIST=/tmp/s10B.list MORI_COMMIT=$v timeout 60 tools/perf/run_benchmarks.sh "$PWD/../build-$v" \
        /tmp/jobB/${v}_r$round > /tmp/jobB/${v}_r$round.log 2>&1
      echo "$v round $round: exit $? $(grep -E 'block +16K|thread +128 ' /tmp/jobB/${v}_r$round/bench_summary.txt | awk '{print $4 "=" $5}' | tr '\n' ' ')"
    done
  done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobB.tgz" jobB)
  echo "total $((SECONDS - start)) s"
  ;;
C | D)
  start=$SECONDS
  [ "$phase" = D ] && perf="mori_shmem_bootstrap_mpi mori_shmem_perf"  # D: little device time left, no NVSHMEM twin
  suites_beside_base "mori_shmem_bootstrap_mpi mori_shmem_perf"
  { grep -E '^#' tools/perf/standard.list
    cat <<'LIST'
cd_bcast_t       bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cd_bcast_w       bcast_latency -s warp -b 1K -e 32K -f 2 -n 200 -w 20
cd_bcast_b       bcast_latency -s block -b 1K -e 32K -f 2 -n 200 -w 20
cs_bcast         broadcast_on_stream -b 1K -e 64K -f 2 -n 300 -w 30
cd_fcollect_b    fcollect_latency -s block -b 4K -e 32K -f 2 -n 200 -w 20
LIST
  } > /tmp/s10C.list
  mkdir -p /tmp/jobC
  for round in 1 2 3; do
    for v in s base; do
      MORI_PERF_LIST=/tmp/s10C.list MORI_COMMIT=$v timeout 120 tools/perf/run_benchmarks.sh "$PWD/../build-$v" \
        /tmp/jobC/${v}_r$round > /tmp/jobC/${v}_r$round.log 2>&1
      echo "$v round $round: exit $? $(grep -E 'block +16K|thread +128 ' /tmp/jobC/${v}_r$round/bench_summary.txt | awk '{print $1 ":" $4 "=" $5}' | tr '\n' ' ')"
    done
  done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" jobC)
  echo "total $((SECONDS - start)) s"
  ;;
M)
  start=$SECONDS
  [ -x ../build-s/tools/perf/mori-shmem-perf ] || {
    cmake -S . -B ../build-s -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release > /tmp/s_configure.log 2>&1 &&
      ninja -C ../build-s $perf > /tmp/s_build.log 2>&1
    echo "build exit $? ($((SECONDS - start)) s)"; }
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2 3; do sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh; done
  } > /tmp/s10M.list
  [ "$(grep -c . /tmp/s10M.list)" -gt 57 ] || { echo "whole list: not found"; exit 2; }
  JOB_TIMEOUT=400 side_by_side /tmp/s10M.list "$OUT/jobM" "$PWD/../build-s" "${MORI_COMMIT:-unknown}"
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
