#!/usr/bin/env python3
"""test_register_budget: reads the GPU code of a linked program (register_budget_kernels) and fails
if a kernel named on the command line uses more registers than the budget or keeps local memory
of its own (spills). The program's fat binary holds one ELF image per target; each kernel's
register count (EIATTR_REGCOUNT) and frame size (EIATTR_FRAME_SIZE) are read from the image's
.nv.info section, as cuobjdump --dump-resource-usage reports them (REG, and the kernel's own
stack frame). A kernel's count is the largest of its own and its callees' (the device library's).

Usage: check_register_budget.py <program> <max registers> <kernel>...
"""
import struct
import subprocess
import sys
import tempfile

EIATTR_FRAME_SIZE = 0x11
EIATTR_REGCOUNT = 0x2F
EIFMT_SVAL = 0x04


def images(fatbin):
    """ELF images inside a fat binary (each read from its first byte on)."""
    out, start = [], fatbin.find(b"\x7fELF")
    while start >= 0:
        out.append(fatbin[start:])
        start = fatbin.find(b"\x7fELF", start + 4)
    return out


def kernel_resources(elf):
    """{kernel: {attr: value}} for every function the image's .nv.info describes."""
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]

    def cstr(off):
        return elf[off:elf.index(b"\0", off)].decode()

    names = [cstr(secs[shstrndx][4] + s[0]) for s in secs]
    symtab = next(s for s, n in zip(secs, names) if n == ".symtab")
    strtab = secs[symtab[6]][4]
    syms = [cstr(strtab + struct.unpack_from("<I", elf, symtab[4] + i * 24)[0]) for i in range(symtab[5] // 24)]
    res = {}
    for s, n in zip(secs, names):
        if n != ".nv.info":
            continue
        p, end = s[4], s[4] + s[5]
        while p < end:
            fmt, attr = elf[p], elf[p + 1]
            if fmt != EIFMT_SVAL:
                p += 4
                continue
            size = struct.unpack_from("<H", elf, p + 2)[0]
            if attr in (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE) and size >= 8:
                index, value = struct.unpack_from("<II", elf, p + 4)
                res.setdefault(syms[index], {})[attr] = value
            p += 4 + size
    return res


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    program, budget, kernels = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    with tempfile.NamedTemporaryFile() as f:
        run = subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", program, f.name],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"cannot read the GPU code of {program}: {run.stderr}")
            return 1
        fatbin = open(f.name, "rb").read()
    elfs = images(fatbin)
    if not elfs:
        print(f"{program}: its GPU code holds no ELF image (compressed? link it with nvcc --no-compress)")
        return 1
    found = {}
    for elf in elfs:
        for name, attrs in kernel_resources(elf).items():
            for k in kernels:
                # Kernels are extern "C++": _Z<len><name>...
                if name.startswith(f"_Z{len(k)}{k}"):
                    found.setdefault(k, []).append(attrs)
    bad = 0
    for k in kernels:
        if k not in found:
            print(f"{k}: not found in the GPU code of {program}")
            bad += 1
            continue
        for attrs in found[k]:
            regs, frame = attrs.get(EIATTR_REGCOUNT), attrs.get(EIATTR_FRAME_SIZE, 0)
            verdict = "ok"
            if regs is None or regs > budget:
                verdict = f"FAIL: more than {budget} registers"
            elif frame != 0:
                verdict = f"FAIL: {frame} bytes of local memory (spills) in the kernel itself"
            print(f"{k}: {regs} registers, frame {frame} bytes: {verdict}")
            bad += verdict != "ok"
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
