#!/usr/bin/env python3
"""Tests of check_layers.py on a small made-up tree: what it must flag, what it must not.

Usage: check_layers_test.py [unittest options]
"""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers as cl  # noqa: E402  (the module next to this file)

GOOD = {
    "include/mori/platform/device.hpp": "#pragma once\n",
    "include/mori/platform/config.h.in": "#define X 1\n",
    "include/mori/transport/post.hpp": '#include "mori/platform/device.hpp"\n#include "mori/platform/config.h"\n',
    "include/mori/shmem.h": "#include <mori/platform/device.hpp>\n#include <stdint.h>\n",
    "src/common/status.hpp": '#include "mori/shmem.h"\n',
    "src/platform_host/queue.cpp": '#include "src/common/status.hpp"\n',
    "transport/rdma/device.cpp": ('#include "src/platform_host/queue.cpp"\n#include "transport/rdma/local.hpp"\n'
                                  '#include <infiniband/verbs.h>\n#include "mpi.h"\n'),
    "transport/rdma/local.hpp": '#include "mori/transport/post.hpp"\n',
    "application/context.cpp": '#include "transport/rdma/local.hpp"\n',
    "shmem/api.cpp": '#include "application/context.cpp"\n',
    "tools/perf/split.hpp": "#pragma once\n",
    "tools/perf/main.cpp": '#include "split.hpp"\n',
    "bench/micro/check.hpp": "#pragma once\n",
    "bench/micro/probe.cpp": '#include "check.hpp"\n#include "mori/shmem.h"\n',
    "tests/test_split.cpp": '#include "tools/perf/split.hpp"\n#include "shmem/api.cpp"\n',
    "transport/rdma/CMakeLists.txt": "target_sources(objs PRIVATE device.cpp ${CMAKE_CURRENT_SOURCE_DIR}/local.cpp)\n",
    "bench/micro/CMakeLists.txt": "foreach(p probe)\n  add_executable(${p} ${p}.cpp)  # not ../x.cpp\nendforeach()\n",
    "CMakeLists.txt": "add_subdirectory(src/common.cpp)\n",
}

BAD = {
    # upward: transport -> application, device layer -> public API layer (angle form too)
    "transport/rdma/open.cpp": '#include "application/context.cpp"\n',
    "include/mori/transport/bad.hpp": '#include "mori/shmem.h"\n#include <mori/shmem.h>\n',
    # peers
    "bench/micro/bad.cpp": '#include "tools/perf/split.hpp"\n',
    # another folder's sources compiled here
    "tests/plugin/CMakeLists.txt": ("add_library(p MODULE entry.cpp\n  ${PROJECT_SOURCE_DIR}/src/common/log.cpp\n"
                                    "  ../other/x.cu)\n"),
}


def make_tree(files):
    d = tempfile.mkdtemp()
    for path, text in files.items():
        full = os.path.join(d, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return d


def run(files):
    root = make_tree(files)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cl.main(["check_layers.py", root])
    return rc, out.getvalue()


class CheckLayers(unittest.TestCase):
    def test_downward_includes_and_own_sources_pass(self):
        rc, out = run(GOOD)
        self.assertEqual(rc, 0, out)
        self.assertIn("every include points down", out)

    def test_each_violation_is_named(self):
        rc, out = run({**GOOD, **BAD})
        self.assertEqual(rc, 1, out)
        lines = [l for l in out.splitlines() if l.startswith("check_layers: ") and " violation(s)" not in l]
        self.assertEqual(len(lines), 6, out)
        self.assertIn("transport/rdma/open.cpp:1 (transport) includes application/context.cpp (application)", out)
        self.assertIn("include/mori/transport/bad.hpp:1 (include/mori/transport) includes include/mori/shmem.h", out)
        self.assertIn("include/mori/transport/bad.hpp:2 ", out)
        self.assertIn("bench/micro/bad.cpp:1 (bench) includes tools/perf/split.hpp (tools): bench and tools are peers",
                      out)
        self.assertIn("tests/plugin/CMakeLists.txt:2 compiles src/common/log.cpp, outside tests/plugin/", out)
        self.assertIn("tests/plugin/CMakeLists.txt:3 compiles tests/other/x.cu, outside tests/plugin/", out)
        self.assertIn("layers, lowest first: include/mori/platform < include/mori/transport", out)

    def test_layer_of(self):
        self.assertEqual(cl.layer_of("include/mori/shmem_device.h")[1], "include/mori/shmem")
        self.assertEqual(cl.layer_of("src/platform_host/x.cpp")[1], "src/platform_host")
        self.assertIsNone(cl.layer_of("cmake/MoriPlatform.cmake"))
        self.assertIsNone(cl.layer_of("include/other/x.h"))


if __name__ == "__main__":
    unittest.main()
