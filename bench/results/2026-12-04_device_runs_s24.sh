#!/bin/bash
# Device runs of the twenty-fourth session (2026-12-04), on nvidia-h200 (ONE H200: the PEs share
# the GPU under CUDA MPS; no figure here is an interconnect figure). .snapB is b6129f5 (the base, b).
#   A: v is this tree (b + the change below). A push's entry is per member in teams of up to 32
#      (collectives.hpp: pushAnnounce, pushAwait): each member sets its arrival word in every
#      other member (the direct release sync's words, the sync epoch's next value) and waits for
#      member j's just before its first put to j, instead of a sync (dissemination, 2 rounds of
#      signal + wait at 4 PEs) before every put. The host's spread form and its entry kernel keep
#      the whole entry (pushEntry: announce, then wait for every member). ptxas: the device
#      library's fcollect and alltoall functions' spill loads move by -32..+64 bytes (a wave's
#      push function 348 -> 384). test_collectives' back-to-back calls now have one member lag
#      ~20 us before checking its dest (a write for the next call before it entered shows).
#      .snapX is v with pushAwait waiting for nothing (no entry at all): its test_collectives
#      must fail (the lag catches writes into a member's dest before it entered).
#      Builds v, b, x; fcollect and alltoall at every scope (1-256 KiB in all) and on the stream
#      (32 KiB-1 MiB) at 4 PEs (b v v b) and 2 PEs (b v); v beside NVSHMEM; v's team suites; x's
#      test_collectives.
#      Prediction: 4 PEs: the push rows (one thread's from 1 KiB in all, a wave's from 32 KiB, a
#      block's and the stream's 128 KiB) 0.5-1.5 us lower (one direct announce instead of two
#      dissemination rounds, and the waits for later members overlap the puts to earlier ones;
#      the stream fcollect of 128 KiB 13.9-14.5 -> 13.0-13.5, NVSHMEM 13.7); the spread rows
#      (256 KiB and up) level or slightly lower (the first block's entry: one direct round
#      instead of two); 2 PEs level (one member: one round either way, nothing to overlap).
#   B: A's result: v slower than b on the push rows at 4 PEs (one thread's fcollect of 32 KiB in
#      all 40.8-41.0 -> 56.3-56.8 us, 256 KiB 283 -> 409; a block's of 256 KiB 11.7 -> 13.7; the
#      stream fcollect of 128 KiB 14.0-14.2 -> 14.9-15.0, NVSHMEM 13.9) and on the spread rows
#      (256 KiB 16.2-16.6 -> 17.0-17.2), whose put loops did not change; at 2 PEs one thread's
#      level, a block's of 128-256 KiB 0.3-0.6 us slower. x's test_collectives failed at np2-np5
#      (back to back: bad bytes where a peer wrote before the member entered), v's suites 30/30.
#      Which part costs? .snapV2 is b with a direct entry before the puts (each member sets its
#      arrival word in every other and waits for every other's; the put loops as b's); .snapV2s
#      is V2 with the entry's words apart from the exit barrier's (dissemination flags 32-63,
#      unused by teams of up to 32); .snapV1s is v with those apart words.
#      Builds b, v, v1s, v2, v2s; fcollect and alltoall at every scope (4-256 KiB in all, x4) and
#      the stream's (64-512 KiB) at 4 PEs (b v v1s v2 v2s v2s v2 v1s v b) and 2 PEs (b v2 v2s);
#      v2s beside NVSHMEM at 4 PEs.
#      Prediction: v2 and v2s faster than b at 4 PEs on the push and spread rows by the second
#      dissemination round (~0.3-0.8 us; the stream fcollect of 256 KiB 16.2-16.6 -> 15.6-16.1),
#      level at 2 PEs; v2s = v2 unless the shared words cost, in which case v1s also beats v.
#   C: B's result: v2 and v2s (the direct entry before the puts) no faster than b at 4 PEs: one
#      thread's and a block's rows level, a wave's 0.2-0.4 us slower, the stream's 128 KiB 0.5-1.0
#      slower (fcollect 14.19 -> 14.73-15.29, NVSHMEM 13.93); apart words changed nothing (v1s as
#      v, v2s as v2). So the entry's rounds are not where the time goes, and v's loss is in its
#      per-member waits: one thread's fcollect at 4 PEs 284 -> 414 us at 256 KiB in all where
#      alltoall lost 5%, at 2 PEs level. Suspect: the wait's system-scope acquire load before each
#      member's puts invalidates L1, where the fcollect re-reads one source for every member.
#      z is this tree (b's code, test_collectives with the lagging member). .snapV1r is v with
#      pushAwait a relaxed poll (no acquire, no timeout: a diagnostic, not a candidate).
#      Builds z (tests, perf) and v1r (perf); fcollect and alltoall at every scope at 4 PEs
#      (z v1r v1r z); z's team suites.
#      Prediction: if the acquire's L1 invalidation is the cost, v1r's one thread's fcollect at 4
#      PEs is back at z's (256 KiB in all ~284 us, not 414) and its block's 256 KiB at ~11.7, not
#      13.7; otherwise v1r as v.
#   C's result: v1r's one thread's fcollect at 4 PEs 284.9-285.2 us at 256 KiB in all (z
#      283.5-284.4, v 409-415), a block's 256 KiB 12.3 (z 11.7, v 13.7); the alltoalls as v's.
#      The acquire before each member's puts is the fcollect's loss (its one source read again
#      from L2); the rest is the per-member waits. z's suites 30/30. Nothing of v kept; the test
#      change lands (bench/results/2026-12-04T1830Z_h200x1_mps_push_entry_per_member.json).
#   D: w is this tree: mori_shmem_collective_launch and its grid query (shmem/collective_launch.cpp,
#      nvshmemx_collective_launch in mori/nvshmem.h), the resident-grid arithmetic moved to
#      shmem/resident_grid.hpp (the spread form's, unchanged). Builds w's tests; the suites of
#      the collective launch, the teams and the NVSHMEM compatibility (MPS, no client limit);
#      then test_collective_launch at 2 PEs with each client at 50% and at 25% of the GPU, and at
#      4 PEs at 25% (is a client limit below the PE's share refused by the cooperative launch, or
#      do its blocks wait?). No benchmark.
#   E: D's result: the team suites 30/30; test_collective_launch failed at np2 and np4, with and
#      without a client limit: the library's occupancy query and cooperative launch of the test's
#      kernel returned cudaErrorInvalidResourceHandle (the CUDA runtime is linked statically into
#      the library and into the program: a kernel's address names a kernel only in the program's
#      runtime), and the error, not cleared, then failed the runtime's next kernel launch check.
#      w now makes those runtime calls inline in the caller's program
#      (mori/shmem/collective_launch.hpp), the library keeping the checks, the grid and the
#      messages (mori_shmemi_collective_grid); the test sizes its buffers from the query (every
#      PE alike) and bounds its own waits. E runs D again on this tree.
#   F: E's result: 32/32 (test_collective_launch np2/np4 and the team suites), and
#      test_collective_launch passed under each client limit (the process then sees fewer SMs:
#      32 at 25%, 66 at 50%). F: this tree (w, then the C API files' shared c_api.hpp, and a grid
#      of 0 that includes NVSHMEM's dim3(0) = {0, 1, 1}); test_collective_launch at 2 and 4 PEs.
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
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s24P$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}


case "$phase" in
A)
  mkdir -p /tmp/job
  build v . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build x .snapX test_collectives mori_shmem_bootstrap_mpi &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s all -b 1K -e 256K -f 2 -n 100 -w 10"
      echo "cdl_alltoall  alltoall_latency -s all -b 1K -e 256K -f 2 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 32K -e 1M -f 2 -n 100 -w 10"
      echo "csb_alltoall  alltoall_on_stream -b 32K -e 1M -f 2 -n 100 -w 10"
    } > /tmp/s24P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-v/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for t in b v v b; do perfrun $t 4 a$((++i)); done
  for t in b v; do perfrun $t 2 a$((++i)); done
  mv $nv.off $nv
  perfrun v 4 nv
  perfrun v 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  team_suites v V 200
  SUITE_TESTS='collectives_np' SUITE_BUILD=0 SUITE_TEST_TIMEOUT=100 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-x \
    OUT=/tmp/suiteX timeout $((590 - SECONDS)) tools/gpu_suite.sh > /tmp/suiteX.log 2>&1
  echo "x test_collectives exit $? ($((SECONDS - start)) s): must fail"
  grep -E "GPU tests|failed" /tmp/suiteX.log | head
  grep -h "back to back" /tmp/suiteX/ctest-gpu.log | head -8
  (cd /tmp && tar -czf "$OUT/suiteX.tgz" suiteX suiteX.log)
  echo "total $((SECONDS - start)) s"
  ;;
B)
  mkdir -p /tmp/job
  build v . mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v1s .snapV1s mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v2 .snapV2 mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v2s .snapV2s mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s all -b 4K -e 256K -f 4 -n 100 -w 10"
      echo "cdl_alltoall  alltoall_latency -s all -b 4K -e 256K -f 4 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 64K -e 512K -f 2 -n 100 -w 10"
      echo "csb_alltoall  alltoall_on_stream -b 64K -e 512K -f 2 -n 100 -w 10"
    } > /tmp/s24P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-v2s/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for t in b v v1s v2 v2s v2s v2 v1s v b; do perfrun $t 4 b$((++i)); done
  for t in b v2 v2s; do perfrun $t 2 b$((++i)); done
  mv $nv.off $nv
  perfrun v2s 4 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobB.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
C)
  mkdir -p /tmp/job
  build z . $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  build v1r .snapV1r mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  { grep -E '^#' tools/perf/standard.list
    echo "cdl_fcollect  fcollect_latency -s all -b 4K -e 256K -f 4 -n 100 -w 10"
    echo "cdl_alltoall  alltoall_latency -s all -b 4K -e 256K -f 4 -n 100 -w 10"
  } > /tmp/s24P4.list
  . tools/mps.sh
  mps_start
  for t in z v1r v1r z; do perfrun $t 4 c$((++i)); done
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" job)
  team_suites z Z 300
  echo "total $((SECONDS - start)) s"
  ;;
D | E)
  build w . $tests test_collective_launch test_resident_grid mori_shmem_bootstrap_mpi
  SUITE_TESTS='collective_launch|resident_grid|nvshmem_unsupported|team_(np|rdma|device)|collectives|nvshmem_compat_(np|rdma)|example_allreduce|example_team_pipeline' \
    SUITE_BUILD=0 SUITE_TEST_TIMEOUT=120 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-w OUT=/tmp/suiteW \
    timeout 300 tools/gpu_suite.sh > /tmp/suiteW.log 2>&1
  echo "suites (w) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteW.log | head -20
  . tools/mps.sh
  mps_start
  for run in "2 50" "2 25" "4 25"; do
    set -- $run
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$2 timeout 100 mpirun -np $1 ../build-w/tests/gpu/test_collective_launch \
      > /tmp/suiteW/cl_np$1_pct$2.log 2>&1
    echo "test_collective_launch np$1 at $2%: exit $? ($((SECONDS - start)) s)"
    grep -E "PASSED|FAILED|rror|mori-test verdict" /tmp/suiteW/cl_np$1_pct$2.log | sort | uniq -c | head -12
  done
  mps_stop
  (cd /tmp && tar -czf "$OUT/suiteW.tgz" suiteW suiteW.log)
  echo "total $((SECONDS - start)) s"
  ;;
F)
  build w . test_collective_launch mori_shmem_bootstrap_mpi
  SUITE_TESTS='collective_launch' SUITE_BUILD=0 SUITE_TEST_TIMEOUT=120 SUITE_BENCH=0 MORI_GPU_BUILD=$PWD/../build-w \
    OUT=/tmp/suiteF timeout 200 tools/gpu_suite.sh > /tmp/suiteF.log 2>&1
  echo "test_collective_launch (w) exit $? ($((SECONDS - start)) s)"
  grep -E "GPU tests|failed|skip" /tmp/suiteF.log | head
  (cd /tmp && tar -czf "$OUT/suiteF.tgz" suiteF suiteF.log)
  echo "total $((SECONDS - start)) s"
  ;;
esac
