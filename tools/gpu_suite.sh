#!/usr/bin/env bash
# The GPU suite, for a machine with GPUs (the H200 boxes: Ubuntu, nvcc, cmake, ninja, OpenMPI,
# GoogleTest, rdma-core headers, no internet). Configures and builds (or uses a prebuilt tree),
# runs every GPU test under mpirun through ctest, runs the benchmarks, and prints a short
# summary table last. Logs go to $OUT (default ./gpu-suite-out).
# With fewer NVIDIA GPUs than the suites' largest PE count (4), it starts CUDA MPS for the job
# (tools/mps.sh; stopped at exit, failures included) so that PEs sharing a GPU run their kernels
# concurrently; suites that cannot run that way skip, saying why. It sets no MPS thread
# percentage: each PE may fill the GPU, as a user's job may, so a kernel whose blocks wait for
# another PE's kernel to get an SM hangs here (a spread collective did, on one H200) rather than
# passing under the perf runs' per-PE shares.
#
#   tools/gpu_suite.sh                  everything
#   SUITE_TESTS=regex tools/gpu_suite.sh   only matching tests
#   SUITE_BENCH=0 / SUITE_TESTS=none    skip benchmarks / tests
#   MORI_GPU_BUILD=dir                  build tree to use (created if absent)
#   SUITE_BUILD=0                       use MORI_GPU_BUILD as it is (built elsewhere)
#   SUITE_EXCLUDE=regex                 tests to leave out; SUITE_TEST_TIMEOUT=s per test (600)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/gpu-suite-out}
BUILD=${MORI_GPU_BUILD:-$ROOT/build-gpu}
mkdir -p "$OUT"
# Never NVLink multicast (it can take the host's GPUs down for others), MPI as root is fine here.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PATH=/usr/local/cuda/bin:$PATH

declare -a rows=()
row() { rows+=("$(printf '%-34s %s' "$1" "$2")"); }

nvidia-smi -L >"$OUT/gpus.txt" 2>&1 || echo "no nvidia-smi" >"$OUT/gpus.txt"
ngpu=$(grep -c '^GPU' "$OUT/gpus.txt" || true)
row "GPUs" "$ngpu"
# shellcheck source=tools/mps.sh
. "$ROOT/tools/mps.sh"
if [ "${ngpu:-0}" -ge 1 ] && [ "$ngpu" -lt 4 ]; then
  if mps_start >"$OUT/mps.log" 2>&1; then
    row "CUDA MPS" "on: PEs share the GPU(s) ($(tail -1 "$OUT/mps.log"))"
  else
    row "CUDA MPS" "unavailable ($(tail -1 "$OUT/mps.log")): suites whose PEs wait in kernels skip"
  fi
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
    >"$OUT/configure.log" 2>&1 || { row "configure" "FAILED (configure.log)"; }
fi
start=$(date +%s)
if [ "${SUITE_BUILD:-1}" = 0 ]; then
  row "build" "prebuilt tree $BUILD"
elif ninja -C "$BUILD" -j"$(nproc)" >"$OUT/build.log" 2>&1; then
  row "build" "ok ($(( $(date +%s) - start )) s)"
else
  row "build" "FAILED (build.log)"
  tail -30 "$OUT/build.log"
fi

tests=${SUITE_TESTS:-.}
if [ "$tests" != none ]; then
  start=$(date +%s)
  ctest --test-dir "$BUILD" -L gpu -R "$tests" -E "${SUITE_EXCLUDE:-^$}" --output-on-failure --timeout "${SUITE_TEST_TIMEOUT:-600}" >"$OUT/ctest-gpu.log" 2>&1
  summary=$(grep -E "tests passed|tests failed" "$OUT/ctest-gpu.log" | tail -1)
  row "GPU tests" "${summary:-no result} ($(( $(date +%s) - start )) s)"
  while read -r line; do row "  failed" "$line"; done < <(grep -E '^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Exception)' "$OUT/ctest-gpu.log" | sed 's/^ *//')
  skipped=$(grep -c "Not Run\|Skipped" "$OUT/ctest-gpu.log" || true)
  row "  skipped" "$skipped"
  while read -r line; do row "  skip reason" "$line"; done < <(grep -hoE "SKIPPED[^\n]*" "$OUT/ctest-gpu.log" | sort | uniq -c | sed 's/^ *//')
fi

if [ "${SUITE_BENCH:-1}" != 0 ] && [ -x "$ROOT/tools/perf/run_benchmarks.sh" ]; then
  start=$(date +%s)
  "$ROOT/tools/perf/run_benchmarks.sh" "$BUILD" "$OUT" >"$OUT/bench.log" 2>&1 && r=ok || r=FAILED
  row "benchmarks" "$r ($(( $(date +%s) - start )) s, bench.log)"
  [ -f "$OUT/bench_summary.txt" ] && cat "$OUT/bench_summary.txt"
fi

echo
echo "==== mori-shmem GPU suite ===="
printf '%s\n' "${rows[@]}"
