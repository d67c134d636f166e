#!/usr/bin/env bash
# mori_shmem.triton on an NVIDIA GPU machine with torch, triton and nanobind (docs/TRITON.md).
#
#   python/tests/triton_gpu_check.sh BUILD [OUT]
#
# BUILD: a build tree configured for NVIDIA with the Python module (MORI_BUILD_PYTHON=ON for this
# machine's python3) and the tools; the device library's bitcode is taken from BUILD/lib or from
# $MORI_SHMEM_BITCODE_DIR (bitcode built elsewhere: this machine needs no clang). Steps, each logged
# to OUT/<step>.log with PASS/FAIL:
#   build     ninja mori_shmem mori_shmem_python (and the bitcode when clang 19+ is here); mori_shmem_perf
#   compile   python/tests/test_triton_compile.py: every extern links (no GPU needed)
#   pes2      torchrun 2 PEs: python/tests/test_triton_gpu.py (ring, all-gather, atomics, p/g, refusals)
#   errors    python/tests/test_triton_errors.py: an unbound kernel stops with an error (it traps)
#   example   torchrun 2 PEs: python/examples/triton_ring.py
#   bench     torchrun 2 PEs: python/benchmarks/bench_triton.py -> OUT/bench_triton.json, then the
#             C++ device API's figures in the same job: mori-shmem-perf put_bw (block) and put_latency
#             (thread) -> OUT/cpp_put_bw.json, OUT/cpp_put_lat.json
# PEs that share one GPU run under CUDA MPS (tools/mps.sh).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD [OUT]}" && pwd)
OUT=${2:-${OUT:-$PWD/triton-check}}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0 MORI_SHMEM_HEAP_SIZE=${MORI_SHMEM_HEAP_SIZE:-2200M}
export PYTHONPATH=$BUILD/python${PYTHONPATH:+:$PYTHONPATH}
export MORI_SHMEM_BITCODE_DIR=${MORI_SHMEM_BITCODE_DIR:-$BUILD/lib}
# shellcheck source=tools/mps.sh
. "$ROOT/tools/mps.sh"
trap mps_stop EXIT
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]; then
  mps_start >"$OUT/mps.log" 2>&1 || echo "MPS unavailable (see $OUT/mps.log): 2 PEs on one GPU will be time-sliced"
fi

status=0
step() {  # <name> <timeout s> <command...>
  local name=$1 limit=$2 start=$SECONDS rc
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  printf '%-8s %s  (%d s; %s)\n' "$name" "$([ $rc -eq 0 ] && echo PASS || echo "FAIL rc=$rc")" \
    $((SECONDS - start)) "$OUT/$name.log"
  [ $rc -eq 0 ] || { status=1; tail -40 "$OUT/$name.log"; }
  return $rc
}

step build 600 ninja -C "$BUILD" mori_shmem mori_shmem_python || exit 1
step perf_build 600 ninja -C "$BUILD" mori_shmem_perf  # the C++ figures need it (MORI_BUILD_TOOLS=ON, MPI)
ls "$MORI_SHMEM_BITCODE_DIR"/mori_shmem_device_sm*.bc >/dev/null 2>&1 ||
  { echo "no bitcode in $MORI_SHMEM_BITCODE_DIR (build mori_shmem_bitcode where clang 19+ exists)"; exit 1; }
step compile 300 python3 -m pytest -x -q -rs -k sm90 "$ROOT/python/tests/test_triton_compile.py"
step pes2 300 torchrun --nproc-per-node 2 -m pytest -x -q -rs "$ROOT/python/tests/test_triton_gpu.py"
step example 120 torchrun --nproc-per-node 2 "$ROOT/python/examples/triton_ring.py"
step bench 300 torchrun --nproc-per-node 2 "$ROOT/python/benchmarks/bench_triton.py" --out "$OUT/bench_triton.json"
perf=$(find "$BUILD" -name mori-shmem-perf -type f -perm -u+x | head -1)
step cpp_bw 300 mpirun -np 2 "$perf" shmem_put_bw -s block -c 132 -t 1024 -b 64M -e 1G -n 20 -w 2 \
  --json "$OUT/cpp_put_bw.json"
step cpp_lat 120 mpirun -np 2 "$perf" shmem_put_latency -s thread -b 8 -e 8 -n 10000 -w 1000 \
  --json "$OUT/cpp_put_lat.json"
step errors 200 python3 -m pytest -x -q -rs "$ROOT/python/tests/test_triton_errors.py"  # it traps: last, alone on the GPU
exit $status
