#!/usr/bin/env bash
# The main job (README): builds mori-shmem if needed, runs the examples with 2 PEs and the put /
# get / atomic sweep (mori-shmem and, when installed, NVSHMEM side by side; results in $OUT).
# With two or more GPUs the PEs use one GPU each, across the local interconnect. With one GPU the
# two PEs share it under CUDA MPS (started here, stopped at exit): the output and the records then
# say that the figures measure one GPU's memory, not an interconnect. With no GPU it prints the
# environment report and says why no GPU work ran.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${MORI_BUILD:-$ROOT/build-run}
OUT=${OUT:-$ROOT/bench-out}
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

examples=(ring_put_signal all_gather ping_pong atomic_counter)
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_BUILD_TESTS=OFF ${MORI_CMAKE_ARGS:-}
fi
ninja -C "$BUILD" mori_shmem_info mori_shmem_perf "${examples[@]}"

info=$("$BUILD/tools/info/mori-shmem-info")
ngpu=$(printf '%s\n' "$info" | sed -n 's/^GPUs: \([0-9][0-9]*\).*/\1/p')
if [ "${ngpu:-0}" -lt 1 ]; then
  printf '%s\n' "$info"
  echo
  echo "No GPU work ran: no GPU is visible (see above)."
  exit 0
fi
mkdir -p "$OUT"
if [ "$ngpu" -lt 2 ]; then
  # shellcheck source=tools/mps.sh
  . "$ROOT/tools/mps.sh"
  if nvidia-smi -L > /dev/null 2>&1; then mps_start || echo "continuing without MPS: PEs that wait for each other in kernels will not finish" >&2; fi
  echo "== ONE GPU: the 2 PEs share it. Figures below measure one GPU's memory and L2, not an interconnect;"
  echo "   compare mori-shmem with NVSHMEM only as ratios within this job."
fi

status=0
for e in "${examples[@]}"; do
  echo "== example $e (mpirun -np 2)"
  MORI_SHMEM_TIMEOUT=${MORI_SHMEM_TIMEOUT:-60} timeout 300 mpirun -np 2 "$BUILD/examples/$e" < /dev/null 2>&1 | tee "$OUT/example_$e.log" | tail -3
  rc=${PIPESTATUS[0]}
  case $rc in
    0) ;;
    77) echo "   example $e skipped (see its SKIPPED line)" ;;
    *) echo "   example $e FAILED (exit $rc, $OUT/example_$e.log)"; status=1 ;;
  esac
done
"$ROOT/tools/perf/run_benchmarks.sh" "$BUILD" "$OUT" || status=1
exit $status
