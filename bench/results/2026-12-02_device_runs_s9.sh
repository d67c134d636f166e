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
case "$phase" in
Y)
  start=$SECONDS
  rm -rf /tmp/yt256 && mkdir -p /tmp/yt256 && cp -r . /tmp/yt256/src
  f=/tmp/yt256/src/include/mori/shmem/team/ll_exchange.hpp
  sed -i 's/constexpr size_t kLlMaxBytesThread = 128;/constexpr size_t kLlMaxBytesThread = 256;/' $f
  grep -q 'kLlMaxBytesThread = 256;' $f || { echo "t256: no patch"; exit 2; }
  suites="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline mori_nic_model"
  for n in "fix:$PWD:$suites $perf" "base:$PWD/../.snap2:$perf" "t256:/tmp/yt256/src:$perf"; do
    (IFS=: read -r name src tg <<< "$n"
      cmake -S "$src" -B ../build-$name -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
        > "$OUT/${name}_configure.log" 2>&1 && ninja -C ../build-$name $tg > "$OUT/${name}_build.log" 2>&1
      echo "$name build exit $? ($((SECONDS - start)) s)") &
  done
  wait
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=240 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-fix OUT=$OUT/suite \
    tools/gpu_suite.sh > "$OUT/suite.log" 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"; grep -E "GPU tests|Failed|\*\*\*" "$OUT/suite.log" | head -5
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2 3; do  # ids repeat: the summary reports each row's median
      cat <<'LIST'
cd_fcollect_t    fcollect_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_alltoall_t    alltoall_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_bcast_t       bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cd_reduce_t      reduction_latency -d float -s thread -b 4 -e 1K -f 2 -n 200 -w 20
cd_reduce_ti     reduction_latency -d int32 -s thread -b 4 -e 1K -f 4 -n 200 -w 20
LIST
    done
  } > /tmp/s9Y.list
  for v in fix base t256; do
    case $v in fix) commit=${MORI_COMMIT:-unknown} ;; base) commit=${MORI_BASE:-unknown} ;; t256) commit=${MORI_COMMIT:-unknown}+t256 ;; esac
    JOB_TIMEOUT=120 rows /tmp/s9Y.list "$OUT/jobY_$v" "$PWD/../build-$v"
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
