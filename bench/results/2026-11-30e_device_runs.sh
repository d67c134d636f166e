#!/bin/bash
# Device runs of 2026-11-30 (fifth session), on nvidia-h200-x2, from a build tree unpacked at
# /tmp/build-nv (setup as in 2026-11-30d_device_runs.sh: OMPI_ALLOW_RUN_AS_ROOT=1,
# NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1, CUDA_MODULE_LOADING=EAGER; NVSHMEM runs with
# LD_LIBRARY_PATH=$NVLIB and mpirun -x LD_LIBRARY_PATH). Experiment binaries under
# tools/perf/exp/ are mori-shmem-perf relinked with one object rebuilt (see the record's
# "binaries"). Record: 2026-11-30T0925Z_h200x2_element_general_path.json.
P="-c 132 -t 1024"
# Run 1: placement. Both libraries, two rounds.
for e in 8M 16M 32M 64M 128M 256M; do mpirun -np 2 tools/perf/mori-shmem-perf shmem_p_bw $P -b 8M -e $e -f 2 -n 100 -w 10 --msgrate; done
# Run 2: head / praw / ptrap / pcall / NVSHMEM, 3 rounds: shmem_p_bw $P -b 8M -e 64M -f 2 -n 100 -w 10 --msgrate;
#        shmem_p_latency -b 8 -e 8 -n 5000 -w 500
# Runs 3-6: the probe (nvcc -O3 -arch=sm_90 p_bw_allocation_probe.cu -lcuda):
#   ./p_bw_alloc; ./p_bw_alloc ipc; ./p_bw_alloc ipc export; ./p_bw_alloc {random,spin,"random spin"}
# Run 6 also: MORI_SHMEM_HEAP_SIZE={256M,1G,4G} with head and praw, shmem_p_bw $P -b 8M -e 16M -f 2 -n 100
# Run 7: 8 interleaved rounds of head / praw / ptrap / NVSHMEM:
for b in head praw ptrap; do mpirun -np 2 tools/perf/exp/mori-shmem-perf-$b shmem_p_bw $P -b 8M -e 8M -n 200 -w 20 --msgrate; done
# Run 8: 4 rounds of head / rs / abi / NVSHMEM, each:
#   shmem_p_bw $P -b 8M -e 8M -n 200 -w 20 --msgrate; shmem_atomic_bw -a add $P -b 8M -e 8M -n 200 -w 20 --msgrate
#   shmem_p_latency -b 8 -e 8 -n 10000 -w 1000; shmem_atomic_latency -a fetch_add -b 8 -e 8 -n 10000 -w 1000
#   shmem_put_signal_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
# Run 9: ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 90 (51/51), then 6 rounds of
#   head / rs2 / abi / NVSHMEM: shmem_p_bw as in run 8 and shmem_atomic_latency -a fetch_add.
# Run 10: the GPU suite and the standard perf job at the shipped commit:
#   ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 90
#   MORI_PERF_RUN_TIMEOUT=40 tools/perf/run_benchmarks.sh /tmp/build-nv $OUT/bench
# Run 11: a second standard perf job with run 10's binaries (76c8af3):
#   MORI_PERF_RUN_TIMEOUT=40 tools/perf/run_benchmarks.sh /tmp/build-nv $OUT/bench
