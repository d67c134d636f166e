#!/usr/bin/env bash
# Builds examples/consumer against an installed mori-shmem, as a user would, and checks the result
# without running it (no GPU needed):
#   - the package installs libmori_shmem and, in the same directory, the MPI bootstrap plugin that
#     libmori_shmem loads at run time when a program is launched by mpirun;
#   - the package installs the device library (libmori_shmem_device.a) beside libmori_shmem;
#   - every program needs libmori_shmem.so.N, which ldd resolves to the install prefix, and
#     registers its GPU module with the runtime (mori_shmemi_register_module, called by the device
#     library's binder that the program's link took in);
#   - every program's GPU code holds its kernels and exactly one device state
#     (mori_shmem_device_states) per GPU image, on AMD for each target in MORI_SHMEM_GPU_ARCHS.
# Usage: build_and_check.sh <main-build-dir> <nvidia|amd>
#   <main-build-dir> must be built (cmake --build). Environment: JOBS (default 2), HIPCC (AMD
#   compiler, default hipcc), KEEP=1 keeps the temporary prefix and build for inspection.
set -euo pipefail

usage() {
  echo "usage: $0 <main-build-dir> <nvidia|amd>" >&2
  exit 2
}
[[ $# -eq 2 ]] || usage
main_build=$(cd "$1" && pwd)
platform=$2
[[ $platform == nvidia || $platform == amd ]] || usage
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mori-consumer.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
  echo "keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix
build=$work/build

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
pass() { echo "ok:   $*"; }

# Kernels each example defines (its own, plus the verdict kernel from example_common.hpp).
declare -A kernels=(
  [ring_put_signal]="ring addToEveryPe"
  [all_gather]="allGatherPut allGatherOnDevice checkGathered addToEveryPe"
  [ping_pong]="pingPong addToEveryPe"
  [atomic_counter]="takeTickets sendTicketsToPe0 addToEveryPe"
  [allreduce]="customAllReduce libraryAllReduce addToEveryPe"
  [team_pipeline]="producer consumer addToEveryPe"
)

echo "== installing $main_build into $prefix"
if ! cmake --install "$main_build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log" >&2
  echo "FAIL: cmake --install (is $main_build built?)" >&2
  exit 1
fi
lib=$(find "$prefix" -name 'libmori_shmem.so.*' -type f | head -n 1)
[[ -n $lib ]] || { echo "FAIL: no libmori_shmem.so.* installed under $prefix" >&2; exit 1; }
libdir=$(dirname "$lib")
config=$(find "$prefix" -name mori_shmemConfig.cmake | head -n 1)
[[ -n $config ]] || { echo "FAIL: no mori_shmemConfig.cmake installed under $prefix" >&2; exit 1; }
if grep -q "set(MORI_SHMEM_GPU_PLATFORM \"$platform\")" "$config"; then
  pass "package platform is $platform"
else
  echo "FAIL: $config is not for platform $platform" >&2
  exit 1
fi
if [[ -f $libdir/libmori_shmem_device.a ]]; then
  pass "device library installed beside libmori_shmem ($libdir)"
else
  fail "libmori_shmem_device.a is not installed in $libdir: programs cannot link the device API"
fi
if [[ -f $libdir/libmori_shmem_bootstrap_mpi.so ]]; then
  pass "MPI bootstrap plugin installed beside libmori_shmem ($libdir)"
else
  fail "libmori_shmem_bootstrap_mpi.so is not installed in $libdir: programs launched by mpirun cannot bootstrap"
fi

echo "== configuring and building the consumer"
cfg=(-S "$here" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release)
if command -v ninja >/dev/null; then cfg+=(-G Ninja); fi
if [[ $platform == amd ]]; then cfg+=(-DCMAKE_CXX_COMPILER="${HIPCC:-hipcc}"); fi
cmake "${cfg[@]}"
cmake --build "$build" -j "${JOBS:-2}"
archs=$(sed -n 's/^set(MORI_SHMEM_GPU_ARCHS "\(.*\)")$/\1/p' "$config")

# AMD: the clang-offload-bundler of the clang that hipcc drives (other LLVM versions may be
# installed, with other options): hipcc's InstalledDir, then Debian's llvm-<major>, then PATH.
bundler=""
if [[ $platform == amd ]]; then
  hipcc_version=$("${HIPCC:-hipcc}" --version 2>/dev/null || true)
  installed_dir=$(sed -n 's/^InstalledDir: //p' <<<"$hipcc_version")
  clang_major=$(sed -n 's/.*clang version \([0-9]*\).*/\1/p' <<<"$hipcc_version")
  for candidate in "$installed_dir/clang-offload-bundler" "/usr/lib/llvm-$clang_major/bin/clang-offload-bundler" \
    "$(command -v clang-offload-bundler || true)"; do
    if [[ -x $candidate && ! -d $candidate ]]; then
      bundler=$candidate
      break
    fi
  done
  if [[ -n $bundler ]]; then
    pass "unbundling AMD GPU code with $bundler (clang $clang_major)"
  else
    fail "no clang-offload-bundler for hipcc's clang $clang_major (looked in '$installed_dir', llvm-$clang_major, PATH)"
  fi
fi

# Prints the demangled symbol table of every GPU code object embedded in program $1.
device_symbols() {
  local exe=$1 out
  out=$work/device/$(basename "$1")
  rm -rf "$out" && mkdir -p "$out"
  if [[ $platform == nvidia ]]; then
    objcopy -O binary --only-section=.nv_fatbin "$exe" "$out/fatbin" || return 1
    # The fat binary holds one ELF cubin per target; readelf reads each from its first byte on.
    python3 - "$out/fatbin" "$out" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
start, n = data.find(b"\x7fELF"), 0
while start >= 0:
    open(f"{sys.argv[2]}/cubin{n}.elf", "wb").write(data[start:])
    start, n = data.find(b"\x7fELF", start + 4), n + 1
EOF
    for f in "$out"/cubin*.elf; do
      echo "IMAGE $f"
      readelf -sW "$f" | c++filt
    done
  else
    objcopy -O binary --only-section=.hip_fatbin "$exe" "$out/fatbin" || return 1
    local arch target bundles
    bundles=$("$bundler" --list --type=o --input="$out/fatbin") || return 1
    for arch in ${archs//;/ }; do
      target=$(grep -E -- "-${arch}(:|$)" <<<"$bundles" || true)
      target=${target%%$'\n'*}
      if [[ -z $target ]]; then
        echo "TARGET-MISSING $arch"
        continue
      fi
      "$bundler" --unbundle --type=o --input="$out/fatbin" --targets="$target" --output="$out/$arch.co" || return 1
      echo "TARGET $arch"
      echo "IMAGE $arch"
      readelf -sW "$out/$arch.co" | c++filt
    done
  fi
}

echo "== checking the programs"
for exe_name in ring_put_signal all_gather ping_pong atomic_counter allreduce team_pipeline; do
  exe=$build/$exe_name
  if [[ ! -x $exe ]]; then
    fail "$exe_name was not built"
    continue
  fi
  # Outputs are captured first: grep -q would end a pipeline early, which pipefail reports.
  dynamic=$(readelf -d "$exe")
  undefined=$(nm -D --undefined-only "$exe")
  if grep -q 'NEEDED.*\[libmori_shmem\.so\.[0-9]*\]' <<<"$dynamic"; then
    pass "$exe_name needs libmori_shmem.so"
  else
    fail "$exe_name does not link libmori_shmem.so"
  fi
  resolved=$(ldd "$exe" | sed -n 's/^\s*libmori_shmem\.so[.0-9]* => \(\S*\) .*/\1/p')
  if [[ -n $resolved && $(realpath "$resolved") == $(realpath "$lib") ]]; then
    pass "$exe_name: ldd resolves libmori_shmem to $resolved"
  else
    fail "$exe_name: ldd resolves libmori_shmem to '${resolved:-nothing}', not $lib"
  fi
  if grep -qw mori_shmemi_register_module <<<"$undefined"; then
    pass "$exe_name registers its GPU module with the runtime"
  else
    fail "$exe_name does not call mori_shmemi_register_module (no device-state binding)"
  fi
  if ! symbols=$(device_symbols "$exe"); then
    fail "$exe_name: cannot read its GPU code"
    continue
  fi
  if [[ $platform == amd ]]; then
    for arch in ${archs//;/ }; do
      if grep -qx "TARGET $arch" <<<"$symbols"; then
        pass "$exe_name has GPU code for $arch"
      else
        fail "$exe_name has no GPU code for $arch"
      fi
    done
  fi
  for kernel in ${kernels[$exe_name]}; do
    # Demangled, or (kernels of an anonymous namespace under relocatable device code, which nvcc
    # renames __nv_static_..._ZN..<length><name>E...) still mangled.
    count=$(grep -E ' FUNC ' <<<"$symbols" | grep -cE "(::| )${kernel}\(|${#kernel}${kernel}E" || true)
    if [[ $count -ge 1 ]]; then
      pass "$exe_name: kernel $kernel in GPU code ($count)"
    else
      fail "$exe_name: kernel $kernel missing from GPU code"
    fi
  done
  # One state per GPU image: the device link resolved every kernel's reference to one definition.
  # AMD code objects list a symbol in .dynsym and .symtab: distinct (image, address) pairs count.
  images=$(grep -c '^IMAGE' <<<"$symbols" || true)
  count=$(awk '/^IMAGE/ {img = $2} / OBJECT / && $NF == "mori_shmem_device_states" {print img, $2}' <<<"$symbols" |
    sort -u | wc -l)
  if [[ $images -ge 1 && $count -eq $images ]]; then
    pass "$exe_name: one device state (mori_shmem_device_states) in each of its $images GPU image(s)"
  else
    fail "$exe_name: $count device state(s) mori_shmem_device_states in $images GPU image(s) (expected one each)"
  fi
done

if [[ $failures -ne 0 ]]; then
  echo "consumer check ($platform): $failures failed"
  exit 1
fi
echo "consumer check ($platform): all passed"
