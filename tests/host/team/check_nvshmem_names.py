#!/usr/bin/env python3
"""Every NVSHMEM application function (nvshmem_api_names.txt) or constant
(nvshmem_api_constants.txt) is declared by <mori/nvshmem.h>: mapped to a mori-shmem name, or
refused so that a use fails to compile naming it. Runs the GPU
compiler's preprocessor on a file that includes the header (device API on, as in a program
built with relocatable device code) and looks for each name among the identifiers of its output
and the macros it defines.

    check_nvshmem_names.py NAMES_FILE -- COMPILE_COMMAND...

COMPILE_COMMAND: the GPU compiler and its flags (nvcc ... -rdc=true / hipcc ... -fgpu-rdc) with
the include directories; "-E" (and the compiler's flag for listing macros) is appended here.
"""

import os
import re
import subprocess
import sys
import tempfile

IDENT = re.compile(r"\b(?:nvshmemx?_[A-Za-z0-9_]+|NVSHMEMX?_[A-Z0-9_]+)\b")


def preprocess(command, source, list_macros):
    extra = ["-E"]
    if list_macros:
        # nvcc hands -dM to its host compiler; clang (hipcc) takes it directly.
        extra += ["-Xcompiler", "-dM"] if "nvcc" in os.path.basename(command[0]) else ["-dM"]
    run = subprocess.run(command + extra + [source], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"check_nvshmem_names: the preprocessor failed ({' '.join(command + extra)}):\n{run.stderr}")
    return run.stdout


def main(argv):
    if "--" not in argv or argv.index("--") != 2:
        sys.exit(__doc__)
    names_file, command = argv[1], argv[3:]
    with open(names_file) as f:
        wanted = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "probe.cpp")
        with open(source, "w") as f:
            f.write('#include "mori/nvshmem.h"\n')
        code = preprocess(command, source, list_macros=False)
        macros = preprocess(command, source, list_macros=True)
    declared = set(IDENT.findall("\n".join(line for line in code.splitlines() if not line.startswith("#"))))
    declared |= {m.group(1) for m in re.finditer(r"^#define (nvshmemx?_[A-Za-z0-9_]+|NVSHMEMX?_[A-Z0-9_]+)", macros, re.M)}
    missing = [n for n in wanted if n not in declared]
    kind = "constants" if all(n.isupper() for n in wanted) else "functions"
    if missing:
        print(f"<mori/nvshmem.h> neither maps nor refuses {len(missing)} of NVSHMEM's {len(wanted)} {kind}:")
        for n in missing:
            print(f"  {n}")
        return 1
    print(f"<mori/nvshmem.h> maps or refuses all {len(wanted)} of NVSHMEM's {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
