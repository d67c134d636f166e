#!/usr/bin/env bash
# Runs the standard mori-shmem-perf set for mori-shmem and then, when it was built, for NVSHMEM
# (mori-shmem-perf-nvshmem), one after the other in the same job, with `mpirun -np 2` (or
# MORI_PERF_NP PEs: a list of collective tests only, which run on any count from 2).
#
#   tools/perf/run_benchmarks.sh <build-dir> <out-dir>
#
# Writes into <out-dir>: one JSON and one log per run (<backend>_<nn>_<id>.json/.log), runs.tsv,
# bench_summary.txt (side-by-side table, targets, floors) and bench_results.json (commit, UTC
# date, machine, command lines, every number; for bench/results/).
#
# Environment: MORI_PERF_LIST (default: standard.list beside this script), MPIRUN (default:
# mpirun), MORI_PERF_NP (PEs, default 2), MORI_PERF_RUN_TIMEOUT (seconds per run, default 180), MORI_COMMIT (the commit to
# record; default: the checkout's HEAD, which a copied tree may carry stale). The NVSHMEM twin gets LD_LIBRARY_PATH with the NVSHMEM library
# directory recorded at configure time (bootstrap and transport plugins live there); NVLink
# multicast stays off for both (NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1).
#
# With fewer visible GPUs than PEs, PEs share a GPU (run it under CUDA MPS: tools/run.sh
# starts it); the summary then says that the figures are one GPU's memory, not an interconnect,
# and judges only the ratios to NVSHMEM (summarize.py --shared-gpu).
#
# Exit status: 0 when every run exited 0; 1 when one failed (a failed verification included);
# 2 on bad usage. Unmet targets are reported in the summary, not in the exit status.
set -u -o pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <build-dir> <out-dir>" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || { echo "error: build directory '$1' not found" >&2; exit 2; }
mkdir -p "$2" || { echo "error: cannot create '$2'" >&2; exit 2; }
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
list=${MORI_PERF_LIST:-$here/standard.list}
mpirun_cmd=${MPIRUN:-mpirun}
npes=${MORI_PERF_NP:-2}
case "$npes" in '' | *[!0-9]* | 0 | 1) echo "error: MORI_PERF_NP='$npes' is not a PE count of 2 or more" >&2; exit 2 ;; esac
run_timeout=${MORI_PERF_RUN_TIMEOUT:-180}

[ -f "$list" ] || { echo "error: run list '$list' not found" >&2; exit 2; }
command -v "$mpirun_cmd" > /dev/null || { echo "error: '$mpirun_cmd' not found" >&2; exit 2; }
command -v python3 > /dev/null || { echo "error: python3 is needed for the summary" >&2; exit 2; }

mori_bin=$build/tools/perf/mori-shmem-perf
nv_bin=$build/tools/perf/mori-shmem-perf-nvshmem
if [ ! -x "$mori_bin" ]; then
  echo "error: $mori_bin is not built (ninja -C $build mori_shmem_perf)" >&2
  exit 2
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1

backends=(mori-shmem)
if [ -x "$nv_bin" ]; then
  nv_lib=$(cat "$build/tools/perf/nvshmem_lib_dir.txt" 2> /dev/null) || nv_lib=""
  if [ -z "$nv_lib" ] || [ ! -d "$nv_lib" ]; then
    echo "error: $nv_bin is built but its NVSHMEM library directory ('$nv_lib', from" \
      "$build/tools/perf/nvshmem_lib_dir.txt) is missing" >&2
    exit 2
  fi
  backends+=(nvshmem)
else
  echo "note: $nv_bin is not built (NVSHMEM not found at configure time): mori-shmem only"
fi

runs_tsv=$out/runs.tsv
: > "$runs_tsv"
status=0
job_start=$(date +%s)
for backend in "${backends[@]}"; do
  if [ "$backend" = nvshmem ]; then
    bin=$nv_bin
    env_prefix=(env "LD_LIBRARY_PATH=$nv_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  else
    bin=$mori_bin
    env_prefix=()
  fi
  n=0
  while read -r id test args; do
    case "$id" in '' | '#'* | '@'*) continue ;; esac
    n=$((n + 1))
    stem=$(printf '%s/%s_%02d_%s' "$out" "$backend" "$n" "$id")
    rm -f "$stem.json"
    # shellcheck disable=SC2206  # the list's arguments are plain words
    cmd=("${env_prefix[@]}" timeout "$run_timeout" "$mpirun_cmd" -np "$npes" "$bin" "$test" $args --json "$stem.json")
    printf '== %-10s %-16s %s\n' "$backend" "$id" "${cmd[*]}"
    t0=$(date +%s.%N)
    "${cmd[@]}" < /dev/null > "$stem.log" 2>&1  # mpirun would read the list from stdin
    rc=$?
    t1=$(date +%s.%N)
    secs=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
    grep -E '^&&&& PERF' "$stem.log" | sed 's/^/   /'
    if [ $rc -ne 0 ]; then
      status=1
      echo "   FAILED with exit status $rc ($([ $rc -eq 124 ] && echo "timed out after ${run_timeout}s" ||
        echo "see $stem.log")):"
      tail -n 5 "$stem.log" | sed 's/^/   | /'
    fi
    printf '%s\t%s\t%d\t%s\t%s\t%s\n' "$id" "$backend" "$rc" "$secs" "$stem.json" "${cmd[*]}" >> "$runs_tsv"
  done < "$list"
done
echo "== all runs took $(($(date +%s) - job_start)) s"

# --verify: in a tree without commits (a copied checkout) plain rev-parse prints "HEAD" and fails.
commit=${MORI_COMMIT:-$(git -C "$here" rev-parse --verify -q HEAD 2> /dev/null || echo unknown)}
date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
machine=$(nvidia-smi -L 2> /dev/null || rocm-smi --showproductname 2> /dev/null ||
  echo "unknown (no nvidia-smi or rocm-smi)")
shared=()
ngpu=$("$build/tools/info/mori-shmem-info" 2> /dev/null | sed -n 's/^GPUs: \([0-9][0-9]*\).*/\1/p')
[ -n "$ngpu" ] || ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
if [ "${ngpu:-0}" -lt "$npes" ]; then shared=(--shared-gpu); fi
python3 "$here/summarize.py" --list "$list" --runs "$runs_tsv" --out "$out" --commit "$commit" --date "$date_utc" \
  --machine "$machine" "${shared[@]}" || status=1
echo "== summary: $out/bench_summary.txt, combined JSON: $out/bench_results.json"
exit $status
