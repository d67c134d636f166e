#!/usr/bin/env python3
"""Fails when a comment or a document names a repository path that does not exist.

Scanned: the comments of C/C++/HIP/CUDA sources (// and /* */), of CMake, shell and Python files
(#), and the whole text of every Markdown file (in its code blocks, only names with a folder). bench/results/ is not scanned: its records cite
the tree as it was when they were taken.

What counts as a repository path (after stripping quotes, backticks, trailing punctuation and a
":line" suffix):
  - a token whose first component is a top-level entry of the repository (src/..., docs/X.md,
    README.md): it must exist, as a file or folder;
  - a token with a folder and a file extension that the project uses (impl/copy.hpp): some file
    of the repository must end with it;
  - a bare file name with such an extension (FACTS.md, copy.hpp): some file must have that name;
  - a bench record stamp (2026-11-30T1630Z_*): some file must have a matching name.
Tokens with *, ? or [...] are globs and must match at least one path. A path without extension
may name a program built from a source of the same name (bench/micro/coresidency_probe).
Names that belong to other projects (mlx5dv.h, gtest.h) are listed in EXTERNAL below.

Usage: tools/check_repo_paths.py [repo-root]   (exit 0: every named path exists; 1: list printed)
"""
import fnmatch
import os
import re
import subprocess
import sys

# Extensions of the files the project writes: names with these are looked up. C sources and headers
# (.c, .h) are left out unless under mori/: comments cite rdma-core, kernel and vendor files by
# those names. Data outputs (.json, .txt) count only as paths from a top-level folder.
EXTENSIONS = {"md", "cpp", "hpp", "cu", "cuh", "hip", "py", "sh", "cmake", "list", "def", "patch"}
# File names of other projects (system, vendor and library headers, their sources) that comments
# may cite; never looked up in this repository.
EXTERNAL = {"nvshmem.h", "ibgda_device.cuh", "CMakeCXXCompilerId.cpp", "setup.py", "hipcc.pl", "rocm_agent_enumerator"}
# Folders of other projects or of the system that appear with a path below them.
EXTERNAL_PREFIXES = ("include/linux/", "nvshmem", "build/", "build-")
SKIP_DIRS = ("bench/results/",)
C_LIKE = (".c", ".cc", ".cpp", ".hpp", ".h", ".cu", ".cuh", ".hip", ".in")
HASH_LIKE = (".cmake", ".cmake.in", ".sh", ".py", ".list", "CMakeLists.txt", ".yml", ".yaml", ".toml", ".ci/run")
STAMP = re.compile(r"^20\d\d-\d\d-\d\d[a-z]?(T\d{4}Z)?_[A-Za-z0-9_.*?-]*$")
TOKEN_SPLIT = re.compile(r"[\s`'\"()<>,;|=]+")
GLOB_CHARS = set("*?[")


def repo_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f and os.path.exists(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".git", "build"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(set(files))


def c_comments(text):
    """(line, comment text) of // and /* */ comments, skipping string and character literals."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield line, text[i + 2:j]
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                yield line + k, part
            line += text.count("\n", i, j)
            i = j + 2
        else:
            i += 1


def hash_comments(text):
    """(line, comment text) of # comments: a # at the start of a line or after a blank, outside quotes."""
    for no, ln in enumerate(text.split("\n"), 1):
        quote = None
        for k, c in enumerate(ln):
            if quote:
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#" and (k == 0 or ln[k - 1] in " \t"):
                yield no, ln[k + 1:]
                break


BRACE_INIT = re.compile(r"\w+\{[^{}]*\}")  # WqeDesc{Write, src/lkey, ...}: code, not paths


def candidates(fragment):
    for tok in TOKEN_SPLIT.split(BRACE_INIT.sub(" ", fragment)):
        lead = len(tok) - len(tok.lstrip("*_"))  # Markdown emphasis: **path** or _path_
        if lead and tok.endswith(tok[:lead]) and len(tok) > 2 * lead:
            tok = tok[lead:len(tok) - lead]
        tok = tok.rstrip(".:!?]}")  # prose punctuation
        tok = re.sub(r":\d[\d,-]*$", "", tok)  # file.cpp:118-155
        tok = tok.lstrip("[{").removeprefix("./")
        if len(tok) < 3 or "://" in tok or tok.startswith(("/", "~", "-", "$", "@", "%")):
            continue
        if any(ch in tok for ch in "${}\\&") or "::" in tok:
            continue
        yield tok


class Repo:
    def __init__(self, root):
        self.root = root
        self.files = repo_files(root)
        self.dirs = {os.path.dirname(f) for f in self.files}
        for d in list(self.dirs):
            while d:
                d = os.path.dirname(d)
                self.dirs.add(d)
        self.dirs.discard("")
        self.paths = set(self.files) | self.dirs
        self.top = {p.split("/")[0] for p in self.paths}
        self.names = {os.path.basename(f) for f in self.files}
        self.stems = {f.rsplit(".", 1)[0] for f in self.files if "." in os.path.basename(f)}

    def glob(self, pattern, candidates_):
        return any(fnmatch.fnmatchcase(p, pattern) for p in candidates_)

    def check(self, tok):
        """None when tok is not a repository path or names one that exists, else the reason."""
        first = tok.split("/")[0]
        base = tok.rstrip("/").split("/")[-1]
        ext = base.rsplit(".", 1)[1] if "." in base else ""
        is_glob = bool(GLOB_CHARS & set(tok))
        if tok.startswith(EXTERNAL_PREFIXES) or base in EXTERNAL:
            return None
        path = tok.rstrip("/")
        if first in self.top and ("/" in tok or ext):
            if is_glob:
                return None if self.glob(path, self.paths) else "no path matches"
            if path in self.paths or (not ext and path in self.stems):
                return None
            return "does not exist"
        if "/" in path and (ext in EXTENSIONS or (ext == "h" and first == "mori")) and not first.startswith("."):
            if is_glob:
                return None if self.glob("*" + path, self.paths) else "no path matches"
            return None if any(f == path or f.endswith("/" + path) for f in self.files) else "no file ends so"
        if "/" not in path and ext in EXTENSIONS and is_glob:
            return None if self.glob(path, self.names) else "no file name matches"
        if "/" not in path and ext in EXTENSIONS and re.match(r"^[A-Za-z_][\w.+-]*$", path):
            return None if path in self.names else "no file has this name"
        if "/" not in path and STAMP.match(path):
            pat = path if is_glob or path.endswith("_") else path + "*"
            return None if self.glob(pat + ("*" if path.endswith("_") else ""), self.names) else "no record matches"
        return None


def markdown_lines(text):
    """(line, text) of a Markdown file; in fenced code blocks only tokens with a folder are kept,
    since bare names there are the reader's own files (torchrun ... app.py)."""
    fenced = False
    for no, ln in enumerate(text.split("\n"), 1):
        if ln.lstrip().startswith("```"):
            fenced = not fenced
            continue
        yield no, " ".join(t for t in ln.split() if "/" in t) if fenced else ln


def read(root, f):
    with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
        return fh.read()


def scan(repo):
    problems = []
    for f in repo.files:
        if f.startswith(SKIP_DIRS) or f == "tools/check_repo_paths.py":
            continue
        if f.endswith(".md"):
            pieces = markdown_lines(read(repo.root, f))
        elif f.endswith(HASH_LIKE):
            pieces = hash_comments(read(repo.root, f))
        elif f.endswith(C_LIKE):
            pieces = c_comments(read(repo.root, f))
        else:
            continue
        for line, text in pieces:
            for tok in candidates(text):
                why = repo.check(tok)
                if why:
                    problems.append(f"{f}:{line}: {tok}: {why}")
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    repo = Repo(root)
    if not repo.files:
        print(f"check_repo_paths: no files found under {root}", file=sys.stderr)
        return 2
    problems = scan(repo)
    for p in problems:
        print(p)
    print(f"check_repo_paths: {len(problems)} dangling path(s) in comments and docs of {len(repo.files)} files",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
