#!/usr/bin/env bash
# The test command (README): installs what it needs (Debian/Ubuntu packages), builds the NVIDIA
# (sm_90) and AMD (gfx90a;gfx940 with Debian's ROCm, or the ROCm default) variants with warnings
# as errors, runs every test, and builds the installed-package example for both platforms.
# Without GPUs every GPU test reports "Skipped" (never "Passed").
#
#   tools/test.sh                 both platforms (those whose compiler is present)
#   MORI_TEST_PLATFORMS=nvidia    only one
#   MORI_TEST_BUILD_ROOT=dir      where build trees go (default ./build-test)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_ROOT=${MORI_TEST_BUILD_ROOT:-$ROOT/build-test}
mkdir -p "$BUILD_ROOT"
JOBS=${MORI_TEST_JOBS:-$(nproc)}
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1

# ---- dependencies -------------------------------------------------------------------------------
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v mpirun >/dev/null || need+=(openmpi-bin)
[ -f /usr/include/x86_64-linux-gnu/openmpi/mpi.h ] || [ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] ||
  command -v mpicc >/dev/null || need+=(libopenmpi-dev)
[ -f /usr/include/infiniband/mlx5dv.h ] || need+=(libibverbs-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
# The Python module's build and tests (python/): pybind11's CMake package and headers.
[ -f /usr/share/cmake/pybind11/pybind11Config.cmake ] || [ -d /usr/lib/cmake/pybind11 ] || need+=(pybind11-dev python3-dev)
platforms=${MORI_TEST_PLATFORMS:-nvidia amd}
if [[ " $platforms " == *" amd "* ]] && ! command -v hipcc >/dev/null; then need+=(hipcc); fi
if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "== installing: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "missing packages: ${need[*]} (install them, or run as root on Debian/Ubuntu)" >&2
    exit 1
  fi
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

status=0
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
  echo "== $platform: configure"
  cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMORI_WERROR=ON "${cfg[@]}" >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 1; }
  echo "== $platform: build (warnings are errors)"
  start=$(date +%s)
  ninja -C "$build" -j"$JOBS" >"$build.build.log" 2>&1 || { tail -60 "$build.build.log"; exit 1; }
  echo "   built in $(( $(date +%s) - start )) s"
  echo "== $platform: tests"
  ctest --test-dir "$build" --output-on-failure -j"$JOBS" --timeout 600 || status=1
  echo "== $platform: installed-package example"
  if [ -x "$ROOT/examples/consumer/build_and_check.sh" ]; then
    "$ROOT/examples/consumer/build_and_check.sh" "$build" "$platform" || status=1
  else
    echo "   examples/consumer/build_and_check.sh missing" >&2
    status=1
  fi
done
exit $status
