#!/usr/bin/env python3
"""test_element_loop_registers: compiles element_loop_kernels.cpp with ptxas's report and fails if
any kernel there spills (see that file for why).

Usage: check_loop_spills.py <nvcc> <sm_XX> <source> [nvcc options...]
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    nvcc, arch, source, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    cmd = [nvcc, "-x", "cu", "-std=c++17", "-O3", "-DNDEBUG", "-arch=" + arch, "-cubin", "-o", "/dev/null",
           "-Xptxas", "-v", source] + extra
    run = subprocess.run(cmd, capture_output=True, text=True)
    report = run.stdout + run.stderr
    if run.returncode != 0:
        print("compile failed:", " ".join(cmd), report, sep="\n")
        return 1
    # ptxas: "Compiling entry function '<k>'" ... "Function properties for <k>" /
    #        "    N bytes stack frame, S bytes spill stores, L bytes spill loads"
    kernels = set(re.findall(r"Compiling entry function '([^']+)'", report))
    props = dict(re.findall(r"Function properties for (\S+)\n\s+\d+ bytes stack frame, (\d+ bytes spill stores, "
                            r"\d+ bytes spill loads)", report))
    if not kernels:
        print("no kernel found in ptxas's report:", report, sep="\n")
        return 1
    bad = 0
    for k in sorted(kernels):
        spills = props.get(k)
        if spills is None:
            print(f"{k}: no register report from ptxas")
            bad += 1
        elif spills != "0 bytes spill stores, 0 bytes spill loads":
            print(f"{k}: {spills} (with the standard calling convention, a 1024-thread loop of element "
                  "operations must not spill)")
            bad += 1
        else:
            print(f"{k}: no spills")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
