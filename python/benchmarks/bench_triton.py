"""Triton kernels calling the device API, shaped like mori-shmem-perf's shmem_put_bw and
shmem_put_latency so that the figures compare with the C++ device API's (tools/perf/bench_rma.cpp):

    torchrun --nproc-per-node 2 python/benchmarks/bench_triton.py --out triton.json
    mpirun -np 2 <build>/tools/perf/mori-shmem-perf shmem_put_bw -s block -c 132 -t 1024 -b 64M -e 1G --json put.json
    mpirun -np 2 <build>/tools/perf/mori-shmem-perf shmem_put_latency -s thread -b 8 -e 8 --json lat.json

Bandwidth: PE 0 runs a grid of --ctas programs of --warps warps; each puts its share of <size>
bytes to PE 1 per iteration with putmem_nbi_block, one quiet_block per program ends the kernel;
GB/s = size * iters / time (CUDA events), best of --reps. Latency: one program; its thread 0 runs
putmem_nbi_thread(8 B) + quiet per iteration; microseconds per iteration. The destination is
checked byte for byte after the bandwidth runs. Writes JSON (--out) and prints a table.
One more bandwidth row (triton_put_bw_registered, --registered-size) puts into a registered torch
tensor instead of the heap: the device library's general path then finds the window of each put.

Two times per figure: `gbps` / `usec` is the kernel's GPU time: the stream is kept busy (a GPU
sleep) while the host launches, so Python's launch path (Triton's launcher, tens to hundreds of us)
is not counted; `*_incl_launch` is the events around one launch from an idle stream, as the C++
tool times its kernels (its launch from C++ costs a few us). `launch_us`: the host time of one
launch. While PE 0 is timed, PE 1 waits on the host (no GPU work of its own that would share the
GPU), as the C++ tool's PE 1 does.
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import triton

import mori_shmem as ms
import mori_shmem.triton as mst
from triton_put_kernels import put_bw, put_latency  # noqa: E402 (this script's folder)


# GPU cycles of the sleep queued in front of a timed launch: ~1 ms at H200 clocks, longer than
# Triton's host launch path.
SLEEP_CYCLES = 2_000_000


def timed(fn, reps, hide_launch):
    """Best of `reps` launches of fn, in seconds (CUDA events); with hide_launch the host launches
    while a GPU sleep runs, so only the kernel's GPU time is counted. Also returns the host time of
    one launch (seconds, best of reps)."""
    best, host = float("inf"), float("inf")
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        if hide_launch:
            torch.cuda._sleep(SLEEP_CYCLES)
        start.record()
        t0 = time.perf_counter()
        fn()
        host = min(host, time.perf_counter() - t0)
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1e-3)
    return best, host


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="64M,256M,1G")
    ap.add_argument("--ctas", type=int, default=132)
    ap.add_argument("--warps", type=int, default=32)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--lat-iters", type=int, default=10000)
    ap.add_argument("--registered-size", default="64M", help="registered-destination row (K/M/G; '' to skip)")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}

    def parse_size(s):
        return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)

    sizes = [parse_size(s) for s in a.sizes.split(",")]

    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local % torch.cuda.device_count())
    backend = ms.process_group_backend()
    dist.init_process_group(backend,
                            device_id=torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else None)
    mst.enable()
    ms.init(group=dist.group.WORLD)
    me, npes = ms.my_pe(), ms.n_pes()
    if npes != 2:
        print("bench_triton: needs exactly 2 PEs", file=sys.stderr)
        return 2
    libs = mst.extern_libs()
    def report(rows, first=0):
        """Prints rows[first:] and writes every row to --out (PE 0)."""
        if me != 0:
            return
        for r in rows[first:]:
            if "error" in r:
                print(f"{r['test']:20s} {r['bytes']:>12d} B  FAILED: {r['error']}")
                continue
            if "gbps" in r:
                figure = f"{r['gbps']:.1f} GB/s ({r['gbps_incl_launch']:.1f} with the launch)"
            else:
                figure = f"{r['usec']:.3f} us ({r['usec_incl_launch']:.3f} with the launch)"
            print(f"{r['test']:20s} {r['bytes']:>12d} B  {figure}  launch {r['launch_us']:.1f} us" +
                  ("" if r.get("verified", True) else "  FAILED"), flush=True)
        if a.out:
            with open(a.out, "w") as f:
                json.dump({"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "triton": triton.__version__,
                           "torch": torch.__version__, "device": torch.cuda.get_device_name(), "npes": npes,
                           "rows": rows}, f, indent=1)

    rows, failures = [], 0
    with ms.tensor_scope():
        biggest = max(sizes)
        dst = ms.zeros(biggest, torch.uint8)
        src = torch.randint(0, 256, (biggest, ), dtype=torch.uint8, device="cuda",
                            generator=torch.Generator(device="cuda").manual_seed(5 + me))
        want = torch.randint(0, 256, (biggest, ), dtype=torch.uint8, device="cuda",
                             generator=torch.Generator(device="cuda").manual_seed(5))  # PE 0's source

        def bandwidth(test, dst, size):
            """One row: PE 0 puts size bytes of src into PE 1's dst, timed; PE 1 checks every byte."""
            ms.barrier_all_on_stream()
            torch.cuda.synchronize()
            secs = None
            if me == 0:
                run = lambda: put_bw[(a.ctas, )](dst, src, size, 1, a.iters, num_warps=a.warps, extern_libs=libs)  # noqa: E731
                run()  # compile, load, bind
                torch.cuda.synchronize()
                gpu, host = timed(run, a.reps, True)
                secs = (gpu, timed(run, a.reps, False)[0], host)
            dist.barrier()  # PE 1 waits here, on the host, while PE 0 is timed
            ms.barrier_all_on_stream()
            torch.cuda.synchronize()
            ok = me != 1 or bool(torch.equal(dst[:size], want[:size]))
            flags = [None] * npes
            dist.all_gather_object(flags, (ok, secs))
            ok = all(f[0] for f in flags)
            secs = flags[0][1]
            return {"test": test, "scope": "block", "bytes": size, "ctas": a.ctas, "threads": a.warps * 32,
                    "iters": a.iters, "gbps": size * a.iters / secs[0] / 1e9,
                    "gbps_incl_launch": size * a.iters / secs[1] / 1e9, "launch_us": secs[2] * 1e6, "verified": ok}

        for size in sizes:
            rows.append(bandwidth("triton_put_bw", dst, size))
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
        lat = None
        if me == 0:
            run = lambda: put_latency[(1, )](dst, src, 8, 1, a.lat_iters, num_warps=1, extern_libs=libs)  # noqa: E731
            run()
            torch.cuda.synchronize()
            gpu, host = timed(run, a.reps, True)
            lat = (gpu / a.lat_iters * 1e6, timed(run, a.reps, False)[0] / a.lat_iters * 1e6, host * 1e6)
        got = [None] * npes
        dist.all_gather_object(got, lat)  # PE 1 waits here, on the host
        rows.append({"test": "triton_put_latency", "scope": "thread", "bytes": 8, "iters": a.lat_iters,
                     "usec": got[0][0], "usec_incl_launch": got[0][1], "launch_us": got[0][2]})
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
        report(rows)  # the heap and latency figures, before the registered row
        reported = len(rows)
        # A registered torch tensor as the destination: each put finds its window through the
        # device library's general path (mori_shmemi_p2p_window, called through a pointer in the
        # bitcode), which the heap rows never call. Last: a failure here costs no other figure.
        if a.registered_size:
            size = min(parse_size(a.registered_size), biggest)
            reg = torch.zeros(size, dtype=torch.uint8, device="cuda")
            try:
                ms.register_tensor(reg)  # collective; raises where torch's memory cannot be shared
            except ms.Error as e:
                print(f"bench_triton: PE {me}: register_tensor({size} B) failed: {e}", file=sys.stderr)
                rows.append({"test": "triton_put_bw_registered", "bytes": size, "verified": False, "error": str(e)})
            else:
                try:
                    rows.append(bandwidth("triton_put_bw_registered", reg, size))
                finally:
                    torch.cuda.synchronize()
                    ms.barrier_all()
                    ms.deregister_tensor(reg)
        failures += sum(not r.get("verified", True) for r in rows)
    report(rows, reported)
    ms.finalize()
    dist.destroy_process_group()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
