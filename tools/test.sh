#!/usr/bin/env bash
# The test command (README): installs what it needs (Debian/Ubuntu packages), builds the NVIDIA
# (sm_90) and AMD (gfx90a;gfx940 with Debian's ROCm, or the ROCm default) variants with warnings
# as errors, runs every test, and builds the installed-package example for both platforms.
# Without GPUs every GPU test reports "Skipped" (never "Passed"); the summary after each platform's
# tests says how many were skipped and why. Before any build, tools/check_repo_paths.py checks that
# every repository path named in a comment or document exists.
#
#   tools/test.sh                 both platforms (those whose compiler is present)
#   MORI_TEST_PLATFORMS=nvidia    only one
#   MORI_TEST_BUILD_ROOT=dir      where build trees go (default ./build-test)
#   MORI_APT_LOCK_WAIT=seconds    how long to wait for another package install to finish (600)
#
# On a machine without an AMD GPU (no /dev/kfd) the AMD test programs never run on a GPU: the tests
# and the in-tree examples are compiled and linked for the first target only (MORI_TEST_ARCHS);
# the library, the tools, the Python module, the SDMA tests and the installed-package examples
# (the same example sources) are compiled and linked for every target, with warnings as errors.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_ROOT=${MORI_TEST_BUILD_ROOT:-$ROOT/build-test}
mkdir -p "$BUILD_ROOT"
JOBS=${MORI_TEST_JOBS:-$(nproc)}
# Each phase's time, for CI's budget: "   <what>: N s".
phase_start=$SECONDS
took() {
  echo "   $1: $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1

# ---- dependencies -------------------------------------------------------------------------------
# Runs an apt-get command; while another process holds the package manager's lock (an install or
# an unattended upgrade), waits and retries, up to MORI_APT_LOCK_WAIT seconds in all.
apt_get() {
  local waited=0 limit=${MORI_APT_LOCK_WAIT:-600} out rc
  while :; do
    rc=0
    out=$(LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get "$@" 2>&1) || rc=$?
    if [ $rc -ne 0 ] && grep -qE "Could not get lock|Unable to lock|Unable to acquire the dpkg frontend lock" <<<"$out"; then
      if [ $waited -ge "$limit" ]; then
        printf '%s\n' "$out" >&2
        echo "the package manager stayed locked for ${limit} s (MORI_APT_LOCK_WAIT); try again when it is free" >&2
        return $rc
      fi
      [ $waited -eq 0 ] && echo "   waiting up to ${limit} s for the package manager:" \
        "$(grep -m1 -oE "(Could not get lock|Unable to lock).*" <<<"$out")"
      sleep 3
      waited=$((waited + 3))
      continue
    fi
    [ $rc -ne 0 ] && printf '%s\n' "$out" >&2
    return $rc
  done
}

need=()
command -v python3 >/dev/null || need+=(python3)
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v mpirun >/dev/null || need+=(openmpi-bin)
[ -f /usr/include/x86_64-linux-gnu/openmpi/mpi.h ] || [ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] ||
  command -v mpicc >/dev/null || need+=(libopenmpi-dev)
[ -f /usr/include/infiniband/mlx5dv.h ] || need+=(libibverbs-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
# The socket bootstrap's join proof (HMAC-SHA256) uses libcrypto.
[ -f /usr/include/openssl/hmac.h ] || need+=(libssl-dev)
# The Python module (python/): the interpreter's headers and venv (nanobind etc. come from PyPI below).
python3 -c 'import os, sysconfig; assert os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
  2>/dev/null || need+=(python3-dev)
python3 -c 'import ensurepip' 2>/dev/null || need+=(python3-venv)
platforms=${MORI_TEST_PLATFORMS:-nvidia amd}
if [[ " $platforms " == *" amd "* ]] && ! command -v hipcc >/dev/null; then need+=(hipcc); fi
if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "== installing: ${need[*]}"
    apt_get update -qq
    apt_get install -y -qq "${need[@]}"
  else
    echo "missing packages: ${need[*]} (install them, or run as root on Debian/Ubuntu)" >&2
    exit 1
  fi
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# When a PE exits with a non-zero status (77: a GPU test without a GPU), mpirun stops the others
# with SIGTERM and waits odls_base_sigkill_timeout (1 s) before SIGKILL: 2.4 s instead of 0.35 s
# per skipped GPU test, 80 s of each platform's ctest. The exit status mpirun reports is the same.
export OMPI_MCA_odls_base_sigkill_timeout=0

# After ctest: how many tests were skipped, and why. ctest lists them under "did not run"; the
# reason is the "SKIPPED[ (PE n)]: reason" line each test printed (Testing/Temporary/LastTest.log).
skip_summary() {  # <platform> <build dir> <ctest output>
  awk -v platform="$1" '
    FILENAME == ARGV[1] {
      if (/^The following tests did not run:/) { list = 1; next }
      if (list && /^[ \t]+[0-9]+ - /) {
        name = $0; sub(/^[ \t]+[0-9]+ - /, "", name); sub(/ \([A-Za-z ]+\)$/, "", name)
        skipped[name] = 1; order[++n] = name; next
      }
      list = 0
      if (match($0, /tests passed, [0-9]+ tests? failed out of [0-9]+/)) { total = $NF }
      next
    }
    /^[0-9]+\/[0-9]+ Test: / { t = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", t); next }
    /^Output:$/ { out = 1; next }
    /^<end of output>$/ { out = 0; next }
    out && /SKIPPED/ && (t in skipped) && !(t in why) {
      r = $0; sub(/^.*SKIPPED( \(PE [0-9]+\))?: */, "", r); why[t] = r
    }
    END {
      printf "== %s: %d of %s tests skipped%s\n", platform, n, total == "" ? "?" : total, n ? ", because:" : ""
      fflush()
      for (i = 1; i <= n; ++i) count[(order[i] in why) ? why[order[i]] : "(the test printed no SKIPPED line)"]++
      for (r in count) printf "%6d  %s\n", count[r], r | "sort -rn"
      close("sort -rn")
    }' "$3" "$2/Testing/Temporary/LastTest.log"
}

# ---- Python build and test tools (python/, pyproject.toml) -------------------------------------
# A virtual environment with nanobind, scikit-build-core and pytest from PyPI, active for the CMake
# builds below (FindPython prefers $VIRTUAL_ENV), which then build the module for ctest's python_*.
PY_VENV=$BUILD_ROOT/venv
[ -x "$PY_VENV/bin/python" ] || python3 -m venv "$PY_VENV"
"$PY_VENV/bin/python" -m pip install -q scikit-build-core nanobind pytest numpy
export VIRTUAL_ENV=$PY_VENV PATH=$PY_VENV/bin:$PATH
took "packages and Python tools"

# ---- Python wheel (NVIDIA): pip wheel at the root (library and module only), installed into a
# fresh virtual environment, CPU tests run against it (wheel layout and find_package included).
# The wheel's environment is made now and the wheel is built from the end of the NVIDIA build on,
# both in the background: they use the CPU that the tests, the installed-package example and the
# configure steps leave idle (one core or less). The results are read at the end.
wheel_build_pid="" wheel_venv_pid=""
if [[ " $platforms " == *" nvidia "* ]] && command -v nvcc >/dev/null; then
  rm -rf "$BUILD_ROOT/wheel" "$BUILD_ROOT/wheel-venv" "$BUILD_ROOT/wheel-build"
  mkdir -p "$BUILD_ROOT/tmp"
  (python3 -m venv "$BUILD_ROOT/wheel-venv" && "$BUILD_ROOT/wheel-venv/bin/python" -m pip install -q pytest numpy) \
    >"$BUILD_ROOT/wheel-venv.log" 2>&1 &
  wheel_venv_pid=$!
  trap wait EXIT  # an early exit (a failed build) leaves no build running behind it
fi
start_wheel_build() {
  (
    start=$SECONDS
    MORI_WERROR=ON MORI_GPU_ARCHS=90 TMPDIR=$BUILD_ROOT/tmp python -m pip wheel "$ROOT" --no-deps \
      --no-build-isolation -w "$BUILD_ROOT/wheel" -C build-dir="$BUILD_ROOT/wheel-build" >"$BUILD_ROOT/wheel.log" 2>&1
    echo "$((SECONDS - start))" >"$BUILD_ROOT/wheel.seconds"
  ) &
  wheel_build_pid=$!
}

status=0
echo "== repository paths named in comments and docs"
python3 "$ROOT/tools/check_repo_paths.py" "$ROOT" || status=1
echo "== layers: includes point down, each CMakeLists.txt compiles its own folder (tools/check_layers.py)"
python3 "$ROOT/tools/check_layers.py" "$ROOT" && python3 "$ROOT/tools/check_layers_test.py" -q || status=1
took "repository checks"
for platform in $platforms; do
  build=$BUILD_ROOT/$platform
  case $platform in
    nvidia)
      command -v nvcc >/dev/null || { echo "== nvidia: nvcc not found, skipping this platform"; continue; }
      cfg=(-DMORI_GPU_PLATFORM=nvidia -DMORI_GPU_ARCHS=90) ;;
    amd)
      command -v hipcc >/dev/null || { echo "== amd: hipcc not found, skipping this platform"; continue; }
      cfg=(-DMORI_GPU_PLATFORM=amd -DCMAKE_CXX_COMPILER=hipcc)
      [ -n "${MORI_AMD_ARCHS:-}" ] && cfg+=("-DMORI_GPU_ARCHS=$MORI_AMD_ARCHS") ;;
    *) echo "unknown platform $platform" >&2; exit 2 ;;
  esac
  # Compilers' temporary files stay in the build tree (hipcc's clang leaves folders behind); the
  # tests keep the system TMPDIR (Open MPI's session sockets need a short path).
  mkdir -p "$build/tmp"
  echo "== $platform: configure"
  TMPDIR=$build/tmp cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_WERROR=ON "${cfg[@]}" \
    >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
  if [ "$platform" = amd ]; then
    # hipcc links the installed-package example; named targets keep it from probing for a GPU
    # (rocm_agent_enumerator, a Python traceback without the AMD driver).
    archs=$(sed -n 's/^MORI_GPU_ARCHS:[A-Z]*=//p' "$build/CMakeCache.txt")
    export HCC_AMDGPU_TARGET=${archs//;/,}
    # Tests' targets: the first one without an AMD GPU here, all of them with one. The targets
    # built are the ones configure reports (MORI_GPU_ARCHS may be empty: the ROCm default).
    built_archs=$(sed -n 's/^-- mori-shmem: platform amd, targets //p' "$build.configure.log" | head -1)
    [ -n "$built_archs" ] || { echo "configure did not report the AMD targets" >&2; exit 1; }
    test_archs=""
    [ -e /dev/kfd ] || test_archs=${built_archs%%;*}
    echo "   targets: $built_archs; tests and in-tree examples: ${test_archs:-$built_archs}"
    TMPDIR=$build/tmp cmake -B "$build" "-DMORI_TEST_ARCHS=$test_archs" \
      >>"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
  fi
  took "configured"
  echo "== $platform: build (warnings are errors)"
  TMPDIR=$build/tmp ninja -C "$build" -j"$JOBS" >"$build.build.log" 2>&1 || { tail -60 "$build.build.log"; exit 1; }
  took "built"
  [ "$platform" = nvidia ] && [ -n "$wheel_venv_pid" ] && start_wheel_build
  echo "== $platform: tests"
  ctest --test-dir "$build" --output-on-failure -j"$JOBS" --timeout 600 2>&1 | tee "$build.ctest.log" ||
    status=1
  skip_summary "$platform" "$build" "$build.ctest.log" || status=1
  took "tests"
  echo "== $platform: installed-package example"
  if [ -x "$ROOT/examples/consumer/build_and_check.sh" ]; then
    TMPDIR=$build/tmp "$ROOT/examples/consumer/build_and_check.sh" "$build" "$platform" || status=1
  else
    echo "   examples/consumer/build_and_check.sh missing" >&2
    status=1
  fi
  took "installed-package example"
done

if [ -n "$wheel_build_pid" ]; then
  echo "== python wheel: build (nvidia, library and module; started after the NVIDIA build)"
  wheel_ok=1
  wait "$wheel_build_pid" && [ -f "$BUILD_ROOT/wheel.seconds" ] && ls "$BUILD_ROOT"/wheel/mori_shmem-*.whl >/dev/null 2>&1 ||
    wheel_ok=0
  if ! wait "$wheel_venv_pid"; then
    cat "$BUILD_ROOT/wheel-venv.log"
    wheel_ok=0
  fi
  if [ $wheel_ok = 1 ]; then
    echo "   built in $(cat "$BUILD_ROOT/wheel.seconds") s: $(cd "$BUILD_ROOT/wheel" && ls mori_shmem-*.whl)"
    took "waited for it"
    "$BUILD_ROOT/wheel-venv/bin/python" -m pip install -q "$BUILD_ROOT"/wheel/mori_shmem-*.whl pytest numpy
    echo "== python wheel: CPU tests against the installed wheel"
    (cd "$BUILD_ROOT" && MORI_SHMEM_TEST_WHEEL=1 "$BUILD_ROOT/wheel-venv/bin/python" -m pytest -q -rs \
      "$ROOT/python/tests/test_api.py") || status=1
    took "installed and tested"
  else
    tail -60 "$BUILD_ROOT/wheel.log"
    status=1
  fi
fi
echo "== total: $SECONDS s"
exit $status
