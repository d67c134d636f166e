#!/bin/bash
# Device runs of the seventh session (2026-12-02), on nvidia-h200 (ONE H200: the PEs share the GPU
# under CUDA MPS; no figure here is an interconnect figure). The tree is `git archive <commit>`
# unpacked at .snap; the build trees are ../build-dev and ../build-var<n>; $OUT comes back.
#   B: full build at ../build-dev; the team suites (np2/3/4, the NIC model's mlx5 runs, the device
#      error tests, the examples, the register budgets); then the rows this session changed, twice
#      each, mori-shmem and NVSHMEM side by side with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per PE
#      (as in 2026-12-02_device_runs_s5.sh K): every scope's reductions (float, 4 B-256 KiB), the
#      one-thread LL sweeps of fcollect, alltoall and bcast (256 B-4 KiB), and the small
#      reductions, barrier and sync on a stream with 300 calls per size.
#   V: two variant builds at ../build-var4 and ../build-var8 (mori-shmem's perf tool only) whose
#      one-thread LL limit is 2 KiB instead of 256 B, one thread keeping 4 or 8 LL words in flight:
#      the one-thread LL sweeps of fcollect, alltoall, bcast and float reductions past the limit,
#      for the crossover with the pull form of B, and the direct thread reductions (16-256 KiB); the
#      SASS of both builds' team collectives.
#   F: the final job (below); its main list runs three times, the summary giving each row's median.
#   G: two candidate trees compared (below).
#   K: the whole collective list of 2026-12-02_device_runs_s5.sh K from ../build-dev.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B=$PWD/../build-dev
rows() {  # rows <list> <job dir> <build>: the lines of <list> side by side, summary to stdout
  MORI_PERF_LIST=$1 OUT=$2 MORI_COMMIT=${MORI_COMMIT:-unknown} \
    timeout "${JOB_TIMEOUT:-300}" tools/perf/run_benchmarks.sh "$3" "$2" > "$2.log" 2>&1
  echo "run_benchmarks exit $?"; grep -E "latency|rows below|runs:" "$2/bench_summary.txt" 2>/dev/null
  (cd "$(dirname "$2")" && tar -czf "$(basename "$2").tgz" "$(basename "$2")" && rm -rf "$(basename "$2")")
}
ll_rows() {
  for rep in a b; do
    cat <<LIST
cd_fcollect_ll_$rep fcollect_latency -s thread -b 256 -e 4K -f 2 -n 200 -w 20
cd_alltoall_ll_$rep alltoall_latency -s thread -b 256 -e 4K -f 2 -n 200 -w 20
cd_bcast_ll_$rep    bcast_latency -s thread -b 128 -e 2K -f 2 -n 200 -w 20
LIST
  done
}
case "$phase" in
B)
  SUITE_TESTS="${SUITE_TESTS:-team|collectives|nvshmem|example_allreduce|example_team_pipeline|register_budget}" \
    SUITE_EXCLUDE=nic_model_rate SUITE_TEST_TIMEOUT=240 SUITE_BENCH=0 MORI_GPU_BUILD=$B OUT=$OUT/suite \
    tools/gpu_suite.sh > "$OUT/suite.log" 2>&1
  echo "gpu_suite exit $?"; tail -30 "$OUT/suite.log" | grep -vE '^\s*$'
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    for rep in a b; do
      cat <<LIST
cd_reduce_$rep    reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 100 -w 10
cs_reduce_$rep    reduction_on_stream -d bfloat16 -b 4 -e 16K -f 4 -n 300 -w 30
cs_barrier_$rep   barrier_on_stream -n 300 -w 30
cs_sync_$rep      sync_on_stream -n 300 -w 30
cs_fcollect_$rep  fcollect_on_stream -b 16 -e 4K -f 4 -n 300 -w 30
LIST
    done
    ll_rows; } > /tmp/s7B.list
  rows /tmp/s7B.list "$OUT/jobB" "$B"
  mps_stop
  ;;
V)
  # Two variants side by side, each with the one-thread LL limit at 2 KiB (every row below one
  # step): one thread keeping 4 LL words in flight (the default) and 8. mori-shmem rows only.
  start=$SECONDS
  for v in 4 8; do
    rm -rf /tmp/var$v && mkdir -p /tmp/var$v && cp -r . /tmp/var$v/src
    f=/tmp/var$v/src/include/mori/shmem/team/ll_exchange.hpp
    sed -i 's/constexpr size_t kLlMaxBytesThread = 256;/constexpr size_t kLlMaxBytesThread = 2048;/; s/llApplies(kLlMaxBytesThread, 64, true)/llApplies(kLlMaxBytesThread, 4, true)/' $f
    sed -i "s/constexpr int kLlInFlight = std::is_same_v<S, Block> ? 2 : 4;/constexpr int kLlInFlight = std::is_same_v<S, Block> ? 2 : std::is_same_v<S, Thread> ? $v : 4;/" $f
    grep -q 'kLlMaxBytesThread = 2048;' $f && grep -q "Thread> ? $v : 4;" $f || { echo "variant $v: no patch"; exit 2; }
    (cmake -S /tmp/var$v/src -B ../build-var$v -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
      > "$OUT/var${v}_configure.log" 2>&1 &&
      ninja -C ../build-var$v mori_shmem_perf mori_shmem_bootstrap_mpi > "$OUT/var${v}_build.log" 2>&1
      echo "variant $v build exit $? ($((SECONDS - start)) s)") &
  done
  wait
  for v in 4 8; do
    o=$(find ../build-var$v -name team_general.cpp.o | head -1)
    cuobjdump -sass "$o" > "$OUT/var${v}_team_general.sass" 2>&1 && gzip "$OUT/var${v}_team_general.sass"
  done
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  for v in 4 8; do
    { grep -E '^#' tools/perf/standard.list
      cat <<LIST
cd_fcollect_v$v  fcollect_latency -s thread -b 64 -e 4K -f 2 -n 200 -w 20
cd_alltoall_v$v  alltoall_latency -s thread -b 64 -e 4K -f 2 -n 200 -w 20
cd_bcast_v$v     bcast_latency -s thread -b 32 -e 2K -f 2 -n 200 -w 20
cd_reduce_v$v    reduction_latency -d float -s thread -b 4 -e 2K -f 2 -n 200 -w 20
cd_reduce_big_v$v reduction_latency -d float -s thread -b 16K -e 256K -f 16 -n 50 -w 5
LIST
    } > /tmp/s7V$v.list
    rows /tmp/s7V$v.list "$OUT/jobV$v" "$PWD/../build-var$v"
  done
  mps_stop
  ;;
F)
  # The final job: the full build at ../build-dev and, beside it, a variant at ../build-var (the
  # perf tool only) whose one-thread LL limit is 2 KiB; the team suites; the one-thread sweeps
  # from the variant (every size one step, mori-shmem only) and from the main build (mori-shmem
  # and NVSHMEM side by side); then the whole collective list of K with 300 calls per size for
  # the small stream rows.
  start=$SECONDS
  rm -rf /tmp/var && mkdir -p /tmp/var && cp -r . /tmp/var/src
  f=/tmp/var/src/include/mori/shmem/team/ll_exchange.hpp
  sed -i 's/constexpr size_t kLlMaxBytesThread = [0-9]*;/constexpr size_t kLlMaxBytesThread = 2048;/; s/llApplies(kLlMaxBytesThread, 64, true)/llApplies(kLlMaxBytesThread, 4, true)/' $f
  grep -q 'kLlMaxBytesThread = 2048;' $f || { echo "variant: no patch"; exit 2; }
  (cmake -S /tmp/var/src -B ../build-var -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
    > "$OUT/var_configure.log" 2>&1 &&
    ninja -C ../build-var mori_shmem_perf mori_shmem_bootstrap_mpi > "$OUT/var_build.log" 2>&1
    echo "variant build exit $? ($((SECONDS - start)) s)") &
  SUITE_TESTS="${SUITE_TESTS:-team|collectives|nvshmem|example_allreduce|example_team_pipeline|register_budget}" \
    SUITE_EXCLUDE=nic_model_rate SUITE_TEST_TIMEOUT=240 SUITE_BENCH=0 MORI_GPU_BUILD=$B OUT=$OUT/suite \
    tools/gpu_suite.sh > "$OUT/suite.log" 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"; grep -E "GPU tests|Failed|\*\*\*" "$OUT/suite.log" | head
  wait
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  thread_rows() {
    cat <<LIST
cd_fcollect_t$1  fcollect_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_alltoall_t$1  alltoall_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_bcast_t$1     bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cd_reduce_t$1    reduction_latency -d float -s thread -b 4 -e 1K -f 2 -n 200 -w 20
LIST
  }
  { grep -E '^#' tools/perf/standard.list; thread_rows v; } > /tmp/s7Fv.list
  JOB_TIMEOUT=60 rows /tmp/s7Fv.list "$OUT/jobFv" "$PWD/../build-var"
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2 3; do  # ids repeat: the summary reports each row's median
      thread_rows m
      cat <<'LIST'
cd_alltoall      alltoall_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_bcast         bcast_latency -s all -b 8 -e 256K -f 32 -n 100 -w 10
cd_fcollect      fcollect_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_reduce        reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 100 -w 10
cd_barrier       barrier_latency -s all -n 1000 -w 100
cd_sync          sync_latency -s all -n 1000 -w 100
cd_bcast_ll      bcast_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cd_fcollect_ll   fcollect_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cd_alltoall_ll   alltoall_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cs_alltoall      alltoall_on_stream -b 16 -e 4K -f 16 -n 300 -w 30
cs_alltoall_big  alltoall_on_stream -b 64K -e 16M -f 16 -n 20 -w 2
cs_bcast         broadcast_on_stream -b 8 -e 8K -f 32 -n 300 -w 30
cs_bcast_big     broadcast_on_stream -b 256K -e 16M -f 32 -n 20 -w 2
cs_fcollect      fcollect_on_stream -b 16 -e 4K -f 16 -n 300 -w 30
cs_fcollect_big  fcollect_on_stream -b 64K -e 16M -f 16 -n 20 -w 2
cs_reduce        reduction_on_stream -d bfloat16 -b 4 -e 16K -f 16 -n 300 -w 30
cs_reduce_big    reduction_on_stream -d bfloat16 -b 256K -e 16M -f 16 -n 20 -w 2
cs_barrier       barrier_on_stream -n 300 -w 30
cs_sync          sync_on_stream -n 300 -w 30
LIST
    done
  } > /tmp/s7Fm.list
  JOB_TIMEOUT=${JOB_TIMEOUT:-330} rows /tmp/s7Fm.list "$OUT/jobF" "$B"
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
G)
  # Two candidates side by side: this tree (.snap) and the tree at ../.snap2 (carried as .snap2 at
  # the repository root), each built (the team suites' targets and the perf tools) at
  # ../build-<name>, its team suites run, then the rows the two differ in (one thread 64 B-2 KiB
  # twice, every scope's reductions and LL sweeps, small fcollects and reductions on a stream) per
  # candidate, mori-shmem and NVSHMEM side by side (the thread rows' medians). G_NAMES names the two.
  start=$SECONDS
  read -r nameA nameB <<< "${G_NAMES:-cur alt}"
  targets="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline
    mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem register_budget_kernels"
  for n in "$nameA:$PWD" ${nameB:+"$nameB:$PWD/../.snap2"}; do
    (name=${n%%:*}; src=${n#*:}
      cmake -S "$src" -B ../build-$name -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
        > "$OUT/${name}_configure.log" 2>&1 && ninja -C ../build-$name $targets > "$OUT/${name}_build.log" 2>&1
      echo "$name build exit $? ($((SECONDS - start)) s)") &
  done
  wait
  for name in $nameA $nameB; do
    SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
      SUITE_BUILD=0 SUITE_TEST_TIMEOUT=240 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-$name OUT=$OUT/suite_$name \
      tools/gpu_suite.sh > "$OUT/suite_$name.log" 2>&1
    echo "$name gpu_suite exit $? ($((SECONDS - start)) s)"; grep -E "GPU tests|Failed|\*\*\*" "$OUT/suite_$name.log" | head -5
  done
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2; do  # ids repeat: the summary reports each row's median
      cat <<'LIST'
cd_fcollect_t    fcollect_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_alltoall_t    alltoall_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_bcast_t       bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cd_reduce_t      reduction_latency -d float -s thread -b 4 -e 1K -f 2 -n 200 -w 20
LIST
    done
    cat <<'LIST'
cd_reduce        reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 100 -w 10
cd_bcast_ll      bcast_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cd_fcollect_ll   fcollect_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cd_alltoall_ll   alltoall_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cs_fcollect      fcollect_on_stream -b 16 -e 4K -f 16 -n 300 -w 30
cs_reduce        reduction_on_stream -d bfloat16 -b 4 -e 16K -f 16 -n 300 -w 30
LIST
  } > /tmp/s7G.list
  for name in $nameA $nameB; do
    JOB_TIMEOUT=120 MORI_COMMIT=$name rows /tmp/s7G.list "$OUT/jobG_$name" "$PWD/../build-$name"
  done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
K) exec bench/results/2026-12-02_device_runs_s5.sh K ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
