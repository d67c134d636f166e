#!/bin/bash
# Device runs of the sixth session (2026-12-02), on nvidia-h200 (ONE H200: the 2 PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). The tree is `git archive
# <commit>` unpacked at .snap; the build tree is ../build-dev; $OUT comes back.
#   R: builds the two perf tools (mori-shmem-perf, mori-shmem-perf-nvshmem) and test_collectives,
#      runs test_collectives (np2/3/4 and the NIC model's mlx5), then the thread-scope
#      reductions (float, 4 B-256 KiB) and the thread-scope LL sweeps of fcollect, alltoall and
#      bcast (256 B-2 KiB), each row twice in the job, mori-shmem and NVSHMEM side by side, with
#      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per PE as in 2026-12-02_device_runs_s5.sh K. (Its run
#      at ef13cd5 built no MPI bootstrap plugin, so its test_collectives runs failed at init.)
#   C: builds test_collectives and the MPI bootstrap plugin, runs test_collectives np2/3/4.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B=$PWD/../build-dev
case "$phase" in
R)
  start=$SECONDS
  cmake -S . -B "$B" -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.log" 2>&1 &&
    ninja -C "$B" mori_shmem_perf mori_shmem_perf_nvshmem test_collectives mori_shmem_bootstrap_mpi > "$OUT/build.log" 2>&1
  echo "build exit $? ($((SECONDS - start)) s)"; tail -3 "$OUT/build.log"
  . tools/mps.sh
  mps_start
  ctest --test-dir "$B" -R 'test_collectives_(np[234]|rdma_mlx5_np2)$' --output-on-failure --timeout 240 \
    > "$OUT/ctest.log" 2>&1
  echo "ctest exit $?"; grep -E "tests passed|Passed|Failed|\*\*\*" "$OUT/ctest.log" | tail -8
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  grep -E '^#' tools/perf/standard.list > /tmp/s6.list
  for rep in a b; do
    cat >> /tmp/s6.list <<LIST
cd_reduce_$rep      reduction_latency -d float -s thread -b 4 -e 256K -f 16 -n 100 -w 10
cd_fcollect_ll_$rep fcollect_latency -s thread -b 256 -e 2K -f 2 -n 200 -w 20
cd_alltoall_ll_$rep alltoall_latency -s thread -b 256 -e 2K -f 2 -n 200 -w 20
cd_bcast_ll_$rep    bcast_latency -s thread -b 256 -e 2K -f 2 -n 200 -w 20
LIST
  done
  MORI_PERF_LIST=/tmp/s6.list OUT=$OUT/jobR MORI_COMMIT=${MORI_COMMIT:-unknown} \
    timeout "${JOB_TIMEOUT:-300}" tools/perf/run_benchmarks.sh "$B" "$OUT/jobR" > "$OUT/jobR.log" 2>&1
  echo "run_benchmarks exit $?"; grep -E "latency" "$OUT/jobR/bench_summary.txt" 2>/dev/null
  mps_stop
  (cd "$OUT" && tar -czf jobR.tgz jobR && rm -rf jobR)
  ;;
C)
  start=$SECONDS
  cmake -S . -B "$B" -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.log" 2>&1 &&
    ninja -C "$B" test_collectives mori_shmem_bootstrap_mpi > "$OUT/build.log" 2>&1
  echo "build exit $? ($((SECONDS - start)) s)"; tail -2 "$OUT/build.log"
  . tools/mps.sh
  mps_start
  ctest --test-dir "$B" -R 'test_collectives_np[234]$' --output-on-failure --timeout 120 > "$OUT/ctest.log" 2>&1
  echo "ctest exit $?"; grep -E "tests passed|Test +#|\*\*\*" "$OUT/ctest.log" | tail -8
  mps_stop
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
