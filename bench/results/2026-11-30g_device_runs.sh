#!/bin/bash
# Device runs of 2026-11-30 (seventh session), all on nvidia-h200-x2. Build tree unpacked at
# /tmp/build-nv, environment as in 2026-11-30d_device_runs.sh (OMPI_ALLOW_RUN_AS_ROOT=1,
# NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1, CUDA_MODULE_LOADING=EAGER; NVSHMEM runs with
# LD_LIBRARY_PATH=$NVLIB and mpirun -x LD_LIBRARY_PATH). Probes (2026-11-30g_probes/) are built
# on the CPU machine against an include tree and /tmp/build-nv's libmori_shmem:
#   nvcc -O3 -arch=sm_90 -std=c++17 -x cu -I<tree>/include -I/tmp/build-nv/include <probe>.cpp
#        -L/tmp/build-nv -lmori_shmem -lmpi -o <probe>
# and run as LD_LIBRARY_PATH=/tmp/build-nv mpirun -np 2 -x LD_LIBRARY_PATH ./<probe> 20000.
# Record of every run: 2026-11-30T1408Z_h200x2_put_get_fast_path.json (and the standard job's).
P="-c 132 -t 1024"
# Run 1, at 3780187: get_path_probe; then 6 interleaved rounds of head / p2ponly / NVSHMEM, where
# exp/mori-shmem-perf-p2ponly is 3780187 with put's `case Transport::Rdma:` made a trap:
for b in mori-shmem-perf exp/mori-shmem-perf-p2ponly; do
  mpirun -np 2 tools/perf/$b shmem_put_bw -s warp $P -b 1M -e 4M -n 1000 -w 100
done
# Run 2, at 3780187: get_path_probe2, then shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000
#   -w 500 of both libraries.
# Run 3, at 3780187: copy_path_probe.
# Run 4, b90d2bd's device code (built before the commit; test_rma without its new cases):
ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 90          # 41/41 passed
#   get_path_probe2 built against the new headers; the standard job:
MORI_COMMIT=3780187+fastpath MORI_PERF_RUN_TIMEOUT=40 tools/perf/run_benchmarks.sh /tmp/build-nv $OUT/bench
#   (record 2026-11-30T1402Z_h200x2_perf_standard_commitb90d2bd.*)
# Run 5: 5 interleaved rounds of head (exp/mori-shmem-perf-head, built from 3780187) / new
#   (b90d2bd's device code) / NVSHMEM:
for b in exp/mori-shmem-perf-head mori-shmem-perf; do
  mpirun -np 2 tools/perf/$b shmem_put_bw -s warp $P -b 1M -e 4M -n 1000 -w 100
  mpirun -np 2 tools/perf/$b shmem_p_bw $P -b 8M -e 8M -n 200 -w 20 --msgrate
  mpirun -np 2 tools/perf/$b shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
  mpirun -np 2 tools/perf/$b shmem_atomic_bw -a add $P -b 8M -e 8M -n 100 -w 10 --msgrate
done
# Run 6, at b90d2bd: the GPU suite (41/41 passed), then 5 interleaved rounds of new /
#   exp/mori-shmem-perf-simple{0,1} (the warp copy's aligned path a plain strided loop, without /
#   with the line skew; built from b90d2bd with that change) / NVSHMEM:
for b in mori-shmem-perf exp/mori-shmem-perf-simple0 exp/mori-shmem-perf-simple1; do
  mpirun -np 2 tools/perf/$b shmem_put_bw -s warp $P -b 1M -e 32M -n 1000 -w 100
done
# Run 7, at c6c0e74: the GPU suite (41/41 passed); 4 interleaved rounds of old
#   (exp/mori-shmem-perf-b90d2bd) / new / NVSHMEM:
for b in exp/mori-shmem-perf-b90d2bd mori-shmem-perf; do
  mpirun -np 2 tools/perf/$b shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
  mpirun -np 2 tools/perf/$b shmem_p_latency -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 tools/perf/$b shmem_atomic_latency -a fetch_add -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 tools/perf/$b shmem_put_signal_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 tools/perf/$b shmem_p_bw $P -b 8M -e 8M -n 200 -w 20 --msgrate
done
#   then the standard job: MORI_COMMIT=c6c0e74 tools/perf/run_benchmarks.sh /tmp/build-nv $OUT/bench
#   (record 2026-11-30T1454Z_h200x2_perf_standard_commitc6c0e74.*; 2026-11-30T1455Z_*: the A/B)
# Run 8, 1cd9398's test_rma (registered-buffer sweep) on a27fd49's library: the GPU suite (41/41
#   passed), then mpirun -np 2 tests/gpu/test_rma --gtest_filter='RmaRegistered.*' (12/12).
