#!/bin/bash
# Device runs of the eighth session (2026-12-02), on nvidia-h200 (ONE H200: the PEs share the GPU
# under CUDA MPS; no figure here is an interconnect figure). The tree is `git archive <commit>`
# unpacked at .snap; $OUT comes back. MORI_COMMIT names the commit in the records.
#   H: the tree built at ../build-main (the team suites' targets and the perf tools) and its team
#      suites; beside it a variant at ../build-v16 (the perf tools only) whose LL area halves are
#      64 KiB instead of 32 (the scratch 128 KiB) and whose LL limit for a wave or block is 16 KiB
#      instead of 8. Then, mori-shmem and NVSHMEM side by side with
#      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per PE: from the tree, the reductions of every scope
#      (one thread's float, double and bfloat16 rows twice: the summary reports their medians; the
#      double rows fail, the perf tool's -d takes int32, int64, float and bfloat16),
#      a wave's and a block's one-step reductions 128 B-8 KiB and the stream reductions; from the
#      variant, the broadcasts, fcollects and alltoalls of a wave and a block across the 8 KiB
#      limit (4-32 KiB per member). V16=0: without the variant.
#   M: the tree's perf tools built at ../build-main; the whole collective list of
#      2026-12-02_device_runs_s7.sh F (every scope, LL sweeps, stream forms small and large)
#      three times, mori-shmem and NVSHMEM side by side (the summary reports each row's median).
#   X: (prepared for a later session; not run here) the tree and two variants, the perf tools of
#      each built side by side at ../build-x<name>: "t256", one thread's one-step limit 256 B per
#      member instead of 128 (the pull form of 256 B per member is 1.01-1.08x NVSHMEM's); "sum",
#      one thread's one-step reduction with the operation fixed to sum instead of chosen per
#      element (AnyOp; sum rows only, so no suite runs it): whether the per-element branch tree
#      is what makes its passes cost ~0.7 us. One thread's rows, three times each (medians).
#      Prediction for "sum" (its SASS, nvcc 13.0: the pass loop of llReduceApart<Thread, float>
#      377 -> 197 instructions, its loop over the members 300 -> 118): one thread's float
#      reduction of 128 B 8.1 -> ~6 us, NVSHMEM 7.4-7.7. Both patches compile (checked locally).
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
commit=${MORI_COMMIT:-unknown}
V16=${V16:-1}  # 0: phase H without the variant
rows() {  # rows <list> <job dir> <build>: the lines of <list> side by side, summary to stdout
  MORI_PERF_LIST=$1 OUT=$2 MORI_COMMIT=$commit \
    timeout "${JOB_TIMEOUT:-300}" tools/perf/run_benchmarks.sh "$3" "$2" > "$2.log" 2>&1
  echo "run_benchmarks exit $?"; grep -E "latency|rows below|runs:" "$2/bench_summary.txt" 2>/dev/null
  (cd "$(dirname "$2")" && tar -czf "$(basename "$2").tgz" "$(basename "$2")" && rm -rf "$(basename "$2")")
}
case "$phase" in
H)
  start=$SECONDS
  rm -rf /tmp/v16 && mkdir -p /tmp/v16 && cp -r . /tmp/v16/src
  f=/tmp/v16/src/include/mori/shmem/team
  sed -i 's/constexpr size_t kScratchBytes = 64 \* 1024;/constexpr size_t kScratchBytes = 128 * 1024;/;
          s/constexpr size_t kLlHalfBytes = 32 \* 1024;/constexpr size_t kLlHalfBytes = 64 * 1024;/' $f/team_types.hpp
  sed -i 's/constexpr size_t kLlMaxBytesGroup = 8192;/constexpr size_t kLlMaxBytesGroup = 16384;/;
          s/!llApplies(16, 1025, false)/!llApplies(16, 2049, false)/' $f/ll_exchange.hpp
  grep -q 'kLlHalfBytes = 64 \* 1024;' $f/team_types.hpp && grep -q 'kLlMaxBytesGroup = 16384;' $f/ll_exchange.hpp ||
    { echo "variant: no patch"; exit 2; }
  targets="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline"
  targets+=" mori_nic_model mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem register_budget_kernels"
  builds=("main:$PWD:$targets")
  [ "$V16" = 1 ] && builds+=("v16:/tmp/v16/src:mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem")
  for n in "${builds[@]}"; do
    (IFS=: read -r name src tg <<< "$n"
      cmake -S "$src" -B ../build-$name -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
        > "$OUT/${name}_configure.log" 2>&1 && ninja -C ../build-$name $tg > "$OUT/${name}_build.log" 2>&1
      echo "$name build exit $? ($((SECONDS - start)) s)") &
  done
  wait
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=240 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-main OUT=$OUT/suite \
    tools/gpu_suite.sh > "$OUT/suite.log" 2>&1
  echo "gpu_suite exit $? ($((SECONDS - start)) s)"; grep -E "GPU tests|Failed|\*\*\*" "$OUT/suite.log" | head -5
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2; do  # ids repeat: the summary reports each row's median
      cat <<'LIST'
cd_reduce_t      reduction_latency -d float -s thread -b 4 -e 1K -f 2 -n 200 -w 20
cd_reduce_td     reduction_latency -d double -s thread -b 8 -e 1K -f 2 -n 200 -w 20
cd_reduce_tb     reduction_latency -d bfloat16 -s thread -b 2 -e 1K -f 2 -n 200 -w 20
LIST
    done
    cat <<'LIST'
cd_reduce        reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 100 -w 10
cd_reduce_wb     reduction_latency -d float -s warp -b 128 -e 8K -f 4 -n 200 -w 20
cd_reduce_bb     reduction_latency -d float -s block -b 128 -e 8K -f 4 -n 200 -w 20
cs_reduce        reduction_on_stream -d bfloat16 -b 4 -e 16K -f 4 -n 300 -w 30
LIST
  } > /tmp/s8H.list
  JOB_TIMEOUT=150 rows /tmp/s8H.list "$OUT/jobH_main" "$PWD/../build-main"
  { grep -E '^#' tools/perf/standard.list
    for s in warp block; do
      cat <<LIST
cd_bcast_v16_$s     bcast_latency -s $s -b 4K -e 32K -f 2 -n 200 -w 20
cd_fcollect_v16_$s  fcollect_latency -s $s -b 8K -e 64K -f 2 -n 200 -w 20
cd_alltoall_v16_$s  alltoall_latency -s $s -b 8K -e 64K -f 2 -n 200 -w 20
LIST
    done
  } > /tmp/s8V.list
  [ "$V16" = 1 ] && JOB_TIMEOUT=120 rows /tmp/s8V.list "$OUT/jobH_v16" "$PWD/../build-v16"
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
M)
  start=$SECONDS
  cmake -S . -B ../build-main -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release > "$OUT/main_configure.log" 2>&1 &&
    ninja -C ../build-main mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem > "$OUT/main_build.log" 2>&1
  echo "build exit $? ($((SECONDS - start)) s)"
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2 3; do  # ids repeat: the summary reports each row's median
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
  } > /tmp/s8M.list
  JOB_TIMEOUT=${JOB_TIMEOUT:-360} rows /tmp/s8M.list "$OUT/jobM" "$PWD/../build-main"
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
X)
  start=$SECONDS
  for v in main t256 sum; do
    rm -rf /tmp/x$v && mkdir -p /tmp/x$v && cp -r . /tmp/x$v/src
    f=/tmp/x$v/src/include/mori/shmem/team
    case $v in
      t256) sed -i 's/constexpr size_t kLlMaxBytesThread = 128;/constexpr size_t kLlMaxBytesThread = 256;/' $f/ll_exchange.hpp
            grep -q 'kLlMaxBytesThread = 256;' $f/ll_exchange.hpp || { echo "t256: no patch"; exit 2; } ;;
      sum) sed -i 's/^  llReduce<S>(t, dest, source, n, combineOp);$/  (void)combineOp;\n  llReduce<S>(t, dest, source, n, Fixed<Op::Sum>{});/' $f/collectives.hpp
           grep -q 'Fixed<Op::Sum>{});' $f/collectives.hpp || { echo "sum: no patch"; exit 2; } ;;
    esac
    (cmake -S /tmp/x$v/src -B ../build-x$v -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
      > "$OUT/x${v}_configure.log" 2>&1 &&
      ninja -C ../build-x$v mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem > "$OUT/x${v}_build.log" 2>&1
      echo "$v build exit $? ($((SECONDS - start)) s)") &
  done
  wait
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  { grep -E '^#' tools/perf/standard.list
    for rep in 1 2 3; do
      cat <<'LIST'
cd_fcollect_t    fcollect_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_alltoall_t    alltoall_latency -s thread -b 64 -e 2K -f 2 -n 200 -w 20
cd_bcast_t       bcast_latency -s thread -b 32 -e 1K -f 2 -n 200 -w 20
cd_reduce_t      reduction_latency -d float -s thread -b 4 -e 1K -f 2 -n 200 -w 20
LIST
    done
  } > /tmp/s8X.list
  for v in main t256 sum; do JOB_TIMEOUT=120 rows /tmp/s8X.list "$OUT/jobX_$v" "$PWD/../build-x$v"; done
  mps_stop
  echo "total $((SECONDS - start)) s"
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
