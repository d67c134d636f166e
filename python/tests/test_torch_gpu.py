"""mori_shmem's torch layer on GPUs, one pytest process per PE under torchrun (2 or more PEs):

    torchrun --nproc-per-node 2 -m pytest -x -q python/tests/test_torch_gpu.py

(2 PEs may share one GPU under CUDA MPS: tools/mps.sh.) init(group=WORLD), symmetric tensors and
their collective free (including a PE that frees out of order), peer_tensor, register_tensor on
torch's allocator, put/get/put_signal/signal_wait_until/barrier_all_on_stream/quiet_on_stream on
the current and on a side stream, CUDA-graph capture of them, team splits and every team collective
on the world and a sub-team, and bad inputs. Every PE runs the
same tests in the same order (they are collective). Data is random, seeded per PE and round, so
each PE can recompute what its peers sent.

Skipped with the reason without torch, without a GPU, or outside torchrun.
"""

import gc
import os
import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable")
import torch.distributed as dist  # noqa: E402

import mori_shmem as ms  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no GPU visible to torch", allow_module_level=True)
if "WORLD_SIZE" not in os.environ or int(os.environ["WORLD_SIZE"]) < 2:
    pytest.skip("needs 2+ PEs: run under torchrun --nproc-per-node 2", allow_module_level=True)


@pytest.fixture(scope="module", autouse=True)
def runtime():
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local % torch.cuda.device_count())
    backend = ms.process_group_backend()  # gloo when PEs share a GPU (NCCL refuses that)
    dist.init_process_group(backend, device_id=torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else None)
    ms.init(group=dist.group.WORLD)
    yield
    ms.finalize()
    dist.destroy_process_group()


def me():
    return ms.my_pe()


def npes():
    return ms.n_pes()


def right():
    return (me() + 1) % npes()


def left():
    return (me() - 1) % npes()


def data(pe, rnd, n, dtype=torch.float32):
    """What PE `pe` sends in round `rnd`: random, reproducible on every PE."""
    g = torch.Generator(device="cuda").manual_seed(1000 * rnd + pe)
    if dtype.is_floating_point:
        return torch.rand(n, generator=g, device="cuda").to(dtype)
    return torch.randint(-(2**31), 2**31 - 1, (n,), generator=g, device="cuda", dtype=torch.int64).to(dtype)


def test_init_from_group():
    assert ms.initialized()
    assert (ms.my_pe(), ms.n_pes()) == (dist.get_rank(), dist.get_world_size())


def test_empty_zeros_and_free():
    x = ms.zeros((64, 1024), torch.bfloat16)
    assert x.shape == (64, 1024) and x.dtype == torch.bfloat16 and x.is_cuda
    assert x.device.index == torch.cuda.current_device()
    assert int(torch.count_nonzero(x)) == 0
    assert ms.ptr(x.data_ptr(), me()) == x.data_ptr()  # on the symmetric heap
    ms.free_tensor(x)
    assert x.numel() == 0  # emptied by free_tensor
    e = ms.empty((0, 3), torch.int32)  # zero-size tensors pair their free like any other
    assert e.numel() == 0
    ms.free_tensor(e)


def test_tensor_scope_frees_and_gc_does_not():
    with ms.tensor_scope():
        a = ms.empty(1000, torch.float32)
        b = ms.zeros(3, torch.int64)
        addrs = (a.data_ptr(), b.data_ptr())
        assert all(ms._torch._state.live.get(p) is not None for p in addrs)
    assert all(p not in ms._torch._state.live for p in addrs), "tensor_scope() did not free its tensors"
    # Dropping the last reference frees nothing (a free is collective); it warns.
    c = ms.empty(16, torch.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del c
        gc.collect()
    assert any(issubclass(w.category, ResourceWarning) and "free_tensor" in str(w.message) for w in caught), caught


def test_free_out_of_order_is_caught_on_every_pe():
    a = ms.empty(256, torch.float32)
    b = ms.empty(512, torch.float32)
    first = a if me() % 2 == 0 else b  # PEs disagree on what they free
    with pytest.raises(ms.Error, match="free"):
        ms.free_tensor(first)
    # Nothing was freed: both tensors are still live and can be freed in agreement.
    ms.free_tensor(b)
    ms.free_tensor(a)


def test_empty_out_of_order_is_caught_on_every_pe(capfd):
    n = 256 if me() % 2 == 0 else 512  # PEs disagree on the size
    with pytest.raises(ms.Error, match=rf"empty\(\({n},\), torch.float32\) on PE {me()} \({4 * n} bytes"):
        ms.empty(n, torch.float32)
    err = capfd.readouterr().err  # the runtime's line names both PEs' calls and sizes
    assert "differs between PEs" in err and "malloc(1024, 256)" in err and "malloc(2048, 256)" in err, err
    # Nothing was allocated on any PE: matching calls work afterwards.
    x = ms.empty(128, torch.float32)
    ms.free_tensor(x)


@pytest.mark.parametrize("n", [1, 1000, 1 << 20, 16 << 20])
def test_put_get_on_current_stream(n):
    with ms.tensor_scope():
        x = ms.empty(n, torch.float32)
        y = ms.zeros(n, torch.float32)
        x.copy_(data(me(), 1, n))
        ms.barrier_all_on_stream()
        ms.put(y, x, right())
        ms.barrier_all_on_stream()
        assert torch.equal(y, data(left(), 1, n)), f"PE {me()}: put from PE {left()} wrong"
        z = torch.empty(n, device="cuda")  # the local side of a get: any GPU memory for P2P peers
        ms.get(z, x, right())
        assert torch.equal(z, data(right(), 1, n)), f"PE {me()}: get from PE {right()} wrong"
        ms.barrier_all_on_stream()


def test_put_signal_and_wait_on_a_side_stream():
    n = 4 << 20
    side = torch.cuda.Stream()
    with ms.tensor_scope():
        y = ms.zeros(n, torch.float32)
        sig = ms.zeros(1, torch.int64)
        src = data(me(), 2, n)
        ms.barrier_all_on_stream()
        torch.cuda.current_stream().synchronize()
        with torch.cuda.stream(side):
            for k in range(3):
                ms.put_signal(y, src, sig, 1, right(), sig_op="add")
                ms.signal_wait_until(sig, "ge", k + 1)  # my left neighbour's k-th put has landed
                ms.quiet_on_stream()
        side.synchronize()
        assert int(sig.item()) == 3
        assert torch.equal(y, data(left(), 2, n))
        ms.put_signal(y, src, sig, 7, right(), sig_op="set", stream=side)
        ms.signal_wait_until(sig, "eq", 7, stream=side)
        side.synchronize()
        ms.barrier_all_on_stream()


def test_cuda_graph_capture():
    n = 1 << 20
    with ms.tensor_scope():
        x = ms.empty(n, torch.float32)
        y = ms.zeros(n, torch.float32)
        sig = ms.zeros(1, torch.int64)
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        capture = torch.cuda.Stream()
        with torch.cuda.graph(g, stream=capture):  # the on-stream calls go to torch's capturing stream
            ms.barrier_all_on_stream()       # the peer's x holds this round's data
            ms.put_signal(y, x, sig, 1, right(), sig_op="add")
            ms.signal_wait_until(sig, "ge", 1)
            ms.quiet_on_stream()
            ms.barrier_all_on_stream()
        for rnd in range(3):
            x.copy_(data(me(), 10 + rnd, n))
            sig.zero_()  # every PE resets its signal before any PE replays: the wait means this round
            torch.cuda.synchronize()
            ms.barrier_all()
            g.replay()
            torch.cuda.synchronize()
            assert torch.equal(y, data(left(), 10 + rnd, n)), f"PE {me()}: replay {rnd} delivered wrong data"
            assert int(sig.item()) == 1
        del g
        torch.cuda.synchronize()
        ms.barrier_all_on_stream()


def test_peer_tensor():
    with ms.tensor_scope():
        x = ms.empty(4096, torch.int64)
        x.copy_(data(me(), 3, 4096, torch.int64))
        ms.barrier_all_on_stream()
        if ms.ptr(x.data_ptr(), right()) is None:
            pytest.skip(f"PE {right()} is not reachable by load/store from PE {me()}")
        p = ms.peer_tensor(x, right())
        assert torch.equal(p.clone(), data(right(), 3, 4096, torch.int64))
        assert torch.equal(ms.peer_tensor(x[100:200], right()).clone(), data(right(), 3, 4096, torch.int64)[100:200])
        del p
        ms.barrier_all_on_stream()


def test_register_tensor_from_torch_allocator():
    n = 1 << 18
    t = torch.zeros(n, device="cuda")
    src = data(me(), 4, n)
    ms.register_tensor(t)
    try:
        ms.barrier_all_on_stream()
        ms.put(t, src, right())
        ms.barrier_all_on_stream()
        assert torch.equal(t, data(left(), 4, n))
    finally:
        torch.cuda.synchronize()
        ms.barrier_all()
        ms.deregister_tensor(t)


def test_bad_inputs():
    with ms.tensor_scope():
        x = ms.empty(1024, torch.float32)
        local = torch.zeros(1024, device="cuda")  # not symmetric
        with pytest.raises(ms.Error, match="INVALID_USAGE"):
            ms.put(x, local, npes())  # PE out of range
        with pytest.raises(ms.Error, match="INVALID_USAGE"):
            ms.put(local, x, right())  # dst not symmetric
        with pytest.raises(ms.Error, match="INVALID_USAGE"):
            ms.get(local, local, right())  # src not symmetric
        with pytest.raises(ValueError, match="must match"):
            ms.put(x, torch.zeros(10, device="cuda"), right())
        with pytest.raises(ValueError, match="int64/uint64"):
            ms.signal_wait_until(x[:1], "eq", 0)
        with pytest.raises(ValueError, match="not a live tensor"):
            ms.free_tensor(x[1:])
        with pytest.raises(ValueError, match="contiguous"):
            ms.put(x.view(32, 32).t(), x.view(32, 32), right())
        torch.cuda.synchronize()
        assert ms.device_error() is None


# ---- teams and team collectives --------------------------------------------------------------

def members_of(team):
    return [ms.team_translate_pe(team, i, ms.TEAM_WORLD) for i in range(ms.team_n_pes(team))]


def small_ints(pe, rnd, n):
    return data(pe, rnd, n, torch.int32) & 0xFFFF  # sums of a few stay far from overflow


@pytest.mark.parametrize("n", [1, 3000, 1 << 18])
def test_collectives_on_teams(n):
    """Every collective on the world and on the world without PE 0, random data, checked exactly."""
    world = npes()
    rest = ms.team_split_strided(ms.TEAM_WORLD, 1, 1, world - 1)
    assert (rest is None) == (me() == 0)
    with ms.tensor_scope():  # allocations are world-collective: one set, sized for the world
        src = ms.empty(n * world, torch.float32)
        dst = ms.zeros(n * world, torch.float32)
        isrc = ms.empty(n * world, torch.int32)
        idst = ms.zeros(n * world, torch.int32)
        hsrc = ms.empty(n, torch.float16)
        hdst = ms.zeros(n, torch.float16)
        ms.barrier_all_on_stream()
        for k, team in enumerate((ms.TEAM_WORLD, rest)):
            if team is None:
                continue
            pes = members_of(team)
            m, t, rnd = len(pes), pes.index(me()), 20 + 10 * k
            where = f"PE {me()}, team {pes}, n {n}"
            src[:n].copy_(data(me(), rnd, n))
            ms.broadcast(dst[:n], src[:n], m - 1, team=team)
            assert torch.equal(dst[:n], data(pes[-1], rnd, n)), f"{where}: broadcast"
            ms.fcollect(dst[:n * m], src[:n], team=team)
            assert torch.equal(dst[:n * m], torch.cat([data(p, rnd, n) for p in pes])), f"{where}: fcollect"
            src[:n * m].copy_(data(me(), rnd + 1, n * m))
            ms.alltoall(dst[:n * m], src[:n * m], team=team)
            want = torch.cat([data(p, rnd + 1, n * m)[t * n:(t + 1) * n] for p in pes])
            assert torch.equal(dst[:n * m], want), f"{where}: alltoall"
            # Reductions combine in team order: the same additions in the same order give the same bits.
            src[:n].copy_(data(me(), rnd + 2, n))
            ms.reduce(dst[:n], src[:n], "sum", team=team)
            want = data(pes[0], rnd + 2, n)
            for p in pes[1:]:
                want = want + data(p, rnd + 2, n)
            assert torch.equal(dst[:n], want), f"{where}: float32 sum reduce"
            isrc[:n].copy_(data(me(), rnd + 3, n, torch.int32))
            ms.reduce(idst[:n], isrc[:n], "max", team=team)
            assert torch.equal(idst[:n], torch.stack([data(p, rnd + 3, n, torch.int32) for p in pes]).amax(0)), \
                f"{where}: int32 max reduce"
            ms.reduce(isrc[:n], isrc[:n], "xor", team=team)  # in place
            want = data(pes[0], rnd + 3, n, torch.int32)
            for p in pes[1:]:
                want = want ^ data(p, rnd + 3, n, torch.int32)
            assert torch.equal(isrc[:n], want), f"{where}: int32 xor reduce in place"
            hsrc.copy_(data(me(), rnd + 4, n, torch.float16))
            ms.reduce(hdst, hsrc, "max", team=team)
            assert torch.equal(hdst, torch.stack([data(p, rnd + 4, n, torch.float16) for p in pes]).amax(0)), \
                f"{where}: float16 max reduce"
            isrc[:n * m].copy_(small_ints(me(), rnd + 5, n * m))
            ms.reducescatter(idst[:n], isrc[:n * m], "sum", team=team)
            want = small_ints(pes[0], rnd + 5, n * m)[t * n:(t + 1) * n]
            for p in pes[1:]:
                want = want + small_ints(p, rnd + 5, n * m)[t * n:(t + 1) * n]
            assert torch.equal(idst[:n], want), f"{where}: int32 sum reducescatter"
        ms.barrier_all_on_stream()
    if rest is not None:
        ms.team_destroy(rest)


def test_team_barrier_and_sync_on_a_side_stream():
    side = torch.cuda.Stream()
    with ms.tensor_scope():
        y = ms.zeros(4096, torch.float32)
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
        with torch.cuda.stream(side):
            src = data(me(), 40, 4096)
            ms.put(y, src, right())
            ms.barrier()  # the puts of every PE are delivered when the side stream passes it
            ms.team_sync(ms.TEAM_NODE)
        side.synchronize()
        assert torch.equal(y, data(left(), 40, 4096))
        ms.barrier(stream=side)
        side.synchronize()


def test_team_split_2d_and_translate():
    x, y = ms.team_split_2d(ms.TEAM_WORLD, 1)  # one column: rows of one PE, the column is the world
    try:
        assert (ms.team_n_pes(x), ms.team_my_pe(x)) == (1, 0)
        assert (ms.team_n_pes(y), ms.team_my_pe(y)) == (npes(), me())
        assert members_of(y) == list(range(npes()))
        assert ms.team_translate_pe(ms.TEAM_WORLD, me(), x) == 0
        assert ms.team_translate_pe(ms.TEAM_WORLD, right(), x) is None
    finally:
        ms.team_destroy(x)
        ms.team_destroy(y)
    with pytest.raises(ms.Error, match="INVALID_USAGE"):  # the PEs disagree: every PE fails the same way
        ms.team_split_strided(ms.TEAM_WORLD, 0, 1, 1 + me() % 2)


def test_collective_bad_inputs():
    with ms.tensor_scope():
        x = ms.empty(64 * npes(), torch.float32)
        local = torch.zeros(64, device="cuda")  # not symmetric
        with pytest.raises(ValueError, match="needs"):
            ms.fcollect(x, x[:63])
        with pytest.raises(ValueError, match="must match"):
            ms.broadcast(x[:64], x[:32], 0)
        with pytest.raises(ValueError, match="integer dtype"):
            ms.reduce(x, x, "xor")
        with pytest.raises(ValueError, match="cannot be reduced"):
            flags = torch.zeros(8, dtype=torch.bool, device="cuda")
            ms.reduce(flags, flags)
        with pytest.raises(ValueError, match="unknown team"):
            ms.fcollect(x, x[:64], team=ms.TEAM_INVALID)
        with pytest.raises(ms.Error, match="INVALID_USAGE"):
            ms.reduce(local, local)
        with pytest.raises(ms.Error, match="INVALID_USAGE"):
            ms.broadcast(x[:64], x[64:128], npes())  # root out of range
        torch.cuda.synchronize()
        assert ms.device_error() is None
        ms.barrier_all_on_stream()
