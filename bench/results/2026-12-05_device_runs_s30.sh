#!/bin/bash
# Device run of the thirtieth session (2026-12-05): what session 29 could not run (its phases B
# and D), in one call for a budget of ~500 s of device time. ONE GPU: PEs share it (CUDA MPS for
# the Python job, time-sliced for test_global_exit); nothing here is an interconnect figure.
#   1. one build (sm_90 only; library, Python module, test_global_exit).
#   2. test_global_exit as its ctest entry runs it (outside MPS): three PEs it starts itself; the
#      global exit asked from host code by PE 0 and by PE 1 while the others' kernels wait, and
#      from 64 threads of PE 2's kernel (never run before).
#   2b. test_nvshmem_compat np2-np4 under MPS (the names mapped in session 30: untyped collectives,
#      char reductions, float / double atomics, thread level, vendor version) and
#      test_signal_amo_sync np2 (test_some and the _vector waits and tests).
#   3. session 28's phase B: python/tests/test_api.py with torch, then torchrun np2 and np3 of
#      python/tests/test_torch_gpu.py (the team collectives from Python) under MPS.
# Logs go to $OUT as each step ends, so that a step cut off by the budget still reports the others.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
# One build tree for this script and 2026-12-05_device_runs_s30_staged.sh (branch staged-halves-128k),
# configured alike, so that a second call on the same machine builds only what changed.
P=$PWD/../build-a
say() { echo "$*" | tee -a "$OUT/steps.log"; }

{ [ -f "$P/build.ninja" ] ||
  cmake -S . -B "$P" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 \
    -DMORI_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)" > "$OUT/configure.log" 2>&1; } &&
  ninja -C "$P" mori_shmem mori_shmem_python test_global_exit test_nvshmem_compat test_signal_amo_sync \
    mori_shmem_bootstrap_mpi \
    > "$OUT/build.log" 2>&1
rc=$?
say "build exit $rc ($((SECONDS - start)) s)"
[ $rc = 0 ] || { tail -30 "$OUT/configure.log" "$OUT/build.log"; exit 1; }

(cd "$P" && timeout 150 ctest -R '^test_global_exit$' --output-on-failure > "$OUT/ctest_global_exit.log" 2>&1)
say "test_global_exit exit $? ($((SECONDS - start)) s)"
grep -E "OK \]|FAILED \]|Failure|Which is|exiting with status|tests passed" "$OUT/ctest_global_exit.log" | head -30

export PYTHONPATH=$P/python${PYTHONPATH:+:$PYTHONPATH}
. tools/mps.sh
mps_start
(cd "$P" && timeout 240 ctest -R '^(test_nvshmem_compat_np[234]|test_signal_amo_sync_np2)$' --output-on-failure \
  > "$OUT/ctest_compat.log" 2>&1)
say "test_nvshmem_compat np2-np4, test_signal_amo_sync np2 exit $? ($((SECONDS - start)) s)"
grep -E "Test +#|Failure|Which is|mismatches" "$OUT/ctest_compat.log" | head -20
timeout 120 python3 -m pytest -q -rs python/tests/test_api.py > "$OUT/py_api.log" 2>&1
say "test_api exit $? ($((SECONDS - start)) s)"
tail -8 "$OUT/py_api.log"
for np in 2 3; do
  timeout 150 torchrun --nproc-per-node $np -m pytest -x -q -rs python/tests/test_torch_gpu.py > "$OUT/py_torch_np$np.log" 2>&1
  say "torch np$np exit $? ($((SECONDS - start)) s)"
  grep -E "passed|failed|skipped|SKIPPED|error|Error|assert" "$OUT/py_torch_np$np.log" | head -20
done
mps_stop
say "total $((SECONDS - start)) s"
