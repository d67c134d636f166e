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

# ======== session 2026-11-29 21:27-00:27 UTC: device runs A-F (prebuilt tree carried as .gpu_build) ========
# ---- run A (243b23c): co-residency probe, GPU platform tests, P2P suites, benchmarks, model carveout A/B, mlx5 + bnxt suites
set -u
ROOT=$1
ln -sfn $ROOT/.gpu_build /tmp/build-nv; mkdir -p /work; [ -e /work/main ] || ln -s $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "$(python3 -c 'import nvidia.nvshmem as m;print(list(m.__path__)[0])')/lib" > /tmp/build-nv/tools/perf/nvshmem_lib_dir.txt
B=/tmp/build-nv
timeout 40 $B/bench/micro/coresidency_probe > $OUT/coresidency.json 2>&1
cd $B
phase() { local name=$1 t=$2 re=$3; timeout $t ctest -R "$re" --output-on-failure > $OUT/ctest_$name.log 2>&1; }
phase p2p 120 '^test_platform_np1|^test_(rma|init)_np|^test_signal_amo_sync_np|device_errors|^example_|test_rdma_gpu_memory|test_nic_side_host'
cd $ROOT; MORI_PERF_RUN_TIMEOUT=40 timeout 170 tools/perf/run_benchmarks.sh $B $OUT/bench > $OUT/bench.log 2>&1; cd $B
M="MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$B/tests/support/nic_model/libmori_nic_model.so MORI_SHMEM_HEAP_SIZE=768M MORI_SHMEM_DEBUG=WARN"
for cv in unset 0; do
  ( [ $cv != unset ] && export MORI_NIC_MODEL_CARVEOUT=$cv; env $M MORI_NIC_MODEL_PROVIDER=mlx5 MORI_SHMEM_TIMEOUT=12 timeout 45 mpirun -np 2 tests/gpu/test_rma --gtest_filter='*PutNbi_Block*:*Get_Block*' ) > $OUT/rma_block_cv$cv.log 2>&1
done
export MORI_NIC_MODEL_CARVEOUT=0 MORI_SHMEM_DEBUG=WARN   # (set when cv0 passed and cvunset did not: it did)
phase mlx5 150 '_mlx5_np2'
phase bnxt 90 '_bnxt_np2'
# ---- run B (53cb8ff)
set -u
ROOT=$1
ln -sfn $ROOT/.gpu_build /tmp/build-nv; mkdir -p /work; [ -e /work/main ] || ln -s $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "$(python3 -c 'import nvidia.nvshmem as m;print(list(m.__path__)[0])')/lib" > /tmp/build-nv/tools/perf/nvshmem_lib_dir.txt
B=/tmp/build-nv
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
cd $B
phase() { local name=$1 t=$2 re=$3; shift 3; timeout $t ctest -R "$re" "$@" --output-on-failure > $OUT/ctest_$name.log 2>&1; el "== $name"; grep -E "Test +#|tests passed" $OUT/ctest_$name.log | sed 's/ \.\.\.*/ /'; }
phase p2p 120 '^test_platform_np1|^test_(rma|init)_np|^test_signal_amo_sync_np|device_errors|^example_|test_nic_side_host'
cd $ROOT; MORI_COMMIT=$(cat .gpu_build/commit.txt) MORI_PERF_RUN_TIMEOUT=40 timeout 170 tools/perf/run_benchmarks.sh $B $OUT/bench > $OUT/bench.log 2>&1; el "bench rc=$?"; sed -n '8,75p' $OUT/bench/bench_summary.txt 2>/dev/null | grep -E "lat|pingpong|targets|MET|p_bw" ; cd $B
phase mlx5 150 '_mlx5_np2'
M="MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$B/tests/support/nic_model/libmori_nic_model.so MORI_SHMEM_TIMEOUT=10"
for p in bnxt ionic; do
  el "$p atomics alone"
  env $M MORI_NIC_MODEL_PROVIDER=$p timeout 40 mpirun -np 2 tests/gpu/test_signal_amo_sync --gtest_filter='Atomics.*' > $OUT/amo_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|timed out|NIC model" $OUT/amo_$p.log | sort | uniq -c | head -12
  el "$p signal/p2p/barrier"
  env $M MORI_NIC_MODEL_PROVIDER=$p timeout 40 mpirun -np 2 tests/gpu/test_signal_amo_sync --gtest_filter='-Atomics.*' > $OUT/sync_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|timed out|NIC model" $OUT/sync_$p.log | sort | uniq -c | head -12
done
phase bnxt 90 '_bnxt_np2' -E signal_amo_sync
phase ionic 90 '_ionic_np2' -E signal_amo_sync
el done
# ---- run C (05aeeae)
set -u
ROOT=$1
ln -sfn $ROOT/.gpu_build /tmp/build-nv; mkdir -p /work; [ -e /work/main ] || ln -s $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/build-nv
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
cd $B
M="MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$B/tests/support/nic_model/libmori_nic_model.so MORI_SHMEM_TIMEOUT=10"
for p in bnxt ionic; do
  el "$p atomics"
  env $M MORI_NIC_MODEL_PROVIDER=$p timeout 40 mpirun -np 2 tests/gpu/test_signal_amo_sync --gtest_filter='Atomics.*' > $OUT/amo_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|timed out|NIC model" $OUT/amo_$p.log | sort | uniq -c | head -8
  el "$p stress"
  env $M MORI_NIC_MODEL_PROVIDER=$p MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 timeout 60 mpirun -np 2 tests/gpu/rdma/test_rdma_stress > $OUT/stress_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|timed out|NIC model" $OUT/stress_$p.log | sort | uniq -c | head -8
done
phase() { local name=$1 t=$2 re=$3; shift 3; timeout $t ctest -R "$re" "$@" --output-on-failure > $OUT/ctest_$name.log 2>&1; el "== $name"; grep -E "Test +#|tests passed" $OUT/ctest_$name.log | sed 's/ \.\.\.*/ /'; }
phase p2p 100 '^test_platform_np1|^test_(rma|init)_np|^test_signal_amo_sync_np|device_errors|^example_'
echo "$(python3 -c 'import nvidia.nvshmem as m;print(list(m.__path__)[0])')/lib" > $B/tools/perf/nvshmem_lib_dir.txt
cd $ROOT; MORI_COMMIT=$(cat .gpu_build/commit.txt) MORI_PERF_RUN_TIMEOUT=40 timeout 170 tools/perf/run_benchmarks.sh $B $OUT/bench > $OUT/bench.log 2>&1; el "bench rc=$?"; sed -n '8,80p' $OUT/bench/bench_summary.txt 2>/dev/null; cd $B
mkdir -p $OUT/keep; cp $OUT/bench/bench_results.json $OUT/bench/bench_summary.txt $OUT/keep/ 2>/dev/null; rm -rf $OUT/bench
phase rdma 240 '_(mlx5|bnxt|ionic)_np2' -E nic_model_rate
el done
# ---- runs D and E: experiment builds of 05aeeae from a copy of the tree with mlx5 kHasAtomic32 = false and
#      ionic kIndexedDoorbells = false (D), plus a lane-by-lane postFromThreads for diverged warps (E); tree /tmp/build-exp
set -u
ROOT=$1
ln -sfn $ROOT/.gpu_build /tmp/build-exp
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/build-exp
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
cd $B
M="MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$B/tests/support/nic_model/libmori_nic_model.so MORI_SHMEM_TIMEOUT=8"
for p in mlx5 ionic bnxt; do
  el "$p atomics"
  env $M MORI_NIC_MODEL_PROVIDER=$p timeout 35 mpirun -np 2 tests/gpu/test_signal_amo_sync --gtest_filter='Atomics.*' > $OUT/amo_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|NIC model" $OUT/amo_$p.log | sort | uniq -c | head -8
  el "$p stress"
  env $M MORI_NIC_MODEL_PROVIDER=$p MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 timeout 35 mpirun -np 2 tests/gpu/rdma/test_rdma_stress > $OUT/stress_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|NIC model" $OUT/stress_$p.log | sort | uniq -c | head -8
done
el done
# ---- run F (working tree after 05aeeae with casLoop / explicit-group postFromThreads; not committed)
set -u
ROOT=$1
ln -sfn $ROOT/.gpu_build /tmp/build-nv; mkdir -p /work; [ -e /work/main ] || ln -s $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/build-nv
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
cd $B
M="MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$B/tests/support/nic_model/libmori_nic_model.so MORI_SHMEM_TIMEOUT=8"
for p in bnxt ionic mlx5; do
  el "$p atomics"
  env $M MORI_NIC_MODEL_PROVIDER=$p timeout 30 mpirun -np 2 tests/gpu/test_signal_amo_sync --gtest_filter='Atomics.*' > $OUT/amo_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|NIC model|chain" $OUT/amo_$p.log | sort | uniq -c | head -8
  el "$p stress"
  env $M MORI_NIC_MODEL_PROVIDER=$p MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 timeout 30 mpirun -np 2 tests/gpu/rdma/test_rdma_stress > $OUT/stress_$p.log 2>&1
  grep -E "OK \]|FAILED  \]|endpoint to|NIC model" $OUT/stress_$p.log | sort | uniq -c | head -8
done
timeout 100 ctest -R '_(bnxt|ionic|mlx5)_np2|^test_signal_amo_sync_np2' -E 'nic_model_rate|stress' --output-on-failure > $OUT/ctest_rdma.log 2>&1
el "== rdma"; grep -E "Test +#|tests passed" $OUT/ctest_rdma.log | sed 's/ \.\.\.*/ /'
el done
