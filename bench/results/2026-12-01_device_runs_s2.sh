#!/bin/bash
# Device runs of the second session of 2026-12-01, on nvidia-h200 (ONE H200: every multi-PE run
# has its PEs share the GPU under CUDA MPS; no figure here is an interconnect figure). The tree
# is `git archive <commit>` unpacked at .snap; the build tree is ../build-dev; $OUT comes back.
#   A: build everything, then the GPU tests that had not run on a GPU at 1bb8673 (and the mlx5
#      stress test again, after its abort-word interval change), and what the machine has for a
#      Triton bitcode build (clang, triton, NVSHMEM's device bitcode).
#   B: the main job tools/run.sh, 0e28c81's perf rows for the before/after, the Python checks.
#   C: like B, and the collective rows (device and on a stream) of the standard list, trimmed.
#   T: the Triton checks (python/tests/triton_gpu_check.sh) with the bitcode built on the CPU
#      machine (the GPU machine has no clang), carried at .bitcode.
#   P: the abort-word cost (bench/abort_poll_cost.sh).
#   S: the stream-ordered put against NVSHMEM's (shmem_put_on_stream_bw), same job.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B=$PWD/../build-dev
if [ "$phase" = A ]; then
  { which clang clang-17 clang-18 clang-19 clang-20 llvm-link; ls -d /usr/lib/llvm-* /opt/rocm* 2>&1
    python3 -c 'import triton, torch; print("triton", triton.__version__, "torch", torch.__version__)'
    find / -name 'libnvshmem_device*.bc' -not -path '/proc/*' 2>/dev/null | head -3; } > "$OUT/toolchain.txt" 2>&1
  MORI_GPU_BUILD=$B SUITE_BENCH=0 SUITE_TEST_TIMEOUT=${SUITE_TEST_TIMEOUT:-60} OUT=$OUT/suite \
    SUITE_TESTS="${SUITE_TESTS:-test_peer_failure|test_rdma_stress_mlx5|_bnxt|_ionic|sdma|team|collectives|nvshmem_compat|example_}" \
    SUITE_EXCLUDE="${SUITE_EXCLUDE:-nic_model_rate|test_(rma|init|signal_amo_sync|element_paths|stream_rma)_rdma_bnxt}" \
    tools/gpu_suite.sh 2>&1 | tail -40
  exit 0
fi
if [ "$phase" = T ]; then
  MORI_SHMEM_BITCODE_DIR=$PWD/../.bitcode timeout 500 python/tests/triton_gpu_check.sh "$B" "$OUT/triton" 2>&1 |
    grep -E '^[a-z_0-9]+ +(PASS|FAIL)|triton_put|rows' | head -40
  (cd "$OUT" && tar -czf triton.tgz triton && rm -rf triton)
  exit 0
fi
if [ "$phase" = S ]; then
  . tools/mps.sh
  mps_start
  nv=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
  for b in mori-shmem-perf mori-shmem-perf-nvshmem; do
    LD_LIBRARY_PATH=$nv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 90 mpirun -np 2 -x LD_LIBRARY_PATH \
      "$B/tools/perf/$b" shmem_put_on_stream_bw -b 64M -e 256M -f 4 -n 20 -w 2 --json "$OUT/put_stream_$b.json" \
      < /dev/null > "$OUT/put_stream_$b.log" 2>&1
    echo "$b exit $?"; grep '&&&& PERF' "$OUT/put_stream_$b.log"
  done
  mps_stop
  exit 0
fi
if [ "$phase" = P ]; then
  OUT=$OUT/abort timeout 400 bench/abort_poll_cost.sh 2>&1 | tail -30
  exit 0
fi
if [ "$phase" = B ] || [ "$phase" = C ]; then
. tools/mps.sh
mps_start
# The standard runs with fewer iterations and sizes (device time: 30 minutes for the session).
grep -E '^(#|@)' tools/perf/standard.list > /tmp/one_gpu.list
cat >> /tmp/one_gpu.list <<'LIST'
put_block        shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 32M -f 4 -n 200 -w 20 --msgrate
put_block_large  shmem_put_bw -s block -c 132 -t 1024 -b 64M -e 256M -f 4 -n 20 -w 2
put_warp         shmem_put_bw -s warp -c 132 -t 1024 -b 1M -e 32M -f 4 -n 200 -w 20 --msgrate
get_block        shmem_get_bw -s block -c 132 -t 1024 -b 64M -e 256M -f 4 -n 20 -w 2
put_lat          shmem_put_latency -s thread -b 8 -e 512 -f 8 -n 10000 -w 1000
get_lat          shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
p_lat            shmem_p_latency -b 8 -e 8 -n 10000 -w 1000
pingpong         shmem_put_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
signal_pingpong  shmem_put_signal_ping_pong_latency -s thread -b 8 -e 256 -f 32 -n 10000 -w 1000
p_bw             shmem_p_bw -c 132 -t 1024 -b 8M -e 64M -f 8 -n 50 -w 5 --msgrate
atomic_add_bw    shmem_atomic_bw -a add -c 132 -t 1024 -b 8M -e 64M -f 8 -n 50 -w 5 --msgrate
init             shmem_init_time
LIST
grep -vE '^@target (put_warp_large|put_block_bidir|atomic_fadd_lat|atomic_fadd_bw) ' /tmp/one_gpu.list > /tmp/l && mv /tmp/l /tmp/one_gpu.list
if [ "$phase" = C ]; then
  cat >> /tmp/one_gpu.list <<'LIST'
cd_alltoall      alltoall_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_bcast         bcast_latency -s all -b 8 -e 256K -f 32 -n 100 -w 10
cd_fcollect      fcollect_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_reduce        reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 100 -w 10
cd_barrier       barrier_latency -s all -n 1000 -w 100
cd_sync          sync_latency -s all -n 1000 -w 100
cs_alltoall      alltoall_on_stream -b 16 -e 16M -f 16 -n 20 -w 2
cs_bcast         broadcast_on_stream -b 8 -e 16M -f 32 -n 20 -w 2
cs_fcollect      fcollect_on_stream -b 16 -e 16M -f 16 -n 20 -w 2
cs_reduce        reduction_on_stream -d bfloat16 -b 4 -e 16M -f 16 -n 20 -w 2
cs_barrier       barrier_on_stream -n 300 -w 30
cs_sync          sync_on_stream -n 300 -w 30
LIST
fi
MORI_PERF_LIST=/tmp/one_gpu.list MORI_BUILD=$B OUT=$OUT/job MORI_COMMIT=${MORI_COMMIT:-unknown} timeout ${JOB_TIMEOUT:-300} tools/run.sh \
  > "$OUT/job.log" 2>&1
echo "run.sh exit $?"; tail -45 "$OUT/job/bench_summary.txt" 2>/dev/null
# Before: 0e28c81's perf tool, the rows that bear on the device library (same arguments).
old=$PWD/../.oldperf
mkdir -p "$OUT/old"
while read -r id test args; do
  LD_LIBRARY_PATH=$old timeout 60 mpirun -np 2 -x LD_LIBRARY_PATH "$old/mori-shmem-perf" $test $args \
    --json "$OUT/old/$id.json" < /dev/null > "$OUT/old/$id.log" 2>&1
  echo "old $id exit $?: $(grep -c '&&&& PERF' "$OUT/old/$id.log") rows"
done <<'LIST'
put_block        shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 32M -f 4 -n 200 -w 20 --msgrate
put_lat          shmem_put_latency -s thread -b 8 -e 512 -f 8 -n 10000 -w 1000
get_lat          shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
pingpong         shmem_put_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
p_bw             shmem_p_bw -c 132 -t 1024 -b 8M -e 64M -f 8 -n 50 -w 5 --msgrate
LIST
tar -C "$OUT" -czf "$OUT/old.tgz" old && rm -rf "$OUT/old"
# The Python package (issue 23) against the same build.
export PYTHONPATH=$B/python
timeout 120 torchrun --nproc-per-node 2 -m pytest -x -q -rs python/tests/test_torch_gpu.py > "$OUT/py_torch.log" 2>&1; echo "torch tests exit $?"
timeout 60 python3 python/tests/test_gpu.py > "$OUT/py_gpu.log" 2>&1; echo "test_gpu.py exit $?"
timeout 120 torchrun --nproc-per-node 2 python/benchmarks/bench_torch.py --out "$OUT/bench_torch.json" > "$OUT/py_bench.log" 2>&1
echo "bench exit $?"
cd "$OUT" && tar -czf job.tgz job && rm -rf job
  exit 0
fi
