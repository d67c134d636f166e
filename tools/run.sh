#!/usr/bin/env bash
# The main job (README): builds mori-shmem if needed, then, with two or more GPUs, runs the put
# bandwidth / latency sweep across the local GPUs (mori-shmem and, when installed, NVSHMEM side
# by side; results in $OUT). With fewer GPUs it prints the environment report and says why no
# GPU work ran.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${MORI_BUILD:-$ROOT/build}
OUT=${OUT:-$ROOT/bench-out}
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_BUILD_TESTS=OFF ${MORI_CMAKE_ARGS:-}
fi
ninja -C "$BUILD" mori_shmem_info mori_shmem_perf

info=$("$BUILD/tools/info/mori-shmem-info")
ngpu=$(printf '%s\n' "$info" | sed -n 's/^GPUs: \([0-9][0-9]*\).*/\1/p')
if [ "${ngpu:-0}" -lt 2 ]; then
  printf '%s\n' "$info"
  echo
  echo "No GPU work ran: ${ngpu:-0} GPU(s) visible; the sweep needs two (one PE per GPU)."
  exit 0
fi
mkdir -p "$OUT"
exec "$ROOT/tools/perf/run_benchmarks.sh" "$BUILD" "$OUT"
