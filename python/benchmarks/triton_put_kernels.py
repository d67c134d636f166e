"""The Triton kernels of bench_triton.py, shaped like mori-shmem-perf's shmem_put_bw (block scope)
and shmem_put_latency (thread scope). Kept apart from the benchmark (which needs torch) so that
python/tests/test_triton_compile.py checks the code of these very kernels on a CPU machine."""

import triton
import triton.language as tl

import mori_shmem.triton as mst


@triton.jit
def put_bw(dst, src, nbytes, peer, iters):
    p = tl.program_id(0)
    share = tl.cdiv(nbytes, tl.num_programs(0).to(tl.int64))
    begin = p.to(tl.int64) * share
    length = tl.minimum(share, nbytes - begin)
    if length > 0:
        for _ in range(0, iters):
            mst.putmem_nbi_block(dst + begin, src + begin, length, peer)
    mst.quiet_block()


@triton.jit
def put_latency(dst, src, nbytes, peer, iters):
    if mst.thread_rank() == 0:
        for _ in range(0, iters):
            mst.putmem_nbi_thread(dst, src, nbytes, peer)
            mst.quiet()
