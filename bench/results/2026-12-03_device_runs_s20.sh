#!/bin/bash
# Device runs of the twentieth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). Trees: .snapB is 0b2b85d (the
# base). A: o is this tree then (0b2b85d + 2026-12-04_s20_o_spread_entry_capped_not_kept.patch).
# B: .snapO is o; h is this tree (0c1dfcf). C: .snapH is h's tree (ecb72a3); w is this tree then
# (ecb72a3 + 2026-12-04_s20_w_one_block_1024_threads_not_kept.patch). D: .snapH as in C; s64 is
# this tree then (589849a without its one-step broadcast layout); .snapS16 is s64 with
# kStagedBroadcastMaxBytes = 16 KiB. E: .snapS64 is s64; l is this tree (589849a).
#   A: the host's spread form in one kernel (shmem/team_kernels.cpp: spreadCall): its first block
#      to start runs the entry sync while the others wait for it, where the base ran the entry as a
#      one-block kernel before the data kernel; the grid capped so that the grids of all PEs on the
#      GPU are resident together (team_spread.hpp: spreadGridCap; session 17's one-kernel form,
#      uncapped at one block per SM, hung test_collectives_np2). Builds b, o; the stream
#      broadcast, fcollect, alltoall (64 KiB-2 MiB into each PE) and bfloat16 reduction (16 KiB-
#      4 MiB) at 4 PEs (b o o b) and 2 PEs (b o); o beside NVSHMEM; o's team suites (no MPS
#      percentage: the grids as large as the cap allows); s11's full 4-PE list if time is left.
#      Prediction: the spread rows at 4 PEs 20.5-21.8 -> 16.5-18 us (session 17's uncapped one
#      kernel: 17.1-17.7), so the 256 KiB fcollect and alltoall about level with NVSHMEM's
#      16.1-17.3; 2 PEs 10.4-11.1 -> 9.3-9.8; the 4 MiB bfloat16 reduction level (64 registers
#      kept); rows under 256 KiB level. Suites pass, none hangs.
#      Result (bench/results/2026-12-04T0020Z_h200x1_mps_spread_entry_in_kernel.json): as
#      predicted at 4 PEs (fcollect of 256 KiB 20.5-21.1 -> 16.0-16.2 us, NVSHMEM 16.1; alltoall
#      20.8-21.1 -> 16.4-17.0, 16.8; 1 MiB 20.5-21.1 -> 16.5-16.9) and 2 PEs (10.6-11.0 -> 9.1-9.7),
#      but the bfloat16 reduction of 4 MiB at 4 PEs 46.8-48.1 -> 63.5-63.9 us and of 2 MiB 33.2-34.4
#      -> 36.6-37.4: the cap halved its grid (132 -> 66 blocks). Suites 21/21.
#   B: the entry in the kernel only for grids within the cap (team_spread.hpp: spreadResidentGrid);
#      larger grids keep the base's one-block entry kernel and take up to one block per SM. Builds
#      b, o, h; the same stream rows at 4 PEs (b h o h b) and 2 PEs (b h); h beside NVSHMEM; h's
#      team suites; the full 4-PE list of h with NVSHMEM.
#      Prediction: h's rows as o's where the grid is within the cap (66 blocks at 4 PEs, 132 at
#      2), the bfloat16 reductions of 2 and 4 MiB at 4 PEs back at b's 33-34 and 47-48 us.
#      Result (the same record): as predicted up to 1 MiB (4 PEs fcollect of 256 KiB 16.3-16.7 us,
#      NVSHMEM 15.9) and for the reductions (4 MiB 47.4-48.3, b 46.6-47.0); the 2 MiB data rows at
#      4 PEs back at b's 22-23.5 (32 blocks, beyond the bound of 16 that a 25% share gives). Suites
#      21/21. h kept.
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
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $2)) MORI_PERF_LIST=${4:-/tmp/s20P$2.list} MORI_PERF_NP=$2 \
    MORI_COMMIT=$1 timeout 170 tools/perf/run_benchmarks.sh "$PWD/../build-$1" /tmp/job/$1_np$2_$3 \
    > /tmp/job/$1_np$2_$3.log 2>&1
  echo "$1 np$2 $3: exit $? ($((SECONDS - start)) s)"
}

case "$phase" in
A)
  mkdir -p /tmp/job
  build o . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cst_fcollect  fcollect_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_alltoall  alltoall_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_bcast     broadcast_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_reduce    reduction_on_stream -d bfloat16 -b 16K -e 4M -f 2 -n 100 -w 10"
    } > /tmp/s20P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s20F4.list
  . tools/mps.sh
  mps_start
  nv=../build-o/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b o o b; do perfrun $v 4 a$((++i)); done
  for v in b o; do perfrun $v 2 a$((++i)); done
  mv $nv.off $nv
  perfrun o 4 nv
  perfrun o 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  team_suites o O 150
  if [ $SECONDS -lt 480 ]; then
    mps_start
    perfrun o 4 full /tmp/s20F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobA.tgz" job)
  fi
  echo "total $((SECONDS - start)) s"
  ;;
B)
  mkdir -p /tmp/job
  build h . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build b .snapB mori_shmem_bootstrap_mpi mori_shmem_perf &
  build o .snapO mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "cst_fcollect  fcollect_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_alltoall  alltoall_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_bcast     broadcast_on_stream -b 64K -e 2M -f 2 -n 100 -w 10"
      echo "cst_reduce    reduction_on_stream -d bfloat16 -b 16K -e 4M -f 2 -n 100 -w 10"
    } > /tmp/s20P$np.list
  done
  { grep -E '^#' tools/perf/standard.list
    sed -n "/^cd_alltoall4 /,/^cs_sync4 /p" bench/results/2026-12-02_device_runs_s11.sh
  } > /tmp/s20F4.list
  . tools/mps.sh
  mps_start
  nv=../build-h/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in b h o h b; do perfrun $v 4 b$((++i)); done
  for v in b h; do perfrun $v 2 b$((++i)); done
  mv $nv.off $nv
  perfrun h 4 nv
  perfrun h 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobB.tgz" job)
  team_suites h H 150
  if [ $SECONDS -lt 480 ]; then
    mps_start
    perfrun h 4 full /tmp/s20F4.list
    mps_stop
    (cd /tmp && tar -czf "$OUT/jobB.tgz" job)
  fi
  echo "total $((SECONDS - start)) s"
  ;;
C)
  #    C: the one-block form of the host's broadcast, fcollect, collect and alltoall with 1024
  #    threads instead of 256 (w: every size; team_kernels.cpp: launchOneBlockData). Builds h, w;
  #    the stream broadcast, fcollect and alltoall of 256 B-256 KiB into each PE at 4 PEs
  #    (h w w h) and 2 PEs (h w); w beside NVSHMEM; w's team suites.
  #    Prediction: the rows that move data through one block (the push form of 128 KiB, the
  #    staged 32-64 KiB, broadcast's gets of 16-128 KiB) 0.5-1.5 us lower at 4 PEs (the stream
  #    alltoall of 128 KiB 14.9-15.2 -> 13.5-14.2, NVSHMEM 14.2-14.4); the one-step rows up to
  #    8 KiB per member level or up to 0.3 us higher (a sync over 4x the threads); the spread
  #    rows (256 KiB) unchanged. The threshold then goes where w stops being faster.
  #    Result (bench/results/2026-12-04T0050Z_h200x1_mps_staged_broadcast.json): not as predicted;
  #    w slower on most rows (4 PEs fcollect of 128 KiB 14.1-14.5 -> 14.7-14.9 us, of 32-64 KiB
  #    0.5-1 us higher, the one-step rows 0.3-0.7 higher), faster only at 16 KiB (8.4-8.8 ->
  #    7.9-8.4) and on broadcasts of 8-256 KiB at 4 PEs (0.1-0.6). Not kept. Found beside it: the
  #    stream broadcast of 8 and 16 KiB at 4 PEs, 12.7-13.5 us against NVSHMEM's 9.3 and 10.2 (the
  #    pull form: two syncs), not in the standard list. Suites on w 21/21.
  mkdir -p /tmp/job
  build w . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build h .snapH mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "csw_fcollect  fcollect_on_stream -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "csw_alltoall  alltoall_on_stream -b 256 -e 256K -f 2 -n 100 -w 10"
      echo "csw_bcast     broadcast_on_stream -b 256 -e 256K -f 2 -n 100 -w 10"
    } > /tmp/s20P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-w/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in h w w h; do perfrun $v 4 c$((++i)); done
  for v in h w; do perfrun $v 2 c$((++i)); done
  mv $nv.off $nv
  perfrun w 4 nv
  perfrun w 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobC.tgz" job)
  team_suites w W 150
  echo "total $((SECONDS - start)) s"
  ;;
D)
  #    D: a block's broadcast above the one-step limit staged (collectives.hpp: stagedExchange with
  #    LlOp::Broadcast): the root puts its source into every other member's stage half, every
  #    member sends its arrival word, each copies the root's region out; no entry or exit sync.
  #    Builds h, s64 (up to 64 KiB), s16 (up to 16 KiB); the stream broadcast (1-256 KiB) and a
  #    block's device broadcast (1-128 KiB) at 4 PEs (h s64 s16 s16 s64 h) and 2 PEs (h s64 s16);
  #    s64 beside NVSHMEM; s64's team suites.
  #    Prediction: at 4 PEs the stream broadcast of 8 and 16 KiB 12.7-13.5 -> 8-9 us (NVSHMEM 9.3,
  #    10.2), a block's device broadcast of 8-16 KiB as much lower; at 32-64 KiB s64 level with h
  #    or up to 1 us slower (the root stores 3x the bytes where each member loaded its own);
  #    sizes outside the staged range level.
  #    Result (bench/results/2026-12-04T0050Z_h200x1_mps_staged_broadcast.json): 4 PEs, the stream
  #    broadcast of 8 and 16 KiB 12.5-12.8 -> 10.2-10.8 us (NVSHMEM 9.1, 10.2), a block's device
  #    broadcast of 8 KiB 7.9 -> 5.6 (4.6) and 16-32 KiB 8.1-8.5 -> 5.9-6.9 (6.6, 16.3); s16 1.3-2.8
  #    us slower than s64 at 32-64 KiB. s64 kept; its 8 KiB rows still behind. Suites 21/21.
  mkdir -p /tmp/job
  build s64 . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build h .snapH mori_shmem_bootstrap_mpi mori_shmem_perf &
  build s16 .snapS16 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "csb_bcast     broadcast_on_stream -b 1K -e 256K -f 2 -n 100 -w 10"
      echo "cdb_bcast     bcast_latency -s block -b 1K -e 128K -f 2 -n 100 -w 10"
    } > /tmp/s20P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-s64/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in h s64 s16 s16 s64 h; do perfrun $v 4 d$((++i)); done
  for v in h s64 s16; do perfrun $v 2 d$((++i)); done
  mv $nv.off $nv
  perfrun s64 4 nv
  perfrun s64 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobD.tgz" job)
  team_suites s64 S 150
  echo "total $((SECONDS - start)) s"
  ;;
E)
  #    E: a broadcast's LL half laid out as an arrival slot per member and the root's region
  #    (ll_exchange.hpp: llBroadcastApplies), so that 8 KiB broadcasts take one step on teams of
  #    up to 1024 where they needed every member's region of 16 KiB in a 32 KiB half (teams of 2).
  #    Builds s64, l; the stream broadcast (1-64 KiB) and the device broadcast at every scope
  #    (64 B-32 KiB) at 4 PEs (s64 l l s64) and 2 PEs (s64 l); l beside NVSHMEM; l's team suites.
  #    Prediction: 4 PEs, a block's 8 KiB 5.6 -> 3.2-3.6 us (NVSHMEM 4.6), a wave's as much lower,
  #    the stream 8 KiB 10.3 -> 7.5-8 (9.1); other sizes and 2 PEs level.
  #    Result (the same record): as predicted: a block's 8 KiB 5.8 -> 3.3 us (NVSHMEM 4.6), a
  #    wave's 10.0 -> 5.7 (15.2), the stream's 10.3-10.4 -> 7.5-7.7 (9.2). Suites 21/21. l kept.
  mkdir -p /tmp/job
  build l . $tests mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem &
  build s64 .snapS64 mori_shmem_bootstrap_mpi mori_shmem_perf &
  wait
  for np in 4 2; do
    { grep -E '^#' tools/perf/standard.list
      echo "csb_bcast     broadcast_on_stream -b 1K -e 64K -f 2 -n 100 -w 10"
      echo "cdl_bcast     bcast_latency -s all -b 64 -e 32K -f 2 -n 100 -w 10"
    } > /tmp/s20P$np.list
  done
  . tools/mps.sh
  mps_start
  nv=../build-l/tools/perf/mori-shmem-perf-nvshmem
  mv $nv $nv.off
  for v in s64 l l s64; do perfrun $v 4 e$((++i)); done
  for v in s64 l; do perfrun $v 2 e$((++i)); done
  mv $nv.off $nv
  perfrun l 4 nv
  perfrun l 2 nv
  mps_stop
  (cd /tmp && tar -czf "$OUT/jobE.tgz" job)
  team_suites l L 150
  echo "total $((SECONDS - start)) s"
  ;;
esac
