#!/usr/bin/env python3
"""Tests of check_repo_paths.py on a small made-up tree: what it must flag, what it must not.

Usage: check_repo_paths_test.py [path/to/check_repo_paths.py]
"""
import importlib.util
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1].endswith(".py") else os.path.join(HERE, "check_repo_paths.py")
spec = importlib.util.spec_from_file_location("check_repo_paths", SCRIPT)
crp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(crp)

TREE = {
    "src/common/env.cpp": "// Parses the table in src/common/env_vars.def.\nint x = 0;\n",
    "src/common/env_vars.def": "",
    "bench/micro/probe.cpp": "// Built as bench/micro/probe (its CMakeLists names it).\n",
    "bench/results/2026-11-30T1630Z_h200x2_run.json": "",
    "bench/results/old_notes.md": "Cites src/gone.cpp, which history had.\n",
    "tools/run.sh": ('#!/usr/bin/env bash\n# Builds with tools/missing_helper.sh\nn=${#arr[@]}\n'
                     'echo "# tools/in_a_string.sh"\n'),
    "tools/summ.py": "# Reads bench/results/2026-11-30T1630Z_*, then docs/NOPE.md\nx = '# docs/str.md'\n",
    "docs/GUIDE.md": ("See `src/common/env.cpp:12-20`, **docs/GUIDE.md**, `bench/results/2026-11-30T1630Z_*`,\n"
                      "`bench/results/2025-01-01T0000Z_*`, `2026-11-30T1630Z_*`, FACTS.md, env_vars.def,\n"
                      "impl/copy.hpp, *_run.json, the `*_nothing_like_it.sh` files, `mlx5dv.h`, providers/mlx5/qp.c, https://example.com/src/nothing.cpp,\n"
                      "load/store, thread/warp/block, WqeDesc{Write, src/lkey, remote}, and bench/micro/probe.\n"
                      "```sh\ntorchrun --nproc-per-node 2 app.py   # then tools/gone.sh\n```\n"),
    "include/mori/shmem/impl/copy.hpp": ('/* Block comment naming shmem/gone.cpp\n   and tools/run.sh */\n'
                                         'const char* s = "// src/not_a_comment.cpp";\n'),
}


class CheckRepoPaths(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        for path, text in TREE.items():
            full = os.path.join(cls.tmp.name, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        cls.problems = crp.scan(crp.Repo(cls.tmp.name))
        cls.flagged = {p.split(": ")[0] + ": " + p.split(": ")[1] for p in cls.problems}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_flags_every_missing_path_with_file_and_line(self):
        expected = {
            "tools/run.sh:2: tools/missing_helper.sh",
            "tools/summ.py:1: docs/NOPE.md",
            "docs/GUIDE.md:2: bench/results/2025-01-01T0000Z_*",
            "docs/GUIDE.md:2: FACTS.md",
            "docs/GUIDE.md:3: *_nothing_like_it.sh",
            "docs/GUIDE.md:6: tools/gone.sh",
            "include/mori/shmem/impl/copy.hpp:1: shmem/gone.cpp",
        }
        self.assertEqual(self.flagged, expected, "\n".join(self.problems))

    def test_skips_strings_records_urls_prose_and_external_names(self):
        text = "\n".join(p.split(": ")[1] for p in self.problems)  # the flagged names only
        for ok in ("in_a_string", "str.md", "not_a_comment", "old_notes", "src/gone.cpp", "nothing.cpp", "lkey",
                   "mlx5dv.h", "qp.c", "load/store", "bench/micro/probe", "env_vars.def", "env.cpp", "GUIDE.md",
                   "impl/copy.hpp", "tools/run.sh:", "2026-11-30T1630Z", "app.py"):
            self.assertNotIn(ok, text)

    def test_exit_status(self):
        self.assertTrue(self.problems)
        with tempfile.TemporaryDirectory() as clean:
            os.makedirs(os.path.join(clean, "src"))
            with open(os.path.join(clean, "src", "a.cpp"), "w") as f:
                f.write("// see src/a.cpp\n")
            self.assertEqual(crp.scan(crp.Repo(clean)), [])


if __name__ == "__main__":
    unittest.main()
