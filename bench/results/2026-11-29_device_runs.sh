# The device-machine command scripts behind the 2026-11-29 result files (prebuilt tree carried as .gpu_build).
# ---- run5.sh: every GPU test phase and the standard benchmarks
# Device run 5: every GPU test (P2P, then through the NIC model for each provider) and the
# standard benchmarks, each phase bounded.
set -u
ROOT=$1
ln -sfn $ROOT/.gpu_build /tmp/build-nv; mkdir -p /work; [ -e /work/main ] || ln -s $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "$(python3 -c 'import nvidia.nvshmem as m;print(list(m.__path__)[0])')/lib" > /tmp/build-nv/tools/perf/nvshmem_lib_dir.txt
cd /tmp/build-nv
phase() { local name=$1 t=$2 re=$3; timeout $t ctest -R "$re" -E python --output-on-failure > $OUT/ctest_$name.log 2>&1; echo "== $name"; grep -E "Test +#|tests passed" $OUT/ctest_$name.log | sed 's/ \.\.\.*/ /'; }
phase p2p 150 '^test_(rma|init)_np|^test_signal_amo_sync_np|device_errors|^example_|test_rdma_gpu_memory'
cd $ROOT; MORI_COMMIT=$(cat .gpu_build/commit.txt) MORI_PERF_RUN_TIMEOUT=40 timeout 150 tools/perf/run_benchmarks.sh /tmp/build-nv $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$?"; cd /tmp/build-nv
phase mlx5 170 '_mlx5_np2'
phase bnxt 90 '_bnxt_np2'
phase ionic 90 '_ionic_np2'
cat $OUT/bench/bench_summary.txt 2>/dev/null | sed -n '8,80p'
# ---- run6.sh: bnxt/ionic suites without test_rma, mlx5 test_rma without block scope
set -u
ROOT=$1
ln -sfn $ROOT/.gpu_build /tmp/build-nv; mkdir -p /work; [ -e /work/main ] || ln -s $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
timeout 150 ctest -R '(bnxt|ionic)_np2' -E 'test_rma_rdma|nic_model_rate' --output-on-failure > $OUT/ctest_bi.log 2>&1
grep -E "Test +#|tests passed" $OUT/ctest_bi.log | sed 's/ \.\.\.*/ /'
export MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=/tmp/build-nv/tests/support/nic_model/libmori_nic_model.so MORI_NIC_MODEL_PROVIDER=mlx5 MORI_SHMEM_TIMEOUT=20 MORI_SHMEM_HEAP_SIZE=768M
timeout 60 mpirun -np 2 tests/gpu/test_rma --gtest_filter='-*Block*' > $OUT/rma_noblock.log 2>&1; echo "rma without block scope rc=$?"; grep -E "OK \]|FAILED|verdict|timed out" $OUT/rma_noblock.log | sort | uniq -c | head -30
