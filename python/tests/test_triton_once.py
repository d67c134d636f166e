"""Operations that must run once per element (adds, swaps, signals) stay single in what Triton
compiles, without a GPU (triton.compile for sm_90 with the device library's bitcode).

    MORI_SHMEM_BITCODE_DIR=<build>/lib python -m pytest -q python/tests/test_triton_once.py

Triton 3.6 clones an elementwise extern call into a second layout when its result is stored with
another vector width; mori_shmem.triton pins such results (python/mori_shmem/triton.py, _pin).
A tensor smaller than the program would give each element to several threads: refused at compile
time. Skipped with the reason without triton or without the sm_90 bitcode.
"""

import re

import pytest

triton = pytest.importorskip("triton", reason="triton is not importable")
import triton.language as tl  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from test_triton_compile import TARGETS, _bitcode, mst  # noqa: E402


@triton.jit
def fetch_add_stored_wide(counter, olds, slots, target, BLOCK: tl.constexpr):
    # The store of 8-byte values at 16-byte alignment gets 2 elements per thread; the fetch_add's
    # address (offs % slots) stays at 1: the layouts differ.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = mst.int64_atomic_fetch_add(counter + offs % slots, 1, target)
    tl.store(olds + offs, old)


@triton.jit
def swap_and_cas_2d(buf, out, target, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    idx = r * COLS + c
    old = mst.int32_atomic_swap(buf + idx % 7, idx, target)
    prev = mst.int64_atomic_compare_swap(buf + idx % 5, old.to(tl.int64), idx.to(tl.int64), target)
    tl.store(out + idx, prev + old)


@triton.jit
def small_tensor_add(counter, target, BLOCK: tl.constexpr):
    mst.int32_atomic_add(counter + tl.arange(0, BLOCK), 1, target)


_ALIGNED = [["tt.divisibility", 16]]


def _compile(fn, signature, constexprs, num_warps=4):
    attrs = {(i, ): _ALIGNED for i, t in enumerate(signature.values()) if t.startswith("*")}
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=TARGETS["sm90"], options={"num_warps": num_warps,
                                                                 "extern_libs": mst.extern_libs("sm90")})


def _extern_calls(ttgir, name):
    return len(re.findall(rf"tt\.extern_elementwise[^\n]*symbol = \"mori_shmem_jit_{name}\"", ttgir))


def test_fetch_add_stays_single_when_stored_wider():
    _bitcode("sm90")
    k = _compile(fetch_add_stored_wide, {"counter": "*i64", "olds": "*i64", "slots": "i32", "target": "i32",
                                         "BLOCK": "constexpr"}, {"BLOCK": 256})
    assert "sizePerThread = [2]" in k.asm["ttgir"], "the store no longer gets another layout: the test lost its point"
    n = _extern_calls(k.asm["ttgir"], "int64_atomic_fetch_add")
    assert n == 1, f"fetch_add appears {n} times in the TTGIR: each element would be added {n} times"


def test_swap_and_compare_swap_stay_single_in_2d():
    _bitcode("sm90")
    k = _compile(swap_and_cas_2d, {"buf": "*i64", "out": "*i64", "target": "i32", "ROWS": "constexpr",
                                   "COLS": "constexpr"}, {"ROWS": 16, "COLS": 32})
    for name in ("int32_atomic_swap", "int64_atomic_compare_swap"):
        n = _extern_calls(k.asm["ttgir"], name)
        assert n == 1, f"{name} appears {n} times in the TTGIR"


def test_tensor_smaller_than_the_program_is_refused():
    _bitcode("sm90")
    with pytest.raises(Exception, match=r"int32_atomic_add on a tensor of 64 elements in a program of 128 threads"):
        _compile(small_tensor_add, {"counter": "*i32", "target": "i32", "BLOCK": "constexpr"}, {"BLOCK": 64})
    # The same kernel with one warp has a thread per element: it compiles.
    _compile(small_tensor_add, {"counter": "*i32", "target": "i32", "BLOCK": "constexpr"}, {"BLOCK": 64},
             num_warps=2)
