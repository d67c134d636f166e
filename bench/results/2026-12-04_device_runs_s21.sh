#!/bin/bash
# Device runs of the twenty-first session (2026-12-04), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). .snapB is 178fd06 (the base, b).
#   F: n is this tree (b + the changes below). A wave's or block's broadcast of up to 16 KiB in one
#      step (ll_exchange.hpp: kLlMaxBroadcastBytesGroup; the LL halves 32 -> 40 KiB, the scratch
#      64 -> 80 KiB), where above 8 KiB a block staged and a wave pulled; a wave's broadcast keeps
#      one unit in flight only up to 128 B (kLlWaveFewBroadcastBytes), where it did up to 256.
#      Builds n, b; the device broadcast at every scope (64 B-32 KiB) and the stream broadcast
#      (1-64 KiB) at 4 PEs (b n n b) and 2 PEs (b n); n beside NVSHMEM; n's team suites; the full
#      4-PE list of n with NVSHMEM if time is left.
#      Prediction: 4 PEs, a wave's broadcast of 256 B 3.2 -> 2.6-2.8 us (NVSHMEM 2.7; its 512 B
#      2.7); a block's of 16 KiB 6.1-6.3 -> 4.2-4.6 (6.5), a wave's 11.5-12.6 -> 9-10.5 (28), the
#      stream's 10.8-11.2 -> 8.5-9.2 (10.4); at 2 PEs a wave's 16 KiB may be slower than its pull
#      (7.8 us; a wave's 8 KiB in one step takes 4.1), then the 16 KiB limit is a block's only.
#      Other rows level.
#      Result: the 16 KiB rows as predicted (4 PEs: a block's 6.1-6.2 -> 4.6, NVSHMEM 6.5; a wave's
#      11.4-11.5 -> 9.3-9.4; the stream's 10.7 -> 8.2-8.6, 10.5), but a wave's 256 B unchanged
#      (3.2) and its 512 B-8 KiB 0.4-0.5 us slower (512 B 2.7 -> 3.25), one thread's 128 B 3.7 ->
#      4.2, a wave's 64-128 B 0.25-0.3 lower. Suites 21/21.
#   G: where F's slower rows come from. Trees: .snapK (b + the wave's broadcast in flight alone),
#      .snapH (b + the 16 KiB broadcast in 40 KiB halves, the scratch left at 64 KiB and the other
#      one-step limits within half of it), .snapH80 (n without the in-flight change), .snapN (n).
#      Builds all five; the device broadcast and fcollect at every scope and the stream broadcast
#      at 4 PEs (b k h h80 n n h80 h k b) and 2 PEs (b k h h80 n); SASS of each device library;
#      h's team suites.
#      Prediction: k alone moves a wave's 129-256 B rows only; h, with no other function's
#      constants changed, keeps b's rows outside the 16 KiB broadcasts.
#      Result: k (the in-flight change alone) is what moved a wave's rows: its 64-128 B 0.2-0.35 us
#      lower, 256 B level (3.1), 512 B-8 KiB 0.4-0.5 higher, from the change of code (the SASS of
#      its broadcast function differs throughout). h and h80: b's rows, the 16 KiB broadcasts as n's,
#      but one thread's 128 B 3.8 -> 4.2 us: with 40 KiB halves the half's offset is no power of
#      two and the thread function's registers and spills moved (SASS). h's scratch of 64 KiB
#      under 40 KiB halves would overrun the scratch in RDMA alltoalls (not kept either way).
#      Suites on h 21/21.
#   H: h64 is this tree: the 16 KiB broadcast in 64 KiB halves with a 128 KiB scratch (every
#      offset a power of two, no code changed), so the one-step fcollect, alltoall and reduction
#      also take 8 KiB per member on teams of up to 4 (2 before); .snapW is h64 with
#      kLlWaveFewBytes = 128 (a constant only). Builds b, h64, w; the device broadcast, fcollect,
#      alltoall and float reduction at every scope and the stream broadcast and fcollect at 4 PEs
#      (b h64 w w h64 b) and 2 PEs (b h64 w); h64 beside NVSHMEM; h64's team suites and full 4-PE
#      list with NVSHMEM.
#      Prediction: h64 as n on the 16 KiB broadcasts (4 PEs: a block's 4.6, the stream's 8.2-8.6)
#      with every other broadcast row at b's (the thread function's code unchanged); a block's
#      fcollect and alltoall of 8 KiB per member at 4 PEs 6.6-6.8 -> 4-5 us (NVSHMEM 6.9), a
#      wave's 13.6 -> 10-12 (12.6); w: a wave's broadcast of 256 B 3.2 -> 2.7, its fcollect and
#      alltoall of 129-256 B per member within 0.2 us.
#      Result: h64's 16 KiB broadcasts as n's (4 PEs: a block's 6.2 -> 4.5-4.7 us, NVSHMEM 6.5; a
#      wave's 11.4-11.7 -> 9.0-9.4; the stream's 10.7-11.0 -> 8.4-9.2, 10.1) and every other
#      broadcast row at b's (one thread's 128 B 3.7). 8 KiB per member in one step: a block's
#      fcollect level (6.7), its alltoall 7.0 -> 7.3-7.8 (7.3), a wave's float reduction 20.5 ->
#      31.7 (46.9), a block's 12.5 -> 10.0, the stream fcollect of 32 KiB 11.7 -> 10.5. w: a wave's
#      broadcast of 256 B 3.2 -> 2.7 (2.7) but its fcollect and alltoall of 256 B per member 3.1-3.2
#      -> 4.0 and its float reduction of 256 B 4.55 -> 4.8. Suites on h64 21/21.
#   I: r is this tree: h64 with the fcollect, alltoall and reductions' one-step regions back within
#      32 KiB (ll_exchange.hpp: kLlRegionsMaxBytes); .snapF is r with a wave's broadcast keeping one
#      unit in flight up to 128 B (kLlWaveFewBytesBroadcast, the op a template argument of
#      llExchange, so that each function's code is w's or b's). Builds b, r, f; H's lists at 4 PEs
#      (b r f f r b) and 2 PEs (b r f); f beside NVSHMEM; SASS of each device library; f's team
#      suites, f's full 4-PE list with NVSHMEM and r's suites if time is left.
#      Prediction: r: b's rows but the 16 KiB broadcasts (h64's); f: r's rows but a wave's
#      broadcast of 256 B at 2.7 us.
#      Result (bench/results/2026-12-04T0340Z_h200x1_mps_ll_broadcast_16k.json): as predicted; 4
#      PEs, f: a block's broadcast of 16 KiB 6.0-6.1 -> 4.5-4.6 us (NVSHMEM 6.4), a wave's
#      11.5-11.9 -> 9.0-9.1 (28.5), the stream's 10.7-11.1 -> 8.0-8.2 (10.1), a wave's 256 B 3.2 ->
#      2.7 (2.7); every other row of the sweeps within noise of b's; 2 PEs a wave's 16 KiB 7.7 ->
#      6.9, a block's 3.7 -> 3.85 (NVSHMEM 4.4-4.5 in G and H). The SASS of every broadcast,
#      fcollect and alltoall function has b's instruction count in r and f. Suites on f and r 21/21.
#      f's full list: 12 of 146 rows below NVSHMEM, from spikes on stream paths the change did not
#      touch (the stream sync 12.9 us, 6.5 in h64's list of job H) and a block's fcollect of 32 B
#      per member (3.03 against 2.70; 2.56-2.63 in F and H). f kept.
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
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s21P$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}

case "$phase" in
F)
  mkdir -p /tmp/job
  build n . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_bcast     bcast_latency -s all -b 64 -e 32K -f 2 -n 100 -w 10"
      echo "csb_bcast     broadcast_on_stream -b 1K -e 64K -f 2 -n 100 -w 10"
    } > /tmp/s21P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s21F4.list
  . tools/mps.sh
  mps_start
  nv=../build-n/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b n n b; do perfrun $v 4 f$((++i)); done
  for v in b n; do perfrun $v 2 f$((++i)); done
  mv $nv.off $nv
  perfrun n 4 nv
  perfrun n 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobF.tgz" job)
  team_suites n N 150
  if [ $SECONDS -lt 400 ]; then
    mps_start
    perfrun n 4 full /tmp/s21F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobF.tgz" job)
  fi
  echo "total $((SECONDS - start)) s"
  ;;
G)
  mkdir -p /tmp/job
  build n .snapN mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build h .snapH $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build k .snapK mori_shmem_bootstrap_mpi mori_shmem_perf &
  build h80 .snapH80 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for v in b k h h80 n; do
    /usr/local/cuda/bin/cuobjdump -sass ../build-$v/shmem/device/CMakeFiles/mori_shmem_device.dir/team_general.cpp.o |
      gzip > "$OUT/sass_$v.gz"
  done
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_bcast     bcast_latency -s all -b 64 -e 32K -f 2 -n 100 -w 10"
      echo "cdl_fcollect  fcollect_latency -s all -b 128 -e 64K -f 4 -n 100 -w 10"
      echo "csb_bcast     broadcast_on_stream -b 1K -e 64K -f 2 -n 100 -w 10"
    } > /tmp/s21P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-n/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b k h h80 n n h80 h k b; do perfrun $v 4 g$((++i)); done
  for v in b k h h80 n; do perfrun $v 2 g$((++i)); done
  mv $nv.off $nv
  perfrun n 4 nv
  perfrun n 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobG.tgz" job)
  team_suites h H 150
  echo "total $((SECONDS - start)) s"
  ;;
H)
  mkdir -p /tmp/job
  build h64 . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build w .snapW mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_bcast     bcast_latency -s all -b 64 -e 32K -f 2 -n 100 -w 10"
      echo "cdl_fcollect  fcollect_latency -s all -b 256 -e 64K -f 2 -n 100 -w 10"
      echo "cdl_alltoall  alltoall_latency -s all -b 256 -e 64K -f 2 -n 100 -w 10"
      echo "cdl_reduce    reduction_latency -d float -s all -b 256 -e 16K -f 2 -n 100 -w 10"
      echo "csb_bcast     broadcast_on_stream -b 1K -e 64K -f 2 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 4K -e 128K -f 2 -n 100 -w 10"
    } > /tmp/s21P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s21F4.list
  . tools/mps.sh
  mps_start
  nv=../build-h64/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b h64 w w h64 b; do perfrun $v 4 h$((++i)); done
  for v in b h64 w; do perfrun $v 2 h$((++i)); done
  mv $nv.off $nv
  perfrun h64 4 nv
  perfrun h64 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobH.tgz" job)
  team_suites h64 H64 150
  if [ $SECONDS -lt 450 ]; then
    mps_start
    perfrun h64 4 full /tmp/s21F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobH.tgz" job)
  fi
  echo "total $((SECONDS - start)) s"
  ;;
I)
  mkdir -p /tmp/job
  build f .snapF $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build r . $tests mori_shmem_bootstrap_mpi mori_shmem_perf &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for v in b r f; do
    /usr/local/cuda/bin/cuobjdump -sass ../build-$v/shmem/device/CMakeFiles/mori_shmem_device.dir/team_general.cpp.o |
      gzip > "$OUT/sass_$v.gz"
  done
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cdl_bcast     bcast_latency -s all -b 64 -e 32K -f 2 -n 100 -w 10"
      echo "cdl_fcollect  fcollect_latency -s all -b 256 -e 64K -f 2 -n 100 -w 10"
      echo "cdl_alltoall  alltoall_latency -s all -b 256 -e 64K -f 2 -n 100 -w 10"
      echo "cdl_reduce    reduction_latency -d float -s all -b 256 -e 16K -f 2 -n 100 -w 10"
      echo "csb_bcast     broadcast_on_stream -b 1K -e 64K -f 2 -n 100 -w 10"
      echo "csb_fcollect  fcollect_on_stream -b 4K -e 128K -f 2 -n 100 -w 10"
    } > /tmp/s21P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s21F4.list
  . tools/mps.sh
  mps_start
  nv=../build-f/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b r f f r b; do perfrun $v 4 i$((++i)); done
  for v in b r f; do perfrun $v 2 i$((++i)); done
  mv $nv.off $nv
  perfrun f 4 nv
  perfrun f 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobI.tgz" job)
  team_suites f F 150
  if [ $SECONDS -lt 330 ]; then
    mps_start
    perfrun f 4 full /tmp/s21F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobI.tgz" job)
  fi
  [ $SECONDS -lt 370 ] && team_suites r R 90
  echo "total $((SECONDS - start)) s"
  ;;
esac
