#!/usr/bin/env bash
# What the device waits' abort-word read costs (issue 20 item 5): builds mori-shmem-perf twice from
# this tree, as shipped and with the read compiled out (-DMORI_SHMEM_ABORT_POLLS=0, a
# measurement-only switch of include/mori/device/spin.hpp), then runs put + quiet latency and
# ping-pong latency (8 bytes, thread scope) with 2 PEs, alternating the two builds, and writes the
# medians and their relative difference to $OUT/abort_poll_cost.json. NVIDIA only. With one GPU
# the two PEs share it under CUDA MPS (tools/mps.sh); with two or more each PE has its own.
#
#   OUT=<dir> bench/abort_poll_cost.sh            build, run, write $OUT/abort_poll_cost.json
#   ABORT_COST_BUILD_ONLY=1 bench/abort_poll_cost.sh   only configure and build both (no GPU needed)
#
# Environment: ABORT_COST_BUILD_ROOT (build trees; default <repo>/build-abort-cost), ABORT_COST_REPS
# (alternations, default 3), ABORT_COST_JOBS (compile jobs per build; both builds run at once;
# default nproc/2), MORI_COMMIT (recorded commit when the tree's git metadata is stale or absent).
# Exit: 0 every run passed its own verification, 1 a run failed, 2 a build failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench-out}
BROOT=${ABORT_COST_BUILD_ROOT:-$ROOT/build-abort-cost}
REPS=${ABORT_COST_REPS:-3}
NPROC=$(nproc)
JOBS=${ABORT_COST_JOBS:-$(((NPROC + 1) / 2))}
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$OUT" "$BROOT"
t0=$(date +%s)

# ---- builds: "default" (as shipped) and "no_abort_read" ------------------------------------------
builds=(default no_abort_read)
declare -A cuda_flags=([default]="" [no_abort_read]="-DMORI_SHMEM_ABORT_POLLS=0")
build_one() {  # <name>: configure (only the library and the perf tool) and build mori_shmem_perf
  local name=$1 dir=$BROOT/$1
  mkdir -p "$dir/tmp"
  TMPDIR=$dir/tmp cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_WERROR=ON \
    -DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90 -DMORI_BUILD_TESTS=OFF -DMORI_BUILD_EXAMPLES=OFF \
    -DMORI_BUILD_PYTHON=OFF -DMORI_BUILD_TOOLS=ON "-DCMAKE_CUDA_FLAGS=${cuda_flags[$name]}" \
    > "$OUT/build_$name.log" 2>&1 || return 1
  TMPDIR=$dir/tmp ninja -C "$dir" -j"$JOBS" mori_shmem_perf >> "$OUT/build_$name.log" 2>&1 || return 1
  # The switch must reach every CUDA compile (the device library's waits included), and only there.
  local with
  with=$(grep -c 'MORI_SHMEM_ABORT_POLLS=0' "$dir/compile_commands.json")
  if [ "$name" = default ] && [ "$with" -ne 0 ]; then
    echo "build $name: MORI_SHMEM_ABORT_POLLS set in $with compiles" >> "$OUT/build_$name.log"
    return 1
  fi
  if [ "$name" != default ] && [ "$with" -ne "$(grep -c '"command": ".*nvcc' "$dir/compile_commands.json")" ]; then
    echo "build $name: MORI_SHMEM_ABORT_POLLS=0 missing from some CUDA compiles" >> "$OUT/build_$name.log"
    return 1
  fi
}
echo "== building mori-shmem-perf twice ($JOBS jobs each, at once) under $BROOT"
declare -A pid
for b in "${builds[@]}"; do
  build_one "$b" &
  pid[$b]=$!
done
build_failed=0
for b in "${builds[@]}"; do
  if wait "${pid[$b]}"; then
    echo "   $b: built"
  else
    echo "   $b: BUILD FAILED ($OUT/build_$b.log):"
    tail -25 "$OUT/build_$b.log"
    build_failed=1
  fi
done
t_build=$(($(date +%s) - t0))
echo "   builds took ${t_build} s"
[ $build_failed = 0 ] || exit 2
[ "${ABORT_COST_BUILD_ONLY:-0}" = 1 ] && exit 0

# ---- runs ------------------------------------------------------------------------------------------
ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ' || true)
if [ "${ngpu:-0}" -lt 1 ]; then
  echo "no GPU visible (nvidia-smi -L): nothing measured" >&2
  exit 1
fi
if [ "$ngpu" -lt 2 ]; then
  # shellcheck source=tools/mps.sh
  . "$ROOT/tools/mps.sh"
  mps_start || echo "continuing without MPS: PEs that wait for each other in kernels will not finish" >&2
fi
declare -A test_args=(
  [put_lat]="shmem_put_latency -s thread -b 8 -e 8 -n 20000 -w 2000"
  [pingpong]="shmem_put_ping_pong_latency -s thread -b 8 -e 8 -n 20000 -w 2000"
)
tests=(put_lat pingpong)
mkdir -p "$OUT/runs"
run_failed=0
for rep in $(seq "$REPS"); do
  for b in "${builds[@]}"; do
    for t in "${tests[@]}"; do
      f=$OUT/runs/${t}_${b}_${rep}
      # shellcheck disable=SC2086  # the test's arguments are words
      timeout 120 mpirun -np 2 "$BROOT/$b/tools/perf/mori-shmem-perf" ${test_args[$t]} --json "$f.json" \
        < /dev/null > "$f.log" 2>&1
      rc=$?
      echo "   rep $rep $b $t: exit $rc $(grep -m1 '&&&& PERF' "$f.log" | awk '{print $3, $4}')"
      [ $rc = 0 ] || { run_failed=1; tail -5 "$f.log"; }
    done
  done
done

# ---- record ----------------------------------------------------------------------------------------
commit=${MORI_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null || echo unknown)}
machine=$(nvidia-smi -L 2> /dev/null | tr '\n' ';')
python3 - "$OUT" "$commit" "$machine" "$REPS" "$((t_build))" "$(($(date +%s) - t0))" "$ngpu" \
  "${test_args[put_lat]}" "${test_args[pingpong]}" << 'PY'
import datetime, glob, json, os, statistics, sys
out, commit, machine, reps, t_build, t_total, ngpu, put_args, pp_args = sys.argv[1:]
builds = ["default", "no_abort_read"]
res = {"what": "cost of the device waits' abort-word read (issue 20 item 5): the shipped build against one "
               "compiled with -DMORI_SHMEM_ABORT_POLLS=0 (abort word never read), alternating builds",
       "commit": commit, "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"), "machine": machine,
       "pes": "2 PEs on one GPU under CUDA MPS" if int(ngpu) < 2 else "2 PEs, one GPU each",
       "command": "bench/abort_poll_cost.sh", "build_s": int(t_build), "total_s": int(t_total), "tests": {}}
for test, args in (("put_lat", put_args), ("pingpong", pp_args)):
    entry = {"args": "mpirun -np 2 mori-shmem-perf " + args, "units": None}
    for b in builds:
        vals = []
        for r in range(1, int(reps) + 1):
            path = os.path.join(out, "runs", f"{test}_{b}_{r}.json")
            try:
                rows = json.load(open(path)).get("results", [])
            except (OSError, ValueError):
                rows = []
            if rows:
                vals.append(rows[0]["value"])
                entry["units"] = rows[0]["units"]
        entry[b] = {"values": vals, "median": statistics.median(vals) if vals else None}
    d, n = entry["default"]["median"], entry["no_abort_read"]["median"]
    entry["relative_difference"] = (d - n) / n if d is not None and n else None
    entry["note"] = "relative_difference = (default - no_abort_read) / no_abort_read; positive: the read costs"
    res["tests"][test] = entry
json.dump(res, open(os.path.join(out, "abort_poll_cost.json"), "w"), indent=1)
for t, e in res["tests"].items():
    print(f"{t}: default {e['default']['median']} no_abort_read {e['no_abort_read']['median']} {e['units']} "
          f"relative {e['relative_difference']}")
PY
echo "== $OUT/abort_poll_cost.json ($(($(date +%s) - t0)) s in all)"
exit $run_failed
