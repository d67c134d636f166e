"""A Triton kernel that calls the device API in a process that never called mori_shmem_init stops
with a message and the launch's error; nothing runs silently. One process, no torchrun:

    python -m pytest -x -q -rs python/tests/test_triton_errors.py

Run it alone on the GPU: the kernel traps, and under CUDA MPS a trap may end the other clients'
contexts too. The kernel runs in a subprocess so that this one reports. Skipped with the reason
without torch, triton, a GPU or the device library's bitcode.
"""

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable")
pytest.importorskip("triton", reason="triton is not importable")

import mori_shmem.triton as mst  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no GPU visible to torch", allow_module_level=True)
try:
    mst.extern_libs()
except FileNotFoundError as e:
    pytest.skip(str(e), allow_module_level=True)

CHILD = r"""
import torch, triton, triton.language as tl
import mori_shmem.triton as mst
@triton.jit
def k(out):
    tl.store(out, mst.my_pe())
mst.enable()
out = torch.zeros(1, dtype=torch.int32, device="cuda")
k[(1,)](out, extern_libs=mst.extern_libs())
torch.cuda.synchronize()
print("NO ERROR", out.item())
"""


def test_kernel_in_uninitialised_process_stops_with_message(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    child = tmp_path / "unbound_kernel.py"  # Triton reads a @jit function's source from its file
    child.write_text(CHILD)
    r = subprocess.run([sys.executable, str(child)], env=env, capture_output=True, text=True, timeout=180)
    text = r.stdout + r.stderr
    assert r.returncode != 0 and "NO ERROR" not in text, f"an unbound kernel ran: {text[-2000:]}"
    # The device printf may be lost with the trap; the CUDA error is raised either way.
    assert "mori_shmem_init() has not bound" in text or "CUDA error" in text, f"no error reported: {text[-2000:]}"
