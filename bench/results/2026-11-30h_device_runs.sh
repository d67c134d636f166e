#!/bin/bash
# Device runs of 2026-11-30 (eighth session), all on nvidia-h200-x2. Build tree unpacked at
# /tmp/build-nv; environment: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUDA_MODULE_LOADING=EAGER MORI_SHMEM_HEAP_SIZE=1G;
# NVSHMEM runs with LD_LIBRARY_PATH=$NVLIB (the nvidia-nvshmem-cu13 package's lib). Each A/B run
# interleaves its variants round by round:
#   for r in rounds; do for b in variants; do mpirun -np 2 -x MORI_SHMEM_HEAP_SIZE <bin> <args>
#     --json ab/<tag>.<b>.<r>.json; done; done
# Variant binaries are tools/perf/mori-shmem-perf relinked with bench_p.cpp.o compiled by the
# build's own nvcc command from a changed tree (tools/perf/exp/mori-shmem-perf-<variant>).
# Records: 2026-11-30T1616Z_h200x2_perf_standard_commit956ec1d.*, 2026-11-30T1630Z_h200x2_p_fast_path_test.json.
P="-c 132 -t 1024"
# Run 1, at 956ec1d: the GPU suite (41/41 passed), the standard job, then 4 rounds of both libraries:
ctest -L gpu -E 'python_gpu|nic_model_rate' --timeout 90
MORI_COMMIT=956ec1d MORI_PERF_RUN_TIMEOUT=40 tools/perf/run_benchmarks.sh /tmp/build-nv $OUT/bench
for b in mori-shmem-perf mori-shmem-perf-nvshmem; do
  mpirun -np 2 tools/perf/$b shmem_p_bw $P -b 8M -e 8M -n 200 -w 20 --msgrate
  mpirun -np 2 tools/perf/$b shmem_p_bw -c 128 -t 1024 -b 8M -e 8M -n 200 -w 20 --msgrate
  mpirun -np 2 tools/perf/$b shmem_p_bw $P -b 8448K -e 8448K -n 200 -w 20 --msgrate
  mpirun -np 2 tools/perf/$b shmem_p_bw $P -b 8M -e 8M -n 1000 -w 20 --msgrate
done
# Run 2: pBwKernel's tid, threads and j as unsigned (mori, nvshmem) against the committed size_t
# (moriSizet, nvshmemSizet), 5 rounds:
#   mpirun -np 2 <bin> shmem_p_bw $P -b 8M -e 64M -f 8 -n 200 -w 20 --msgrate
# Run 3: the unsigned kernel (mori, nvshmem) against the same kernel whose loop stores through
# mori_shmem_ptr(dst, peer) / nvshmem_ptr(dst, peer), fetched once per iteration (moriRaw,
# nvshmemRaw; moriRawHeap4G with MORI_SHMEM_HEAP_SIZE=4G), 4 rounds, same arguments.
# Run 4: run 2's bench_p.cpp (unsigned loop index) in every binary, 5 rounds of -b 8M -e 8M -n 200
#   -w 20 --msgrate: mori (956ec1d's headers); moriStd (-DMORI_SHMEM_STANDARD_CALLS=1); moriNocall
#   (p's `pGeneral(...)` replaced by __trap()); moriNozero (p tests heapOffset <= size - 8, pe < 8
#   and the transport byte itself and stores to base + heapOffset, instead of testing the
#   returned window pointer against 0); moriRaw (run 3's); nvshmem.
# Run 5: as run 4 with moriFlag in place of moriNocall: the working tree that became ea26563
#   (heapP2pWindow returns a flag, and the inline base, 0 unless P2P, decides without the
#   transport byte), built with the committed bench_p.cpp (size_t index; run 2: the index alone
#   moves nothing in the default build).
# From run 6 on every binary has the committed bench_p.cpp (size_t index).
# Run 6, ea26563's device code (before its type-only refactor; bench_p and bench_rma SASS
#   identical): the GPU suite (41/41 passed), a standard job that is not kept (the script exported
#   MORI_SHMEM_HEAP_SIZE=1G, overriding the tool's heap size: its 1 GiB lines failed to allocate),
#   then 3 rounds of old (956ec1d's binary) / new / NVSHMEM:
for b in exp/mori-shmem-perf-956ec1d mori-shmem-perf; do
  mpirun -np 2 tools/perf/$b shmem_p_bw $P -b 8M -e 8M -n 200 -w 20 --msgrate
  mpirun -np 2 tools/perf/$b shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
  mpirun -np 2 tools/perf/$b shmem_put_latency -s thread -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 tools/perf/$b shmem_put_bw -s warp $P -b 1M -e 2M -n 1000 -w 100
done
# Run 7, at ea26563 (no MORI_SHMEM_HEAP_SIZE): the GPU suite (41/41 passed), the standard job
#   (record 2026-11-30T1651Z_h200x2_perf_standard_commitea26563.*), then 3 rounds as run 6 with
#   shmem_put_latency -b 8 -e 64 -f 8 and shmem_p_latency -b 8 -e 8 -n 10000 -w 1000 added.
#   ea26563 was reverted after it (see the record's findings).
# Run 8: tools/perf built with relocatable device code (record 2026-11-30T1724Z_h200x2_rdc_build_ab.json):
#   each GPU source compiled with the build's nvcc command + -rdc=true -maxrregcount=64, then
#   nvcc -dlink <objects> -o dlink.o and the build's host link with dlink.o -> exp/mori-shmem-perf-rdc.
#   2 rounds of default (by mistake ea26563's stale binary) / rdc / NVSHMEM:
for b in mori-shmem-perf exp/mori-shmem-perf-rdc; do
  mpirun -np 2 tools/perf/$b shmem_p_bw $P -b 8M -e 8M -n 200 -w 20 --msgrate
  mpirun -np 2 tools/perf/$b shmem_p_latency -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 tools/perf/$b shmem_get_latency -s thread -b 8 -e 64 -f 8 -n 5000 -w 500
  mpirun -np 2 tools/perf/$b shmem_put_latency -s thread -b 8 -e 8 -n 10000 -w 1000
  mpirun -np 2 tools/perf/$b shmem_put_bw -s warp $P -b 1M -e 2M -n 1000 -w 100
  mpirun -np 2 tools/perf/$b shmem_atomic_bw -a add $P -b 8M -e 8M -n 100 -w 10 --msgrate
  mpirun -np 2 tools/perf/$b shmem_put_signal_ping_pong_latency -s thread -b 8 -e 8 -n 10000 -w 1000
done
# Run 9 (default / std / rdc / NVSHMEM p_bw, 5 rounds, to settle runs 4-5 against run 8) was
#   refused: no 2-GPU machine was lent any more.
