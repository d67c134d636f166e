#!/bin/bash
# Session 31's last device call: how often the NIC-model stream suites hang under MPS now that
# TypedWaitsOnStream gives each PE one role: test_stream_rma through mlx5, bnxt and ionic's models,
# five runs each (MORI_SHMEM_TIMEOUT=10, 30 s per run). ONE GPU, 2 PEs under CUDA MPS.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
P=$PWD/../build-a
{ [ -f "$P/build.ninja" ] ||
  cmake -S . -B "$P" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 \
    > "$OUT/configure.log" 2>&1; } &&
  ninja -C "$P" test_stream_rma mori_nic_model mori_shmem_bootstrap_mpi > "$OUT/build.log" 2>&1
rc=$?
echo "build exit $rc ($((SECONDS - start)) s)"
[ $rc = 0 ] || { tail -30 "$OUT/build.log"; exit 1; }
. tools/mps.sh
mps_start
cd "$P"
for nic in mlx5 bnxt ionic; do
  for i in 1 2 3 4 5; do
    MORI_SHMEM_TIMEOUT=10 timeout 30 ctest -R "^test_stream_rma_rdma_${nic}_np2\$" -V > "$OUT/${nic}_$i.log" 2>&1
    rc=$?
    echo "$nic run $i exit $rc ($((SECONDS - start)) s)"
    [ $rc = 0 ] || grep -E "FAILED|not started|RUN" "$OUT/${nic}_$i.log" | tail -3
  done
done
mps_stop
echo "total $((SECONDS - start)) s"
