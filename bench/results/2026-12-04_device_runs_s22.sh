#!/bin/bash
# Device runs of the twenty-second session (2026-12-04), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). .snapB is 8ccbda7 (the base, b).
#   J: n is this tree (b + the changes below). fcollect's push loads each 16-byte unit of its
#      source once and stores it to every load/store member's dest block (collectives.hpp:
#      fcollectPush, kPushFanout members at a time; impl::copyBytesToEach), where it put to one
#      member after another, loading the source again for each. .snapW is b with
#      kLlWaveFewBytesBroadcast = 64 (a constant only). The team suites now also run over the NIC
#      model at 3 and 4 PEs (and test_collectives at 5 PEs on P2P: two groups of the push).
#      Builds n, b, w; the device fcollect at every scope (256 B-256 KiB in all), a wave's
#      broadcast (64 B-1 KiB) and the stream fcollect (4-512 KiB) at 4 PEs (b n w w n b) and 2 PEs
#      (b n w); n beside NVSHMEM; n's team suites; n's full 4-PE list with NVSHMEM if time is left.
#      Prediction: 4 PEs, a wave's fcollect of 8 KiB per member (32 KiB in all) 13.5 -> 11-12 us
#      (NVSHMEM 12.35), of 16 KiB per member 16.3 -> 13-14.5; one thread's pushes (1-16 KiB per
#      member) 20-40% faster at the large end; a block's 32-64 KiB per member lower; the stream's
#      128 KiB 14.0 -> 13-13.5 (13.9); the one-step and staged rows (up to 4 KiB per member, a
#      block's up to 16) level. w: a wave's broadcast of 128 B 3.0 -> 2.7 (NVSHMEM 2.7), its 64 B
#      level.
#   K: J's fanout slower: one thread's pushes 3.5x (its 64 KiB per member 75.6 -> 264 us), a
#      wave's 8 KiB per member 13.5 -> 18.7, a block's 32-64 KiB per member +0.6, the stream's
#      128-512 KiB +1-1.5 (w: a wave's broadcast of 128 B 3.06 -> 2.75, NVSHMEM 2.68; its 64 B
#      level; suites 30/30 on n, the NIC model at 3 and 4 PEs and 5 PEs on P2P included). The
#      fanout's destinations and offsets were indexed at run time (local memory: ptxas's stack
#      frames grew by 64-88 bytes). n2 is this tree: every index a constant after unrolling
#      (registers); .snapN3 is n2 with 4 units in flight for one thread's and a wave's fanout (8
#      in n2, as their puts). Builds b, n2, n3; SASS of each device library; the device fcollect
#      at every scope and the stream fcollect at 4 PEs (b n2 n3 n3 n2 b) and 2 PEs (b n2 n3); n2
#      beside NVSHMEM; n2's team suites.
#      Prediction: n2 and n3 at or below b on every push row (one thread's 64 KiB per member 75 ->
#      50-65 us, a wave's 8 KiB per member 13.5 -> 11.5-12.5), the one-step and staged rows level.
#   L: K's result: n2 (registers) at 4 PEs: a wave's fcollect of 8-64 KiB per member 13.6-33.7 ->
#      12.9-27.2 us (NVSHMEM 12.4-50.3), one thread's of 2-64 KiB per member 2-14% lower but its
#      256-512 B per member 0.7-0.8 us higher, a block's push (32-64 KiB per member) 0.6-0.8
#      higher, the stream's 128-512 KiB ~1 higher; at 2 PEs one thread's 15-20% and a wave's 8-32
#      KiB 5-7% higher. n3 (4 units in flight) slower than n2 on every large row. Suites 30/30 on n2.
#      f is this tree: the fanout for a wave's fcollect only (one thread and a block put member by
#      member as in b), and kLlWaveFewBytesBroadcast = 64 (J's w). Builds b, f; the device fcollect
#      at every scope, a wave's broadcast (64 B-1 KiB) and the stream fcollect at 4 PEs (b f f b)
#      and 2 PEs (b f); f beside NVSHMEM; f's team suites; f's full 4-PE list with NVSHMEM.
#      Prediction: a wave's fcollect rows as n2's, a wave's broadcast of 128 B as w's (2.75), one
#      thread's, a block's and the stream's rows as b's.
#   M: L's result: as predicted (bench/results/2026-12-04T1300Z_h200x1_mps_push_fanout.json); f
#      kept (324718e). .snapB is now 324718e (b); .snapZ is b with a wave's broadcast keeping 4
#      units in flight at every size (kLlWaveFewBytesBroadcast = 0: llWithInFlight then has no
#      one-unit form for it; ptxas: the wave broadcast function's spill loads 1148 -> 940 bytes).
#      Builds b, z; a wave's broadcast of 8 B-32 KiB at 4 PEs (b z z b) and 2 PEs (b z); z beside
#      NVSHMEM; z's team suites.
#      Prediction: a wave's broadcast of 8-64 B 2.85-3.0 -> 2.6-2.75 us (NVSHMEM 2.72), the rest
#      level.
#      Result (bench/results/2026-12-04T1400Z_h200x1_mps_wave_broadcast_in_flight.json): b's own
#      8-64 B rows were 2.63-2.81 in this job (2.84-3.08 in L); z level or lower on every row at 4
#      PEs within the run-to-run spread (256 B 2.87-3.20 -> 2.78-2.79, 512 B 2.88-3.10 -> 2.78-2.79,
#      NVSHMEM 2.65 and 3.05), 1-4% lower on every row at 2 PEs. Suites 30/30 on z. z kept.
#   N: the landed tree's full 4-PE list with NVSHMEM (f's in L predates M's change). Builds this
#      tree's perf tools only; the full list; nothing else (the last 317 s of the session's
#      device time).
#      Result (bench/results/2026-12-04T1400Z_h200x1_mps_wave_broadcast_in_flight.json): 1 of 77
#      latency rows behind NVSHMEM (a block's fcollect of 16 KiB per member, 1.027x), 1 of 69
#      bandwidth rows (the same row).
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
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s22P$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}

case "$phase" in
J)
  mkdir -p /tmp/job
  build n . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build w .snapW mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s all -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "cdl_bcast     bcast_latency -s warp -b 64 -e 1K -f 2 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 4K -e 512K -f 2 -n 100 -w 10"
    } > /tmp/s22P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s22F4.list
  . tools/mps.sh
  mps_start
  nv=../build-n/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b n w w n b; do perfrun $v 4 j$((++i)); done
  for v in b n w; do perfrun $v 2 j$((++i)); done
  mv $nv.off $nv
  perfrun n 4 nv
  perfrun n 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobJ.tgz" job)
  team_suites n N 210
  if [ $SECONDS -lt 400 ]; then
    mps_start
    perfrun n 4 full /tmp/s22F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobJ.tgz" job)
  fi
  echo "total $((SECONDS - start)) s"
  ;;
K)
  mkdir -p /tmp/job
  build n2 . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build n3 .snapN3 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for v in b n2 n3; do
    /usr/local/cuda/bin/cuobjdump -sass ../build-$v/shmem/device/CMakeFiles/mori_shmem_device.dir/team_general.cpp.o |
      gzip > "$OUT/sass_$v.gz"
  done
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s all -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 4K -e 512K -f 2 -n 100 -w 10"
    } > /tmp/s22P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-n2/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b n2 n3 n3 n2 b; do perfrun $v 4 k$((++i)); done
  for v in b n2 n3; do perfrun $v 2 k$((++i)); done
  mv $nv.off $nv
  perfrun n2 4 nv
  perfrun n2 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobK.tgz" job)
  team_suites n2 N2 210
  echo "total $((SECONDS - start)) s"
  ;;
L)
  mkdir -p /tmp/job
  build f . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_fcollect  fcollect_latency -s all -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "cdl_bcast     bcast_latency -s warp -b 64 -e 1K -f 2 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 4K -e 512K -f 2 -n 100 -w 10"
    } > /tmp/s22P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s22F4.list
  . tools/mps.sh
  mps_start
  nv=../build-f/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b f f b; do perfrun $v 4 l$((++i)); done
  for v in b f; do perfrun $v 2 l$((++i)); done
  mv $nv.off $nv
  perfrun f 4 nv
  perfrun f 2 nv
  perfrun f 4 full /tmp/s22F4.list
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobL.tgz" job)
  team_suites f F 210
  echo "total $((SECONDS - start)) s"
  ;;
M)
  mkdir -p /tmp/job
  build z .snapZ $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_bcast     bcast_latency -s warp -b 8 -e 32K -f 2 -n 100 -w 10"
    } > /tmp/s22P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-z/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b z z b; do perfrun $v 4 m$((++i)); done
  for v in b z; do perfrun $v 2 m$((++i)); done
  mv $nv.off $nv
  perfrun z 4 nv
  perfrun z 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobM.tgz" job)
  team_suites z Z 200
  echo "total $((SECONDS - start)) s"
  ;;
N)
  mkdir -p /tmp/job
  build z . mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s22F4.list
  . tools/mps.sh
  mps_start
  perfrun z 4 full /tmp/s22F4.list
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobN.tgz" job)
  echo "total $((SECONDS - start)) s"
  ;;
esac
