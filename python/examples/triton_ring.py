"""A Triton kernel that sends a buffer around the ring of PEs with put-with-signal.

    torchrun --nproc-per-node 2 python/examples/triton_ring.py      # 2 PEs (one GPU: under CUDA MPS)

Each PE fills a buffer with values derived from its PE number; one Triton kernel puts it into the
right neighbour's symmetric buffer in chunks (one per program, each with a signal ADD 1) and waits
until all of the left neighbour's chunks have arrived. The script checks every element and exits
non-zero on any mismatch.
"""

import os
import sys

import torch
import torch.distributed as dist
import triton
import triton.language as tl

import mori_shmem as ms
import mori_shmem.triton as mst


@triton.jit
def ring_put_signal(dst, src, sig, n, CHUNK: tl.constexpr):
    pe = mst.my_pe()
    right = (pe + 1) % mst.n_pes()
    start = tl.program_id(0) * CHUNK
    count = tl.minimum(CHUNK, n - start)
    # Every thread of the program calls the block form with the same arguments.
    mst.putmem_signal_nbi_block(dst + start, src + start, count * 4, sig, 1, mst.SIGNAL_ADD, right)
    mst.signal_wait_until(sig, mst.CMP_GE, tl.num_programs(0))


def main():
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local % torch.cuda.device_count())
    backend = ms.process_group_backend()
    dist.init_process_group(backend,
                            device_id=torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else None)
    mst.enable()  # binds each Triton kernel that links the device library when it loads
    ms.init(group=dist.group.WORLD)
    me, npes = ms.my_pe(), ms.n_pes()
    n, chunk = (1 << 22) + 5, 1 << 16
    programs = triton.cdiv(n, chunk)
    status = 0
    with ms.tensor_scope():
        dst = ms.zeros(n, torch.int32)
        sig = ms.zeros(1, torch.int64)
        src = torch.arange(n, dtype=torch.int32, device="cuda") * npes + me
        ms.barrier_all_on_stream()  # every PE's buffers are zeroed before anyone puts
        ring_put_signal[(programs, )](dst, src, sig, n, CHUNK=chunk, num_warps=8, extern_libs=mst.extern_libs())
        torch.cuda.synchronize()
        left = (me - 1) % npes
        want = torch.arange(n, dtype=torch.int32, device="cuda") * npes + left
        bad = (dst != want).nonzero()
        if bad.numel() or sig.item() != programs:
            first = bad[0].item() if bad.numel() else -1
            print(f"PE {me}: FAIL: {bad.numel()} of {n} elements from PE {left} differ (first at {first}); "
                  f"signal {sig.item()}, want {programs}")
            status = 1
        else:
            print(f"PE {me}: ring put-with-signal from PE {left}: {n} elements OK")
        ms.barrier_all_on_stream()
        torch.cuda.synchronize()
    ms.finalize()
    dist.destroy_process_group()
    return status


if __name__ == "__main__":
    sys.exit(main())
