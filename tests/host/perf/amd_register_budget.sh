#!/usr/bin/env bash
# The register-budget kernels (register_budget_kernels.cpp) on AMD: the kernels and the device
# library's sources compiled by hipcc -fgpu-rdc and device-linked with the AMD build's options
# (cmake/MoriPlatform.cmake: --hipcc-func-supp with ROCm 5, at compile and link as the project's
# build; the compiler's own lld), then amd_kernel_resources.py's report
# per target; with FRAMES=1 also the per-function frames of the first target (llc on the link's
# bitcode).
# A report, not a test: the figures are recorded in docs/DEVICE_API_FOOTPRINT.md.
#
#   tests/host/perf/amd_register_budget.sh <AMD build dir> [gfx90a gfx940 ...]
#
# The build dir is a configured AMD build (for its generated platform config header); nothing in it is
# built. Work files go to <build dir>/amd_register_budget. Host symbols of the runtime are left
# unresolved: the program is only read.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=$(cd "${1:?usage: $0 <AMD build dir> [targets...]}" && pwd)
shift
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(gfx90a gfx940)
HIPCC=${HIPCC:-hipcc}
WORK=$BUILD/amd_register_budget
mkdir -p "$WORK/tmp"
export TMPDIR=$WORK/tmp
cd "$WORK"
arch_flags=()
for a in "${archs[@]}"; do arch_flags+=("--offload-arch=$a"); done
hipv=$("$HIPCC" --version 2> /dev/null || true)
compile=(-I"$ROOT" -I"$ROOT/include" -I"$BUILD/include" -O3 -DNDEBUG -fPIC "${arch_flags[@]}" -fgpu-rdc -std=c++17)
link=(-O3 -fgpu-rdc --hip-link "${arch_flags[@]}")  # the build's level (CMAKE_BUILD_TYPE Release)
if grep -qE "HIP version: [1-5]\." <<< "$hipv"; then  # ROCm 5 hipcc inlines every call without it
  compile+=(--hipcc-func-supp)
  link+=(--hipcc-func-supp)
fi
clang_major=$(sed -n 's/.*clang version \([0-9]*\).*/\1/p' <<< "$hipv" | head -1)
[ -n "$clang_major" ] && [ -x "/usr/lib/llvm-$clang_major/bin/ld.lld" ] && link+=("-B/usr/lib/llvm-$clang_major/bin")
objs=()
for f in device_states device_errors rma_general element_general sync_general copy_general; do
  "$HIPCC" "${compile[@]}" -DMORI_SHMEM_CHECKS=1 -c "$ROOT/shmem/device/$f.cpp" -o "$f.o"
  objs+=("$f.o")
done
# The team collectives' bodies: without the checks, as in shmem/device/CMakeLists.txt.
"$HIPCC" "${compile[@]}" -c "$ROOT/shmem/device/team_general.cpp" -o team_general.o
objs+=(team_general.o)
rm -f libdev.a && ar qc libdev.a "${objs[@]}"
"$HIPCC" "${compile[@]}" -c "$ROOT/tests/host/perf/register_budget_kernels.cpp" -o kernels.o
rm -rf link && mkdir link && cd link
"$HIPCC" "${link[@]}" -save-temps ../kernels.o ../libdev.a -o ../kernels -Wl,--unresolved-symbols=ignore-all \
  2>&1 | grep -vE "argument unused|GNU-stack|NOTE: This behaviour" || true
for a in "${archs[@]}"; do
  echo "== $a (VGPR = arch VGPRs + AGPRs; scratch bytes per lane)"
  python3 "$ROOT/tests/host/perf/amd_kernel_resources.py" notes "a.out-hip-amdgcn-amd-amdhsa-$a"
done
if [ "${FRAMES:-0}" = 1 ]; then
  a=${archs[0]}
  llc="/usr/lib/llvm-$clang_major/bin/llc"
  "$llc" -O3 -mtriple=amdgcn-amd-amdhsa -mcpu="$a" "a.out-hip-amdgcn-amd-amdhsa-$a.0.5.precodegen.bc" -o "$a.s"
  echo "== $a: frames per function (bytes per lane)"
  python3 "$ROOT/tests/host/perf/amd_kernel_resources.py" frames "$a.s" | grep -vE "__unnamed|__cxa"
fi
