"""mori_shmem.triton without a GPU: Triton compiles kernels that call every extern function and
links the device library's bitcode (triton.compile for a GPUTarget, no driver needed).

    MORI_SHMEM_BITCODE_DIR=<build>/lib python -m pytest -q python/tests/test_triton_compile.py

Checks, per architecture whose bitcode exists (sm90; gfx942, gfx90a): every call resolves (the
kernel compiles to a cubin / hsaco; on AMD a kernel of the common calls: my_pe, block put,
put-with-signal, signal_wait_until, an atomic, quiet_block), the module defines mori_shmem_device_states (what
mori_shmem_module_init binds) with one size for every kernel, and a kernel that calls the API
without the bitcode does not compile, and the entry points are inlined. Skipped with the reason without triton or without bitcode.
On sm90 the generated code of python/benchmarks/bench_triton.py's two kernels (block put loop,
8-byte put + quiet loop) keeps the C++ kernel's shape: global loads (ld.global, not generic ld),
the device state read before the loop (no ld.const inside it), no local memory in the kernel
(PTX), none in the put + quiet kernel's and the copy loop's machine code.
The package's extension (_C) is not needed: only mori_shmem/triton.py and _paths.py are loaded.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import types

import pytest

triton = pytest.importorskip("triton", reason="triton is not importable")
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

_PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mori_shmem")


def _load_triton_module():
    if "mori_shmem" not in sys.modules:
        pkg = types.ModuleType("mori_shmem")
        pkg.__path__ = [_PKG]
        sys.modules["mori_shmem"] = pkg
    spec = importlib.util.spec_from_file_location("mori_shmem.triton", os.path.join(_PKG, "triton.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["mori_shmem.triton"] = mod
    spec.loader.exec_module(mod)
    return mod


mst = _load_triton_module()

TARGETS = {"sm90": GPUTarget("cuda", 90, 32), "gfx942": GPUTarget("hip", "gfx942", 64),
           "gfx90a": GPUTarget("hip", "gfx90a", 64)}


def _bitcode(arch):
    try:
        return mst.bitcode_path(arch)
    except FileNotFoundError as e:
        pytest.skip(str(e))


@triton.jit
def every_call(buf, sig, ivar, out, nbytes, pe, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    me = mst.my_pe() + mst.n_pes() + mst.block_size()
    addr = mst.ptr(buf, pe)
    tl.store(out, me + addr.to(tl.int32))
    mst.putmem_thread(buf, buf, nbytes, pe)
    mst.putmem_warp(buf, buf, nbytes, pe)
    mst.putmem_block(buf, buf, nbytes, pe)
    mst.putmem_nbi_thread(buf, buf, nbytes, pe)
    mst.putmem_nbi_warp(buf, buf, nbytes, pe)
    mst.putmem_nbi_block(buf, buf, nbytes, pe)
    mst.getmem_thread(buf, buf, nbytes, pe)
    mst.getmem_warp(buf, buf, nbytes, pe)
    mst.getmem_block(buf, buf, nbytes, pe)
    mst.getmem_nbi_thread(buf, buf, nbytes, pe)
    mst.getmem_nbi_warp(buf, buf, nbytes, pe)
    mst.getmem_nbi_block(buf, buf, nbytes, pe)
    mst.putmem_signal_thread(buf, buf, nbytes, sig, 1, 0, pe)
    mst.putmem_signal_warp(buf, buf, nbytes, sig, 1, 0, pe)
    mst.putmem_signal_block(buf, buf, nbytes, sig, 1, 1, pe)
    mst.putmem_signal_nbi_thread(buf, buf, nbytes, sig, 1, 0, pe)
    mst.putmem_signal_nbi_warp(buf, buf, nbytes, sig, 1, 0, pe)
    mst.putmem_signal_nbi_block(buf, buf, nbytes, sig, 1, 1, pe)
    mst.int32_p(ivar + offs, offs, pe)
    mst.int64_p(ivar + offs, offs.to(tl.int64), pe)
    mst.float_p(ivar + offs, offs.to(tl.float32), pe)
    mst.double_p(ivar + offs, offs.to(tl.float64), pe)
    a = mst.int32_g(ivar + offs, pe) + mst.int64_g(ivar + offs, pe).to(tl.int32)
    a += mst.float_g(ivar + offs, pe).to(tl.int32) + mst.double_g(ivar + offs, pe).to(tl.int32)
    a += mst.int32_atomic_fetch_add(ivar + offs, 1, pe) + mst.int32_atomic_compare_swap(ivar, 0, 1, pe)
    a += mst.int32_atomic_swap(ivar, 2, pe) + mst.int32_atomic_fetch(ivar, pe)
    mst.int32_atomic_add(ivar, 1, pe)
    mst.int32_atomic_set(ivar, 1, pe)
    mst.int32_wait_until(ivar, 0, 1)
    b = mst.int64_atomic_fetch_add(ivar + offs, 1, pe) + mst.int64_atomic_compare_swap(ivar, 0, 1, pe)
    b += mst.int64_atomic_swap(ivar, 2, pe) + mst.int64_atomic_fetch(ivar, pe)
    mst.int64_atomic_add(ivar, 1, pe)
    mst.int64_atomic_set(ivar, 1, pe)
    mst.int64_wait_until(ivar, 0, 1)
    mst.signal_op(sig, 1, 1, pe)
    c = mst.signal_wait_until(sig, 3, 1) + mst.signal_fetch(sig)
    if mst.thread_rank() == 0:
        mst.quiet()
        mst.fence()
    mst.sync_block()
    mst.quiet_block()
    mst.barrier_all_block()
    mst.sync_all_block()
    if mst.thread_rank() == 0:
        mst.barrier_all_thread()
    tl.store(out + 1 + offs, a + b.to(tl.int32) + c.to(tl.int32))


@triton.jit
def some_calls(buf, sig, out, nbytes, pe):
    tl.store(out, mst.my_pe() + mst.n_pes())
    mst.putmem_nbi_block(buf, buf, nbytes, pe)
    mst.putmem_signal_nbi_block(buf, buf, nbytes, sig, 1, 1, pe)
    tl.store(out + 1, mst.signal_wait_until(sig, 3, 1).to(tl.int32))
    tl.store(out + 2, mst.int64_atomic_fetch_add(sig, 1, pe).to(tl.int32))
    mst.quiet_block()


@triton.jit
def one_call(out):
    tl.store(out, mst.my_pe())


SIG = {"buf": "*i8", "sig": "*u64", "ivar": "*i32", "out": "*i32", "nbytes": "i64", "pe": "i32"}


def _compile(fn, signature, arch, libs, constexprs=None):
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs or {})
    return triton.compile(src, target=TARGETS[arch], options={"extern_libs": libs, "num_warps": 4})


def _state_decl(kernel, arch):
    if arch.startswith("sm"):
        m = re.search(r"\.visible \.const \.align \d+ \.b8 mori_shmem_device_states\[(\d+)\]", kernel.asm["ptx"])
        return int(m.group(1)) if m else None
    m = re.search(r"mori_shmem_device_states, (\d+)", kernel.asm["amdgcn"])  # .size directive
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("arch", sorted(TARGETS))
def test_every_call_links(arch):
    libs = (("mori_shmem", _bitcode(arch)), )
    if arch.startswith("sm"):
        k = _compile(every_call, dict(SIG), arch, libs, constexprs={"BLOCK": 256})
    else:
        # every_call took 135 s for gfx942 on the 2-core CPU machine: the common calls, for time.
        sig = {k: v for k, v in SIG.items() if k in ("buf", "sig", "out", "nbytes", "pe")}
        k = _compile(some_calls, sig, arch, libs)
    binary = k.asm.get("cubin") or k.asm.get("hsaco")
    assert binary and len(binary) > 0
    size = _state_decl(k, arch)
    assert size, f"{arch}: the kernel does not define mori_shmem_device_states"
    small = _compile(one_call, {"out": "*i32"}, arch, libs)
    assert _state_decl(small, arch) == size, f"{arch}: kernels disagree on the device state's size"
    # The entry points are inlined into the kernel (the bitcode carries no per-function target
    # attributes that would stop LLVM's inliner: shmem/device/bitcode/strip_function_attrs.cmake).
    # (The name may stay in debug information; a function of that name may not.)
    if arch.startswith("sm"):
        kept = re.search(r"\.func[^\n]*\bmori_shmem_jit_my_pe\b", small.asm["ptx"])
    else:
        kept = re.search(r"\bmori_shmem_jit_my_pe(@|,@function|:)", small.asm["amdgcn"])
    assert not kept, f"{arch}: mori_shmem_jit_my_pe was not inlined ({kept.group(0)})"
    if arch.startswith("sm"):
        unresolved = re.findall(r"\.extern \.func[^;]*?(mori_\w+)", k.asm["ptx"])
        assert not unresolved, f"{arch}: unresolved device library calls: {unresolved}"


# The kernels of python/benchmarks/bench_triton.py, from the module it imports them from.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from triton_put_kernels import put_bw as bench_put_bw, put_latency as bench_put_latency  # noqa: E402


def _entry_blocks(ptx, name):
    """The kernel's PTX (not its callees') as (in_loop, lines) per basic block; LLVM marks the
    blocks of a loop with 'Loop' in the comment of their label."""
    body = re.search(r"\.visible \.entry " + name + r"\((.*?)\n\}", ptx, re.S)
    assert body, f"no entry {name} in the PTX"
    blocks, in_loop, lines = [], False, []
    for line in body.group(1).split("\n"):
        label = re.match(r"\s*(\$L__BB\d+_\d+:|// %bb\.\d+:)(.*)", line)
        if label:
            blocks.append((in_loop, lines))
            in_loop, lines = "Loop" in label.group(2), []
        else:
            lines.append(line.split("//")[0].strip())
    blocks.append((in_loop, lines))
    return blocks


@pytest.mark.parametrize("arch", ["sm90"])
@pytest.mark.parametrize("kernel,warps", [(bench_put_bw, 32), (bench_put_latency, 1)])
def test_put_loop_codegen(kernel, warps, arch):
    libs = (("mori_shmem", _bitcode(arch)), )
    sig = {"dst": "*u8", "src": "*u8", "nbytes": "i64", "peer": "i32", "iters": "i32"}
    k = triton.compile(ASTSource(fn=kernel, signature=sig), target=TARGETS[arch],
                       options={"extern_libs": libs, "num_warps": warps})
    name = kernel.__name__
    blocks = _entry_blocks(k.asm["ptx"], name)
    assert any(in_loop for in_loop, _ in blocks), f"{name}: no loop found in the PTX (LLVM's loop comments?)"
    code = [line for _, lines in blocks for line in lines if line]
    # The source is read with global loads, as nvcc's kernel does (generic loads went through
    # the address-space check of every access); the JIT addresses are global memory.
    generic_ld = re.compile(r"ld(\.volatile|\.relaxed\.\w+|\.acquire\.\w+)?\.(v\d\.)?[bsuf]\d+")
    generic = [line for line in code if generic_ld.match(line)]
    assert not generic, f"{name}: generic loads in the kernel: {generic[:4]}"
    assert any(line.startswith("ld.global") for line in code), f"{name}: no ld.global in the kernel"
    # The device state (magic word, heap base and size, the inline window of the PE, RDMA/SDMA
    # counts: the only constant memory here) is read once, before the loop, as nvcc's kernel does:
    # the bitcode declares it constant (shmem/device/bitcode/constant_state.cmake).
    reread = [line for in_loop, lines in blocks if in_loop for line in lines if line.startswith("ld.const")]
    assert not reread, f"{name}: the device state is re-read inside the loop: {reread[:4]}"
    local = [line for line in code if ".local" in line or "__local_depot" in line]
    assert not local, f"{name}: local memory in the kernel: {local[:4]}"
    # In the machine code: the block put's copy loop and the whole put + quiet kernel use no
    # local memory (ptxas spilled loop values around the general paths' calls before they were
    # made through pointers: shmem/device/bitcode/general_path_calls.cpp).
    sass = _kernel_sass(k.asm["cubin"])
    if warps == 1:
        spills = [line for line in sass if re.search(r"\b(LDL|STL)\b", line)]
        assert not spills, f"{name}: local memory in the kernel's machine code: {spills[:4]}"
    else:
        loop = _copy_loop(sass)
        assert loop, f"{name}: no loop of 16-byte loads and stores in the machine code"
        bad = [line for line in loop if re.search(r"\b(LDL|STL)\b|\bLD\.E", line)]
        assert not bad, f"{name}: local memory or generic loads in the copy loop: {bad[:4]}"


def _kernel_sass(cubin):
    """The kernel's machine code (nvdisasm), without the functions it calls."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        text = subprocess.check_output([triton.knobs.nvidia.nvdisasm.path, "-c", f.name], text=True)
    lines = []
    for line in text.split("\n"):
        if re.match(r"\s*\.type\s+\$", line):  # the first callee
            break
        lines.append(line)
    return lines


def _copy_loop(sass):
    """The smallest loop (a label and the last branch back to it) with 4 16-byte loads and stores."""
    best = None
    for i, line in enumerate(sass):
        label = re.match(r"(\.L_x_\d+):", line.strip())
        if not label:
            continue
        back = [j for j in range(i + 1, len(sass)) if re.search(r"BRA\s+`\(" + label.group(1) + r"\)", sass[j])]
        if not back:
            continue
        body = sass[i:back[-1] + 1]
        if sum("E.128" in b and "LD" in b for b in body) >= 4 and sum("ST.E.128" in b for b in body) >= 4:
            if best is None or len(body) < len(best):
                best = body
    return best


@pytest.mark.parametrize("arch", ["sm90"])
def test_without_bitcode_does_not_compile(arch):
    _bitcode(arch)
    with pytest.raises(Exception):
        _compile(one_call, {"out": "*i32"}, arch, ())
