#!/bin/bash
# Device runs of the thirty-second session (2026-12-05), on ONE GPU: the PEs share it under CUDA
# MPS (4 PEs, 25% of the SMs each); no figure here is an interconnect figure.
#   Phases E-H run on branch exp-spread-threshold (its commits 87efc90..: the environment switches
#   they name exist only there); phase I on main.
#   E: branch exp-spread-threshold (the spread form's thresholds for fcollect / alltoall from
#      MORI_EXP_SPREAD_FROM / MORI_EXP_SPREAD_PER_BLOCK): the stream fcollect and alltoall of
#      64-512 KiB in all, NVSHMEM and five threshold pairs, interleaved, three rounds.
#      Prediction: the entry now runs in the data kernel (it did not when a 64 KiB threshold was
#      last tried), so 2-4 blocks at 128 KiB split the one block's 3.3-4.2 us of puts: the
#      128 KiB rows 14.4 / 15.0 -> 13.0-13.8 us (NVSHMEM 14.0 / 14.3); 256 KiB over 8 blocks
#      of 32 KiB 16.9 -> 16.0-16.5 (NVSHMEM 16.1).
#   E's result (H100, not H200: the lease gave an H100): spread forms cost ~19 us at any size from
#      64 to 512 KiB (thresholds 64-128 KiB: 18.3-20.2 us where one block took 13-16), so no lower
#      threshold helps; the prediction failed. NVSHMEM's one block: 14.8-15.1 (128 KiB), 17.0-17.3
#      (256 KiB); ours 15.5-16.0 and 18.6-19.0 (spread).
#   F: where the spread form's fixed cost goes: MORI_EXP_FLAGS switches parts of its entry and exit
#      (1: the blocks' exit fence a release, not seq_cst; 2: the last block's sync without its own
#      release; 4: block 0 runs the entry, no ticket; 8: no entry sync; 16: no exit sync; 8 and 16
#      are diagnostics that break the collective's guarantees, so their data checks may fail), at
#      thresholds 128 KiB / 64 KiB per block, 4 PEs.
#      Prediction: 1+2+4 take ~1.5-2 us off (one seq_cst fence, one fence, one atomic round trip).
#   F's result (H100): at 128-512 KiB in all the spread fcollect took 18.8-19.3 us (x0); x3
#      16.1-16.8 (the last block's second fence costs 2.7-3.0 us; alltoall 1.7-1.8); x4 -0.5-0.7; x8 (no entry)
#      15.9-16.1; x16 (no exit) 14.4-14.9; x24 (neither) 11.8-12.2; NVSHMEM 14.5 / 16.7 / 22.8.
#      Alltoall alike (x7 16.5-17.2; NVSHMEM 15.3-15.7 / 18.4-18.5 / 23.2-23.8).
#   G: on x7, the entry as one direct round (32) instead of dissemination's two, and without its
#      release for this PE's own memory (64), at 2 and 4 blocks for 128 KiB; the one-block form
#      (default thresholds) alongside.
#      Prediction: 32 takes 0.5-1 us off (one round trip of ~1 us instead of two), 64 ~0.5.
#   G's result (H200 this time): the direct entry (39, 103) and the entry without its own-memory
#      release (71) level with x7 within the runs' spread; 2 or 4 blocks at 128 KiB level. x7 at
#      256 KiB: fcollect 14.67-14.87 us against NVSHMEM 15.72-15.95, alltoall 15.46-15.65 against
#      16.70-17.01; at 128 KiB still behind (14.26-14.35 / 14.15-14.25 one block, NVSHMEM 13.59-13.98).
#   H: is the last block's second fence slow for what it waits for (the three reset stores to the
#      line its atomic just updated)? 128: the resets after the exit sync, the second fence kept.
#      Prediction: x129 within 0.5 us of x3 (then the fence stays and the protocol stays formal).
#   H's result: not run (the device machine did not start).
#   I: main with the spread exit rebuilt (every block releases and tells every member itself; one
#      block waits for all: no last-block hop, no second release): test_collectives np2-np5,
#      test_reducescatter np4 under MPS; then at 4 PEs the stream
#      fcollect and alltoall of 64-512 KiB in all (two rounds), broadcast and bfloat16 reduction
#      of 256 KiB-4 MiB (one), NVSHMEM beside each.
#      Prediction: the spread rows (256 and 512 KiB in all) at or below F's x3 / G's x7 (one
#      atomic round trip fewer than x7, the ticket kept): on an H200 fcollect 256 KiB ~14.5-14.9 us
#      against NVSHMEM 15.7-16.0, alltoall ~15.2-15.6 against 16.7-17.0; 64 and 128 KiB (one block)
#      unchanged; broadcast and reductions of 256 KiB and more 1-3 us lower than before.
#   I's result (H100): suites passed; 256 KiB in all fcollect 15.0-15.4 us against NVSHMEM
#      16.4-16.5, alltoall 15.4-15.7 against 17.7-17.8; 512 KiB 15.2-15.9 against 22.2-23.1; 128 KiB
#      (one block) still behind, 15.3-15.9 against 14.3-15.1
#      (bench/results/2026-12-05T1615Z_h100x1_mps_spread_exit_per_block.json, with I2: a 128 KiB
#      threshold on the same machine, not kept).
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
start=$SECONDS
B=$PWD/../build-a
say() { echo "$*" | tee -a "$OUT/steps.log"; }
build() {  # build <targets...>: configures (once) and builds ../build-a from this tree
  { [ -f "$B/build.ninja" ] ||
    cmake -S . -B "$B" -G Ninja -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 -DCMAKE_BUILD_TYPE=Release \
      > "$OUT/configure.log" 2>&1; } && ninja -C "$B" "$@" > "$OUT/build.log" 2>&1
  local rc=$?
  say "build exit $rc ($((SECONDS - start)) s)"
  [ $rc = 0 ] || tail -30 "$OUT/build.log"
  return $rc
}
# perf <name> <backend> <test> [env...]: one 4-PE run of <test> at 64-512 KiB in all.
perf() {
  local name=$1 backend=$2 test=$3
  shift 3
  local bin=$B/tools/perf/mori-shmem-perf pre=()
  if [ "$backend" = nvshmem ]; then
    bin=$B/tools/perf/mori-shmem-perf-nvshmem
    pre=("LD_LIBRARY_PATH=$(cat "$B/tools/perf/nvshmem_lib_dir.txt")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  fi
  env "${pre[@]}" "$@" timeout 60 mpirun -np 4 "$bin" "$test" -b 64K -e 512K -f 2 -n 200 -w 20 \
    --json "$OUT/$name.json" < /dev/null > "$OUT/$name.log" 2>&1
  echo "$name exit $? $(grep -E '^&&&& PERF' "$OUT/$name.log" | grep -oE '[0-9.]+ -us' | tr '\n' ' ')" >> "$OUT/steps.log"
}

case "$phase" in
E)
  build mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem test_collectives || exit 1
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  for round in 1 2 3; do
    for t in fcollect_on_stream alltoall_on_stream; do
      perf "r${round}_${t}_nvshmem" nvshmem $t
      perf "r${round}_${t}_base" mori $t
      perf "r${round}_${t}_f128p64" mori $t MORI_EXP_SPREAD_FROM=131072 MORI_EXP_SPREAD_PER_BLOCK=65536
      perf "r${round}_${t}_f128p32" mori $t MORI_EXP_SPREAD_FROM=131072 MORI_EXP_SPREAD_PER_BLOCK=32768
      perf "r${round}_${t}_f64p16" mori $t MORI_EXP_SPREAD_FROM=65536 MORI_EXP_SPREAD_PER_BLOCK=16384
      perf "r${round}_${t}_f256p32" mori $t MORI_EXP_SPREAD_FROM=262144 MORI_EXP_SPREAD_PER_BLOCK=32768
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  (cd "$B" && MORI_EXP_SPREAD_FROM=65536 MORI_EXP_SPREAD_PER_BLOCK=16384 timeout 120 \
    ctest -R '^test_collectives_np[34]$' --output-on-failure > "$OUT/ctest_collectives.log" 2>&1)
  say "test_collectives np3-np4 at spread 64K/16K exit $? ($((SECONDS - start)) s)"
  mps_stop
  say "total $((SECONDS - start)) s"
  ;;
F)
  build mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem || exit 1
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 MORI_EXP_SPREAD_FROM=131072 MORI_EXP_SPREAD_PER_BLOCK=65536
  for round in 1 2; do
    for t in fcollect_on_stream alltoall_on_stream; do
      perf "f${round}_${t}_nvshmem" nvshmem $t
      for x in 0 1 3 4 7 8 16 24 31; do perf "f${round}_${t}_x$x" mori $t MORI_EXP_FLAGS=$x; done
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  mps_stop
  (cd "$OUT" && tar -czf /tmp/logsF.tgz ./*.json ./f*.log && rm -f ./*.json ./f*.log && mv /tmp/logsF.tgz .)
  say "total $((SECONDS - start)) s"
  ;;
G)
  build mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem || exit 1
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  for round in 1 2; do
    for t in fcollect_on_stream alltoall_on_stream; do
      perf "g${round}_${t}_nvshmem" nvshmem $t
      perf "g${round}_${t}_onebl" mori $t
      for x in 7 39 71 103 15; do
        perf "g${round}_${t}_p64_x$x" mori $t MORI_EXP_FLAGS=$x MORI_EXP_SPREAD_FROM=131072 MORI_EXP_SPREAD_PER_BLOCK=65536
      done
      for x in 7 103; do
        perf "g${round}_${t}_p32_x$x" mori $t MORI_EXP_FLAGS=$x MORI_EXP_SPREAD_FROM=131072 MORI_EXP_SPREAD_PER_BLOCK=32768
      done
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  mps_stop
  (cd "$OUT" && tar -czf /tmp/logsG.tgz ./*.json ./g*.log && rm -f ./*.json ./g*.log && mv /tmp/logsG.tgz .)
  say "total $((SECONDS - start)) s"
  ;;
H)
  build mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem || exit 1
  . tools/mps.sh
  mps_start
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 MORI_EXP_SPREAD_FROM=131072 MORI_EXP_SPREAD_PER_BLOCK=65536
  for round in 1 2; do
    for t in fcollect_on_stream alltoall_on_stream; do
      perf "h${round}_${t}_nvshmem" nvshmem $t
      for x in 1 3 129 133 7; do perf "h${round}_${t}_x$x" mori $t MORI_EXP_FLAGS=$x; done
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  mps_stop
  (cd "$OUT" && tar -czf /tmp/logsH.tgz ./*.json ./h*.log && rm -f ./*.json ./h*.log && mv /tmp/logsH.tgz .)
  say "total $((SECONDS - start)) s"
  ;;
I)
  build mori_shmem_bootstrap_mpi mori_shmem_perf mori_shmem_perf_nvshmem test_collectives test_reducescatter || exit 1
  . tools/mps.sh
  mps_start
  (cd "$B" && timeout 150 ctest -R '^(test_collectives_np[2345]|test_reducescatter_np4)$' \
    --output-on-failure > "$OUT/ctest_I.log" 2>&1)
  say "suites exit $? ($((SECONDS - start)) s)"
  grep -E "Test +#|tests passed|FAILED" "$OUT/ctest_I.log" | sed 's/  */ /g' | tee -a "$OUT/steps.log"
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
  for round in 1 2; do
    for t in fcollect_on_stream alltoall_on_stream; do
      perf "i${round}_${t}_nvshmem" nvshmem $t
      perf "i${round}_${t}_mori" mori $t
    done
    say "round $round done ($((SECONDS - start)) s)"
  done
  for b in nvshmem mori; do
    for spec in "broadcast_on_stream" "reduction_on_stream -d bfloat16"; do
      name=i_$(echo "$spec" | cut -d' ' -f1)_$b
      pre=()
      bin=$B/tools/perf/mori-shmem-perf
      if [ "$b" = nvshmem ]; then
        bin=$B/tools/perf/mori-shmem-perf-nvshmem
        pre=("LD_LIBRARY_PATH=$(cat "$B/tools/perf/nvshmem_lib_dir.txt")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
      fi
      # shellcheck disable=SC2086
      env "${pre[@]}" timeout 60 mpirun -np 4 "$bin" $spec -b 256K -e 4M -f 4 -n 100 -w 10 --json "$OUT/$name.json" \
        < /dev/null > "$OUT/$name.log" 2>&1
      echo "$name exit $? $(grep -E '^&&&& PERF' "$OUT/$name.log" | grep -oE '[0-9.]+ -us' | tr '\n' ' ')" >> "$OUT/steps.log"
    done
  done
  mps_stop
  (cd "$OUT" && tar -czf /tmp/logsI.tgz ./*.json ./i*.log ./ctest_I.log && rm -f ./*.json ./i*.log && mv /tmp/logsI.tgz .)
  say "total $((SECONDS - start)) s"
  ;;
esac
