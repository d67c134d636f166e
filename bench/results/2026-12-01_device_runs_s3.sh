#!/bin/bash
# Device runs of the third session of 2026-12-01, on nvidia-h200 (ONE H200: every multi-PE run
# has its PEs share the GPU under CUDA MPS; no figure here is an interconnect figure). The tree
# is `git archive <commit>` unpacked at .snap; the build tree is ../build-dev; $OUT comes back.
# Phases A (build + GPU suites), T (Triton checks) are those of 2026-12-01_device_runs_s2.sh.
#   J: a trimmed main job (tools/run.sh), mori-shmem and NVSHMEM side by side: the rows this
#      session changes (block put 1-32 MiB, shmem_p_bw, small collectives), each run 3 times
#      (the summary reports the median).
#   Y: the Python package under torchrun: GPU tests and bench_torch.py (empty/free latency).
#   X: SASS of the p bandwidth kernels of both perf binaries (cuobjdump), for shmem_p_bw.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B=$PWD/../build-dev
case "$phase" in
A | T) exec bench/results/2026-12-01_device_runs_s2.sh "$phase" ;;
J)
  . tools/mps.sh
  mps_start
  grep -E '^#' tools/perf/standard.list > /tmp/s3.list
  for rep in 1 2 3; do
    cat >> /tmp/s3.list <<'LIST'
put_block        shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 32M -f 4 -n 200 -w 20 --msgrate
p_bw             shmem_p_bw -c 132 -t 1024 -b 8M -e 64M -f 8 -n 50 -w 5 --msgrate
cd_bcast         bcast_latency -s all -b 8 -e 4K -f 8 -n 200 -w 20
cd_fcollect      fcollect_latency -s all -b 16 -e 4K -f 16 -n 200 -w 20
cd_barrier       barrier_latency -s all -n 1000 -w 100
cd_sync          sync_latency -s all -n 1000 -w 100
LIST
  done
  MORI_PERF_LIST=/tmp/s3.list MORI_BUILD=$B OUT=$OUT/job MORI_COMMIT=${MORI_COMMIT:-unknown} \
    timeout "${JOB_TIMEOUT:-400}" tools/run.sh > "$OUT/job.log" 2>&1
  echo "run.sh exit $?"; tail -40 "$OUT/job/bench_summary.txt" 2>/dev/null
  mps_stop
  (cd "$OUT" && tar -czf job.tgz job && rm -rf job)
  ;;
Y)
  . tools/mps.sh
  mps_start
  export PYTHONPATH=$B/python
  timeout 150 torchrun --nproc-per-node 2 -m pytest -q -rs python/tests/test_torch_gpu.py > "$OUT/py_torch.log" 2>&1
  echo "torch tests exit $?"; tail -3 "$OUT/py_torch.log"
  timeout 150 torchrun --nproc-per-node 2 python/benchmarks/bench_torch.py --out "$OUT/bench_torch.json" \
    > "$OUT/py_bench.log" 2>&1
  echo "bench exit $?"; tail -5 "$OUT/py_bench.log"
  mps_stop
  ;;
X)
  mkdir -p "$OUT/sass"
  for b in mori-shmem-perf mori-shmem-perf-nvshmem; do
    cuobjdump -sass "$B/tools/perf/$b" 2>/dev/null | awk '/Function : .*pBwKernel/,/\.L_x_[0-9]+:$/{print}' \
      > "$OUT/sass/$b.pbw.sass"
    cuobjdump -sass "$B/tools/perf/$b" > "$OUT/sass/$b.all.sass" 2>&1
    echo "$b: $(wc -l < "$OUT/sass/$b.all.sass") lines"
  done
  (cd "$OUT" && tar -czf sass.tgz sass && rm -rf sass)
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
