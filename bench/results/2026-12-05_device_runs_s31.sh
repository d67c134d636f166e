#!/bin/bash
# Device run of the thirty-first session (2026-12-05): session 30's GPU steps (never run: no device
# machine started) and this session's typed waits, in one call. ONE GPU: PEs share it (CUDA MPS,
# time-sliced for test_global_exit); nothing here is an interconnect figure.
#   1. one build (sm_90 only; library, Python module, the suites below, the NIC model).
#   2. under MPS: test_nvshmem_compat np2-np4 (session 30's mapped names, this session's 16-bit and
#      on-stream waits), test_signal_amo_sync np2 (every comparator for every type, short and ushort
#      new; the _vector forms), test_stream_rma np2 directly and through mlx5's NIC model (typed
#      waits on a stream, every width and signedness, and their bad inputs).
#   3. python/tests/test_api.py with torch, torchrun np2 and np3 of python/tests/test_torch_gpu.py.
#   4. test_global_exit as its ctest entry runs it (outside MPS; the kernel-called global exit).
# Logs go to $OUT as each step ends; each step gets what is left of 590 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
# The build tree of 2026-12-05_device_runs_s30_staged.sh too, configured alike.
P=$PWD/../build-a
say() { echo "$*" | tee -a "$OUT/steps.log"; }
left() { echo $((590 - (SECONDS - start))); }

{ [ -f "$P/build.ninja" ] ||
  cmake -S . -B "$P" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 \
    -DMORI_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)" > "$OUT/configure.log" 2>&1; } &&
  ninja -C "$P" mori_shmem mori_shmem_python test_global_exit test_nvshmem_compat test_signal_amo_sync \
    test_stream_rma mori_nic_model mori_shmem_bootstrap_mpi > "$OUT/build.log" 2>&1
rc=$?
say "build exit $rc ($((SECONDS - start)) s)"
[ $rc = 0 ] || { tail -30 "$OUT/configure.log" "$OUT/build.log"; exit 1; }

export PYTHONPATH=$P/python${PYTHONPATH:+:$PYTHONPATH}
. tools/mps.sh
mps_start
(cd "$P" && timeout $(($(left) - 200)) ctest -R \
  '^(test_nvshmem_compat_np[234]|test_signal_amo_sync_np2|test_stream_rma_np2|test_stream_rma_rdma_mlx5_np2)$' \
  --output-on-failure > "$OUT/ctest_mps.log" 2>&1)
say "compat np2-np4, signal_amo_sync np2, stream_rma np2 + mlx5 exit $? ($((SECONDS - start)) s)"
grep -E "Test +#|Failure|Which is|mismatches|\[  FAILED" "$OUT/ctest_mps.log" | head -30
timeout 60 python3 -m pytest -q -rs python/tests/test_api.py > "$OUT/py_api.log" 2>&1
say "test_api exit $? ($((SECONDS - start)) s)"
tail -8 "$OUT/py_api.log"
for np in 2 3; do
  timeout $(($(left) - 90)) torchrun --nproc-per-node $np -m pytest -x -q -rs python/tests/test_torch_gpu.py \
    > "$OUT/py_torch_np$np.log" 2>&1
  say "torch np$np exit $? ($((SECONDS - start)) s)"
  grep -E "passed|failed|skipped|SKIPPED|error|Error|assert" "$OUT/py_torch_np$np.log" | head -20
done
mps_stop

(cd "$P" && timeout $(($(left) - 5)) ctest -R '^test_global_exit$' --output-on-failure > "$OUT/ctest_global_exit.log" 2>&1)
say "test_global_exit exit $? ($((SECONDS - start)) s)"
grep -E "OK \]|FAILED \]|Failure|Which is|exiting with status|tests passed" "$OUT/ctest_global_exit.log" | head -30
say "total $((SECONDS - start)) s"
