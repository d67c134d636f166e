"""mori-shmem from Python: bootstrap, symmetric memory and barriers; torch tensors over it.

Device addresses are plain ints. The GPU work itself happens in kernels (HIP/CUDA, Triton, or
torch operations on the tensors from as_tensor()); this module sets up and tears down.

    import mori_shmem as ms
    ms.init()                                # under mpirun, torchrun or SLURM
    addr = ms.malloc(1 << 20)                # collective: same size on every PE
    t = ms.as_tensor(addr, (1 << 18,), torch.float32)
    ...
    ms.barrier_all()
    del t
    ms.free(addr)
    ms.finalize()

See README.md next to this package for the unique-ID bootstrap and torch.distributed.
"""

from ._C import (  # noqa: F401 (re-exported API)
    DLPACK_DEVICE_TYPE,
    PLATFORM,
    TEAM_NODE,
    TEAM_WORLD,
    UNIQUEID_BYTES,
    Error,
    __version__,
    barrier_all,
    calloc,
    deregister,
    device_count,
    device_error,
    finalize,
    free,
    get_uniqueid,
    init,
    init_with_uniqueid,
    initialized,
    malloc,
    my_pe,
    n_pes,
    pointer_device,
    ptr,
    register,
    team_my_pe,
    team_n_pes,
)
from . import _C

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


def _torch():
    try:
        import torch
    except ImportError as e:
        raise ImportError("mori_shmem.as_tensor needs torch, which is not importable here; the rest of "
                          "mori_shmem works without it") from e
    return torch


def as_tensor(addr, shape, dtype, device=None):
    """A torch tensor over the device memory at addr (no copy), e.g. from malloc().

    shape: int or tuple of ints (contiguous, row-major). dtype: a torch dtype. device: the GPU
    index the tensor is placed on (default: the GPU the memory belongs to). The tensor does not
    own the memory: keep it alive until the tensor is gone, and free() it yourself afterwards.
    Works on NVIDIA and AMD builds of torch (DLPack device kDLCUDA or kDLROCM).
    """
    torch = _torch()
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(d) for d in shape)
    name = str(dtype).replace("torch.", "")
    if name not in _DLPACK_DTYPES or getattr(torch, name, None) != dtype:
        raise TypeError(f"mori_shmem.as_tensor: unsupported dtype {dtype!r}")
    code, bits = _DLPACK_DTYPES[name]
    if device is None:
        device = pointer_device(addr)
    capsule = _C._dlpack_capsule(addr, list(shape), code, bits, DLPACK_DEVICE_TYPE, int(device))
    return torch.utils.dlpack.from_dlpack(capsule)


def peer_tensor(tensor, pe):
    """The tensor through which this PE loads/stores pe's copy of a symmetric tensor (P2P peers).

    tensor: from as_tensor() over symmetric memory. Raises Error if pe is not reachable by
    load/store (another host, or an RDMA-only peer): use a kernel with the device API there.
    """
    if not tensor.is_contiguous():
        raise ValueError("mori_shmem.peer_tensor: the tensor must be contiguous")
    addr = ptr(tensor.data_ptr(), pe)
    if addr is None:
        raise Error(f"mori_shmem.peer_tensor: PE {pe} is not reachable by load/store from PE {my_pe()}")
    # Placed on this PE's GPU: its kernels reach the peer's memory through the P2P mapping.
    return as_tensor(addr, tuple(tensor.shape), tensor.dtype, device=tensor.device.index)
