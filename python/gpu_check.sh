#!/usr/bin/env bash
# GPU checks of the Python package and the on-stream C API, on a machine with an NVIDIA GPU, torch,
# nanobind and pytest (no network needed). PEs that share one GPU run under CUDA MPS (tools/mps.sh).
#
#   python/gpu_check.sh [OUT]      OUT: where logs and bench_torch.json go (default $OUT or ./gpu-check)
#
# 1. builds libmori_shmem, the mori_shmem module (for this machine's python3) and test_stream_rma
# 2. ctest test_stream_rma*: the C API's put/get/put_signal/wait on a stream and graph capture with
#    2 PEs, over P2P and through the NIC model (RDMA device path: mlx5, bnxt, ionic); python_api
# 3. the torch layer with 2 PEs (torchrun + pytest): python/tests/test_torch_gpu.py
# 4. python/tests/test_gpu.py (1 PE, then 2 PEs by unique ID)
# 5. the benchmark with 2 PEs: python/benchmarks/bench_torch.py -> OUT/bench_torch.json
# Exits non-zero when a step failed; every step's output is in OUT/<step>.log.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-${OUT:-$PWD/gpu-check}}
BUILD=${MORI_PY_GPU_BUILD:-$ROOT/build-py-gpu}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
# shellcheck source=tools/mps.sh
. "$ROOT/tools/mps.sh"
trap mps_stop EXIT
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$ngpu" -lt 2 ]; then
  mps_start >"$OUT/mps.log" 2>&1 || echo "MPS unavailable (see $OUT/mps.log): 2 PEs on one GPU will be time-sliced"
fi

status=0
step() {  # <name> <command...>: runs it, logs it, says PASS/FAIL with the time
  local name=$1 start=$SECONDS rc
  shift
  "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  printf '%-12s %s  (%d s; %s)\n' "$name" "$([ $rc -eq 0 ] && echo PASS || echo "FAIL rc=$rc")" \
    $((SECONDS - start)) "$OUT/$name.log"
  [ $rc -eq 0 ] || { status=1; tail -40 "$OUT/$name.log"; }
  return $rc
}

step build bash -c "cmake -S '$ROOT' -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_GPU_PLATFORM=nvidia \
  -DMORI_GPU_ARCHS=90 -DMORI_BUILD_TOOLS=OFF -DMORI_BUILD_EXAMPLES=OFF -DMORI_BUILD_PYTHON=ON \
  -DPython_EXECUTABLE=$(command -v python3) && ninja -C '$BUILD' mori_shmem mori_shmem_python test_stream_rma \
  mori_nic_model" || exit 1
export PYTHONPATH=$BUILD/python${PYTHONPATH:+:$PYTHONPATH}
step c_api ctest --test-dir "$BUILD" -R "test_stream_rma|python_api" --output-on-failure
step torch_pes2 torchrun --nproc-per-node 2 -m pytest -x -q -rs "$ROOT/python/tests/test_torch_gpu.py"
step python_gpu python3 "$ROOT/python/tests/test_gpu.py"
step bench torchrun --nproc-per-node 2 "$ROOT/python/benchmarks/bench_torch.py" --out "$OUT/bench_torch.json"
[ -f "$OUT/bench_torch.json" ] && cat "$OUT/bench_torch.json"
exit $status
