"""Speed of mori_shmem's torch layer, 2 PEs under torchrun (one GPU each, or one GPU under MPS):

    torchrun --nproc-per-node 2 python/benchmarks/bench_torch.py [--out results.json]

Measures, each as the slowest PE (collective calls finish when the last PE does):
  init_group_s        ms.init(group=WORLD) after torch's own init (process group + one all_reduce)
  empty_us[<bytes>]   ms.empty() per call (collective), and free_tensor() per call
  empty_parts_us      where those go: _C.malloc / _C.free alone (the collective symmetric check),
                      the torch wrapping alone (as_tensor, no collective), the GPU wait of a free
  put_GBps            256 MiB PE 0 -> PE 1 on torch's current stream: ms.put (Python) against the
                      C API mori_shmem_putmem_on_stream called directly (ctypes, same library),
                      timed with CUDA events over --iters puts; python_vs_c = their ratio
  put_call_us         host time of one ms.put / one C call of 8 bytes (enqueue cost)
Prints one JSON object (rank 0) and writes it to --out when given.
"""

import argparse
import ctypes
import json
import os
import time

import torch
import torch.distributed as dist

import mori_shmem as ms


def _coll_device():
    """Where torch.distributed collectives take tensors: the GPU under NCCL, the CPU under gloo."""
    return "cuda" if dist.get_backend() == "nccl" else "cpu"


def slowest(seconds):
    t = torch.tensor([seconds], dtype=torch.float64, device=_coll_device())
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def c_api():
    """mori_shmem_putmem_on_stream from the libmori_shmem the module loaded (dlopen finds it by soname)."""
    for name in ("libmori_shmem.so.0", "libmori_shmem.so"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        lib = ctypes.CDLL(os.path.join(ms.library_dir(), "libmori_shmem.so"))
    f = lib.mori_shmem_putmem_on_stream
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    f.restype = ctypes.c_int
    return f


def bandwidth(enqueue, nbytes, iters, active):
    """GB/s of `iters` enqueues on the current stream (PE 0 only when active is False elsewhere)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ms.barrier_all_on_stream()
    torch.cuda.synchronize()
    if active:
        enqueue()  # warm-up
        start.record()
        for _ in range(iters):
            enqueue()
        stop.record()
        torch.cuda.synchronize()
    ms.barrier_all_on_stream()
    torch.cuda.synchronize()
    return nbytes * iters / (start.elapsed_time(stop) * 1e-3) / 1e9 if active else 0.0


def empty_parts(calls):
    """Per-call cost of the parts of empty()/free_tensor(), each as the slowest PE."""
    parts = {}
    dist.barrier()
    t0 = time.perf_counter()
    addrs = [ms._C.malloc(4096) for _ in range(calls)]
    parts["c_malloc"] = slowest(time.perf_counter() - t0) / calls * 1e6
    t0 = time.perf_counter()
    for a in reversed(addrs):
        ms._C.free(a)
    parts["c_free"] = slowest(time.perf_counter() - t0) / calls * 1e6
    holder = ms.empty(4096, torch.uint8)
    dev = holder.device.index
    t0 = time.perf_counter()
    for _ in range(calls):
        ms.as_tensor(holder.data_ptr(), (4096,), torch.uint8, device=dev, owner=holder)
    parts["torch_wrap"] = slowest(time.perf_counter() - t0) / calls * 1e6
    t0 = time.perf_counter()
    for _ in range(calls):
        ms._C.device_synchronize()
    parts["gpu_wait"] = slowest(time.perf_counter() - t0) / calls * 1e6
    ms.free_tensor(holder)
    return parts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--empty-calls", type=int, default=200)
    args = ap.parse_args()

    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local % torch.cuda.device_count())
    t0 = time.perf_counter()
    backend = ms.process_group_backend()  # gloo when PEs share a GPU (NCCL refuses that)
    dist.init_process_group(backend, device_id=torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else None)
    dist.all_reduce(torch.ones(1, device=_coll_device()))
    torch.cuda.synchronize()
    torch_init = time.perf_counter() - t0

    dist.barrier()
    t0 = time.perf_counter()
    ms.init(group=dist.group.WORLD)
    init_s = slowest(time.perf_counter() - t0)
    me, n = ms.my_pe(), ms.n_pes()
    res = {"pes": n, "torch_init_s": slowest(torch_init), "init_group_s": init_s, "empty_us": {}, "free_us": {}}

    for nbytes in (4096, 1 << 20):
        ts = []
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(args.empty_calls):
            ts.append(ms.empty(nbytes, torch.uint8))
        res["empty_us"][nbytes] = slowest(time.perf_counter() - t0) / args.empty_calls * 1e6
        t0 = time.perf_counter()
        for t in reversed(ts):
            ms.free_tensor(t)
        res["free_us"][nbytes] = slowest(time.perf_counter() - t0) / args.empty_calls * 1e6
    res["empty_parts_us"] = empty_parts(args.empty_calls)

    size = 256 << 20
    dst = ms.empty(size, torch.uint8)
    # The same random bytes on every PE, so PE 1 can check what PE 0 put.
    gen = torch.Generator(device="cuda").manual_seed(7)
    src = torch.randint(0, 255, (size,), dtype=torch.uint8, device="cuda", generator=gen)
    peer = 1 % n
    put_c = c_api()
    stream = torch.cuda.current_stream().cuda_stream

    def py_put():
        ms.put(dst, src, peer)

    def c_put():
        rc = put_c(dst.data_ptr(), src.data_ptr(), size, peer, stream)
        if rc != 0:
            raise ms.Error(f"mori_shmem_putmem_on_stream returned {rc}")

    py = bandwidth(py_put, size, args.iters, me == 0)
    c = bandwidth(c_put, size, args.iters, me == 0)
    ms.barrier_all()
    if me == peer and not torch.equal(dst, src):
        raise SystemExit(f"PE {me}: the 256 MiB put from PE 0 delivered wrong data")
    res["put_GBps"] = {"python": py, "c_api": c, "python_vs_c": py / c if c else None,
                       "transport": "P2P (copy engine)" if ms.ptr(dst.data_ptr(), peer) is not None else "device path"}

    small = ms.empty(8, torch.uint8)
    small_src = torch.zeros(8, dtype=torch.uint8, device="cuda")
    calls = 1000
    t0 = time.perf_counter()
    for _ in range(calls):
        ms.put(small, small_src, peer)
    py_call = (time.perf_counter() - t0) / calls * 1e6
    t0 = time.perf_counter()
    for _ in range(calls):
        put_c(small.data_ptr(), small_src.data_ptr(), 8, peer, stream)
    c_call = (time.perf_counter() - t0) / calls * 1e6
    torch.cuda.synchronize()
    res["put_call_us"] = {"python": py_call, "c_api": c_call}

    ms.barrier_all()
    ms.free_tensor(small)
    ms.free_tensor(dst)
    ms.finalize()
    dist.destroy_process_group()
    if me == 0:
        text = json.dumps(res, indent=1, sort_keys=True)
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text + "\n")


if __name__ == "__main__":
    main()
