#!/bin/bash
# Device runs of the twentieth session (2026-12-03), on nvidia-h200 (ONE H200: the PEs share the
# GPU under CUDA MPS; no figure here is an interconnect figure). Trees: .snapB is 0b2b85d (the
# base). A: o is this tree then (0b2b85d + 2026-12-04_s20_o_spread_entry_capped_not_kept.patch).
# B: .snapO is o; h is this tree (0c1dfcf).
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
esac
