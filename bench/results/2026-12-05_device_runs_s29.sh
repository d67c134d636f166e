#!/bin/bash
# Device runs of the twenty-ninth session (2026-12-05), on nvidia-h200 (ONE H200: the PEs share
# the GPU under CUDA MPS; no figure here is an interconnect figure). Lending was paused for most of
# the session; one machine (an H100) started once, for job C; every later start failed, so B and D
# have not run yet.
#   B: session 28's phase B (the Python team collectives): bench/results/2026-12-05_device_runs_s28.sh B.
#   C: the global exit (mori_shmem_global_exit from host and device code; the peer monitor now
#      runs under every bootstrap, MPI included, for the device requests): test_global_exit (three
#      PEs it starts itself, two of them with kernels waiting; the asker in host code or 64
#      threads of a kernel), and as regressions of the monitor's change test_peer_failure,
#      test_init, test_device_errors and test_rma (MPI bootstrap, np2); 128-bit strided RMA
#      (mori_shmem_iput128 / iget128_<scope>, 16-byte elements in the stream and host forms,
#      nvshmem_iput128 / iget128 / nvshmemx_iput128_on_stream ...): test_stream_rma over P2P and
#      the mlx5 NIC model, test_nvshmem_compat np2-np4 and through mlx5's model.
#   C's result (88675b5, on an H100: the only kind that started): 18 of 19 passed (the 128-bit
#      strided RMA over P2P, mlx5's model, np2-np4; the monitor's regressions); test_global_exit's
#      first job passed (every PE exited 5), its next two failed: every PE skipped with
#      "cudaErrorMpsServerNotReady" (the MPS server refused new clients after the first job's
#      processes ended with kernels running). The test now runs outside MPS.
#   D: under MPS by hand: one job (PE 1 asks from host code), then the kernel job (PE 2's kernel
#      asks) rerun every 0.5 s until it passes: how long the MPS server refuses new clients; then
#      test_global_exit outside MPS (time-sliced), as its ctest entry runs it.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
B=$PWD/../build-a

case "$phase" in
B)
  exec bench/results/2026-12-05_device_runs_s28.sh B
  ;;
C)
  { [ -f "$B/build.ninja" ] ||
    cmake -S . -B "$B" -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release > /tmp/c_configure.log 2>&1; } &&
    ninja -C "$B" test_global_exit test_peer_failure test_init test_device_errors test_rma test_stream_rma \
      test_nvshmem_compat mori_nic_model mori_shmem_bootstrap_mpi > /tmp/c_build.log 2>&1
  rc=$?
  echo "build exit $rc ($((SECONDS - start)) s)"
  [ $rc = 0 ] || { tail -30 /tmp/c_build.log; cp /tmp/c_*.log "$OUT/"; exit 1; }
  SUITE_TESTS='^(test_global_exit|test_peer_failure|test_init_np2|test_device_errors_.*|test_rma_np2|test_stream_rma_(np2|rdma_mlx5_np2)|test_nvshmem_compat_(np[234]|rdma_mlx5_np[234]))$' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=150 SUITE_BENCH=0 MORI_GPU_BUILD=$B OUT=/tmp/suiteC \
    timeout $((560 - SECONDS)) tools/gpu_suite.sh > /tmp/suiteC.log 2>&1
  echo "suites exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteC.log | head -30
  grep -E "Test +#.*(sec|Not Run)" /tmp/suiteC/ctest-gpu.log | sed 's/  */ /g'
  grep -h -E "Failure|Expected|Which is|exiting with status|global exit|error" /tmp/suiteC/*.log 2> /dev/null | head -40
  (cd /tmp && tar -czf "$OUT/suiteC.tgz" suiteC suiteC.log)
  echo "total $((SECONDS - start)) s"
  ;;
D)
  ninja -C "$B" test_global_exit > /tmp/d_build.log 2>&1 || { tail -30 /tmp/d_build.log; exit 1; }
  echo "build ($((SECONDS - start)) s)"
  . tools/mps.sh
  mps_start > /tmp/mpsD.log 2>&1
  job() { MORI_TEST_NO_MPI=1 timeout 60 "$B/tests/gpu/test_global_exit" --gtest_filter="GlobalExit.$1" > /tmp/jobD.log 2>&1; }
  job NonRootPeEndsPesWaitingOnTheGpu; echo "under MPS, first job: exit $?"
  grep -E "OK \]|FAILED \]|Which is|SKIPPED \(" /tmp/jobD.log | head -5
  t0=$(date +%s.%N); tries=0
  while :; do
    tries=$((tries + 1)); job KernelEndsTheJob && break
    [ $tries -ge 240 ] && { echo "MPS still refusing after $tries tries"; break; }
    sleep 0.5
  done
  echo "MPS takes clients again: $(awk -v a="$(date +%s.%N)" -v b="$t0" "BEGIN{printf \"%.2f\", a - b}") s after the first job, $tries tries"
  grep -E "OK \]|FAILED \]|Which is|SKIPPED \(|exiting with status" /tmp/jobD.log | head -8
  cp /tmp/jobD.log /tmp/jobD_kernel.log
  mps_stop > /dev/null 2>&1
  # Outside MPS (time-sliced), as the ctest entry runs it.
  SUITE_TESTS='^test_global_exit$' SUITE_BUILD=0 SUITE_TEST_TIMEOUT=150 SUITE_BENCH=0 MORI_GPU_BUILD=$B \
    OUT=/tmp/suiteD timeout 240 tools/gpu_suite.sh > /tmp/suiteD.log 2>&1
  echo "suite exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteD.log | head
  grep -E "Test +#|OK \]|FAILED \]|Failure|Which is|exiting with status" /tmp/suiteD/ctest-gpu.log | head -30
  (cd /tmp && tar -czf "$OUT/suiteD.tgz" suiteD suiteD.log jobD.log jobD_kernel.log mpsD.log)
  echo "total $((SECONDS - start)) s"
  ;;
esac
