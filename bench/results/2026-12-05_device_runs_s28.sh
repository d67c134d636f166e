#!/bin/bash
# Device runs of the twenty-eighth session (2026-12-05), on nvidia-h200 (ONE H200: the PEs share
# the GPU under CUDA MPS; no figure here is an interconnect figure).
#   A: NVSHMEM's remaining host-side RMA: strided RMA (mori_shmem_iput / iget_on_stream,
#      mori_shmem_host_iput / iget), single elements and signals on a stream (mori_shmem_p / g /
#      signal_op_on_stream), the host's signal_op, and their NVSHMEM names (nvshmem_<T>_iput from
#      host code, nvshmemx_<T>_p / g / iput / iget_on_stream, nvshmemx_signal_op[_on_stream],
#      nvshmem_signal_fetch from host code), with session 27's review commit (b34f78f, never run on
#      a GPU): test_stream_rma over P2P, the three NIC models and the DMA model, test_nvshmem_compat
#      np2-np4 and through mlx5's model.
#   A's result (dbff5a7): 11/11 first run
#      (bench/results/2026-12-05T0530Z_h200x1_mps_host_strided_elements_signals.json).
#   B: the Python package's teams and team collectives (mori_shmem.team_split_strided / _2d /
#      _destroy / _translate_pe, broadcast, fcollect, alltoall, reduce, reducescatter, barrier,
#      team_sync on torch's streams): python/tests/test_api.py with torch present (the torch
#      layer's argument checks), then python/tests/test_torch_gpu.py under torchrun with 2 and 3
#      PEs sharing the GPU (MPS).
#   B was not run: device lending was paused for the rest of session 28 before it started.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
B=$PWD/../build-a
build() {  # build <targets...>: configures (once) and builds ../build-a from this tree
  { [ -f "$B/build.ninja" ] ||
    cmake -S . -B "$B" -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
      > /tmp/a_configure.log 2>&1; } && ninja -C "$B" "$@" > /tmp/a_build.log 2>&1
  local rc=$?
  echo "build exit $rc ($((SECONDS - start)) s)"
  [ $rc = 0 ] || { tail -30 /tmp/a_build.log; cp /tmp/a_*.log "$OUT/"; }
  return $rc
}

case "$phase" in
A)
  build test_stream_rma test_nvshmem_compat mori_nic_model mori_dma_model_plugin mori_shmem_bootstrap_mpi || exit 1
  SUITE_TESTS='^test_(stream_rma|nvshmem_compat)_(np|rdma|sdma)' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=150 SUITE_BENCH=0 MORI_GPU_BUILD=$B OUT=/tmp/suiteA \
    timeout $((560 - SECONDS)) tools/gpu_suite.sh > /tmp/suiteA.log 2>&1
  echo "suites exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteA.log | head -30
  grep -E "Test +#.*(sec|Not Run)" /tmp/suiteA/ctest-gpu.log | sed 's/  */ /g'
  grep -h -E "Failure|Expected|Which is|first bad|error" /tmp/suiteA/*.log 2> /dev/null | head -40
  (cd /tmp && tar -czf "$OUT/suiteA.tgz" suiteA suiteA.log)
  echo "total $((SECONDS - start)) s"
  ;;
B)
  P=$PWD/../build-py
  { [ -f "$P/build.ninja" ] ||
    cmake -S . -B "$P" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 \
      -DMORI_BUILD_TOOLS=OFF -DMORI_BUILD_EXAMPLES=OFF -DMORI_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)" \
      > /tmp/p_configure.log 2>&1; } && ninja -C "$P" mori_shmem mori_shmem_python > /tmp/p_build.log 2>&1
  rc=$?
  echo "build exit $rc ($((SECONDS - start)) s)"
  [ $rc = 0 ] || { tail -30 /tmp/p_configure.log /tmp/p_build.log; exit 1; }
  export PYTHONPATH=$P/python${PYTHONPATH:+:$PYTHONPATH}
  . tools/mps.sh
  mps_start
  python3 -m pytest -q -rs python/tests/test_api.py > /tmp/py_api.log 2>&1
  echo "test_api exit $? ($((SECONDS - start)) s)"; tail -5 /tmp/py_api.log
  for np in 2 3; do
    timeout 240 torchrun --nproc-per-node $np -m pytest -x -q -rs python/tests/test_torch_gpu.py > /tmp/py_torch_np$np.log 2>&1
    echo "torch np$np exit $? ($((SECONDS - start)) s)"; grep -E "passed|failed|error|Error|assert" /tmp/py_torch_np$np.log | head -20
  done
  mps_stop
  cp /tmp/py_*.log "$OUT/"
  echo "total $((SECONDS - start)) s"
  ;;
esac
