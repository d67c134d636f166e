# Device runs of the session starting 2026-11-29T23:12Z (bench/results/2026-11-30T0012Z_h200x2_rdma_posting_fix.json).
# Runs 1-2 used temporary trace builds of tests/gpu/test_signal_amo_sync and tests/gpu/rdma/test_rdma_stress (var_*), compiled from d839ef2 plus an uncommitted -DMORI_RDMA_POST_TRACE patch.
# ---- run_trace.sh
# Trace run: thread-scope posting diagnostics (MORI_RDMA_POST_TRACE) with the grouped path (v0)
# and the by-endpoint group path (v1), through the NIC model.
ROOT=$PWD; B=$ROOT/.gpu_build
ln -sfn $B /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
M=$PWD/tests/support/nic_model/libmori_nic_model.so
nvidia-smi -L > $OUT/gpus.txt 2>&1
run() { name=$1; shift; local t0=$(date +%s.%N); timeout -k 3 $T env MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$M MORI_SHMEM_TIMEOUT=6 "$@" > $OUT/$name.log 2>&1; local rc=$?; echo "$name rc=$rc $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" >> $OUT/summary.txt; }
T=30
run amo_v0_bnxt env MORI_NIC_MODEL_PROVIDER=bnxt mpirun -np 2 tests/gpu/var_amo_v0 --gtest_filter='Atomics.*'
run stress_v0_ionic env MORI_NIC_MODEL_PROVIDER=ionic MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 mpirun -np 2 tests/gpu/var_stress_v0
run amo_v1_bnxt env MORI_NIC_MODEL_PROVIDER=bnxt mpirun -np 2 tests/gpu/var_amo_v1 --gtest_filter='Atomics.*'
run stress_v1_bnxt env MORI_NIC_MODEL_PROVIDER=bnxt MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 mpirun -np 2 tests/gpu/var_stress_v1
run amo_v1_ionic env MORI_NIC_MODEL_PROVIDER=ionic mpirun -np 2 tests/gpu/var_amo_v1 --gtest_filter='Atomics.*'
run stress_v1_ionic env MORI_NIC_MODEL_PROVIDER=ionic MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 mpirun -np 2 tests/gpu/var_stress_v1
run amo_v1_mlx5 env MORI_NIC_MODEL_PROVIDER=mlx5 mpirun -np 2 tests/gpu/var_amo_v1 --gtest_filter='Atomics.*'
run stress_v1_mlx5 env MORI_NIC_MODEL_PROVIDER=mlx5 MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 mpirun -np 2 tests/gpu/var_stress_v1
run stress_v0_bnxt env MORI_NIC_MODEL_PROVIDER=bnxt MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1 mpirun -np 2 tests/gpu/var_stress_v0
cat $OUT/summary.txt
for f in $OUT/*.log; do echo "== $f"; grep -E "TRACE|FAILED|OK \]|PASSED|not a perm|timeout|wrong|error|stress:" $f | head -40; done
# ---- run_trace2.sh
# Trace run 2: v3 = grouped path with per-lane phases and a delayed re-check; v6 = writers fence
# before the wave sync, with the trace checks; v7 = writers fence, no trace.
ROOT=$PWD; B=$ROOT/.gpu_build
ln -sfn $B /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
M=$PWD/tests/support/nic_model/libmori_nic_model.so
mkdir -p $OUT/logs
run() { name=$1; shift; local t0=$(date +%s.%N); timeout -k 3 $T env MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$M MORI_SHMEM_TIMEOUT=6 "$@" > $OUT/logs/$name.log 2>&1; local rc=$?; echo "$name rc=$rc $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" >> $OUT/summary.txt; }
T=30
STRESS="MORI_SHMEM_QP_DEPTH=64 MORI_SHMEM_NUM_QP_PER_PE=1"
run stress_v3_bnxt env MORI_NIC_MODEL_PROVIDER=bnxt $STRESS mpirun -np 2 tests/gpu/var_stress_v3
for v in v7 v6; do for p in bnxt ionic mlx5; do
  run amo_${v}_$p env MORI_NIC_MODEL_PROVIDER=$p mpirun -np 2 tests/gpu/var_amo_$v --gtest_filter='Atomics.EveryOperationEveryType'
  run stress_${v}_$p env MORI_NIC_MODEL_PROVIDER=$p $STRESS mpirun -np 2 tests/gpu/var_stress_$v
done; done
run amo_v3_bnxt env MORI_NIC_MODEL_PROVIDER=bnxt mpirun -np 2 tests/gpu/var_amo_v3 --gtest_filter='Atomics.EveryOperationEveryType'
cat $OUT/summary.txt
for f in $OUT/logs/*.log; do echo "== $f"; grep -E "TRACE|FAILED  \]|OK \]|not a perm|timed out after|wrong|stress:" $f | sort | uniq -c | sort -rn | head -24; done > $OUT/digest.txt
cd $OUT && tar czf logs.tgz logs && rm -rf logs
cat $OUT/digest.txt | cut -c1-300
# ---- run3.sh
# Run 3: the slot-mark posting mechanism (this commit's tree): every GPU test through ctest,
# the NIC model's posting rates included.
ROOT=$PWD; B=$ROOT/.gpu_build
ln -sfn $B /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
nvidia-smi -L > $OUT/gpus.txt 2>&1
T0=$(date +%s)
timeout 420 ctest -L gpu -E 'python_gpu' --output-on-failure --timeout 90 > $OUT/ctest.log 2>&1
echo "ctest took $(( $(date +%s) - T0 )) s" >> $OUT/ctest.log
grep -E "Test +#|tests passed|tests failed|took" $OUT/ctest.log | sed 's/ \.\.\.*/ /' > $OUT/summary.txt
grep -E "WQEs|rate|Mops|M WQE|per second|G ops" $OUT/ctest.log | head -40 > $OUT/rates.txt
cat $OUT/summary.txt $OUT/rates.txt
# ---- run4.sh
# Run 4: slot-mark posting with one poller per group, the swap test reading its own chain's end:
# every GPU test but the rate runs through ctest, then the NIC model's posting rates per provider.
ROOT=$PWD; B=$ROOT/.gpu_build
ln -sfn $B /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
nvidia-smi -L > $OUT/gpus.txt 2>&1
T0=$(date +%s)
timeout 300 ctest -L gpu -E 'python_gpu|nic_model_rate' --output-on-failure --timeout 60 > $OUT/ctest.log 2>&1
echo "ctest took $(( $(date +%s) - T0 )) s" >> $OUT/ctest.log
grep -E "Test +#|tests passed|tests failed|took" $OUT/ctest.log | sed 's/ \.\.\.*/ /' > $OUT/summary.txt
M=$PWD/tests/support/nic_model/libmori_nic_model.so
for p in mlx5 bnxt ionic; do
  T1=$(date +%s)
  timeout 90 env MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$M MORI_NIC_MODEL_PROVIDER=$p MORI_NIC_MODEL_SINK=1 MORI_SHMEM_NUM_QP_PER_PE=32 MORI_SHMEM_TIMEOUT=20 mpirun -np 2 tests/gpu/rdma/nic_model_rate >> $OUT/rates.jsonl 2>> $OUT/rates.err
  echo "rate $p rc=$? $(( $(date +%s) - T1 )) s" >> $OUT/summary.txt
done
cat $OUT/summary.txt $OUT/rates.jsonl; tail -5 $OUT/rates.err
# ---- run5.sh
# Run 5: slot-mark posting, room claimed for the whole group, one poller per endpoint among the
# lanes polling together: NIC model posting rates per provider, then the RDMA suites.
ROOT=$PWD; B=$ROOT/.gpu_build
ln -sfn $B /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
nvidia-smi -L > $OUT/gpus.txt 2>&1
M=$PWD/tests/support/nic_model/libmori_nic_model.so
for p in mlx5 bnxt ionic; do
  T1=$(date +%s)
  timeout 45 env MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$M MORI_NIC_MODEL_PROVIDER=$p MORI_NIC_MODEL_SINK=1 MORI_SHMEM_NUM_QP_PER_PE=32 MORI_SHMEM_TIMEOUT=20 mpirun -np 2 tests/gpu/rdma/nic_model_rate >> $OUT/rates.jsonl 2>> $OUT/rates.err
  echo "rate $p rc=$? $(( $(date +%s) - T1 )) s" >> $OUT/summary.txt
done
T0=$(date +%s)
timeout 240 ctest -L gpu -E 'python_gpu|nic_model_rate' --output-on-failure --timeout 60 > $OUT/ctest.log 2>&1
echo "ctest took $(( $(date +%s) - T0 )) s" >> $OUT/ctest.log
grep -E "Test +#|tests passed|tests failed|took" $OUT/ctest.log | sed 's/ \.\.\.*/ /' >> $OUT/summary.txt
cat $OUT/summary.txt $OUT/rates.jsonl; tail -5 $OUT/rates.err
# ---- run6.sh
# Run 6: as run 5, non-last lanes of a thread-scope group leaving once the group was rung (NVIDIA):
# NIC model posting rates per provider, then every GPU test.
ROOT=$PWD; B=$ROOT/.gpu_build
ln -sfn $B /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
nvidia-smi -L > $OUT/gpus.txt 2>&1
M=$PWD/tests/support/nic_model/libmori_nic_model.so
for p in mlx5 bnxt ionic; do
  T1=$(date +%s)
  timeout 45 env MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$M MORI_NIC_MODEL_PROVIDER=$p MORI_NIC_MODEL_SINK=1 MORI_SHMEM_NUM_QP_PER_PE=32 MORI_SHMEM_TIMEOUT=20 mpirun -np 2 tests/gpu/rdma/nic_model_rate >> $OUT/rates.jsonl 2>> $OUT/rates.err
  echo "rate $p rc=$? $(( $(date +%s) - T1 )) s" >> $OUT/summary.txt
done
T0=$(date +%s)
timeout 240 ctest -L gpu -E 'python_gpu|nic_model_rate' --output-on-failure --timeout 60 > $OUT/ctest.log 2>&1
echo "ctest took $(( $(date +%s) - T0 )) s" >> $OUT/ctest.log
grep -E "Test +#|tests passed|tests failed|took" $OUT/ctest.log | sed 's/ \.\.\.*/ /' >> $OUT/summary.txt
cat $OUT/summary.txt $OUT/rates.jsonl; tail -5 $OUT/rates.err
# ---- run7.sh
# Run 7: as run 6, warp and block scope also leaving once their batch was rung (NVIDIA):
# NIC model posting rates per provider, then every GPU test.
ROOT=$PWD; B=$ROOT/.gpu_build
ln -sfn $B /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
nvidia-smi -L > $OUT/gpus.txt 2>&1
M=$PWD/tests/support/nic_model/libmori_nic_model.so
for p in mlx5 ionic; do
  T1=$(date +%s)
  timeout 45 env MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$M MORI_NIC_MODEL_PROVIDER=$p MORI_NIC_MODEL_SINK=1 MORI_SHMEM_NUM_QP_PER_PE=32 MORI_SHMEM_TIMEOUT=20 mpirun -np 2 tests/gpu/rdma/nic_model_rate >> $OUT/rates.jsonl 2>> $OUT/rates.err
  echo "rate $p rc=$? $(( $(date +%s) - T1 )) s" >> $OUT/summary.txt
done
T0=$(date +%s)
timeout 240 ctest -L gpu -E 'python_gpu|nic_model_rate' --output-on-failure --timeout 60 > $OUT/ctest.log 2>&1
echo "ctest took $(( $(date +%s) - T0 )) s" >> $OUT/ctest.log
grep -E "Test +#|tests passed|tests failed|took" $OUT/ctest.log | sed 's/ \.\.\.*/ /' >> $OUT/summary.txt
cat $OUT/summary.txt $OUT/rates.jsonl; tail -5 $OUT/rates.err
