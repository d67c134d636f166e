#!/bin/bash
# Device runs of the ninth session (2026-12-02), on nvidia-h200 (ONE H200: the PEs share the GPU
# under CUDA MPS; no figure here is an interconnect figure). The tree under test is unpacked at
# .snap, the commit it is compared with at .snap2; $OUT comes back. MORI_COMMIT names the tree in
# the records, MORI_BASE the commit at .snap2.
#   Y: three builds side by side: "fix" (.snap: the suites' targets and the perf tools), "base"
#      (.snap2: the perf tools) and "t256" (.snap with one thread's one-step limit at 256 B per
#      member instead of 128: the pull form of 256 B per member is 1.01-1.08x NVSHMEM's; the perf
#      tools). The team suites of "fix", then one thread's fcollect, alltoall, broadcast and float
#      reduction rows three times each (medians) for each build, mori-shmem and NVSHMEM side by
#      side with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per PE.
#      Prediction for "fix" (one thread's one-step reduction, one function per operation; the SASS
#      of the same change fixed to sum, nvcc 13.0: the pass loop 377 -> 197 instructions): one
#      thread's float reduction of 128 B 8.1 -> ~6 us, NVSHMEM 7.4-7.7; other rows unchanged.
#   Z: two builds side by side: "split" (.snap: the suites' targets and the perf tools), one
#      thread's one-step reduction as one function per element type that sends once and then runs
#      the combine loop of the call's operation, and "fixed" (.snap2: one function per operation
#      and type, each with its own send; the perf tools). The team suites of "split"; one thread's
#      rows three times for each; the whole list of 2026-12-02_device_runs_s8.sh M three times for
#      "split". The logs were to come back as logs.tgz: tar stopped on the job's own output file
#      (tee'd into $OUT, still being written), so the logs stayed apart and past the device
#      tool's count of returned files (the suite's among them).
#   S: the suites' targets of .snap built at ../build-s and the team suites; six files under $OUT.
#      S_TARGETS / S_TESTS: fewer targets and tests (a job with little device time left).
#      Prediction: "split" within run-to-run noise of "fixed" (one thread's float reduction of
#      128 B 6.6 us); its code: team_general.cpp's SASS 328k -> 208k instructions.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
commit=${MORI_COMMIT:-unknown}
rows() {  # rows <list> <job dir> <build>: the lines of <list> side by side, summary to stdout
  MORI_PERF_LIST=$1 OUT=$2 MORI_COMMIT=$commit \
    timeout "${JOB_TIMEOUT:-300}" tools/perf/run_benchmarks.sh "$3" "$2" > "$2.log" 2>&1
  echo "run_benchmarks exit $?"; grep -E "latency|rows below|runs:" "$2/bench_summary.txt" 2>/dev/null
  (cd "$(dirname "$2")" && tar -czf "$(basename "$2").tgz" "$(basename "$2")" && rm -rf "$(basename "$2")")
}
perf="mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem"
suites=${S_TARGETS:-"test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline mori_nic_model"}
thread_list() {  # one thread's rows, three times (ids repeat: the summary reports each row's median)
  grep -E '^#' tools/perf/standard.list
  for rep in 1 2 3; do
    cat <<'LIST'
cd_fcollect_t    fcollect_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_alltoall_t    alltoall_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_bcast_t       bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cd_reduce_t      reduction_latency -d float -s thread -b 4 -e 1K -f 2 -n 200 -w 20
cd_reduce_ti     reduction_latency -d int32 -s thread -b 4 -e 1K -f 4 -n 200 -w 20
LIST
  done
}
build() {  # build <name> <source dir> <targets...>: configures and builds ../build-<name>
  local name=$1 src=$2
  shift 2
  cmake -S "$src" -B ../build-$name -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
    > "$OUT/${name}_configure.log" 2>&1 && ninja -C ../build-$name "$@" > "$OUT/${name}_build.log" 2>&1
  echo "$name build exit $? ($((SECONDS - start)) s)"
}
suite() {  # suite <build dir>: the team suites
  SUITE_TESTS=${S_TESTS:-'team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline'} \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=240 SUITE_BENCH=0 MORI_GPU_BUILD=$1 OUT=$OUT/suite \
    tools/gpu_suite.sh > "$OUT/suite.log" 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"; grep -E "GPU tests|Failed|\*\*\*" "$OUT/suite.log" | head -5
}
case "$phase" in
Y)
  start=$SECONDS
  rm -rf /tmp/yt256 && mkdir -p /tmp/yt256 && cp -r . /tmp/yt256/src
  f=/tmp/yt256/src/include/mori/shmem/team/ll_exchange.hpp
  sed -i 's/constexpr size_t kLlMaxBytesThread = 128;/constexpr size_t kLlMaxBytesThread = 256;/' $f
  grep -q 'kLlMaxBytesThread = 256;' $f || { echo "t256: no patch"; exit 2; }
  build fix "$PWD" $suites $perf &
  build base "$PWD/../.snap2" $perf &
  build t256 /tmp/yt256/src $perf &
  wait
  suite "$PWD/../build-fix"
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  thread_list > /tmp/s9Y.list
  for v in fix base t256; do
    case $v in fix) commit=${MORI_COMMIT:-unknown} ;; base) commit=${MORI_BASE:-unknown} ;; t256) commit=${MORI_COMMIT:-unknown}+t256 ;; esac
    JOB_TIMEOUT=120 rows /tmp/s9Y.list "$OUT/jobY_$v" "$PWD/../build-$v"
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
Z)
  start=$SECONDS
  build split "$PWD" $suites $perf &
  build fixed "$PWD/../.snap2" $perf &
  wait
  suite "$PWD/../build-split"
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  thread_list > /tmp/s9Z.list
  for v in split fixed; do
    case $v in split) commit=${MORI_COMMIT:-unknown} ;; fixed) commit=${MORI_BASE:-unknown} ;; esac
    JOB_TIMEOUT=90 rows /tmp/s9Z.list "$OUT/jobZ_$v" "$PWD/../build-$v"
  done
  commit=${MORI_COMMIT:-unknown}
  { grep -E '^#' tools/perf/standard.list  # the whole list of 2026-12-02_device_runs_s8.sh M, three times
    for rep in 1 2 3; do sed -n '/^cd_alltoall      alltoall_latency -s all/,/^cs_sync /p' bench/results/2026-12-02_device_runs_s8.sh; done
  } > /tmp/s9M.list
  [ "$(grep -c . /tmp/s9M.list)" -gt 57 ] || { echo "whole list: not found"; exit 2; }
  JOB_TIMEOUT=200 rows /tmp/s9M.list "$OUT/jobM" "$PWD/../build-split"
  mps_stop
  (cd "$OUT" && tar -czf logs.tgz --exclude='*.tgz' --exclude=logs.tgz . && find . -mindepth 1 ! -name '*.tgz' -delete)
  echo "total $((SECONDS - start)) s"
  ;;
S)
  start=$SECONDS
  build s "$PWD" $suites mori_shmem_bootstrap_mpi  # the MPI bootstrap plugin (d566ef8's run lacked it)
  suite "$PWD/../build-s"
  echo "total $((SECONDS - start)) s"
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
