#!/bin/bash
# Device runs of 2026-11-30, second session (device tool, kind nvidia-h200-x2). Each ran from the repository root
# with the NVIDIA build (Release) unpacked at /tmp/build-nv; results in bench/results/2026-11-30T0233Z_*.json.

# ---- run 1 (0d1dbee): copy variants, GPU suite, mlx5 posting rates, standard perf, latency without launch bounds
ROOT=$PWD; ln -sfn $ROOT/.gpu_build /tmp/build-nv; mkdir -p /work; ln -sfn $ROOT /work/main
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /tmp/build-nv
nvidia-smi -L > $OUT/gpus.txt
t0=$(date +%s)
timeout 60 bench/micro/p2p_copy_variants 20 > $OUT/copy_variants.jsonl 2>&1; echo "copy rc=$? $(( $(date +%s)-t0 ))s" >> $OUT/timeline.txt
python3 -c 'import nvidia.nvshmem as m;print(list(m.__path__)[0]+"/lib")' > tools/perf/nvshmem_lib_dir.txt 2>>$OUT/timeline.txt
t0=$(date +%s)
ctest -L gpu -E 'python_gpu|nic_model_rate' --output-on-failure --timeout 60 > $OUT/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s" >> $OUT/timeline.txt
grep -E "tests passed|tests failed|Failed|Timeout" $OUT/ctest.log | tail -15 >> $OUT/timeline.txt
t0=$(date +%s)
MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$PWD/tests/support/nic_model/libmori_nic_model.so MORI_NIC_MODEL_PROVIDER=mlx5 MORI_NIC_MODEL_SINK=1 MORI_SHMEM_NUM_QP_PER_PE=32 timeout 60 mpirun -np 2 tests/gpu/rdma/nic_model_rate > $OUT/rates_mlx5.jsonl 2>&1; echo "rates rc=$? $(( $(date +%s)-t0 ))s" >> $OUT/timeline.txt
t0=$(date +%s)
MORI_COMMIT=$(cat /work/main/.gpu_build/commit.txt) MORI_PERF_RUN_TIMEOUT=40 /work/main/tools/perf/run_benchmarks.sh /tmp/build-nv $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s)-t0 ))s" >> $OUT/timeline.txt
cat $OUT/timeline.txt
cat $OUT/copy_variants.jsonl
cat $OUT/bench/bench_summary.txt | head -80
# Experiment: latency kernels without __launch_bounds__(1024) (no register cap -> no spills across the cold RDMA calls)
for spec in "put_lat shmem_put_latency -s thread -b 8 -e 512 -f 8 -n 10000 -w 1000" "get_lat shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500" "p_lat shmem_p_latency -b 8 -e 8 -n 10000 -w 1000" "atomic_fadd_lat shmem_atomic_latency -a fetch_add -b 8 -e 8 -n 10000 -w 1000" "pingpong shmem_put_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000" "signal_pingpong shmem_put_signal_ping_pong_latency -s thread -b 8 -e 256 -f 32 -n 10000 -w 1000"; do
  set -- $spec; id=$1; shift
  for bin in mori-shmem-perf mori-shmem-perf-nolb; do
    timeout 40 mpirun -np 2 tools/perf/$bin "$@" --json $OUT/exp_${bin}_$id.json > $OUT/exp_${bin}_$id.log 2>&1
    echo "$bin $id rc=$? $(grep -E '^ *[0-9]+ +thread' $OUT/exp_${bin}_$id.log | tr -s ' ' | tr '\n' ';')" >> $OUT/exp_summary.txt
  done
done
cat $OUT/exp_summary.txt

# ---- runs 2-7: bench/micro/p2p_copy_variants (each run used the binary of the working tree then)
bench/micro/p2p_copy_variants 20                      # run 2: peer vs IPC
for o in "0 0" "256 256" "0 256" "256 0" "4096 4096" "65536 65536"; do bench/micro/p2p_copy_variants 20 $o; done   # run 3
bench/micro/p2p_copy_variants 20                      # run 4: + library_generic
for n in 40 200 20; do bench/micro/p2p_copy_variants $n; done   # run 5
bench/micro/p2p_copy_variants 20                      # run 6: + library_1cta_per_sm
bench/micro/p2p_copy_variants 20                      # run 7: IPC mode maps the source in the other process too

# ---- run 8: another process holding idle contexts on both GPUs; under mpirun -np 1
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
show() { python3 -c '
import sys,json
rows=[json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for r in rows:
  if r["variant"] in ("library","grid_stride","store_only"): print(sys.argv[2], r["mapping"], r["variant"], r["bytes"]>>20, "MiB", r["GBps"], "bad", r["bad_elements"])' $1 $2; }
timeout 60 .gpu_build/p2p_copy_variants 20 > $OUT/alone.jsonl 2>&1; show $OUT/alone.jsonl alone
python3 -c "
import torch,time
x=[torch.zeros(1,device=f'cuda:{i}') for i in range(torch.cuda.device_count())]
torch.cuda.synchronize(); print('sidecar contexts on', len(x), 'GPUs', flush=True); time.sleep(25)" > $OUT/sidecar.log 2>&1 &
sleep 8; cat $OUT/sidecar.log
timeout 60 .gpu_build/p2p_copy_variants 20 > $OUT/sidecar.jsonl 2>&1; show $OUT/sidecar.jsonl with_sidecar
wait
timeout 60 mpirun -np 1 .gpu_build/p2p_copy_variants 20 > $OUT/mpirun.jsonl 2>&1; show $OUT/mpirun.jsonl under_mpirun
nvidia-smi --query-gpu=index,compute_mode --format=csv

# ---- run 9: GPU suite + posting rates after the spinUntil change
ctest -L gpu -E 'python_gpu|nic_model_rate' --output-on-failure --timeout 60
for p in mlx5 bnxt ionic; do
  MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=$PWD/tests/support/nic_model/libmori_nic_model.so MORI_NIC_MODEL_PROVIDER=$p MORI_NIC_MODEL_SINK=1 MORI_SHMEM_NUM_QP_PER_PE=32 mpirun -np 2 tests/gpu/rdma/nic_model_rate
done

# ---- runs 10-13 (block-put gap; experiment binaries built by hand, see the JSON record)
MORI_SHMEM_HEAP_SIZE=2200M mpirun -np 2 tools/perf/mori-shmem-perf shmem_put_bw -s block -c 132 -t 1024 -b 64M -e 1G -n 40 -w 4      # run 10 (and -raw)
for o in "4096 1073746176" "0 1073741824" "1073746176 4096"; do bench/micro/p2p_copy_variants 20 $o; done                      # run 11
for d in random structured random; do bench/micro/p2p_copy_variants 20 0 0 $d; done                                                # run 12
for m in none MICRO_MPI MICRO_INIT; do env $m=1 p2p_copy_variants_exp 20; done                                                    # run 13

# ---- run 14 (49cf305): GPU suite + standard perf for both libraries
ctest -L gpu -E 'python_gpu|nic_model_rate' --output-on-failure --timeout 60
MORI_PERF_RUN_TIMEOUT=40 tools/perf/run_benchmarks.sh /tmp/build-nv <out>/bench
# ---- run 15: experiment build of p2p_copy_variants filling both buffers on their owners before each variant
for m in MICRO_FILL_ON_OWNER none; do env $m=1 p2p_copy_variants_fill 20 0 0 random; done
