#!/bin/bash
# Device run of the thirty-fifth session (2026-12-06) with executables built here (Debian 12,
# nvcc 13.0, sm_90, Release; the device machine has the same CUDA 13.0 and OpenMPI 4.1's ABI):
# failed starts had left too little device time for a build there. The PEs share ONE GPU under
# CUDA MPS. Correctness only. Each test runs as its ctest entry does (the same mpiexec line and
# environment, from `ctest --show-only=json-v1`), in order, while time is left before DEADLINE
# (seconds, default 300).
#   $1: the folder holding libmori_shmem.so.0, libmori_shmem_bootstrap_mpi.so,
#       libmori_dma_model_plugin.so and the test executables (carried; not in the repository):
#       from a build with -DMORI_GPU_ARCHS=90, `cp -L libmori_shmem.so.0 libmori_shmem_bootstrap_mpi.so
#       tests/support/dma_model/libmori_dma_model_plugin.so tests/gpu/team/test_{collectives,reducescatter,team}
#       <folder>` (26 MiB), then `run` with carry [<folder>].
#   $2 (optional): an extended regex; only the runs whose names match it (session 36 reran the two
#       test_collectives_sdma runs so).
# Not run in session 35: the device time left (224 s) was too little to start a machine. Run in
# session 36 (bench/results/2026-12-06T0330Z_h100x1_mps_s36_team_suites_np3_sdma_partial.json,
# 2026-12-06T0400Z_h100x1_mps_s36_team_suites_rerun.json).
set -uo pipefail
dir=$(cd "$1" && pwd)
ONLY=${2:-}
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$dir OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUDA_MODULE_LOADING=EAGER GTEST_COLOR=no
start=$SECONDS
say() { echo "$*" | tee -a "$OUT/steps.log"; }
sdma="MORI_SHMEM_TRANSPORT=sdma MORI_SHMEM_SDMA_PLUGIN=$dir/libmori_dma_model_plugin.so MORI_SHMEM_TIMEOUT=60"
partial="$sdma MORI_SHMEM_TRANSPORT=auto MORI_SHMEM_SDMA_MIN_BYTES=4096 MORI_DMA_MODEL_ON_PES=0,1"
one() {  # one <name> <np> <executable> <env...>
  local name=$1 np=$2 exe=$3 left=$((${DEADLINE:-300} - SECONDS))
  shift 3
  [[ $name =~ ${ONLY:-.} ]] || return 0
  [ $left -gt 15 ] || { say "$name: no time left (not run)"; return; }
  env MORI_SHMEM_HEAP_SIZE=768M "$@" timeout $left mpiexec -n $np --oversubscribe "$dir/$exe" > "/tmp/$name.log" 2>&1
  local rc=$? t=$((SECONDS - start))
  say "$name: exit $rc ($t s) $(grep -E '^\[  (PASSED|FAILED) ' /tmp/$name.log | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  grep -E '^\[  FAILED  \]|Failure|error' "/tmp/$name.log" | head -8 | tee -a "$OUT/steps.log"
}
. tools/mps.sh
mps_start
# shellcheck disable=SC2086 # the variables hold several NAME=value words
{
  one test_collectives_sdma_partial_np3 3 test_collectives $partial
  one test_collectives_np4 4 test_collectives
  one test_reducescatter_sdma_partial_np3 3 test_reducescatter $partial
  one test_team_sdma_np3 3 test_team $sdma
  one test_collectives_np5 5 test_collectives
  one test_collectives_sdma_np3 3 test_collectives $sdma
  one test_reducescatter_sdma_np3 3 test_reducescatter $sdma
}
mps_stop
(cd /tmp && tar -czf "$OUT/logs.tgz" test_*.log 2> /dev/null)
say "total $((SECONDS - start)) s"
