#!/usr/bin/env python3
"""AMD counterpart of check_register_budget.py's report (not a test): the resources of the
register-budget kernels in an AMDGPU code object, and where a kernel's scratch comes from.

  amd_kernel_resources.py notes <code object>   per kernel: VGPRs (arch + AGPR), SGPRs, scratch
                                                bytes per lane, VGPR and SGPR spills (the
                                                object's AMDGPU metadata, llvm-readelf --notes)
  amd_kernel_resources.py frames <asm file>     per function of an llc listing of the device
                                                link's bitcode: scratch with callees, its own
                                                frame (that minus the largest callee's), and the
                                                largest callees

A kernel's scratch is its own frame plus the deepest chain of callee frames in its static call
graph (docs/DEVICE_API_FOOTPRINT.md). LLVM_READELF names the llvm-readelf to use (default: the
one of ROCm 5.2's clang, /usr/lib/llvm-15/bin/llvm-readelf, else llvm-readelf on PATH).
"""
import os
import re
import shutil
import subprocess
import sys


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
    return dict(zip(names, out))


def notes(path):
    readelf = os.environ.get("LLVM_READELF") or (
        "/usr/lib/llvm-15/bin/llvm-readelf" if os.path.exists("/usr/lib/llvm-15/bin/llvm-readelf") else
        shutil.which("llvm-readelf"))
    text = subprocess.run([readelf, "--notes", path], capture_output=True, text=True, check=True).stdout
    kernels = re.split(r"\n\s+- \.agpr_count", text)[1:]
    if not kernels:
        print(f"{path}: no kernel metadata (not an AMDGPU code object?)")
        return 1
    rows = []
    for k in kernels:
        def field(key):
            m = re.search(r"\." + key + r":\s+(\S+)", k)
            return m.group(1) if m else "?"
        rows.append((field("name"), field("vgpr_count"), field("sgpr_count"), field("private_segment_fixed_size"),
                     field("vgpr_spill_count"), field("sgpr_spill_count")))
    names = demangle([r[0] for r in rows])
    print("%-44s %5s %5s %8s %7s %7s" % ("kernel", "VGPR", "SGPR", "scratch", "VSpill", "SSpill"))
    for r in sorted(rows):
        print("%-44.44s %5s %5s %8s %7s %7s" % ((names[r[0]],) + r[1:]))
    return 0


def frames(path):
    cur, order, res, calls = None, [], {}, {}
    for line in open(path):
        m = re.match(r"^([A-Za-z_][\w.$]*):\s+; @", line)
        if m:
            cur = m.group(1)
            order.append(cur)
            res[cur], calls[cur] = {}, set()
            continue
        if cur is None:
            continue
        m = re.search(r"([A-Za-z_][\w.$]*)@(?:rel32|gotpcrel32)@lo\+4", line)
        if m:
            calls[cur].add(m.group(1))
        m = re.match(r"^\s*; (NumVgprs|NumAgprs|ScratchSize)\s*[:=]\s*(\d+)", line)
        if m:
            res[cur].setdefault(m.group(1), int(m.group(2)))
    names = demangle(order)
    print("%-60s %6s %6s  %s" % ("function", "total", "own", "largest callees (total)"))
    for f in order:
        total = res[f].get("ScratchSize", 0)
        callees = sorted((c for c in calls[f] if c in res and c != f), key=lambda c: -res[c].get("ScratchSize", 0))
        own = total - (res[callees[0]].get("ScratchSize", 0) if callees else 0)
        top = ", ".join("%s (%d)" % (names[c][:40], res[c].get("ScratchSize", 0)) for c in callees[:3])
        print("%-60.60s %6d %6d  %s" % (names[f], total, own, top))
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("notes", "frames"):
        print(__doc__)
        return 2
    return notes(sys.argv[2]) if sys.argv[1] == "notes" else frames(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
