#!/bin/bash
# Device runs of the thirty-fifth session (2026-12-06), on ONE GPU: the PEs share it under CUDA MPS.
# Correctness only. Not run in session 35: eight start attempts were refused and spent the device
# time (2026-12-06_device_run_prebuilt_s35.sh is the same job without the build). Session 36 ran
# it once; the machine was taken back before any result came, and the prebuilt form ran instead.
# To run (6c4ab4d and later: the SDMA team suites at 3 PEs and with engines on some PEs, and the
# P2P team suites on ad6c699's spread decision):
#   DEADLINE=560 bash bench/results/2026-12-06_device_runs_s35.sh \
#     '^(test_collectives|test_reducescatter)_sdma_partial_np3$' '^(test_collectives_np[2-5]|test_reducescatter_np[234])$' \
#     '^test_(team|collectives|reducescatter)_sdma_np3$' \
#     '^(test_team_np[234]|test_collectives_rdma_mlx5_np3|test_team_rdma_mlx5_np3|test_(team|collectives|reducescatter)_sdma_np2)$'
#   suites <ctest regex>...: builds what the team suites need, then runs each regex as its own ctest
#   call, in order, each within the time left before DEADLINE seconds (default 570; the call's
#   limit is 600 s or the device time left).
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
say() { echo "$*" | tee -a "$OUT/steps.log"; }
{ [ -f ../build-b/build.ninja ] ||
  cmake -S . -B ../build-b -G Ninja -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 -DCMAKE_BUILD_TYPE=Release \
    > /tmp/configure.log 2>&1; } &&
  ninja -C ../build-b mori_shmem_bootstrap_mpi mori_dma_model_plugin mori_nic_model test_team test_collectives \
    test_reducescatter > /tmp/build.log 2>&1
rc=$?
say "build exit $rc ($((SECONDS - start)) s)"
[ $rc = 0 ] || { tail -30 /tmp/build.log | tee -a "$OUT/steps.log"; exit 1; }
. tools/mps.sh
mps_start
i=0
for regex in "$@"; do
  i=$((i + 1))
  left=$((${DEADLINE:-570} - SECONDS))
  [ $left -gt 20 ] || { say "suites $i: no time left (not run): $regex"; continue; }
  (cd ../build-b && timeout $left ctest -R "$regex" --output-on-failure > /tmp/ctest_$i.log 2>&1)
  say "suites $i exit $? ($((SECONDS - start)) s): $regex"
  grep -E "Test +#|tests passed|FAILED|Timeout" /tmp/ctest_$i.log | sed 's/  */ /g' | tee -a "$OUT/steps.log"
  cp ../build-b/Testing/Temporary/LastTest.log /tmp/LastTest_$i.log 2> /dev/null
done
mps_stop
(cd /tmp && tar -czf "$OUT/logs.tgz" ctest_*.log LastTest_*.log build.log 2> /dev/null)
say "total $((SECONDS - start)) s"
