#!/bin/bash
# Device runs of the session of 2026-11-30 06:20-09:20 UTC (nvidia-h200-x2). Runs 1-2 unpacked a
# Release NVIDIA build (sm_90) of the working tree to /tmp/build-nv and ran, from there:
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NVLIB=$(python3 -c 'import nvidia.nvshmem as m;print(list(m.__path__)[0]+"/lib")')

# ---- run 1 (016cfa4's p2pAddress in the tree): GPU suite; A/B of the perf benchmarks built from
# 2bb14d4 (exp/mori-shmem-perf-head) against the tree's, two rounds; pBwKernel bounded at 512 threads
ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 60
for rep in 1 2; do for bin in tools/perf/exp/mori-shmem-perf-head tools/perf/mori-shmem-perf; do
  mpirun -np 2 $bin shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
  mpirun -np 2 $bin shmem_put_latency -s thread -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 $bin shmem_p_latency -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 $bin shmem_atomic_latency -a fetch_add -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 $bin shmem_put_signal_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 $bin shmem_p_bw -c 132 -t 1024 -b 8M -e 64M -f 2 -n 100 -w 10 --msgrate
done
mpirun -np 2 tools/perf/exp/mori-shmem-perf-p512 shmem_p_bw -c 132 -t 512 -b 8M -e 64M -f 2 -n 100 -w 10 --msgrate  # bench_p.cpp with pBwKernel's bound 512
done

# ---- run 2 (016cfa4 + an experiment object): standard perf; relaxed polls (bench_ping_pong.cpp
# built with a waitUntil that polls ld.relaxed.sys and ends with fence.acquire.sys), three rounds
MORI_PERF_RUN_TIMEOUT=40 /work/main/tools/perf/run_benchmarks.sh /tmp/build-nv <out>/bench
for rep in 1 2 3; do
  for bin in tools/perf/mori-shmem-perf tools/perf/exp/mori-shmem-perf-rpoll; do
    mpirun -np 2 $bin shmem_put_signal_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
    mpirun -np 2 $bin shmem_put_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
  done
  LD_LIBRARY_PATH=$NVLIB mpirun -np 2 -x LD_LIBRARY_PATH tools/perf/mori-shmem-perf-nvshmem shmem_put_signal_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
  LD_LIBRARY_PATH=$NVLIB mpirun -np 2 -x LD_LIBRARY_PATH tools/perf/mori-shmem-perf-nvshmem shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
  mpirun -np 2 tools/perf/mori-shmem-perf shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
done

# ---- runs 3-4: probe (nvcc -O3 -arch=sm_90 -std=c++17 2026-11-30d_probes/get_forms_probe.cu); run 4 added the generic-ld column
./get_forms_probe

# ---- run 5: exp/mori-shmem-perf-nou (bench_rma.cpp and bench_ping_pong.cpp built with
# MORI_EXP_NO_OUTER_UNROLL: #pragma unroll 1 on copyElements' main loop, shipped as a34351a) against
# 016cfa4's binary, two rounds alternated
for rep in 1 2; do for bin in tools/perf/mori-shmem-perf tools/perf/exp/mori-shmem-perf-nou; do
  mpirun -np 2 $bin shmem_put_bw -s warp -c 132 -t 1024 -b 1M -e 64M -n 200 -w 20
  mpirun -np 2 $bin shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 256M -f 4 -n 100 -w 10
  mpirun -np 2 $bin shmem_get_latency -s thread -b 8 -e 4096 -f 8 -n 5000 -w 500
  mpirun -np 2 $bin shmem_put_latency -s thread -b 8 -e 4096 -f 8 -n 5000 -w 500
  mpirun -np 2 $bin shmem_put_latency -s warp -b 8 -e 4096 -f 8 -n 5000 -w 500
  mpirun -np 2 $bin shmem_put_signal_ping_pong_latency -s thread -b 8 -e 256 -f 32 -n 10000 -w 1000
done; done

# ---- run 6 (a34351a): GPU suite and standard perf
ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 60
MORI_PERF_RUN_TIMEOUT=40 /work/main/tools/perf/run_benchmarks.sh /tmp/build-nv <out>/bench

# ---- runs 7-11: copyElements' last pass (2026-11-30T0720Z_h200x2_copy_last_pass_variants.json).
# Each variant's bench_rma.cpp was built into exp/mori-shmem-perf-<variant> and run against the
# shipped binary: warp put 1M-64M, block put 1M-256M, get/put latency at thread/warp/block scope:
<bin> shmem_put_bw -s warp -c 132 -t 1024 -b 1M -e 64M -n 200 -w 20
<bin> shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 256M -f 4 -n 100 -w 10
<bin> shmem_get_latency -s thread -b 8 -e 4096 -f 8 -n 5000 -w 500
<bin> shmem_put_latency -s thread -b 8 -e 4096 -f 8 -n 5000 -w 500
<bin> shmem_put_latency -s warp -b 8 -e 4096 -f 8 -n 5000 -w 500
<bin> shmem_put_latency -s block -t 1024 -b 8 -e 65536 -f 8 -n 2000 -w 200
# run 10 also: ctest -L gpu (35/35) and run_benchmarks.sh with the wave-exit copy in the library

# ---- run 12 (fb03928: one-wave exit for warp scope only): GPU suite; A/B against a34351a's binary, two rounds
ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 60
for rep in 1 2; do for bin in tools/perf/exp/mori-shmem-perf-a34351a tools/perf/mori-shmem-perf; do
  mpirun -np 2 $bin shmem_put_bw -s warp -c 132 -t 1024 -b 1M -e 64M -n 200 -w 20
  mpirun -np 2 $bin shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 16M -f 4 -n 200 -w 20
  mpirun -np 2 $bin shmem_put_latency -s warp -b 8 -e 4096 -f 8 -n 5000 -w 500
  mpirun -np 2 $bin shmem_put_latency -s block -t 1024 -b 8 -e 32768 -f 8 -n 2000 -w 200
  mpirun -np 2 $bin shmem_get_latency -s thread -b 8 -e 512 -f 8 -n 5000 -w 500
done; done
