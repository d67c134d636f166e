#!/bin/bash
# Device runs of the fourth session (2026-12-01/02), on nvidia-h200 (ONE H200: every multi-PE run
# has its PEs share the GPU under CUDA MPS; no figure here is an interconnect figure). The tree
# is `git archive <commit>` unpacked at .snap; the build tree is ../build-dev; $OUT comes back.
#   P: bench/micro/first_launch_probe ($B's): which first launches of a kernel (stack, printf, lazy
#      loading) wait for a running kernel, and which warm-ups prevent it. (Run 1 of this session ran
#      its first form, stack_growth_probe, prebuilt and carried at build-probe.)
#   M: bench/micro/block_copy_small_variants (prebuilt, carried at build-probe, or $B's), 200 and
#      1000 iterations: the block put's copy at 256 KiB-16 MiB, one process, local destination.
#   A: build everything at ../build-dev, then the GPU suites named by SUITE_TESTS (phase A of
#      2026-12-01_device_runs_s2.sh).
#   J: block put 1-32 MiB and shmem_p_bw, mori-shmem and NVSHMEM side by side, 3 times each.
#   N: test_launch_order with MORI_SHMEM_WARMUP=0 (expected to fail: the receivers give up
#      after 10 s), then with the reservation.
#   Q: block and warp put 256 KiB-4 MiB from prebuilt perf binaries (build-probe/perf, perf-old).
#   K: the collective rows (device and on a stream) with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 per
#      PE: NVSHMEM gives PEs sharing a GPU its full support (its on-stream collectives among it)
#      only when the PEs' MPS percentages add up to 100 or less; both libraries run so. The _ll
#      rows sweep 256 B-4 KiB by factors of 2 across the one-step (LL) limit of 1 KiB per member.
set -uo pipefail
phase=$1
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
B=$PWD/../build-dev
case "$phase" in
P)
  # first_launch_probe (built at $B): which first launches wait for a running kernel.
  probe=$B/bench/micro/first_launch_probe
  cases=${CASES:-"plain,none,0,EAGER stack,none,0,EAGER printf,none,0,EAGER both,none,0,EAGER stack,stack,0,EAGER
    printf,printf,0,EAGER printf,stack,0,EAGER stack,printf,0,EAGER both,both,0,EAGER stack,none,1,EAGER
    plain,none,0,LAZY plain,none,1,LAZY plain,plain,0,LAZY"}
  for mode in no-mps mps; do
    if [ $mode = mps ]; then . tools/mps.sh; mps_start; cases="both,none,0,EAGER both,both,0,EAGER"; fi
    for c in $cases; do
      IFS=, read -r guest warm pre loading <<< "$c"
      echo "{\"mode\": \"$mode\", \"case\": $(CUDA_MODULE_LOADING=$loading timeout 30 "$probe" "$guest" "$warm" "$pre" 2>&1)}"
    done
    if [ $mode = mps ]; then mps_stop; fi
  done | tee "$OUT/first_launch_probe.jsonl"
  ;;
M)
  bin=${MICRO:-build-probe/block_copy_small_variants}
  for it in 200 1000; do timeout 60 "$bin" $it; done | tee "$OUT/block_copy_small.jsonl"
  ;;
A) exec bench/results/2026-12-01_device_runs_s2.sh A ;;
N)
  . tools/mps.sh
  mps_start
  for r in 0 1; do
    MORI_SHMEM_WARMUP=$r timeout 60 mpirun -np 2 -x MORI_SHMEM_WARMUP "$B/tests/gpu/test_launch_order" \
      < /dev/null > "$OUT/launch_order_reserve$r.log" 2>&1
    echo "test_launch_order with MORI_SHMEM_WARMUP=$r: exit $?"
    grep -E "OK \]|FAILED \]|did not see|came after" "$OUT/launch_order_reserve$r.log" | head -6
  done
  mps_stop
  ;;
J | K)
  . tools/mps.sh
  mps_start
  grep -E '^#' tools/perf/standard.list > /tmp/s4.list
  if [ "$phase" = J ]; then
    for rep in 1 2 3; do
      cat >> /tmp/s4.list <<'LIST'
put_block        shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 32M -f 4 -n 200 -w 20 --msgrate
put_warp         shmem_put_bw -s warp -c 132 -t 1024 -b 1M -e 32M -f 4 -n 200 -w 20 --msgrate
p_bw             shmem_p_bw -c 132 -t 1024 -b 8M -e 64M -f 8 -n 50 -w 5 --msgrate
LIST
    done
  else
    export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
    cat >> /tmp/s4.list <<'LIST'
cd_alltoall      alltoall_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_bcast         bcast_latency -s all -b 8 -e 256K -f 32 -n 100 -w 10
cd_fcollect      fcollect_latency -s all -b 16 -e 256K -f 16 -n 100 -w 10
cd_reduce        reduction_latency -d float -s all -b 4 -e 256K -f 16 -n 100 -w 10
cd_barrier       barrier_latency -s all -n 1000 -w 100
cd_sync          sync_latency -s all -n 1000 -w 100
cd_bcast_ll      bcast_latency -s all -b 256 -e 4K -f 2 -n 200 -w 20
cd_fcollect_ll   fcollect_latency -s all -b 256 -e 4K -f 2 -n 200 -w 20
cs_alltoall      alltoall_on_stream -b 16 -e 16M -f 16 -n 20 -w 2
cs_bcast         broadcast_on_stream -b 8 -e 16M -f 32 -n 20 -w 2
cs_fcollect      fcollect_on_stream -b 16 -e 16M -f 16 -n 20 -w 2
cs_reduce        reduction_on_stream -d bfloat16 -b 4 -e 16M -f 16 -n 20 -w 2
cs_barrier       barrier_on_stream -n 300 -w 30
cs_sync          sync_on_stream -n 300 -w 30
LIST
  fi
  MORI_PERF_LIST=/tmp/s4.list MORI_BUILD=$B OUT=$OUT/job$phase MORI_COMMIT=${MORI_COMMIT:-unknown} \
    timeout "${JOB_TIMEOUT:-400}" tools/run.sh > "$OUT/job$phase.log" 2>&1
  echo "run.sh exit $?"; tail -60 "$OUT/job$phase/bench_summary.txt" 2>/dev/null
  mps_stop
  (cd "$OUT" && tar -czf job$phase.tgz job$phase && rm -rf job$phase)
  ;;
Q)
  # Prebuilt perf binaries carried at build-probe: perf/ (this commit's mori-shmem-perf with its
  # libraries, and mori-shmem-perf-nvshmem) and perf-old/ (mori-shmem-perf of 41eee47, the start of
  # this session): block and warp put 256 KiB-4 MiB, each binary in turn, 3 times.
  . tools/mps.sh
  mps_start
  nv=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
  for rep in 1 2 3; do
    for scope in block warp; do
      for b in perf-old/mori-shmem-perf perf/mori-shmem-perf perf/mori-shmem-perf-nvshmem; do
        d=$PWD/build-probe/$(dirname $b)
        log=$OUT/q_$(echo $b | tr / _)_${scope}_$rep.log
        LD_LIBRARY_PATH=$d:$nv timeout 60 mpirun -np 2 -x LD_LIBRARY_PATH "$PWD/build-probe/$b" shmem_put_bw -s $scope \
          -c 132 -t 1024 -b 256K -e 4M -f 2 -n 200 -w 20 < /dev/null > "$log" 2>&1
        echo "$b $scope rep $rep exit $?"; grep '&&&& PERF' "$log"
      done
    done
  done | tee "$OUT/q_all.txt"
  mps_stop
  ;;
*) echo "unknown phase $phase"; exit 2 ;;
esac
