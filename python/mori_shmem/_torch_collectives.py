"""Team collectives on symmetric torch tensors, stream-ordered (mori/shmem_team.h's _on_stream forms).

Every member of the team makes the same call with the same sizes (and root), in the same order as
its other collectives on that team; the call is enqueued on `stream` (default
torch.cuda.current_stream()) and returns. dst and src are contiguous tensors on the symmetric heap
(empty(), zeros(), register_tensor()) of one dtype. Reductions combine the members' values in team
order, so every member gets bitwise the same result; dst may be src. Misuse raises ValueError
(shapes, dtypes, op names: checked here) or Error (the runtime's checks: team, symmetry, root),
with nothing enqueued; a team this PE is not a member of raises ValueError.
"""

from . import _C
from ._C import TEAM_WORLD
from ._torch import _contiguous_gpu, _stream_handle, _torch


def _pair(call, dst, src):
    _contiguous_gpu(dst, call, "dst")
    _contiguous_gpu(src, call, "src")
    if dst.dtype != src.dtype:
        raise ValueError(f"mori_shmem.{call}: dst is {dst.dtype}, src {src.dtype}: they must match")


def _team_size(call, team):
    """The team's member count; ValueError naming `call` for a team this PE does not have (unknown,
    destroyed, or one it is not a member of: team_split_* gave it None)."""
    _C._require_init(call)
    try:
        return _C.team_n_pes(team)
    except ValueError:
        raise ValueError(f"mori_shmem.{call}: unknown team {team} (destroyed, or a team this PE is not a member "
                         f"of)") from None


def _run(call, kind, team, dst, src, nelems, root=0, dtype=0, op=0, stream=None):
    _C._collective_on_stream(call, kind, team, dst.data_ptr(), src.data_ptr(), nelems, src.element_size(), root,
                             dtype, op, _stream_handle(stream, dst.device))


def _op_code(call, op):
    if op not in _C._REDUCE_OPS:
        raise ValueError(f"mori_shmem.{call}: op must be one of {sorted(_C._REDUCE_OPS)}, got {op!r}")
    return _C._REDUCE_OPS[op]


def _dtype_code(call, src, op):
    name = str(src.dtype).replace("torch.", "")
    if name not in _C._REDUCE_DTYPES:
        raise ValueError(f"mori_shmem.{call}: dtype {src.dtype} cannot be reduced (supported: "
                         f"{', '.join(sorted(_C._REDUCE_DTYPES))})")
    if op in ("and", "or", "xor") and src.dtype.is_floating_point:
        raise ValueError(f"mori_shmem.{call}: op {op!r} needs an integer dtype, got {src.dtype}")
    return _C._REDUCE_DTYPES[name]


def broadcast(dst, src, root, team=TEAM_WORLD, stream=None):
    """Every member's dst receives team PE `root`'s src (dst and src of the same size; the root's dst too)."""
    _pair("broadcast", dst, src)
    if dst.numel() != src.numel():
        raise ValueError(f"mori_shmem.broadcast: dst has {dst.numel()} elements, src {src.numel()}: they must match")
    _team_size("broadcast", team)
    _run("broadcast", _C._COLL_BROADCAST, team, dst, src, src.numel(), root=root, stream=stream)


def fcollect(dst, src, team=TEAM_WORLD, stream=None):
    """dst (n x src.numel() elements, n the team's size) receives every member's src in team order."""
    _pair("fcollect", dst, src)
    n = _team_size("fcollect", team)
    if dst.numel() != n * src.numel():
        raise ValueError(f"mori_shmem.fcollect: dst has {dst.numel()} elements; it needs {n} x {src.numel()} "
                         f"(the team's {n} members' src)")
    _run("fcollect", _C._COLL_FCOLLECT, team, dst, src, src.numel(), stream=stream)


def alltoall(dst, src, team=TEAM_WORLD, stream=None):
    """src and dst hold n equal blocks (n the team's size): block j of src goes to member j's block <my index>."""
    _pair("alltoall", dst, src)
    n = _team_size("alltoall", team)
    if dst.numel() != src.numel() or src.numel() % n != 0:
        raise ValueError(f"mori_shmem.alltoall: dst has {dst.numel()} elements, src {src.numel()}: both need the "
                         f"same number, a multiple of the team's {n} members")
    _run("alltoall", _C._COLL_ALLTOALL, team, dst, src, src.numel() // n, stream=stream)


def reduce(dst, src, op="sum", team=TEAM_WORLD, stream=None):
    """dst = the members' src combined element-wise by op ("sum", "prod", "min", "max"; "and", "or",
    "xor" on integers), in team order: every member gets the same bits (an all-reduce)."""
    code = _op_code("reduce", op)
    _pair("reduce", dst, src)
    if dst.numel() != src.numel():
        raise ValueError(f"mori_shmem.reduce: dst has {dst.numel()} elements, src {src.numel()}: they must match")
    dtype = _dtype_code("reduce", src, op)
    _team_size("reduce", team)
    _run("reduce", _C._COLL_REDUCE, team, dst, src, src.numel(), dtype=dtype, op=code, stream=stream)


def reducescatter(dst, src, op="sum", team=TEAM_WORLD, stream=None):
    """src holds n pieces of dst.numel() elements (n the team's size); member i's dst gets piece i of
    the reduction, as reduce() computes it. dst is apart from src or is this member's own piece."""
    code = _op_code("reducescatter", op)
    _pair("reducescatter", dst, src)
    n = _team_size("reducescatter", team)
    if src.numel() != n * dst.numel():
        raise ValueError(f"mori_shmem.reducescatter: src has {src.numel()} elements; it needs {n} x {dst.numel()} "
                         f"(one piece of dst's size per member)")
    dtype = _dtype_code("reducescatter", src, op)
    _run("reducescatter", _C._COLL_REDUCESCATTER, team, dst, src, dst.numel(), dtype=dtype, op=code, stream=stream)


def _current_stream(call, stream):
    torch = _torch()
    _C._require_init(call)  # before torch.cuda is touched
    return _stream_handle(stream, torch.cuda.current_device())


def barrier(team=TEAM_WORLD, stream=None):
    """The stream's later work runs after every member's earlier work (its puts delivered) reached it."""
    _C.barrier_on_stream(team, _current_stream("barrier", stream))


def team_sync(team=TEAM_WORLD, stream=None):
    """Arrival only: the stream's later work runs after every member reached it (orders no memory: use barrier)."""
    _C.team_sync_on_stream(team, _current_stream("team_sync", stream))
