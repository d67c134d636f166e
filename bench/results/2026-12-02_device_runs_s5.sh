#!/bin/bash
# Device runs of the fifth session (2026-12-02), on nvidia-h200 (ONE H200: every multi-PE run has
# its PEs share the GPU under CUDA MPS; no figure here is an interconnect figure). The tree is
# `git archive <commit>` unpacked at .snap; the build tree is ../build-dev; $OUT comes back.
#   A: build everything at ../build-dev, then the team and collective suites (np2/3/4, the NIC
#      model's mlx5 runs, the examples) and the register budget checks.
#   K: the collective rows (device and on a stream), mori-shmem and NVSHMEM side by side, with
#      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per PE (NVSHMEM's full support for PEs sharing a GPU
#      needs the percentages to add up to 100 or less). The _ll rows sweep 256 B-16 KiB by factors
#      of 2 across the one-step (LL) limits: 256 B for one thread, 8 KiB for a wave or block.
#   T: the Triton checks (phase T of 2026-12-01_device_runs_s2.sh), bitcode carried at .bitcode.
#   V: prebuilt perf binaries carried at build-probe (v1, v2, ...: mori-shmem-perf with its
#      libraries; mori-shmem-perf-nvshmem), each in turn, 3 times: the small device collectives'
#      latency, with the MPS percentages of K.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B=$PWD/../build-dev
case "$phase" in
A)
  SUITE_TESTS="${SUITE_TESTS:-team|collectives|nvshmem|example_allreduce|example_team_pipeline|register_budget}" \
    SUITE_EXCLUDE="${SUITE_EXCLUDE:-nic_model_rate}" SUITE_TEST_TIMEOUT="${SUITE_TEST_TIMEOUT:-240}" exec bench/results/2026-12-01_device_runs_s2.sh A
  ;;
K)
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  grep -E '^#' tools/perf/standard.list > /tmp/s5.list
  cat >> /tmp/s5.list <<'LIST'
cd_alltoall      alltoall_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_bcast         bcast_latency -s all -b 8 -e 256K -f 32 -n 100 -w 10
cd_fcollect      fcollect_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_reduce        reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 100 -w 10
cd_barrier       barrier_latency -s all -n 1000 -w 100
cd_sync          sync_latency -s all -n 1000 -w 100
cd_bcast_ll      bcast_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cd_fcollect_ll   fcollect_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cd_alltoall_ll   alltoall_latency -s all -b 256 -e 16K -f 2 -n 200 -w 20
cs_alltoall      alltoall_on_stream -b 16 -e 16M -f 16 -n 20 -w 2
cs_bcast         broadcast_on_stream -b 8 -e 16M -f 32 -n 20 -w 2
cs_fcollect      fcollect_on_stream -b 16 -e 16M -f 16 -n 20 -w 2
cs_reduce        reduction_on_stream -d bfloat16 -b 4 -e 16M -f 16 -n 20 -w 2
cs_barrier       barrier_on_stream -n 300 -w 30
cs_sync          sync_on_stream -n 300 -w 30
LIST
  MORI_PERF_LIST=/tmp/s5.list MORI_BUILD=$B OUT=$OUT/jobK MORI_COMMIT=${MORI_COMMIT:-unknown} \
    timeout "${JOB_TIMEOUT:-480}" tools/run.sh > "$OUT/jobK.log" 2>&1
  echo "run.sh exit $?"; grep -E "BELOW|rows below|runs:" "$OUT/jobK/bench_summary.txt" 2>/dev/null
  mps_stop
  (cd "$OUT" && tar -czf jobK.tgz jobK && rm -rf jobK)
  ;;
T) exec bench/results/2026-12-01_device_runs_s2.sh T ;;
V)
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  nv=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
  for rep in 1 2 3; do
    for b in ${VARIANTS:-v1 v2} nvshmem; do
      if [ $b = nvshmem ]; then bin=$PWD/build-probe/mori-shmem-perf-nvshmem d=$nv; else bin=$PWD/build-probe/$b/mori-shmem-perf d=$PWD/build-probe/$b; fi
      for t in "sync_latency -s all -n 1000 -w 100" "barrier_latency -s all -n 1000 -w 100" \
        "reduction_latency -d float -s all -b 4 -e 1K -f 16 -n 200 -w 20" \
        "fcollect_latency -s all -b 256 -e 1K -f 4 -n 200 -w 20" "bcast_latency -s all -b 256 -e 8K -f 32 -n 200 -w 20"; do
        LD_LIBRARY_PATH=$d:$nv timeout 60 mpirun -np 2 -x LD_LIBRARY_PATH -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE \
          "$bin" $t < /dev/null > "$OUT/v.log" 2>&1
        grep '&&&& PERF' "$OUT/v.log" | sed "s|^|$b rep$rep |"
      done
    done
  done | tee "$OUT/v_all.txt"
  mps_stop
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
