"""mori_shmem.triton on GPUs, one pytest process per PE under torchrun (2 or more PEs):

    torchrun --nproc-per-node 2 -m pytest -x -q -rs python/tests/test_triton_gpu.py

(2 PEs may share one GPU under CUDA MPS: tools/mps.sh.) Triton kernels that call the device API:
a ring put-with-signal, an all-gather, atomic counters (fetching and not), p/g, a kernel loaded
before mori_shmem_init (bound when init runs), binding during CUDA-graph capture, and bad inputs:
a kernel without the device library, a NULL handle. Every element is checked; data is random,
seeded per PE and round. A kernel in a process that never initialised: test_triton_errors.py (it
traps, which under MPS may take down the other clients of the GPU, so it runs alone).

Skipped with the reason without torch, triton, a GPU, the device library's bitcode, or outside
torchrun.
"""

import os

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable")
triton = pytest.importorskip("triton", reason="triton is not importable")
import torch.distributed as dist  # noqa: E402
import triton.language as tl  # noqa: E402

import mori_shmem as ms  # noqa: E402
import mori_shmem.triton as mst  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no GPU visible to torch", allow_module_level=True)
if "WORLD_SIZE" not in os.environ or int(os.environ["WORLD_SIZE"]) < 2:
    pytest.skip("needs 2+ PEs: run under torchrun --nproc-per-node 2", allow_module_level=True)
try:
    LIBS = mst.extern_libs()
except FileNotFoundError as e:
    pytest.skip(str(e), allow_module_level=True)


@triton.jit
def pe_kernel(out):
    tl.store(out, mst.my_pe())
    tl.store(out + 1, mst.n_pes())


@triton.jit
def ring_kernel(dst, src, sig, chunk, nbytes, peer, rounds):
    # Program p puts bytes [p*chunk, min((p+1)*chunk, nbytes)) to peer, each with a signal ADD 1.
    p = tl.program_id(0)
    start = p * chunk
    n = tl.minimum(chunk, nbytes - start)
    mst.putmem_signal_nbi_block(dst + start, src + start, n, sig, 1, mst.SIGNAL_ADD, peer)
    mst.signal_wait_until(sig, mst.CMP_GE, rounds)  # every chunk from the left PE has arrived


@triton.jit
def allgather_kernel(dst, src, nbytes):
    me = mst.my_pe()
    npes = mst.n_pes()
    for pe in range(0, npes):
        mst.putmem_nbi_block(dst + me * nbytes, src, nbytes, pe)
    mst.barrier_all_block()  # quiet, then every PE arrived: all slots are filled


@triton.jit
def counter_kernel(counter, olds, slots, target, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = mst.int64_atomic_fetch_add(counter + offs % slots, 1, target)
    tl.store(olds + offs, old)


@triton.jit
def add_once_kernel(counter, target):
    if mst.thread_rank() == 0:
        mst.int32_atomic_add(counter, 1, target)
        mst.quiet()


@triton.jit
def pg_kernel(dst, vals, got, peer, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(vals + offs, mask=mask)
    # Extern calls are not masked: lanes past n repeat element 0 with its own value.
    safe = tl.where(mask, offs, 0)
    mst.float_p(dst + safe, tl.where(mask, v, tl.load(vals)), peer)
    mst.quiet()
    g = mst.float_g(dst + safe, peer)
    tl.store(got + offs, g, mask=mask)


@triton.jit
def plain_kernel(out):
    tl.store(out, 1)


PRE_INIT = {}


@pytest.fixture(scope="module", autouse=True)
def runtime():
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local % torch.cuda.device_count())
    mst.enable()
    # A kernel loaded before init: remembered by the hook, bound when init runs.
    out = torch.zeros(2, dtype=torch.int32, device="cuda")
    ck = pe_kernel.warmup(out, grid=(1, ), extern_libs=LIBS)
    ck._init_handles()
    PRE_INIT["module"] = ck.module
    backend = ms.process_group_backend()
    dist.init_process_group(backend,
                            device_id=torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else None)
    ms.init(group=dist.group.WORLD)
    yield
    ms.finalize()
    dist.destroy_process_group()
    mst.disable()


def me():
    return ms.my_pe()


def npes():
    return ms.n_pes()


def gather(t):
    """t from every PE, on the CPU (gloo gathers CPU tensors, NCCL GPU ones)."""
    src = t.cpu() if dist.get_backend() == "gloo" else t
    out = [torch.empty_like(src) for _ in range(npes())]
    dist.all_gather(out, src)
    return [o.cpu() for o in out]


def gen(pe, rnd):
    return torch.Generator(device="cuda").manual_seed(1000 * rnd + pe)


def rand_bytes(pe, rnd, n):
    return torch.randint(0, 256, (n, ), dtype=torch.uint8, device="cuda", generator=gen(pe, rnd))


def test_kernel_loaded_before_init_is_bound():
    out = torch.full((2, ), -1, dtype=torch.int32, device="cuda")
    pe_kernel[(1, )](out, extern_libs=LIBS)
    torch.cuda.synchronize()
    assert out.tolist() == [me(), npes()], f"PE {me()}: my_pe/n_pes from a pre-init kernel: {out.tolist()}"
    assert mst.module_uses_device_api(PRE_INIT["module"])
    mst.module_init(PRE_INIT["module"])  # idempotent


@pytest.mark.parametrize("nbytes,programs", [(1, 1), (4093, 3), (1 << 20, 8), ((16 << 20) + 12, 16)])
def test_ring_put_signal(nbytes, programs):
    rnd = nbytes % 1000 + programs
    with ms.tensor_scope():
        dst = ms.zeros(nbytes, torch.uint8)
        sig = ms.zeros(1, torch.int64)
        src = rand_bytes(me(), rnd, nbytes)
        chunk = -(-nbytes // programs)
        programs = -(-nbytes // chunk)
        right = (me() + 1) % npes()
        left = (me() - 1) % npes()
        ms.barrier_all_on_stream()  # every PE's dst and sig are zeroed before anyone puts
        ring_kernel[(programs, )](dst, src, sig, chunk, nbytes, right, programs, num_warps=8, extern_libs=LIBS)
        torch.cuda.synchronize()
        want = rand_bytes(left, rnd, nbytes)
        bad = (dst != want).nonzero()
        assert bad.numel() == 0, (f"PE {me()}: {bad.numel()} of {nbytes} bytes from PE {left} differ, first at "
                                  f"{bad[0].item()}")
        assert sig.item() == programs, f"PE {me()}: signal {sig.item()} after {programs} put-with-signals"
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()


@pytest.mark.parametrize("nbytes", [8, 1000, 3 << 20])
def test_allgather(nbytes):
    with ms.tensor_scope():
        dst = ms.zeros(nbytes * npes(), torch.uint8)
        src = rand_bytes(me(), 7, nbytes)
        ms.barrier_all_on_stream()
        allgather_kernel[(1, )](dst, src, nbytes, num_warps=8, extern_libs=LIBS)
        torch.cuda.synchronize()
        for pe in range(npes()):
            got = dst[pe * nbytes:(pe + 1) * nbytes]
            bad = (got != rand_bytes(pe, 7, nbytes)).nonzero()
            assert bad.numel() == 0, f"PE {me()}: slot of PE {pe}: {bad.numel()} of {nbytes} bytes differ"
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()


def test_atomic_counter():
    block, programs, slots = 256, 8, 97
    n = block * programs
    with ms.tensor_scope():
        counter = ms.zeros(slots, torch.int64)
        olds = torch.empty(n, dtype=torch.int64, device="cuda")
        ms.barrier_all_on_stream()
        counter_kernel[(programs, )](counter, olds, slots, 0, BLOCK=block, num_warps=4, extern_libs=LIBS)
        torch.cuda.synchronize()
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
        # Every fetched old value, from every PE: per slot, exactly 0 .. (total adds to the slot - 1).
        everyone = gather(olds)
        idx = torch.arange(n) % slots
        per_slot = torch.bincount(idx, minlength=slots) * npes()
        if me() == 0:
            got = counter.cpu()
            assert torch.equal(got, per_slot), f"PE 0: counters {got.tolist()} != {per_slot.tolist()}"
        for s in range(slots):
            seen = torch.cat([o[idx == s] for o in everyone]).sort().values
            assert torch.equal(seen, torch.arange(per_slot[s].item())), f"PE {me()}: slot {s} fetched {seen.tolist()}"
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()


def test_atomic_add_guarded_once_per_program():
    programs = 5
    with ms.tensor_scope():
        counter = ms.zeros(1, torch.int32)
        ms.barrier_all_on_stream()
        add_once_kernel[(programs, )](counter, (me() + 1) % npes(), num_warps=4, extern_libs=LIBS)
        torch.cuda.synchronize()
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
        assert counter.item() == programs, f"PE {me()}: counter {counter.item()}, want {programs} (one add per program)"


def test_p_g():
    n, block = 3000, 1024
    with ms.tensor_scope():
        dst = ms.zeros(n, torch.float32)
        vals = torch.randn(n, device="cuda", generator=gen(me(), 11))
        got = torch.empty(n, device="cuda")
        ms.barrier_all_on_stream()
        peer = (me() + 1) % npes()
        pg_kernel[(-(-n // block), )](dst, vals, got, peer, n, BLOCK=block, num_warps=4, extern_libs=LIBS)
        torch.cuda.synchronize()
        assert torch.equal(got, vals), f"PE {me()}: g after p read back other values"
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
        left = (me() - 1) % npes()
        want = torch.randn(n, device="cuda", generator=gen(left, 11))
        assert torch.equal(dst, want), f"PE {me()}: p from PE {left} left other values"


@triton.jit
def pe_plus_kernel(out, ADD: tl.constexpr):
    tl.store(out, mst.my_pe() + ADD)


def test_module_init_during_graph_capture():
    # A kernel loaded without the hook, bound while another stream captures a graph (what a JIT
    # loading its kernel on first launch inside torch.cuda.graph meets), then launched in the graph.
    mst.disable()
    try:
        out = torch.full((1, ), -1, dtype=torch.int32, device="cuda")
        ck = pe_plus_kernel.warmup(out, ADD=100, grid=(1, ), extern_libs=LIBS)
        ck._init_handles()
        assert mst.module_uses_device_api(ck.module)
        g = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            with torch.cuda.graph(g, stream=side):
                mst.module_init(ck.module)  # capture mode relaxed, private stream: the capture survives
                pe_plus_kernel[(1, )](out, ADD=100, extern_libs=LIBS)
        torch.cuda.synchronize()
        assert out.item() == -1, "the captured kernel ran during capture"
        g.replay()
        torch.cuda.synchronize()
        assert out.item() == me() + 100, f"PE {me()}: graph replay wrote {out.item()}"
    finally:
        mst.enable()


def test_kernel_without_device_library_is_refused():
    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    ck = plain_kernel[(1, )](out)  # loaded; the hook leaves it alone
    torch.cuda.synchronize()
    assert out.item() == 1
    assert not mst.module_uses_device_api(ck.module)
    with pytest.raises(RuntimeError, match="INVALID_USAGE"):
        mst.module_init(ck.module)


def test_null_module_is_refused():
    with pytest.raises(RuntimeError, match="INVALID_USAGE"):
        mst.module_init(0)
    with pytest.raises(RuntimeError, match="INVALID_USAGE"):
        mst.module_uses_device_api(0)
