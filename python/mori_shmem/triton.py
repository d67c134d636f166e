"""mori-shmem device calls from Triton kernels (docs/TRITON.md).

    import triton, triton.language as tl
    import mori_shmem.triton as mst

    mst.enable()                                   # bind every Triton kernel after it loads

    @triton.jit
    def ring(dst, src, sig, nbytes):
        pe = mst.my_pe()
        peer = (pe + 1) % mst.n_pes()
        mst.putmem_signal_nbi_block(dst, src, nbytes, sig, 1, mst.SIGNAL_ADD, peer)
        mst.signal_wait_until(sig, mst.CMP_GE, 1)

    ring[(1,)](dst, src, sig, nbytes, extern_libs=mst.extern_libs())

The functions are Triton `extern` calls into the device library's bitcode
(lib/mori_shmem_device_<arch>.bc, built from the same inline device API as C++ kernels).
Pointers may be Triton pointers or int64 addresses. Calls with scalar arguments run in every
thread of the program, which is what the _block forms need (every thread of the block calls with
the same arguments). _warp forms need a program of one warp (num_warps=1). Single-thread
operations with scalar arguments (p, atomics, signal_op, quiet, barrier_all_thread) run once per
thread: guard them with `if mst.thread_rank() == 0:` when once per program is meant; with tensor
arguments each element is one call. Adds, swaps and signals with tensor arguments need at least one
element per thread of the program (a smaller tensor is refused when the kernel compiles).
"""

import ctypes
import os

import triton
import triton.language as tl
from triton.language import core

from . import _paths

_A = tl.int64  # an address
_I32 = tl.int32
_I64 = tl.int64
_U64 = tl.uint64
_F32 = tl.float32
_F64 = tl.float64

# Operation codes as Triton constants (a kernel may read only constexpr globals).
SIGNAL_SET = tl.constexpr(0)
SIGNAL_ADD = tl.constexpr(1)
CMP_EQ = tl.constexpr(0)
CMP_NE = tl.constexpr(1)
CMP_GT = tl.constexpr(2)
CMP_GE = tl.constexpr(3)
CMP_LT = tl.constexpr(4)
CMP_LE = tl.constexpr(5)

# ---- the device library's bitcode -----------------------------------------------------------------


def _arch_name():
    target = triton.runtime.driver.active.get_current_target()
    if target.backend == "cuda":
        return f"sm{target.arch}"
    if target.backend == "hip":
        return str(target.arch).split(":")[0]
    raise RuntimeError(f"mori_shmem.triton: Triton backend {target.backend!r} is not supported (cuda, hip)")


def bitcode_path(arch=None):
    """The device library's bitcode for `arch` ('sm90', 'gfx942'; default: the current GPU's).

    Looked up in $MORI_SHMEM_BITCODE_DIR, then in the package's lib/ (a wheel), then next to the
    package in a CMake build tree (<build>/lib)."""
    arch = arch or _arch_name()
    name = f"mori_shmem_device_{arch}.bc"
    dirs = []
    if os.environ.get("MORI_SHMEM_BITCODE_DIR"):
        dirs.append(os.environ["MORI_SHMEM_BITCODE_DIR"])
    dirs += [os.path.join(_paths._PACKAGE_DIR, d) for d in _paths._LIBDIRS]
    dirs.append(os.path.join(os.path.dirname(os.path.dirname(_paths._PACKAGE_DIR)), "lib"))
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        f"mori_shmem.triton: no device library bitcode {name} in {dirs}: build it with -DMORI_SHMEM_BITCODE=ON "
        "(needs clang 19+) or set MORI_SHMEM_BITCODE_DIR")


def extern_libs(arch=None):
    """The `extern_libs` launch option that links the device library into a Triton kernel."""
    return {"mori_shmem": bitcode_path(arch)}


# ---- binding JIT-loaded modules -----------------------------------------------------------------------

_KIND_MODULE = 0  # CUmodule / hipModule_t: what Triton loads


def _runtime():
    # The extension links libmori_shmem; dlsym through it finds the C API of that same library.
    from . import _C

    lib = ctypes.CDLL(_C.__file__)
    for name, args in (("mori_shmem_module_init_kind", [ctypes.c_void_p, ctypes.c_int]),
                       ("mori_shmem_module_uses_device_api", [ctypes.c_void_p, ctypes.c_int]),
                       ("mori_shmem_status_string", [ctypes.c_int])):
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = ctypes.c_char_p if name == "mori_shmem_status_string" else ctypes.c_int
    return lib


_lib = None


def _c():
    global _lib
    if _lib is None:
        _lib = _runtime()
    return _lib


def module_init(module, kind=_KIND_MODULE):
    """Binds a loaded GPU module that links the device library (mori_shmem_module_init_kind).

    Idempotent; before mori_shmem_init the module is bound when init runs. Raises when the module
    does not link the device library or binding fails."""
    rc = _c().mori_shmem_module_init_kind(ctypes.c_void_p(int(module)), kind)
    if rc != 0:
        raise RuntimeError(f"mori_shmem_module_init(0x{int(module):x}) failed: "
                           f"{_c().mori_shmem_status_string(rc).decode()} ({rc}); see the log above")


def module_uses_device_api(module, kind=_KIND_MODULE):
    """Whether a loaded GPU module defines the device state (links the device library)."""
    rc = _c().mori_shmem_module_uses_device_api(ctypes.c_void_p(int(module)), kind)
    if rc < 0:
        raise RuntimeError(f"mori_shmem_module_uses_device_api(0x{int(module):x}) failed: "
                           f"{_c().mori_shmem_status_string(rc).decode()} ({rc})")
    return rc == 1


def _on_kernel_load(module, function, name, metadata_group, hash, **_):
    if module is not None and module_uses_device_api(module):
        module_init(module)


def enable():
    """Binds every Triton kernel that links the device library when Triton loads it (a
    kernel_load_end_hook; kernels that do not link it are left alone). Idempotent."""
    triton.knobs.runtime.kernel_load_end_hook.add(_on_kernel_load)


def disable():
    triton.knobs.runtime.kernel_load_end_hook.remove(_on_kernel_load)


# ---- extern calls -------------------------------------------------------------------------------------


def _call(symbol, args, types, ret, _semantic, once=False):
    """One extern call per element. once: the operation must not run twice for an element (it
    adds, swaps or signals); with tensor arguments it gets the two guards below."""
    converted = []
    for a, t in zip(args, types):
        a = _semantic.to_tensor(core._unwrap_if_constexpr(a))
        if a.dtype != t:
            a = _semantic.cast(a, t)  # a pointer becomes its address (ptrtoint)
        converted.append(a)
    shape = next((a.type.get_block_shapes() for a in converted if a.type.is_block()), None)
    if once and shape is not None:
        _check_no_replicas(symbol, shape, _semantic)
    result = core.extern_elementwise("", "", converted, {tuple(types): (symbol, ret)}, is_pure=False,
                                     _semantic=_semantic)
    if once and shape is not None:
        result = _pin(result, _semantic)
    return result


def _check_no_replicas(symbol, shape, _semantic):
    # Triton gives every element of a tensor smaller than the program to several threads, and each
    # of them runs an elementwise call: an add or signal would apply several times per element.
    options = _semantic.builder.options
    threads = options.num_warps * getattr(options, "warp_size", 32)
    numel = 1
    for n in shape:
        numel *= n
    if numel < threads:
        raise ValueError(f"mori_shmem.triton: {symbol[len('mori_shmem_jit_'):]} on a tensor of {numel} elements in a "
                         f"program of {threads} threads would run on several threads per element: use tensors "
                         f"of at least {threads} elements (mask the rest) or fewer warps")


def _pin(result, _semantic):
    """Keeps Triton from cloning the call that produced `result` into a second layout.

    Triton up to 3.6 rematerialises elementwise chains, impure extern calls included, when a
    result is needed in another layout (measured: every fetch_add applied twice when the fetched
    values were stored with 2 elements per thread; upstream has since blocked remat of ops with
    write effects). Rematerialisation never crosses an scf.while, so the result passes through
    one that never iterates: its condition (my_pe < 0) is false on every PE, and its body changes
    the value so that no canonicalisation can see through the loop."""
    b = _semantic.builder
    never = _semantic.less_than(_call("mori_shmem_jit_my_pe", (), (), _I32, _semantic), _semantic.to_tensor(0))
    block = b.get_insertion_block()
    ty = result.handle.get_type()
    loop = b.create_while_op([ty], [result.handle])
    before = b.create_block_with_parent(loop.get_before(), [ty])
    b.set_insertion_point_to_start(before)
    b.create_condition_op(never.handle, [before.arg(0)])
    after = b.create_block_with_parent(loop.get_after(), [ty])
    b.set_insertion_point_to_start(after)
    arg = core.tensor(after.arg(0), result.type)
    b.create_yield_op([_semantic.add(arg, arg, True).handle])
    b.set_insertion_point_to_end(block)
    return core.tensor(loop.get_result(0), result.type)


@core.extern
def my_pe(_semantic=None):
    return _call("mori_shmem_jit_my_pe", (), (), _I32, _semantic)


@core.extern
def n_pes(_semantic=None):
    return _call("mori_shmem_jit_n_pes", (), (), _I32, _semantic)


@core.extern
def ptr(dest, pe, _semantic=None):
    """pe's address (int64) of the symmetric object at dest; 0 when pe is not reached by P2P."""
    return _call("mori_shmem_jit_ptr", (dest, pe), (_A, _I32), _I64, _semantic)


@core.extern
def thread_rank(_semantic=None):
    """This thread's rank in the program's block (for `if thread_rank() == 0:` guards)."""
    return _call("mori_shmem_jit_thread_rank", (), (), _I32, _semantic)


@core.extern
def block_size(_semantic=None):
    return _call("mori_shmem_jit_block_size", (), (), _I32, _semantic)


# putmem / getmem [_nbi] _thread / _warp / _block (dest, src, nbytes, pe);
# putmem_signal [_nbi] _<scope> (dest, src, nbytes, sig_addr, signal, sig_op, pe).
def _rma(symbol):

    @core.extern
    def call(dest, src, nbytes, pe, _semantic=None):
        return _call(symbol, (dest, src, nbytes, pe), (_A, _A, _U64, _I32), _I32, _semantic)

    call.__name__ = symbol[len("mori_shmem_jit_"):]
    return call


def _rma_signal(symbol):

    @core.extern
    def call(dest, src, nbytes, sig_addr, signal, sig_op, pe, _semantic=None):
        return _call(symbol, (dest, src, nbytes, sig_addr, signal, sig_op, pe), (_A, _A, _U64, _A, _U64, _I32, _I32),
                     _I32, _semantic, once=True)

    call.__name__ = symbol[len("mori_shmem_jit_"):]
    return call


putmem_thread = _rma("mori_shmem_jit_putmem_thread")
putmem_warp = _rma("mori_shmem_jit_putmem_warp")
putmem_block = _rma("mori_shmem_jit_putmem_block")
putmem_nbi_thread = _rma("mori_shmem_jit_putmem_nbi_thread")
putmem_nbi_warp = _rma("mori_shmem_jit_putmem_nbi_warp")
putmem_nbi_block = _rma("mori_shmem_jit_putmem_nbi_block")
getmem_thread = _rma("mori_shmem_jit_getmem_thread")
getmem_warp = _rma("mori_shmem_jit_getmem_warp")
getmem_block = _rma("mori_shmem_jit_getmem_block")
getmem_nbi_thread = _rma("mori_shmem_jit_getmem_nbi_thread")
getmem_nbi_warp = _rma("mori_shmem_jit_getmem_nbi_warp")
getmem_nbi_block = _rma("mori_shmem_jit_getmem_nbi_block")
putmem_signal_thread = _rma_signal("mori_shmem_jit_putmem_signal_thread")
putmem_signal_warp = _rma_signal("mori_shmem_jit_putmem_signal_warp")
putmem_signal_block = _rma_signal("mori_shmem_jit_putmem_signal_block")
putmem_signal_nbi_thread = _rma_signal("mori_shmem_jit_putmem_signal_nbi_thread")
putmem_signal_nbi_warp = _rma_signal("mori_shmem_jit_putmem_signal_nbi_warp")
putmem_signal_nbi_block = _rma_signal("mori_shmem_jit_putmem_signal_nbi_block")

# <type>_p(dest, value, pe) / <type>_g(src, pe) for int32, int64, float32, float64.
_ELEMENT_TYPES = {"int32": _I32, "int64": _I64, "float": _F32, "double": _F64}


def _p(name):
    t = _ELEMENT_TYPES[name]

    @core.extern
    def call(dest, value, pe, _semantic=None):
        return _call(f"mori_shmem_jit_{name}_p", (dest, value, pe), (_A, t, _I32), _I32, _semantic)

    return call


def _g(name):
    t = _ELEMENT_TYPES[name]

    @core.extern
    def call(src, pe, _semantic=None):
        return _call(f"mori_shmem_jit_{name}_g", (src, pe), (_A, _I32), t, _semantic)

    return call


int32_p, int64_p, float_p, double_p = (_p(n) for n in ("int32", "int64", "float", "double"))
int32_g, int64_g, float_g, double_g = (_g(n) for n in ("int32", "int64", "float", "double"))


# Atomics on int32 / int64: fetch_add, add, compare_swap(dest, cond, value, pe), swap, fetch(src, pe),
# set; and wait_until(ivar, cmp, value) on a local variable.
def _amo(name, op):
    t = _ELEMENT_TYPES[name]
    symbol = f"mori_shmem_jit_{name}_{op}"
    if op == "atomic_compare_swap":

        @core.extern
        def call(dest, cond, value, pe, _semantic=None):
            return _call(symbol, (dest, cond, value, pe), (_A, t, t, _I32), t, _semantic, once=True)
    elif op == "atomic_fetch":

        @core.extern
        def call(src, pe, _semantic=None):
            return _call(symbol, (src, pe), (_A, _I32), t, _semantic)
    elif op == "wait_until":

        @core.extern
        def call(ivar, cmp, value, _semantic=None):
            return _call(symbol, (ivar, cmp, value), (_A, _I32, t), _I32, _semantic)
    else:
        ret = t if op in ("atomic_fetch_add", "atomic_swap") else _I32
        once = op != "atomic_set"  # a set applied twice leaves the same value

        @core.extern
        def call(dest, value, pe, _semantic=None):
            return _call(symbol, (dest, value, pe), (_A, t, _I32), ret, _semantic, once=once)

    return call


int32_atomic_fetch_add = _amo("int32", "atomic_fetch_add")
int32_atomic_add = _amo("int32", "atomic_add")
int32_atomic_compare_swap = _amo("int32", "atomic_compare_swap")
int32_atomic_swap = _amo("int32", "atomic_swap")
int32_atomic_fetch = _amo("int32", "atomic_fetch")
int32_atomic_set = _amo("int32", "atomic_set")
int32_wait_until = _amo("int32", "wait_until")
int64_atomic_fetch_add = _amo("int64", "atomic_fetch_add")
int64_atomic_add = _amo("int64", "atomic_add")
int64_atomic_compare_swap = _amo("int64", "atomic_compare_swap")
int64_atomic_swap = _amo("int64", "atomic_swap")
int64_atomic_fetch = _amo("int64", "atomic_fetch")
int64_atomic_set = _amo("int64", "atomic_set")
int64_wait_until = _amo("int64", "wait_until")


@core.extern
def signal_op(sig_addr, signal, sig_op, pe, _semantic=None):
    """Unordered update of pe's signal word (SIGNAL_SET / SIGNAL_ADD); fence first to order it."""
    return _call("mori_shmem_jit_signal_op", (sig_addr, signal, sig_op, pe), (_A, _U64, _I32, _I32), _I32, _semantic,
                 once=True)


@core.extern
def signal_wait_until(sig_addr, cmp, cmp_value, _semantic=None):
    """Waits until the local signal word satisfies cmp (CMP_EQ...) against cmp_value; returns it."""
    return _call("mori_shmem_jit_signal_wait_until", (sig_addr, cmp, cmp_value), (_A, _I32, _U64), _U64, _semantic)


@core.extern
def signal_fetch(sig_addr, _semantic=None):
    return _call("mori_shmem_jit_signal_fetch", (sig_addr, ), (_A, ), _U64, _semantic)


def _noarg(symbol, doc):

    @core.extern
    def call(_semantic=None):
        return _call(symbol, (), (), _I32, _semantic)

    call.__doc__ = doc
    return call


quiet = _noarg("mori_shmem_jit_quiet", "Completes this thread's PE's operations (one thread's call).")
quiet_block = _noarg("mori_shmem_jit_quiet_block", "Block-cooperative quiet: every thread of the program calls.")
fence = _noarg("mori_shmem_jit_fence", "Orders earlier puts, AMOs and signals to each PE before later ones.")
barrier_all_block = _noarg("mori_shmem_jit_barrier_all_block",
                           "quiet, then wait for every PE: every thread of one program per PE calls.")
barrier_all_thread = _noarg("mori_shmem_jit_barrier_all_thread", "barrier_all by one thread per PE.")
sync_all_block = _noarg("mori_shmem_jit_sync_all_block", "The barrier's arrival part only (block scope).")
sync_block = _noarg("mori_shmem_jit_sync_block", "__syncthreads(): after a thread_rank() == 0 guarded call.")
barrier_all = barrier_all_block
