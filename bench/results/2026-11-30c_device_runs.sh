#!/bin/bash
# Device runs of the session of 2026-11-30 04:07-07:07 UTC (nvidia-h200-x2). Each run unpacked a
# Release NVIDIA build (sm_90) of the working tree to /tmp/build-nv and ran, from there:
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
python3 -c 'import nvidia.nvshmem as m;print(list(m.__path__)[0]+"/lib")' > tools/perf/nvshmem_lib_dir.txt

# ---- run 1 (5171d99): copy variants with unit_share, standard perf
bench/micro/p2p_copy_variants 20 0 0 random
MORI_PERF_RUN_TIMEOUT=40 /work/main/tools/perf/run_benchmarks.sh /tmp/build-nv <out>/bench

# ---- run 2 (5171d99 + line skew) and run 3 (5c9d514): as run 1, plus the GPU suite;
# run 3 also the ordering micro
bench/micro/p2p_copy_variants 20 0 0 random
bench/micro/p2p_ordering_variants 20000                                  # run 3 only
ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 60
MORI_PERF_RUN_TIMEOUT=40 /work/main/tools/perf/run_benchmarks.sh /tmp/build-nv <out>/bench

# ---- run 4 (5c9d514 binaries): warp put, buffer capacity (heap offset) sweep, both libraries
for b in 8M 32M 64M; do for e in $b 48M 128M 1G; do   # e >= b only
  mpirun -np 2 tools/perf/mori-shmem-perf shmem_put_bw -s warp -c 132 -t 1024 -b $b -e $e -f 1048576 -n 200 -w 20
  LD_LIBRARY_PATH=<nvshmem lib> mpirun -np 2 tools/perf/mori-shmem-perf-nvshmem shmem_put_bw -s warp -c 132 -t 1024 -b $b -e $e -f 1048576 -n 200 -w 20
done; done
# ---- run 5: experiment perf binaries (MORI_EXP_WARP_UNROLL=1/2/8, see the JSON record) and both libraries
<binary> shmem_put_bw -s warp -c 132 -t 1024 -b 1M -e 64M -n 200 -w 20
# ---- run 6: copy variants with the warp variants at 8 MiB - 1 GiB
bench/micro/p2p_copy_variants 200 0 0 random
# ---- runs 7-10: probes kept in bench/results/2026-11-30c_probes (nvcc -O3 -arch=sm_90 -std=c++17 <probe>.cu [-lcuda])
./vmm_destination_probe; ./warp_store_forms_probe; ./warp_loads_in_flight_probe; ./warp_syncwarp_probe   # run 10: warp_store_forms_probe.cu + warp_syncwarp_probe.patch
./signal_wait_acquire_probe   # run 11
# ---- run 12: experiment perf binary with put<WarpScope>'s P2P copy behind a non-inlined call (see the JSON record)
for v in base call; do
  mpirun -np 2 mori-shmem-perf-$v shmem_put_bw -s warp -c 132 -t 1024 -b 1M -e 1G -n 100 -w 10
  mpirun -np 2 mori-shmem-perf-$v shmem_put_latency -s warp -b 8 -e 4096 -f 8 -n 5000 -w 500
done
# ---- run 13: shmem_p_bw at 8-64 MiB, 100 and 1000 iterations, both libraries, twice
for n in 100 1000; do for rep in 1 2; do
  mpirun -np 2 tools/perf/mori-shmem-perf shmem_p_bw -c 132 -t 1024 -b 8M -e 64M -f 2 -n $n -w 10 --msgrate
  LD_LIBRARY_PATH=<nvshmem lib> mpirun -np 2 tools/perf/mori-shmem-perf-nvshmem shmem_p_bw -c 132 -t 1024 -b 8M -e 64M -f 2 -n $n -w 10 --msgrate
done; done
# ---- run 14 (test_rma with the two aligned line-skew cases): 13/13 over P2P and through the NIC model (mlx5)
MORI_SHMEM_HEAP_SIZE=768M mpiexec -n 2 tests/gpu/test_rma
MORI_SHMEM_HEAP_SIZE=768M MORI_SHMEM_TRANSPORT=rdma MORI_SHMEM_RDMA_PLUGIN=tests/support/nic_model/libmori_nic_model.so MORI_NIC_MODEL_PROVIDER=mlx5 MORI_SHMEM_TIMEOUT=60 mpiexec -n 2 tests/gpu/test_rma
