"""mori-shmem from Python: bootstrap (torch process group, launcher, MPI), symmetric torch tensors,
stream-ordered RMA, teams and team collectives on torch's streams.

    import torch, torch.distributed as dist
    import mori_shmem as ms
    dist.init_process_group("nccl")                 # under torchrun
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    ms.init(group=dist.group.WORLD)                 # collective
    with ms.tensor_scope():                         # frees the scope's tensors, collectively
        x = ms.zeros(1 << 20, torch.float32)        # on the symmetric heap
        src = torch.full_like(x, ms.my_pe())
        ms.put(x, src, (ms.my_pe() + 1) % ms.n_pes())   # on torch.cuda.current_stream()
        ms.barrier_all_on_stream()
        ms.reduce(x, x, "sum")                      # an all-reduce over TEAM_WORLD, on the same stream
    ms.finalize()

The module-level functions taking addresses (malloc, free, ptr, register, ...) are the plain host
API; the tensor functions (empty, put, ...) need torch and import it on first use. See README.md
next to this package.
"""

from ._C import (  # noqa: F401 (re-exported API)
    CMP_EQ,
    CMP_GE,
    CMP_GT,
    CMP_LE,
    CMP_LT,
    CMP_NE,
    DLPACK_DEVICE_TYPE,
    PLATFORM,
    SIGNAL_ADD,
    SIGNAL_SET,
    TEAM_INVALID,
    TEAM_NODE,
    TEAM_SAME_MYPE_NODE,
    TEAM_SHARED,
    TEAM_WORLD,
    UNIQUEID_BYTES,
    Error,
    __version__,
    barrier_all,
    calloc,
    deregister,
    device_count,
    device_error,
    free,
    get_uniqueid,
    global_exit,
    init_with_uniqueid,
    initialized,
    malloc,
    my_pe,
    n_pes,
    pointer_device,
    ptr,
    register,
    team_destroy,
    team_my_pe,
    team_n_pes,
    team_split_2d,
    team_split_strided,
    team_translate_pe,
)
from ._paths import cmake_prefix, include_dir, library_dir  # noqa: F401
from ._torch import (  # noqa: F401
    as_tensor,
    barrier_all_on_stream,
    deregister_tensor,
    empty,
    finalize,
    free_tensor,
    get,
    init,
    peer_tensor,
    process_group_backend,
    put,
    put_signal,
    quiet_on_stream,
    register_tensor,
    signal_wait_until,
    tensor_scope,
    zeros,
)
from ._torch_collectives import (  # noqa: F401
    alltoall,
    barrier,
    broadcast,
    fcollect,
    reduce,
    reducescatter,
    team_sync,
)
