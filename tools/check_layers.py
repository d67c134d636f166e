#!/usr/bin/env python3
"""Fails when a lower layer of the tree includes a higher one, or a folder's CMakeLists.txt
compiles a source of another folder.

The layers, lowest first (docs/ARCHITECTURE.md, "Folders"). A file may include files of its own
layer and of lower ones; folders that share a level (tools, bench, examples, python) are peers and
include none of each other.
  include/mori/platform   GPU platform layer: compile mode, vendor runtime names, atomics, MMIO
  include/mori/transport  device side of the transports: endpoint views, provider formats, posting
  include/mori/shmem      public API (mori/shmem.h, mori/shmem_device.h) and its device implementation
  src/common              host helpers of every layer above: status, logger, environment table
  src/platform_host       host-side GPU platform helpers: context, queue memory, dma-buf, MMIO
  transport               host side of the transports: P2P IPC handles, RDMA devices and endpoints
  application             bootstrap, the per-PE context (transport choice), symmetric memory
  shmem                   the runtime: the C API over the layers below
  tools | bench | examples | python   programs and bindings over the library (peers)
  tests                   everything above, and tools/ (tests of the perf tool's helpers)

Includes are the quoted ones (resolved next to the file, then from the root, then from include/)
and the angle ones under mori/ (from include/); the rest are other projects'. A path generated
at configure time (mori/platform/config.h from config.h.in) belongs to its folder's layer.

CMake: a source path in a CMakeLists.txt (${PROJECT_SOURCE_DIR}/..., ${CMAKE_SOURCE_DIR}/...,
relative) must lie in that CMakeLists.txt's folder or below: a folder that needs another's code
links that folder's library.

Usage: tools/check_layers.py [repo-root]   (exit 0: no violation; 1: each one printed)
"""
import os
import re
import subprocess
import sys

# (level, group, path prefixes). Same level, different group: peers that may not include each other.
LAYERS = [
    (0, "include/mori/platform", ("include/mori/platform/",)),
    (1, "include/mori/transport", ("include/mori/transport/",)),
    (2, "include/mori/shmem", ("include/mori/shmem/", "include/mori/shmem.h", "include/mori/shmem_device.h")),
    (3, "src/common", ("src/common/",)),
    (4, "src/platform_host", ("src/platform_host/",)),
    (5, "transport", ("transport/",)),
    (6, "application", ("application/",)),
    (7, "shmem", ("shmem/",)),
    (8, "tools", ("tools/",)),
    (8, "bench", ("bench/",)),
    (8, "examples", ("examples/",)),
    (8, "python", ("python/",)),
    (9, "tests", ("tests/",)),
]
SOURCES = (".c", ".cc", ".cpp", ".cu", ".hip", ".h", ".hpp", ".cuh", ".inc", ".def")
COMPILED = ("c", "cc", "cpp", "cu", "hip")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
CMAKE_SOURCE = re.compile(r'[A-Za-z0-9_./${}-]+\.(?:%s)\b' % "|".join(COMPILED))


def layer_of(path):
    best = None
    for level, group, prefixes in LAYERS:
        for p in prefixes:
            if (path == p or path.startswith(p)) and (best is None or len(p) > best[2]):
                best = (level, group, len(p))
    return best[:2] if best else None


def order_text():
    rows, last = [], None
    for level, group, _ in LAYERS:
        if level == last:
            rows[-1] += " | " + group
        else:
            rows.append(group)
        last = level
    return " < ".join(rows)


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def resolve(root, known, src, kind, name):
    """Repository path of an include, or None for another project's header."""
    here = os.path.dirname(src)
    if kind == '"':
        candidates = [os.path.normpath(os.path.join(here, name)), name, "include/" + name]
    elif name.startswith("mori/"):
        candidates = ["include/" + name]
    else:
        return None
    for c in candidates:
        if c in known or c + ".in" in known:
            return c
    return None


def check_includes(root, files):
    known = set(files)
    problems = []
    for f in files:
        if not f.endswith(SOURCES):
            continue
        mine = layer_of(f)
        if mine is None:
            continue
        try:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                lines = fh.readlines()
        except OSError:
            continue
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(root, known, f, m.group(1), m.group(2))
            theirs = layer_of(target) if target else None
            if theirs is None or theirs[1] == mine[1]:
                continue
            if theirs[0] > mine[0]:
                problems.append("%s:%d (%s) includes %s (%s): a layer may include only itself and the layers below it"
                                % (f, n, mine[1], target, theirs[1]))
            elif theirs[0] == mine[0]:
                problems.append("%s:%d (%s) includes %s (%s): %s and %s are peers and include none of each other"
                                % (f, n, mine[1], target, theirs[1], mine[1], theirs[1]))
    return problems


def check_cmake(root, files):
    problems = []
    for f in files:
        if os.path.basename(f) != "CMakeLists.txt":
            continue
        here = os.path.dirname(f)
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            lines = fh.readlines()
        for n, line in enumerate(lines, 1):
            code = line.split("#", 1)[0]
            for token in CMAKE_SOURCE.findall(code):
                path = token
                for var in ("${PROJECT_SOURCE_DIR}/", "${CMAKE_SOURCE_DIR}/"):
                    if path.startswith(var):
                        path = path[len(var):]
                        break
                else:
                    if path.startswith("${CMAKE_CURRENT_SOURCE_DIR}/"):
                        path = os.path.join(here, path[len("${CMAKE_CURRENT_SOURCE_DIR}/"):])
                    elif "${" in path:
                        continue  # built from a loop variable: a name in this folder
                    else:
                        path = os.path.join(here, path)
                path = os.path.normpath(path)
                if here and not (path + "/").startswith(here + "/"):
                    problems.append("%s:%d compiles %s, outside %s/: each folder's CMakeLists.txt compiles only its "
                                    "own sources (link the other folder's library instead)" % (f, n, path, here))
    return problems


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    files = tracked_files(root)
    problems = check_includes(root, files) + check_cmake(root, files)
    for p in problems:
        print("check_layers: " + p)
    if problems:
        print("check_layers: %d violation(s); layers, lowest first: %s" % (len(problems), order_text()))
        return 1
    print("check_layers: every include points down (%s); every CMakeLists.txt compiles its own folder"
          % order_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
