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
esac
