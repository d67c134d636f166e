"""mori_shmem without a GPU: API surface, clear errors before init, argument checks of the host and
torch layers (the collectives' wiring on stand-in tensors), DLPack tensors made by nanobind read
through numpy/torch, and (for an installed wheel, MORI_SHMEM_TEST_WHEEL=1) the headers, library and
CMake package the wheel carries, used by a C++ project through find_package(mori_shmem).

Run: pytest python/tests/test_api.py   (module on sys.path: a wheel install, or PYTHONPATH=<build>/python)
     python3 python/tests/test_api.py  (the same, without pytest)
"""

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import mori_shmem as ms

FUNCTIONS = [
    "init", "init_with_uniqueid", "get_uniqueid", "initialized", "finalize", "my_pe", "n_pes", "team_my_pe",
    "team_n_pes", "malloc", "calloc", "free", "ptr", "register", "deregister", "barrier_all", "device_error",
    "device_count", "pointer_device", "as_tensor", "peer_tensor", "empty", "zeros", "free_tensor", "tensor_scope",
    "register_tensor", "deregister_tensor", "put", "get", "put_signal", "signal_wait_until",
    "barrier_all_on_stream", "quiet_on_stream", "cmake_prefix", "include_dir", "library_dir", "team_split_strided",
    "team_split_2d", "team_destroy", "team_translate_pe", "broadcast", "fcollect", "alltoall", "reduce",
    "reducescatter", "barrier", "team_sync", "global_exit",
]
CONSTANTS = ["__version__", "PLATFORM", "UNIQUEID_BYTES", "TEAM_WORLD", "TEAM_NODE", "TEAM_SHARED", "TEAM_INVALID",
             "TEAM_SAME_MYPE_NODE", "DLPACK_DEVICE_TYPE",
             "SIGNAL_SET", "SIGNAL_ADD", "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE"]

# Host-API calls that need an initialised runtime, with otherwise valid arguments.
NEEDS_INIT = [
    ("my_pe", ()), ("n_pes", ()), ("team_my_pe", (0,)), ("team_n_pes", (0,)), ("malloc", (1024,)),
    ("calloc", (4, 8)), ("free", (0,)), ("ptr", (0x1000, 0)), ("register", (0x1000, 4096)), ("deregister", (0x1000,)),
    ("barrier_all", ()), ("team_split_strided", (0, 0, 1, 1)), ("team_split_2d", (0, 1)), ("team_destroy", (3,)),
    ("team_translate_pe", (0, 0, 1)),
]
NEEDS_INIT_C = [
    ("barrier_all_on_stream", (0,)), ("quiet_on_stream", (0,)), ("putmem_on_stream", (0x1000, 0x2000, 64, 0, 0)),
    ("getmem_on_stream", (0x1000, 0x2000, 64, 0, 0)),
    ("putmem_signal_on_stream", (0x1000, 0x2000, 64, 0x3000, 1, 0, 0, 0)),
    ("signal_wait_until_on_stream", (0x3000, 0, 1, 0)), ("barrier_on_stream", (0, 0)), ("team_sync_on_stream", (0, 0)),
]

KDLCPU = 1
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WHEEL = os.environ.get("MORI_SHMEM_TEST_WHEEL") == "1"


def _import(name):
    try:
        return __import__(name)
    except ImportError:
        return None


torch = _import("torch")
numpy = _import("numpy")


class ApiSurface(unittest.TestCase):
    def test_names(self):
        for name in FUNCTIONS:
            self.assertTrue(callable(getattr(ms, name, None)), f"mori_shmem.{name} is missing or not callable")
        for name in CONSTANTS:
            self.assertTrue(hasattr(ms, name), f"mori_shmem.{name} is missing")
        self.assertTrue(issubclass(ms.Error, RuntimeError))

    def test_constants(self):
        self.assertRegex(ms.__version__, r"^\d+\.\d+\.\d+$")
        self.assertIn(ms.PLATFORM, ("nvidia", "amd"))
        self.assertEqual(ms.DLPACK_DEVICE_TYPE, 2 if ms.PLATFORM == "nvidia" else 10)  # kDLCUDA / kDLROCM
        self.assertEqual(ms.UNIQUEID_BYTES, 128)
        self.assertEqual((ms.TEAM_WORLD, ms.TEAM_NODE, ms.TEAM_SHARED, ms.TEAM_SAME_MYPE_NODE, ms.TEAM_INVALID),
                         (0, 1, 2, 3, -1))
        # The torch layer's names for the collective entry's dtypes and ops (mori/shmem_team.h).
        self.assertEqual(sorted(ms._C._REDUCE_OPS), ["and", "max", "min", "or", "prod", "sum", "xor"])
        self.assertEqual(len(set(ms._C._REDUCE_DTYPES.values())), 12)
        # The values mori/shmem.h documents for the on-stream calls.
        self.assertEqual((ms.SIGNAL_SET, ms.SIGNAL_ADD), (0, 1))
        self.assertEqual((ms.CMP_EQ, ms.CMP_NE, ms.CMP_GT, ms.CMP_GE, ms.CMP_LT, ms.CMP_LE), (0, 1, 2, 3, 4, 5))

    def test_version_is_the_cmake_project_version(self):
        path = os.path.join(REPO, "CMakeLists.txt")
        if not os.path.isfile(path):
            self.skipTest(f"no CMakeLists.txt at {REPO} (tests run outside the source tree)")
        with open(path) as f:
            m = re.search(r"project\(mori_shmem\s+VERSION\s+([0-9.]+)", f.read())
        self.assertIsNotNone(m, "CMakeLists.txt has no project(mori_shmem VERSION x.y.z)")
        self.assertEqual(ms.__version__, m.group(1))

    def test_device_count_is_a_count(self):
        n = ms.device_count()
        self.assertIsInstance(n, int)
        self.assertGreaterEqual(n, 0)


class BeforeInit(unittest.TestCase):
    def test_not_initialized(self):
        self.assertFalse(ms.initialized())

    def test_every_call_that_needs_init_says_so(self):
        for name, args in NEEDS_INIT:
            with self.subTest(call=name):
                with self.assertRaisesRegex(ms.Error, f"mori_shmem\\.{name}\\(\\): mori-shmem is not initialised"):
                    getattr(ms, name)(*args)
        for name, args in NEEDS_INIT_C:
            with self.subTest(call=name):
                with self.assertRaisesRegex(ms.Error, f"mori_shmem\\.{name}\\(\\): mori-shmem is not initialised"):
                    getattr(ms._C, name)(*args)

    def test_finalize_without_init_fails(self):
        with self.assertRaises(ms.Error):
            ms._C.finalize()

    def test_no_device_error_recorded(self):
        self.assertIsNone(ms.device_error())

    def test_global_exit_ends_this_process_with_the_status(self):
        code = "import sys, mori_shmem as ms; print('flushed first'); sys.stdout.flush(); ms.global_exit(5)\n" \
               "print('returned')"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, MORI_SHMEM_DEBUG="WARN"))
        self.assertEqual(r.returncode, 5, r.stdout + r.stderr)
        self.assertIn("flushed first", r.stdout)
        self.assertNotIn("returned", r.stdout)
        self.assertIn("only this process exits", r.stderr)
        with self.assertRaises(TypeError):
            ms.global_exit("1")


class Arguments(unittest.TestCase):
    def test_unknown_bootstrap(self):
        with self.assertRaisesRegex(ValueError, "'auto' or 'env'"):
            ms.init("carrier-pigeon")
        self.assertFalse(ms.initialized())

    def test_uniqueid_of_wrong_length(self):
        with self.assertRaisesRegex(ValueError, "128 bytes"):
            ms.init_with_uniqueid(0, 1, b"short")

    def test_uniqueid_not_from_get_uniqueid(self):
        # Rejected while decoding the ID, before any GPU or network is touched.
        with self.assertRaisesRegex(ms.Error, "INVALID_USAGE"):
            ms.init_with_uniqueid(0, 1, bytes(128))
        self.assertFalse(ms.initialized())

    def test_bad_rank(self):
        with self.assertRaisesRegex(ms.Error, "INVALID_USAGE"):
            ms.init_with_uniqueid(3, 2, bytes(128))

    def test_get_uniqueid(self):
        uid = ms.get_uniqueid()
        self.assertIsInstance(uid, bytes)
        self.assertEqual(len(uid), ms.UNIQUEID_BYTES)
        self.assertNotEqual(uid, bytes(ms.UNIQUEID_BYTES))


class DLPackTensors(unittest.TestCase):
    """_C._wrap: nanobind's ndarray over existing memory, exported to numpy/torch/any DLPack consumer."""

    def setUp(self):
        self.buffer = (ctypes.c_float * 6)(*[0.5 * i for i in range(6)])
        self.addr = ctypes.addressof(self.buffer)

    def wrap(self, framework, shape=(2, 3), code=2, bits=32, owner=None):
        return ms._C._wrap(self.addr, list(shape), code, bits, KDLCPU, 0, owner, framework)

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "negative dimension"):
            self.wrap("dlpack", shape=(2, -1))
        with self.assertRaisesRegex(ValueError, "unsupported DLPack dtype"):
            self.wrap("dlpack", bits=12)
        with self.assertRaisesRegex(ValueError, "framework must be"):
            self.wrap("tensorflow-lite")

    def test_owner_is_kept_alive(self):
        class Owner:
            pass
        import weakref
        owner = Owner()
        alive = weakref.ref(owner)
        arr = self.wrap("dlpack", owner=owner)
        del owner
        self.assertIsNotNone(alive(), "the array must keep its owner alive")
        del arr
        import gc
        gc.collect()
        self.assertIsNone(alive(), "the owner must be released with the array")

    @unittest.skipIf(numpy is None, "numpy is not importable")
    def test_numpy_reads_it(self):
        a = self.wrap("numpy")
        self.assertEqual(a.shape, (2, 3))
        self.assertEqual(a.dtype, numpy.float32)
        self.assertEqual(a.tolist(), [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]])
        self.buffer[5] = 9.0  # the same memory, not a copy
        self.assertEqual(a[1, 2], 9.0)
        b = numpy.from_dlpack(self.wrap("dlpack", shape=(6,)))
        self.assertEqual(b.tolist(), [0.0, 0.5, 1.0, 1.5, 2.0, 9.0])
        s = self.wrap("numpy", shape=())
        self.assertEqual(s.shape, ())
        e = self.wrap("numpy", shape=(0, 4))
        self.assertEqual(e.shape, (0, 4))

    @unittest.skipIf(numpy is None, "numpy is not importable")
    def test_dtypes(self):
        ints = (ctypes.c_int64 * 2)(-3, 7)
        a = ms._C._wrap(ctypes.addressof(ints), [2], 0, 64, KDLCPU, 0, None, "numpy")
        self.assertEqual(a.dtype, numpy.int64)
        self.assertEqual(a.tolist(), [-3, 7])
        u = ms._C._wrap(ctypes.addressof(ints), [16], 1, 8, KDLCPU, 0, None, "numpy")
        self.assertEqual(u.dtype, numpy.uint8)
        self.assertEqual(bytes(u.tolist()), bytes(ints))

    @unittest.skipIf(torch is None, "torch is not importable")
    def test_torch_reads_it(self):
        t = self.wrap("torch")
        self.assertIsInstance(t, torch.Tensor)
        self.assertEqual(tuple(t.shape), (2, 3))
        self.assertEqual(t.dtype, torch.float32)
        self.assertEqual(t.data_ptr(), self.addr)
        self.assertEqual(t.tolist(), [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]])

    def test_capsule_keeps_its_owner_until_consumed_or_dropped(self):
        """The "capsule" export (what empty() hands to torch.from_dlpack): a legacy DLPack capsule."""
        import gc
        import weakref

        class Owner:
            pass
        owner = Owner()
        alive = weakref.ref(owner)
        cap = self.wrap("capsule", owner=owner)
        self.assertEqual(type(cap).__name__, "PyCapsule")
        self.assertIn('"dltensor"', repr(cap))
        del owner
        gc.collect()
        self.assertIsNotNone(alive(), "the capsule must keep its owner alive")
        del cap
        gc.collect()
        self.assertIsNone(alive(), "a capsule nobody consumed must release its owner")

    @unittest.skipIf(torch is None, "torch is not importable")
    def test_torch_reads_a_capsule(self):
        t = torch.from_dlpack(self.wrap("capsule", shape=(6,), owner=self.buffer))
        self.assertEqual(t.data_ptr(), self.addr)
        self.buffer[0] = -1.0  # the same memory, not a copy
        self.assertEqual(t.tolist(), [-1.0, 0.5, 1.0, 1.5, 2.0, 2.5])


class SymmetricTensorBookkeeping(unittest.TestCase):
    """The torch layer's record of one heap block (no GPU, no torch needed)."""

    def test_collected_without_free_warns_and_forgets_the_block(self):
        import gc
        import weakref
        from mori_shmem import _torch
        addr = 0x7f0000001000
        a = _torch._Allocation(addr, 64)
        _torch._state.live[addr] = weakref.ref(a)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            del a
            gc.collect()
        self.assertNotIn(addr, _torch._state.live)
        msgs = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
        self.assertEqual(len(msgs), 1, msgs)
        self.assertIn("free_tensor", msgs[0])
        self.assertIn("64 bytes", msgs[0])

    def test_freed_block_is_silent(self):
        import gc
        from mori_shmem import _torch
        a = _torch._Allocation(0x7f0000002000, 64)
        a.detach()  # what a collective free does
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            del a
            gc.collect()
        self.assertEqual([w for w in caught if issubclass(w.category, ResourceWarning)], [])

    def test_failed_symmetric_call_names_this_pe_the_call_and_the_size(self):
        from unittest import mock
        from mori_shmem import _torch

        class InitialisedPe3:
            @staticmethod
            def initialized():
                return True

            @staticmethod
            def my_pe():
                return 3
        cause = ms.Error("mori_shmem.malloc failed: remote error; the mori-shmem log above says why")
        with mock.patch.object(_torch, "_C", InitialisedPe3):
            with self.assertRaisesRegex(ms.Error, r"^mori_shmem\.empty\(\(4,\), torch\.float32\) on PE 3 \(16 "
                                        r"bytes; .*same order\): mori_shmem\.malloc failed") as ctx:
                _torch._raise_collective("empty((4,), torch.float32)", 16, cause)
        self.assertIs(ctx.exception.__cause__, cause)
        # Before init there is no PE to name: the runtime's own error goes up unchanged.
        before = ms.Error("mori_shmem.malloc(): mori-shmem is not initialised")
        with self.assertRaises(ms.Error) as ctx:
            _torch._raise_collective("empty((4,), torch.float32)", 16, before)
        self.assertIs(ctx.exception, before)

    def test_device_synchronize_reports_a_missing_gpu_as_error(self):
        try:
            ms._C.device_synchronize()  # a GPU here: returns
        except ms.Error as e:
            self.assertIn("device_synchronize", str(e))


class CollectiveWiring(unittest.TestCase):
    """What the torch layer's collectives pass to mori_shmemi_collective (kind, team, counts, element
    size, root, dtype, op, stream) and what they refuse, on stand-in tensors and a recording _C: no
    torch, GPU or runtime needed."""

    class Dtype:
        def __init__(self, name, floating):
            self.name, self.is_floating_point = name, floating

        def __str__(self):
            return "torch." + self.name

        def __eq__(self, other):
            return self.name == other.name

        def __hash__(self):
            return hash(self.name)

    class Tensor:
        is_cuda, device = True, "cuda:0"

        def __init__(self, n, dtype, size, ptr):
            self.n, self.dtype, self.size, self.ptr = n, dtype, size, ptr

        def is_contiguous(self):
            return True

        def numel(self):
            return self.n

        def element_size(self):
            return self.size

        def data_ptr(self):
            return self.ptr

    def setUp(self):
        from mori_shmem import _torch_collectives as tc
        self.tc, self.calls = tc, []
        test = self

        class RecordingC:
            def __getattr__(self, name):
                return getattr(ms._C, name)

            def _require_init(self, call):
                pass

            def team_n_pes(self, team):
                if team == ms.TEAM_INVALID:
                    raise ValueError(f"mori_shmem.team_n_pes: unknown team {team}")
                return 4

            def _collective_on_stream(self, *args):
                test.calls.append(args)

        self.saved = tc._C, tc._stream_handle
        tc._C, tc._stream_handle = RecordingC(), lambda stream, device: 77

    def tearDown(self):
        self.tc._C, self.tc._stream_handle = self.saved

    def test_arguments_reach_the_collective_entry(self):
        T, f32, i32 = self.Tensor, self.Dtype("float32", True), self.Dtype("int32", False)
        tc, c = self.tc, ms._C
        tc.broadcast(T(10, f32, 4, 0x100), T(10, f32, 4, 0x200), 3)
        tc.fcollect(T(40, f32, 4, 0x100), T(10, f32, 4, 0x200))
        tc.alltoall(T(40, f32, 4, 0x100), T(40, f32, 4, 0x200), team=5)
        tc.reduce(T(10, i32, 4, 0x100), T(10, i32, 4, 0x200), "xor")
        tc.reducescatter(T(10, f32, 4, 0x100), T(40, f32, 4, 0x200), "max")
        # (call, kind, team, dest, source, nelems, elem_bytes, root, dtype, op, stream)
        self.assertEqual(self.calls, [
            ("broadcast", c._COLL_BROADCAST, 0, 0x100, 0x200, 10, 4, 3, 0, 0, 77),
            ("fcollect", c._COLL_FCOLLECT, 0, 0x100, 0x200, 10, 4, 0, 0, 0, 77),
            ("alltoall", c._COLL_ALLTOALL, 5, 0x100, 0x200, 10, 4, 0, 0, 0, 77),
            ("reduce", c._COLL_REDUCE, 0, 0x100, 0x200, 10, 4, 0, c._REDUCE_DTYPES["int32"], c._REDUCE_OPS["xor"], 77),
            ("reducescatter", c._COLL_REDUCESCATTER, 0, 0x100, 0x200, 10, 4, 0, c._REDUCE_DTYPES["float32"],
             c._REDUCE_OPS["max"], 77),
        ])

    def test_misuse_is_refused_before_the_runtime(self):
        T, f32, i32 = self.Tensor, self.Dtype("float32", True), self.Dtype("int32", False)
        flag = self.Dtype("bool", False)
        tc = self.tc
        for call, args, message in (
                (tc.reduce, (T(10, f32, 4, 1), T(10, f32, 4, 1), "and"), "needs an integer dtype"),
                (tc.reduce, (T(8, flag, 1, 1), T(8, flag, 1, 1)), "cannot be reduced"),
                (tc.reduce, (T(10, f32, 4, 1), T(10, f32, 4, 1), "avg"), "op must be one of"),
                (tc.fcollect, (T(39, f32, 4, 1), T(10, f32, 4, 2)), "needs 4 x 10"),
                (tc.alltoall, (T(42, f32, 4, 1), T(42, f32, 4, 2)), "multiple of the team's 4"),
                (tc.reducescatter, (T(10, f32, 4, 1), T(41, f32, 4, 2)), "needs 4 x 10"),
                (tc.broadcast, (T(10, f32, 4, 1), T(10, i32, 4, 2), 0), "must match"),
                (tc.broadcast, (T(10, f32, 4, 1), T(9, f32, 4, 2), 0), "must match")):
            with self.subTest(call=call.__name__, message=message):
                with self.assertRaisesRegex(ValueError, message):
                    call(*args)
        self.assertEqual(self.calls, [])

    def test_a_team_this_pe_lacks_is_named_by_every_collective(self):
        T, f32, tc, bad = self.Tensor, self.Dtype("float32", True), self.tc, ms.TEAM_INVALID
        for call, args in ((tc.broadcast, (T(10, f32, 4, 1), T(10, f32, 4, 2), 0)),
                           (tc.fcollect, (T(40, f32, 4, 1), T(10, f32, 4, 2))),
                           (tc.alltoall, (T(40, f32, 4, 1), T(40, f32, 4, 2))),
                           (tc.reduce, (T(10, f32, 4, 1), T(10, f32, 4, 2))),
                           (tc.reducescatter, (T(10, f32, 4, 1), T(40, f32, 4, 2)))):
            with self.subTest(call=call.__name__):
                with self.assertRaisesRegex(ValueError, rf"^mori_shmem\.{call.__name__}: unknown team {bad} "):
                    call(*args, team=bad)
        self.assertEqual(self.calls, [])


@unittest.skipIf(torch is not None, "torch is importable here (the torch tests below cover it)")
class WithoutTorch(unittest.TestCase):
    def test_tensor_calls_say_they_need_torch(self):
        for call, args in ((ms.as_tensor, (0x1000, (4,), "float32")), (ms.empty, ((4,),)),
                           (ms.barrier_all_on_stream, ()), (ms.quiet_on_stream, ())):
            with self.subTest(call=call.__name__):
                with self.assertRaisesRegex(ImportError, "needs torch"):
                    call(*args)


@unittest.skipIf(torch is None, "torch is not importable (pip install torch to run the torch-layer checks)")
class TorchLayerArguments(unittest.TestCase):
    """Checks the torch layer makes before any GPU or collective call."""

    def test_unknown_dtypes(self):
        with self.assertRaisesRegex(TypeError, "unsupported dtype"):
            ms.as_tensor(0x1000, (4,), torch.complex64)
        with self.assertRaisesRegex(TypeError, "unsupported dtype"):
            ms.empty((4,), torch.complex64)

    def test_empty_before_init(self):
        with self.assertRaisesRegex(ms.Error, "not initialised"):
            ms.empty((4, 4), torch.float32)
        with self.assertRaisesRegex(ValueError, "negative dimension"):
            ms.empty((4, -4), torch.float32)

    def test_rma_needs_gpu_tensors(self):
        a, b = torch.zeros(4), torch.zeros(4)
        for call, args in ((ms.put, (a, b, 0)), (ms.get, (a, b, 0)), (ms.register_tensor, (a,)),
                           (ms.peer_tensor, (a, 0))):
            with self.subTest(call=call.__name__):
                with self.assertRaisesRegex(ValueError, "must be a GPU tensor"):
                    call(*args)

    def test_bad_signal_arguments(self):
        sig = torch.zeros(1, dtype=torch.int64)
        with self.assertRaisesRegex(ValueError, "cmp must be one of"):
            ms.signal_wait_until(sig, "almost", 1)
        with self.assertRaisesRegex(ValueError, "sig_op must be one of"):
            ms.put_signal(sig, sig, sig, 1, 0, sig_op="multiply")

    def test_collective_arguments(self):
        a, b = torch.zeros(4), torch.zeros(4)
        with self.assertRaisesRegex(ValueError, "op must be one of"):
            ms.reduce(a, b, op="avg")
        with self.assertRaisesRegex(ValueError, "op must be one of"):
            ms.reducescatter(a, b, op="mean")
        for call, args in ((ms.broadcast, (a, b, 0)), (ms.fcollect, (a, b)), (ms.alltoall, (a, b)),
                           (ms.reduce, (a, b)), (ms.reducescatter, (a, b, "max"))):
            with self.subTest(call=call.__name__):
                with self.assertRaisesRegex(ValueError, "must be a GPU tensor"):
                    call(*args)
        with self.assertRaisesRegex(ms.Error, "not initialised"):
            ms.barrier()
        with self.assertRaisesRegex(ms.Error, "not initialised"):
            ms.team_sync(ms.TEAM_NODE)

    def test_free_tensor_of_a_tensor_not_from_empty(self):
        with self.assertRaisesRegex(ValueError, "not a live tensor from mori_shmem.empty"):
            ms.free_tensor(torch.zeros(4))

    def test_deregister_of_a_tensor_never_registered(self):
        with self.assertRaisesRegex(ValueError, "was not registered"):
            ms.deregister_tensor(torch.zeros(4))

    def test_init_from_group_needs_torch_distributed(self):
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            self.skipTest("torch.distributed is initialised in this process")
        with self.assertRaisesRegex(ms.Error, "torch.distributed is not initialised"):
            ms.init(group=object())
        with self.assertRaisesRegex(ValueError, "either group or bootstrap"):
            ms.init("env", group=object())

    def test_tensor_scope_on_exception_frees_nothing(self):
        with self.assertRaisesRegex(KeyError, "inside"):
            with ms.tensor_scope():
                raise KeyError("inside")
        self.assertEqual(ms._torch._state.scopes, [])


class InstalledWheel(unittest.TestCase):
    """What the wheel carries for C++ users (run with MORI_SHMEM_TEST_WHEEL=1 against an installed wheel)."""

    def setUp(self):
        if not WHEEL:
            self.skipTest("not testing an installed wheel (MORI_SHMEM_TEST_WHEEL=1 enables these)")

    def test_layout(self):
        prefix = ms.cmake_prefix()
        self.assertEqual(os.path.realpath(prefix), os.path.realpath(os.path.dirname(ms.__file__)))
        self.assertTrue(os.path.isfile(os.path.join(ms.include_dir(), "mori", "shmem.h")))
        self.assertTrue(os.path.isfile(os.path.join(ms.include_dir(), "mori", "shmem_device.h")))
        self.assertTrue(os.path.isfile(os.path.join(ms.include_dir(), "mori", "platform", "config.h")))
        libs = os.listdir(ms.library_dir())
        self.assertTrue(any(n.startswith("libmori_shmem.so") for n in libs), libs)
        with open(os.path.join(ms.include_dir(), "mori", "shmem.h")) as f:
            self.assertIn("mori_shmem_putmem_on_stream", f.read())

    def test_metadata_version(self):
        from importlib.metadata import version
        self.assertEqual(version("mori-shmem"), ms.__version__)

    def test_find_package_from_a_cpp_project(self):
        cmake = shutil.which("cmake")
        if cmake is None:
            self.skipTest("cmake is not on PATH")
        with tempfile.TemporaryDirectory() as work:
            src = os.path.join(work, "src")
            os.makedirs(src)
            with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
                f.write("cmake_minimum_required(VERSION 3.24)\nproject(consumer LANGUAGES C CXX)\n"
                        "find_package(mori_shmem CONFIG REQUIRED)\n"
                        "add_executable(consumer main.c)\ntarget_link_libraries(consumer PRIVATE mori::shmem)\n")
            with open(os.path.join(src, "main.c"), "w") as f:
                f.write('#include "mori/shmem.h"\n#include <stdio.h>\n'
                        "int main(void) { printf(\"%s\\n\", mori_shmem_status_string(MORI_SHMEM_ERROR_TIMEOUT));"
                        " return mori_shmem_initialized(); }\n")
            build = os.path.join(work, "build")
            env = dict(os.environ, PATH="/usr/local/cuda/bin:" + os.environ.get("PATH", ""))
            for cmd in ([cmake, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={ms.cmake_prefix()}"],
                        [cmake, "--build", build]):
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                self.assertEqual(r.returncode, 0, f"{' '.join(cmd)}:\n{r.stdout}\n{r.stderr}")
            r = subprocess.run([os.path.join(build, "consumer")], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stdout.strip()), (0, "TIMEOUT"), r.stderr)


if __name__ == "__main__":
    warnings.simplefilter("default")
    unittest.main(verbosity=2)
