#!/bin/bash
# Device runs of the twenty-fifth session (2026-12-04), on nvidia-h200 (ONE H200: the PEs share
# the GPU under CUDA MPS; no figure here is an interconnect figure). b is e842951 (this tree).
#   A: t is .snapT = b with the host's one-block kernels at 512 threads (team_kernels.cpp kThreads
#      256 -> 512). Session 20 tried 1024 (slower: a 1024-thread block caps a thread at 64
#      registers and these kernels use 72-80, so they spilled); at 512 the cap is 128 and ptxas
#      reports no spill in any of them (fcollect 74 -> 72 registers, alltoall 78 -> 80).
#      Builds b and t; every stream collective (16 B-1 MiB) at 4 PEs (b t t b) and 2 PEs (b t),
#      t beside NVSHMEM at 4 PEs; t's team suites.
#      Prediction: 4 PEs, the one-block data rows that move 32 KiB or more through the block
#      (fcollect and alltoall 64-128 KiB in all, broadcast 32-128 KiB) 0.3-1 us lower (half the
#      copy loop's passes: the stream fcollect of 128 KiB 14.0-14.2 -> 13.3-13.8, NVSHMEM 13.9;
#      alltoall 14.7-15.0 -> 14.0-14.5, NVSHMEM 14.2); one-step rows, barrier and sync level or up
#      to 0.2 us higher (16 warps at each __syncthreads instead of 8); spread rows (256 KiB and up)
#      level (their kernels unchanged, only the entry kernel when the grid is too large).
#   B: A's result: the alltoall and fcollect lines failed at 4 PEs (a size of 16 B does not split
#      over 4 PEs: the list's mistake); broadcast, reduction, barrier and sync at 4 PEs level,
#      except the reduction of 2 KiB 8.96-9.06 -> 7.83-7.86 us; t's team suites 30/30. B runs
#      alltoall and fcollect from 32 B, and reductions of 512 B-8 KiB, at 4 PEs (b t t b b t)
#      and 2 PEs (b t t b), t beside NVSHMEM at 4 PEs.
#   C: B's result: 4 PEs, the stream reductions (bfloat16) of 2 and 4 KiB lower at 512 threads
#      (8.95-9.1 -> 7.65-8.0 and 11.4-11.5 -> 9.1-9.6 us, NVSHMEM 15.6, 17.0), 512 B-1 KiB and
#      8 KiB level; fcollect and alltoall moved by noise only (128 KiB in all: fcollect
#      14.04-14.38 -> 14.14-14.62, NVSHMEM 13.91; alltoall 14.61-15.14 -> 14.54-14.85, NVSHMEM
#      14.25); at 2 PEs the reduction of 8 KiB 7.43-7.55 -> 5.5-5.6, the rest noise (single runs
#      move 1 us there). c is this tree: only the one-block reduction kernel at 512 threads
#      (kReduceThreads), the others at 256. Builds b and c; stream reductions of bfloat16, float
#      and int from 4 B, and the stream sync, at 4 PEs and 2 (b c c b), c beside NVSHMEM at 4 PEs;
#      c's team suites.
#      Prediction: c's reductions of 2-4 KiB (bfloat16) as t's in B, the float and int rows of
#      the same bytes (one-block staged form) lower alike; spread sizes (from 256 KiB loaded) and
#      one-step sizes level; sync level (its kernel unchanged).
#   D: C's result (another machine than A-B): c level with b on every reduction row, b already
#      at t's level of B (bfloat16 4 KiB 9.48-9.56); c's team suites 30/30. D runs B's reduction
#      sizes (512 B-8 KiB, bfloat16 and float) at 4 PEs, b c c b b c, on C's machine.
#   D's result: level (bfloat16 2 KiB b 7.89-8.09, c 7.93-8.22; 4 KiB b 9.25-9.46, c 9.52-9.58).
#      c kept: lower on A-B's machine, level on C-D's, no row slower
#      (bench/results/2026-12-04T2000Z_h200x1_mps_one_block_512_threads.json).
#   E: e is .snapE, this tree: strided RMA (<type>_iput / _iget at every scope) and typed
#      put-with-signal in the device API, NVSHMEM's typed, sized and strided names (device) and
#      typed / sized / _nbi on-stream RMA (host) in mori/nvshmem.h, the signal and compare
#      constants in mori/shmem.h (host programs can name them). Builds e's RMA, signal, element,
#      device-error and NVSHMEM-compatibility tests; runs them over P2P (np2, np4), through the
#      NIC model (three providers) and the DMA model. No benchmark.
#   F: E's result: 29/29. F runs RmaStrided alone (np2, np4, bnxt's NIC model, the DMA model),
#      the strided device-error case and the compatibility test at np4 with their output kept.
#   G: F's result: passed (RmaStrided 37 ms at np2, 122 at np4, 1118 through bnxt's model, 121
#      through the DMA model). .snapE is now this tree, where iput and iget are one function
#      (operations.hpp: strided<S, kPut>); G runs E again on it.
#   G's result: 29/29 (bench/results/2026-12-04T2015Z_h200x1_mps_strided_rma_tests.json).
#   H: a diagnostic, not a candidate. .snapP is this tree with push() (collectives.hpp) timing
#      its phases (clock64 around the entry, the puts and the exit barrier; globaltimer around the
#      whole) and printing one call in 37 from rank 0. The stream fcollect (32 KiB-512 KiB in
#      all; 512 KiB is the spread form, which does not call push), alltoall and a block's device
#      fcollect at 4 PEs. Question: where does the push's time grow from 32 to 128 KiB in all
#      (~2.7 us, NVSHMEM's ~1.4)? Prediction: mostly the puts (the exit barrier's system release
#      waits for them too), the entry level.
#   H's result: only 128 KiB in all pushes (32 KiB per member); its time is in about thirds: the
#      stream fcollect entry 3.1 us, puts 3.3, exit 3.5; the stream alltoall 2.9, 4.2, 3.9; a
#      block's device fcollect 1.5, 2.9, 3.0 (bench/results/2026-12-04T2110Z_h200x1_mps_push_phase_timing.json).
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
i=0
tests="test_team test_collectives test_nvshmem_compat test_team_device_errors allreduce team_pipeline mori_nic_model"
build() {  # build <name> <source dir> <targets...>: configures (once) and builds ../build-<name>
  local name=$1 src=$2
  shift 2
  { [ -f ../build-$name/build.ninja ] ||
    cmake -S "$src" -B ../build-$name -G Ninja -DMORI_GPU_PLATFORM=nvidia -DCMAKE_BUILD_TYPE=Release \
      > "/tmp/${name}_configure.log" 2>&1; } && ninja -C ../build-$name "$@" > "/tmp/${name}_build.log" 2>&1
  local rc=$?
  echo "$name build exit $rc ($((SECONDS - start)) s)"
  [ $rc = 0 ] || tail -20 "/tmp/${name}_build.log"
}
team_suites() {  # team_suites <tree> <tag> <timeout>: the team suites of ../build-<tree>, logs in $OUT/suite<tag>.tgz
  SUITE_TESTS='team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=100 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-$1 OUT=/tmp/suite$2 \
    timeout $3 tools/gpu_suite.sh > /tmp/suite$2.log 2>&1
  echo "team suites ($1) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suite$2.log | head -20
  (cd /tmp && tar -czf "$OUT/suite$2.tgz" suite$2 suite$2.log)
}
perfrun() {  # perfrun <tree> <np> <tag> [list]
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s25.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}

case "$phase" in
A)
  mkdir -p /tmp/job
  build t .snapT $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b . mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  { grep -E '^#' tools/perf/standard.list
    echo "csl_alltoall  alltoall_on_stream -b 16 -e 1M -f 4 -n 100 -w 10"
    echo "csl_bcast     broadcast_on_stream -b 8 -e 1M -f 8 -n 100 -w 10"
    echo "csl_fcollect  fcollect_on_stream -b 16 -e 1M -f 4 -n 100 -w 10"
    echo "csl_reduce    reduction_on_stream -d bfloat16 -b 4 -e 1M -f 8 -n 100 -w 10"
    echo "cs_barrier    barrier_on_stream -n 500 -w 50"
    echo "cs_sync       sync_on_stream -n 500 -w 50"
  } > /tmp/s25.list
  . tools/mps.sh
  mps_start
  nv=../build-t/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for t in b t t b; do perfrun $t 4 a$((++i)); done
  for t in b t; do perfrun $t 2 a$((++i)); done
  mv $nv.off $nv
  perfrun t 4 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  team_suites t T $((590 - SECONDS))
  echo "total $((SECONDS - start)) s"
  ;;
B)
  mkdir -p /tmp/job
  build t .snapT mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b . mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  { grep -E '^#' tools/perf/standard.list
    echo "csl_alltoall  alltoall_on_stream -b 32 -e 1M -f 4 -n 100 -w 10"
    echo "csl_fcollect  fcollect_on_stream -b 32 -e 1M -f 4 -n 100 -w 10"
    echo "csl_reduce    reduction_on_stream -d bfloat16 -b 512 -e 8K -f 2 -n 100 -w 10"
  } > /tmp/s25.list
  . tools/mps.sh
  mps_start
  nv=../build-t/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for t in b t t b b t; do perfrun $t 4 b$((++i)); done
  for t in b t t b; do perfrun $t 2 b$((++i)); done
  mv $nv.off $nv
  perfrun t 4 nv
  mps_stop
  (cd /tmp && rm -rf jobB && mv job jobB && tar -czf "$OUT/jobB.tgz" jobB)
  echo "total $((SECONDS - start)) s"
  ;;
C)
  mkdir -p /tmp/job
  build c .snapC $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b . mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  { grep -E '^#' tools/perf/standard.list
    echo "csr_bf16   reduction_on_stream -d bfloat16 -b 4 -e 1M -f 4 -n 100 -w 10"
    echo "csr_float  reduction_on_stream -d float -b 4 -e 1M -f 4 -n 100 -w 10"
    echo "csr_int    reduction_on_stream -d int32 -b 4 -e 64K -f 4 -n 100 -w 10"
    echo "cs_sync    sync_on_stream -n 500 -w 50"
  } > /tmp/s25.list
  . tools/mps.sh
  mps_start
  nv=../build-c/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for t in b c c b; do perfrun $t 4 c$((++i)); done
  for t in b c c b; do perfrun $t 2 c$((++i)); done
  mv $nv.off $nv
  perfrun c 4 nv
  mps_stop
  (cd /tmp && rm -rf jobC && mv job jobC && tar -czf "$OUT/jobC.tgz" jobC)
  team_suites c C $((590 - SECONDS))
  echo "total $((SECONDS - start)) s"
  ;;
D)
  mkdir -p /tmp/job
  build c .snapC mori_shmem_bootstrap_mpi mori_shmem_perf &
  build b . mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  { grep -E '^#' tools/perf/standard.list
    echo "csl_reduce    reduction_on_stream -d bfloat16 -b 512 -e 8K -f 2 -n 100 -w 10"
    echo "csr_float     reduction_on_stream -d float -b 512 -e 8K -f 2 -n 100 -w 10"
  } > /tmp/s25.list
  . tools/mps.sh
  mps_start
  for t in b c c b b c; do perfrun $t 4 d$((++i)); done
  mps_stop
  (cd /tmp && rm -rf jobD && mv job jobD && tar -czf "$OUT/jobD.tgz" jobD)
  echo "total $((SECONDS - start)) s"
  ;;
E | G)
  build e .snapE test_rma test_device_errors test_nvshmem_compat test_stream_rma test_signal_amo_sync \
    test_element_paths mori_nic_model mori_dma_model_plugin mori_shmem_bootstrap_mpi
  SUITE_TESTS='^test_(rma|stream_rma|signal_amo_sync|element_paths)_(np|rdma|sdma)|StrideLeavesTheHeap|^test_nvshmem_compat_(np|rdma)' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=300 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-e OUT=/tmp/suiteE \
    timeout $((590 - SECONDS)) tools/gpu_suite.sh > /tmp/suiteE.log 2>&1
  echo "suites (e) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteE.log | head -20
  grep -E "Test +#.*(sec|Not Run)" /tmp/suiteE/ctest-gpu.log | sed 's/  */ /g' | head -60
  (cd /tmp && tar -czf "$OUT/suiteE.tgz" suiteE suiteE.log)
  echo "total $((SECONDS - start)) s"
  ;;
H)
  mkdir -p /tmp/job
  build p .snapP mori_shmem_bootstrap_mpi mori_shmem_perf
  { grep -E '^#' tools/perf/standard.list
    echo "csd_fcollect  fcollect_on_stream -b 32K -e 512K -f 4 -n 100 -w 10"
    echo "csd_alltoall  alltoall_on_stream -b 32K -e 128K -f 4 -n 100 -w 10"
    echo "cdd_fcollect  fcollect_latency -s block -b 32K -e 128K -f 4 -n 100 -w 10"
  } > /tmp/s25.list
  . tools/mps.sh
  mps_start
  perfrun p 4 h1
  perfrun p 4 h2
  mps_stop
  grep -h "DIAG" /tmp/job/p_np4_h1/*.log | head -5
  (cd /tmp && rm -rf jobH && mv job jobH && tar -czf "$OUT/jobH.tgz" jobH)
  echo "total $((SECONDS - start)) s"
  ;;
F)
  . tools/mps.sh
  mps_start
  mkdir -p /tmp/suiteF
  GTEST_FILTER='RmaStrided.*' ctest --test-dir ../build-e -R '^test_rma_(np2|np4|rdma_bnxt_np2|sdma_np2)$' -V \
    > /tmp/suiteF/strided.log 2>&1
  echo "strided exit $? ($((SECONDS - start)) s)"
  ctest --test-dir ../build-e -R 'StrideLeavesTheHeap|^test_nvshmem_compat_np4$' -V > /tmp/suiteF/errors_compat.log 2>&1
  echo "errors/compat exit $? ($((SECONDS - start)) s)"
  mps_stop
  grep -hE "RmaStrided|NvshmemCompat|DeviceErrors|not in the symmetric heap|tests passed" /tmp/suiteF/*.log | sort | uniq -c
  (cd /tmp && tar -czf "$OUT/suiteF.tgz" suiteF)
  ;;
esac
