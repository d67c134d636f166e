"""Where an installed mori_shmem keeps the C/C++ side: headers, libmori_shmem and the CMake package.

A wheel (pip install / pip wheel at the repository root) installs the runtime inside the package
directory, as the NVSHMEM wheels do:

    mori_shmem/include/mori/...                   headers (mori/shmem.h, mori/shmem_device.h)
    mori_shmem/lib/libmori_shmem.so*              the runtime
    mori_shmem/lib/cmake/mori_shmem/              find_package(mori_shmem CONFIG)

so a C++ project builds against the wheel with
    cmake -DCMAKE_PREFIX_PATH=$(python -c 'import mori_shmem; print(mori_shmem.cmake_prefix())') ...
A module imported from a CMake build tree (PYTHONPATH=<build>/python) has none of these: use that
build's install prefix instead.
"""

import os

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_LIBDIRS = ("lib", "lib64")


def _libdir():
    for name in _LIBDIRS:
        if os.path.isfile(os.path.join(_PACKAGE_DIR, name, "cmake", "mori_shmem", "mori_shmemConfig.cmake")):
            return os.path.join(_PACKAGE_DIR, name)
    raise FileNotFoundError(
        f"mori_shmem at {_PACKAGE_DIR} carries no CMake package (lib/cmake/mori_shmem): it was not installed "
        "from a wheel (pip install .); for a CMake build tree use that build's install prefix")


def cmake_prefix():
    """The prefix for CMAKE_PREFIX_PATH under which find_package(mori_shmem) finds this wheel's package."""
    _libdir()
    return _PACKAGE_DIR


def include_dir():
    """The directory holding mori/shmem.h and mori/shmem_device.h of this wheel."""
    path = os.path.join(_PACKAGE_DIR, "include")
    if not os.path.isfile(os.path.join(path, "mori", "shmem.h")):
        raise FileNotFoundError(f"mori_shmem at {_PACKAGE_DIR} carries no headers: it was not installed from a wheel")
    return path


def library_dir():
    """The directory holding libmori_shmem.so of this wheel."""
    return _libdir()
