#!/bin/bash
# Session 31's second device call: TypedWaitsOnStream with one PE waiting while another writes,
# over P2P, the three NIC models and the DMA model, mlx5's five times over (3 of 7 runs of the
# first form hung there), and the 16-bit waits of test_signal_amo_sync through every transport;
# then TEAM_SAME_MYPE_NODE (test_team np2 and np4; test_api from Python) and the compat test.
# ONE GPU, PEs under CUDA MPS: correctness only.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
P=$PWD/../build-a
{ [ -f "$P/build.ninja" ] ||
  cmake -S . -B "$P" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 \
    -DMORI_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)" > "$OUT/configure.log" 2>&1; } &&
  ninja -C "$P" test_stream_rma test_signal_amo_sync test_team test_nvshmem_compat mori_shmem_python mori_nic_model \
    mori_dma_model_plugin mori_shmem_bootstrap_mpi \
    > "$OUT/build.log" 2>&1
rc=$?
echo "build exit $rc ($((SECONDS - start)) s)"
[ $rc = 0 ] || { tail -30 "$OUT/build.log"; exit 1; }
. tools/mps.sh
mps_start
cd "$P"
MORI_SHMEM_TIMEOUT=15 timeout 200 ctest -R '^test_(stream_rma|signal_amo_sync)_(np2|rdma_(mlx5|bnxt|ionic)_np2|sdma_np2)$' \
  --output-on-failure > "$OUT/all.log" 2>&1
echo "all transports exit $? ($((SECONDS - start)) s)"
grep -E "Test +#" "$OUT/all.log"
for i in 1 2 3 4 5; do
  MORI_SHMEM_TIMEOUT=15 timeout 40 ctest -R '^test_stream_rma_rdma_mlx5_np2$' -V > "$OUT/mlx5_$i.log" 2>&1
  echo "mlx5 run $i exit $? ($((SECONDS - start)) s)"
  grep -E "TypedWaits" "$OUT/mlx5_$i.log" | grep -E "OK|FAILED" | head -2
done
timeout 120 ctest -R '^(test_team_np[24]|test_nvshmem_compat_np2)$' --output-on-failure > "$OUT/team.log" 2>&1
echo "team, compat exit $? ($((SECONDS - start)) s)"
grep -E "Test +#|Failure|Which is" "$OUT/team.log" | head -20
cd - > /dev/null
PYTHONPATH=$P/python timeout 60 python3 -m pytest -q -rs python/tests/test_api.py > "$OUT/py_api.log" 2>&1
echo "test_api exit $? ($((SECONDS - start)) s)"
tail -3 "$OUT/py_api.log"
mps_stop
echo "total $((SECONDS - start)) s"
