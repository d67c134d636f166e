"""The torch layer of mori_shmem: init from a process group, symmetric tensors, stream-ordered RMA.

torch is imported when one of these is first called, so `import mori_shmem` works without it.

Symmetric tensors and garbage collection
----------------------------------------
empty()/zeros() allocate on the symmetric heap, which is collective: every PE makes the same calls
with the same sizes in the same order. Freeing is collective too, so it cannot be left to the
garbage collector (PEs collect at different times): free_tensor(t) or a tensor_scope() frees.
A tensor whose every reference is gone without free_tensor() keeps its heap block until
finalize() (a ResourceWarning says so); nothing is freed behind your back. free_tensor() waits
for this GPU, frees collectively (the symmetry check raises Error on every PE, and frees nothing,
when the PEs free different tensors), and empties the tensor you pass (numel 0): other views of
it dangle, as after any free. finalize() invalidates every symmetric tensor.

Cost: each empty() and free_tensor() is one exchange of the call (operation, sequence number,
size) among the PEs; PEs on one host exchange through shared memory, so the call costs about what
torch needs to wrap the memory as a tensor. free_tensor() also waits for this GPU; a
tensor_scope() waits once for all the tensors it frees.
"""

import contextlib
import math
import os
import sys
import warnings
import weakref

from . import _C
from ._C import Error

# DLPack (type code, bits) of each torch dtype, by name: looked up on torch when needed, so that
# dtypes a torch version lacks (uint16/32/64 before 2.3) are simply absent.
_DLPACK_DTYPES = {
    "bool": (6, 8),
    "uint8": (1, 8),
    "uint16": (1, 16),
    "uint32": (1, 32),
    "uint64": (1, 64),
    "int8": (0, 8),
    "int16": (0, 16),
    "int32": (0, 32),
    "int64": (0, 64),
    "float16": (2, 16),
    "bfloat16": (4, 16),
    "float32": (2, 32),
    "float64": (2, 64),
}

_CMP = {"eq": _C.CMP_EQ, "ne": _C.CMP_NE, "gt": _C.CMP_GT, "ge": _C.CMP_GE, "lt": _C.CMP_LT, "le": _C.CMP_LE}
_SIGNAL_OPS = {"set": _C.SIGNAL_SET, "add": _C.SIGNAL_ADD}


_torch_module = None


def _torch():
    global _torch_module
    if _torch_module is None:
        try:
            import torch
        except ImportError as e:
            raise ImportError("this mori_shmem call needs torch, which is not importable here; the rest of "
                              "mori_shmem works without it") from e
        _torch_module = torch
    return _torch_module


_dtype_codes = {}  # torch dtype -> (code, bits), filled on first use of each dtype


def _dlpack_dtype(torch, dtype, call):
    found = _dtype_codes.get(dtype)
    if found is not None:
        return found
    name = str(dtype).replace("torch.", "")
    if name not in _DLPACK_DTYPES or getattr(torch, name, None) != dtype:
        raise TypeError(f"mori_shmem.{call}: unsupported dtype {dtype!r} (supported: "
                        f"{', '.join(sorted(_DLPACK_DTYPES))})")
    _dtype_codes[dtype] = _DLPACK_DTYPES[name]
    return _DLPACK_DTYPES[name]


def _to_torch(torch, addr, shape, code, bits, device, owner):
    """A torch tensor over device memory at addr (no copy), keeping owner alive: a DLPack capsule
    straight into torch.from_dlpack (an object with __dlpack__ would cost a current-stream lookup
    and a handshake in Python per tensor)."""
    return torch.from_dlpack(_C._wrap(addr, shape, code, bits, _C.DLPACK_DEVICE_TYPE, device, owner, "capsule"))


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(map(int, shape))


# ---- initialisation ------------------------------------------------------------------------

def _group_device(torch, dist, group):
    """The device a broadcast over `group` must use: CPU for gloo/mpi, the current GPU otherwise."""
    backend = str(dist.get_backend(group)).lower()
    if "gloo" in backend or "mpi" in backend or not torch.cuda.is_available():
        return torch.device("cpu")
    return torch.device("cuda", torch.cuda.current_device())


def process_group_backend():
    """The torch.distributed backend for a job whose PEs may share GPUs: "nccl" when every local
    rank has a GPU of its own, else "gloo" (NCCL refuses two ranks on one GPU: "Duplicate GPU
    detected"; mori_shmem.init(group=...) only broadcasts the unique ID, which gloo does)."""
    torch = _torch()
    local = int(os.environ.get("LOCAL_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))
    return "nccl" if torch.cuda.is_available() and torch.cuda.device_count() >= local else "gloo"


def init(bootstrap="auto", group=None):
    """Collective initialisation.

    group: a torch.distributed process group (or torch.distributed.group.WORLD): the PEs are its
    ranks in group order; rank 0 of the group creates the unique ID and broadcasts it over the
    group, so a torchrun script needs nothing else. Select the GPU first
    (torch.cuda.set_device(local_rank)): the runtime uses the current one.
    Without group: bootstrap "auto" (MPI under mpirun, else the launcher environment) or "env".
    """
    if group is None:
        _C.init(bootstrap)
        return
    if bootstrap != "auto":
        raise ValueError("mori_shmem.init: give either group or bootstrap, not both")
    torch = _torch()
    dist = torch.distributed
    if not dist.is_available() or not dist.is_initialized():
        raise Error("mori_shmem.init(group=...): torch.distributed is not initialised: call "
                    "torch.distributed.init_process_group() first")
    rank, nranks = dist.get_rank(group), dist.get_world_size(group)
    if rank < 0:
        raise Error(f"mori_shmem.init(group=...): this process (global rank {dist.get_rank()}) is not a member "
                    "of the group")
    uid = torch.zeros(_C.UNIQUEID_BYTES, dtype=torch.uint8)
    if rank == 0:
        uid = torch.frombuffer(bytearray(_C.get_uniqueid()), dtype=torch.uint8)
    buf = uid.to(_group_device(torch, dist, group))
    dist.broadcast(buf, src=dist.get_global_rank(group, 0), group=group)
    _C.init_with_uniqueid(rank, nranks, bytes(buf.cpu().tolist()))
    _state.group = group


def finalize():
    """Collective teardown: waits for this GPU, then releases everything; symmetric tensors are invalid after."""
    torch = _torch_if_loaded()
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
    for alloc in list(_state.live.values()):
        a = alloc()
        if a is not None:
            a.detach()
    _state.live.clear()
    _state.registered.clear()
    _state.scopes.clear()
    _state.group = None
    _state.device = None
    _C.finalize()


def _torch_if_loaded():
    import sys
    return sys.modules.get("torch")


# ---- symmetric tensors ---------------------------------------------------------------------

class _State:
    def __init__(self):
        self.live = {}         # heap address -> weakref to its _Allocation
        self.registered = {}   # registered address -> nbytes
        self.scopes = []       # open tensor_scope() lists of _Allocation
        self.group = None
        self.device = None     # GPU index of the symmetric heap


_state = _State()


def _leaked(addr, nbytes):
    _state.live.pop(addr, None)
    warnings.warn(f"mori_shmem: a symmetric tensor ({nbytes} bytes at {addr:#x}) was garbage-collected without "
                  "free_tensor(); its heap block stays allocated until finalize()", ResourceWarning, stacklevel=2)


class _Allocation:
    """One heap block; the DLPack owner of every tensor over it (so it lives as long as they do).
    Collected while still allocated (no free_tensor()): warns (not at interpreter exit, where the
    process ends anyway). __del__ rather than weakref.finalize: 0.5 instead of 2.7 us per empty()
    on the CI CPU."""

    __slots__ = ("addr", "nbytes", "live", "tensor", "__weakref__")

    def __init__(self, addr, nbytes):
        self.addr = addr
        self.nbytes = nbytes
        self.live = True
        self.tensor = None  # weakref to the tensor empty() returned, emptied when the block is freed

    def detach(self):
        self.live = False

    def __del__(self):
        if self.live and not sys.is_finalizing():
            _leaked(self.addr, self.nbytes)


def as_tensor(addr, shape, dtype, device=None, owner=None):
    """A torch tensor over the device memory at addr (no copy), e.g. from malloc().

    shape: int or tuple of ints (contiguous, row-major). dtype: a torch dtype. device: the GPU
    index the tensor is placed on (default: the GPU the memory belongs to). The tensor does not
    own the memory (owner, if given, is kept alive by it): keep the memory allocated while the
    tensor lives and free() it yourself afterwards. DLPack device kDLCUDA or kDLROCM.
    """
    torch = _torch()
    shape = _shape(shape)
    code, bits = _dlpack_dtype(torch, dtype, "as_tensor")
    if device is None:
        device = _C.pointer_device(addr)
    return _to_torch(torch, addr, list(shape), code, bits, int(device), owner)


def empty(shape, dtype=None):
    """Collective: an uninitialised tensor on the symmetric heap (same shape and dtype on every PE).

    dtype defaults to torch's default dtype. The tensor lives on the runtime's GPU. Free it with
    free_tensor() (collective) or allocate it inside a tensor_scope().
    """
    torch = _torch()
    shape = _shape(shape)
    if shape and min(shape) < 0:
        raise ValueError(f"mori_shmem.empty: negative dimension in shape {shape}")
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    code, bits = _dlpack_dtype(torch, dtype, "empty")
    nbytes = math.prod(shape) * bits // 8
    try:
        addr = _C.malloc(max(nbytes, 1))  # a real block even for numel 0, so free_tensor() pairs with it
    except Error as e:
        _raise_collective(f"empty({shape}, {dtype})", nbytes, e)
    alloc = _Allocation(addr, nbytes)
    _state.live[addr] = weakref.ref(alloc)
    if _state.scopes:
        _state.scopes[-1].append(alloc)
    try:
        if _state.device is None:
            _state.device = _C.pointer_device(addr)  # the runtime's GPU, fixed until finalize()
        t = _to_torch(torch, addr, list(shape), code, bits, _state.device, alloc)
        alloc.tensor = weakref.ref(t)
        return t
    except BaseException:
        _state.live.pop(addr, None)
        alloc.detach()
        raise


def zeros(shape, dtype=None):
    """Collective: empty() filled with zeros (on the current stream)."""
    t = empty(shape, dtype)
    t.zero_()
    return t


def _allocation_of(t, call):
    ref = _state.live.get(t.data_ptr())
    alloc = ref() if ref is not None else None
    if alloc is None and t.numel() == 0:
        # torch reports data_ptr 0 for a tensor without elements: find it by identity instead.
        alloc = next((a for a in (r() for r in _state.live.values())
                      if a is not None and a.tensor is not None and a.tensor() is t), None)
    if alloc is None:
        raise ValueError(f"mori_shmem.{call}: the tensor (data_ptr {t.data_ptr():#x}) is not a live tensor from "
                         "mori_shmem.empty()/zeros() (pass the tensor empty() returned, not a view into it)")
    return alloc


def _raise_collective(call, nbytes, e):
    """Raises Error for a failed symmetric call naming this PE, the call and its size; the log line
    above it (stderr) names every PE's call and size when the PEs disagree."""
    if not _C.initialized():
        raise e
    raise Error(f"mori_shmem.{call} on PE {_C.my_pe()} ({nbytes} bytes; every PE must make the same "
                f"symmetric calls with the same sizes in the same order): {e}") from e


def _free(alloc, sync=True):
    if sync:
        _C.device_synchronize()  # this PE's work on the block is done before any PE reuses it
    try:
        _C.free(alloc.addr)  # collective; raises (frees nothing) when the PEs disagree
    except Error as e:
        _raise_collective(f"free_tensor(tensor at {alloc.addr:#x})", alloc.nbytes, e)
    _state.live.pop(alloc.addr, None)
    alloc.detach()
    t = alloc.tensor() if alloc.tensor is not None else None
    if t is not None:
        t.set_()  # numel 0: a use after the free touches no memory


def free_tensor(t):
    """Collective: frees a tensor from empty()/zeros() on every PE and empties t (numel 0)."""
    alloc = _allocation_of(t, "free_tensor")
    _free(alloc)
    for scope in _state.scopes:
        if alloc in scope:
            scope.remove(alloc)


@contextlib.contextmanager
def tensor_scope():
    """Frees, collectively and newest first, the symmetric tensors empty()/zeros() made inside it,
    and empties them (numel 0).

    On an exception nothing is freed (the other PEs may never reach the free): the blocks stay
    allocated until finalize(). Tensors freed inside the scope with free_tensor() are skipped.
    Waits for this GPU once, then frees each tensor (one collective exchange each).
    """
    allocs = []
    _state.scopes.append(allocs)
    try:
        yield
    except BaseException:
        _state.scopes.remove(allocs)
        raise
    _state.scopes.remove(allocs)
    if allocs:
        _C.device_synchronize()
    for alloc in reversed(allocs):
        _free(alloc, sync=False)


def _contiguous_gpu(t, call, what):
    if not t.is_cuda:
        raise ValueError(f"mori_shmem.{call}: {what} must be a GPU tensor (got device {t.device})")
    if not t.is_contiguous():
        raise ValueError(f"mori_shmem.{call}: {what} must be contiguous")


def peer_tensor(t, pe):
    """The tensor through which this PE loads/stores pe's copy of symmetric tensor t (P2P peers).

    t: contiguous, on the symmetric heap or in a registered tensor. Raises Error if pe is not
    reachable by load/store (another host, an RDMA-only peer): use put()/get() there. The result
    keeps t alive and is placed on this PE's GPU.
    """
    _contiguous_gpu(t, "peer_tensor", "the tensor")
    addr = _C.ptr(t.data_ptr(), pe)
    if addr is None:
        raise Error(f"mori_shmem.peer_tensor: PE {pe} does not reach the tensor at {t.data_ptr():#x} by load/store "
                    f"from PE {_C.my_pe()} (not symmetric, or an RDMA/remote peer)")
    return as_tensor(addr, tuple(t.shape), t.dtype, device=t.device.index, owner=t)


def register_tensor(t):
    """Collective: makes a GPU tensor from torch's allocator symmetric (every PE passes one of the same size).

    Afterwards put/get/peer_tensor accept it like heap tensors. Memory that cannot be exported to
    peers (e.g. torch's expandable segments) raises Error naming the reason in the log. Call
    deregister_tensor(t) (collective) before the tensor is freed by torch.
    """
    _contiguous_gpu(t, "register_tensor", "the tensor")
    nbytes = t.numel() * t.element_size()
    if nbytes == 0:
        raise ValueError("mori_shmem.register_tensor: the tensor is empty")
    _C.register(t.data_ptr(), nbytes)
    _state.registered[t.data_ptr()] = nbytes


def deregister_tensor(t):
    """Collective: undoes register_tensor(t)."""
    if t.data_ptr() not in _state.registered:
        raise ValueError(f"mori_shmem.deregister_tensor: the tensor at {t.data_ptr():#x} was not registered with "
                         "register_tensor()")
    _C.deregister(t.data_ptr())
    del _state.registered[t.data_ptr()]


# ---- stream-ordered RMA --------------------------------------------------------------------

def _stream_handle(stream, device):
    torch = _torch()
    if stream is None:
        return torch.cuda.current_stream(device).cuda_stream
    if isinstance(stream, int):
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise TypeError(f"mori_shmem: stream must be a torch.cuda.Stream, a raw handle (int) or None, got {stream!r}")
    return handle


def _nbytes(t):
    return t.numel() * t.element_size()


def _same_bytes(call, dst, src):
    _contiguous_gpu(dst, call, "dst")
    _contiguous_gpu(src, call, "src")
    if _nbytes(dst) != _nbytes(src):
        raise ValueError(f"mori_shmem.{call}: dst has {_nbytes(dst)} bytes, src {_nbytes(src)}: they must match")


def _signal_addr(call, sig):
    torch = _torch()
    _contiguous_gpu(sig, call, "signal")
    if sig.dtype not in (torch.int64, getattr(torch, "uint64", torch.int64)) or sig.numel() != 1:
        raise ValueError(f"mori_shmem.{call}: signal must be one int64/uint64 element of a symmetric tensor "
                         f"(got dtype {sig.dtype}, {sig.numel()} elements)")
    return sig.data_ptr()


def put(dst, src, pe, stream=None):
    """Stream-ordered: copies src (this GPU) into pe's copy of symmetric dst.

    Enqueued on `stream` (default torch.cuda.current_stream()); P2P peers through the copy
    engine, others through a kernel. Capturable in a CUDA graph. Delivered to RDMA peers after
    quiet_on_stream().
    """
    _same_bytes("put", dst, src)
    _C.putmem_on_stream(dst.data_ptr(), src.data_ptr(), _nbytes(src), pe, _stream_handle(stream, dst.device))


def get(dst, src, pe, stream=None):
    """Stream-ordered: copies pe's copy of symmetric src into dst (this GPU)."""
    _same_bytes("get", dst, src)
    _C.getmem_on_stream(dst.data_ptr(), src.data_ptr(), _nbytes(src), pe, _stream_handle(stream, dst.device))


def put_signal(dst, src, signal, value, pe, sig_op="set", stream=None):
    """Stream-ordered put, then pe's `signal` (one int64/uint64 symmetric element) is set to / increased by
    value once the data is delivered. sig_op: "set" or "add"."""
    if sig_op not in _SIGNAL_OPS:
        raise ValueError(f"mori_shmem.put_signal: sig_op must be one of {sorted(_SIGNAL_OPS)}, got {sig_op!r}")
    _same_bytes("put_signal", dst, src)
    sig = _signal_addr("put_signal", signal)
    _C.putmem_signal_on_stream(dst.data_ptr(), src.data_ptr(), _nbytes(src), sig, int(value) & (2**64 - 1),
                               _SIGNAL_OPS[sig_op], pe, _stream_handle(stream, dst.device))


def signal_wait_until(signal, cmp, value, stream=None):
    """Stream-ordered: later work on the stream waits until this PE's `signal` compares true against
    value. cmp: "eq", "ne", "gt", "ge", "lt" or "le"."""
    if cmp not in _CMP:
        raise ValueError(f"mori_shmem.signal_wait_until: cmp must be one of {sorted(_CMP)}, got {cmp!r}")
    sig = _signal_addr("signal_wait_until", signal)
    _C.signal_wait_until_on_stream(sig, _CMP[cmp], int(value) & (2**64 - 1), _stream_handle(stream, signal.device))


def barrier_all_on_stream(stream=None):
    """Collective, stream-ordered: the stream's later work runs after every PE's earlier work reached it."""
    torch = _torch()
    _C.barrier_all_on_stream(_stream_handle(stream, torch.cuda.current_device()))


def quiet_on_stream(stream=None):
    """Stream-ordered: this PE's puts/gets issued earlier are complete when the stream passes it."""
    torch = _torch()
    _C.quiet_on_stream(_stream_handle(stream, torch.cuda.current_device()))
