"""mori_shmem Python module without a GPU: API surface, clear errors before init, argument checks,
and the DLPack capsules behind as_tensor() read back field by field and through numpy/torch.

Run: PYTHONPATH=<build>/python python3 test_api.py   (or pytest test_api.py)
"""

import ctypes
import unittest

import mori_shmem as ms

# Every public name of the module and what it is.
FUNCTIONS = [
    "init", "init_with_uniqueid", "get_uniqueid", "initialized", "finalize", "my_pe", "n_pes", "team_my_pe",
    "team_n_pes", "malloc", "calloc", "free", "ptr", "register", "deregister", "barrier_all", "device_error",
    "device_count", "pointer_device", "as_tensor", "peer_tensor",
]
CONSTANTS = ["__version__", "PLATFORM", "UNIQUEID_BYTES", "TEAM_WORLD", "TEAM_NODE", "DLPACK_DEVICE_TYPE"]

# Calls that need an initialised runtime, with valid arguments otherwise.
NEEDS_INIT = [
    ("my_pe", ()), ("n_pes", ()), ("team_my_pe", (0,)), ("team_n_pes", (0,)), ("malloc", (1024,)),
    ("calloc", (4, 8)), ("free", (0,)), ("ptr", (0x1000, 0)), ("register", (0x1000, 4096)), ("deregister", (0x1000,)),
    ("barrier_all", ()),
]


def _import(name):
    try:
        return __import__(name)
    except ImportError:
        return None


# DLPack ABI, as the DLPack specification defines it (dlpack.h, unversioned "dltensor").
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def _capsule_contents(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return DLManagedTensor.from_address(get(capsule, b"dltensor"))


class _CpuExporter:
    """Hands a capsule to numpy.from_dlpack, which asks for the protocol methods."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


KDLCPU = 1


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
        self.assertEqual((ms.TEAM_WORLD, ms.TEAM_NODE), (0, 1))

    def test_device_count_is_a_count(self):
        n = ms.device_count()
        self.assertIsInstance(n, int)
        self.assertGreaterEqual(n, 0)


class BeforeInit(unittest.TestCase):
    def test_not_initialized(self):
        self.assertFalse(ms.initialized())

    def test_my_pe_says_to_call_init(self):
        with self.assertRaises(ms.Error) as caught:
            ms.my_pe()
        message = str(caught.exception)
        self.assertIn("my_pe", message)
        self.assertIn("not initialised", message)
        self.assertIn("mori_shmem.init()", message)

    def test_every_call_that_needs_init_says_so(self):
        for name, args in NEEDS_INIT:
            with self.subTest(call=name):
                with self.assertRaisesRegex(ms.Error, f"mori_shmem\\.{name}\\(\\): mori-shmem is not initialised"):
                    getattr(ms, name)(*args)

    def test_finalize_without_init_fails(self):
        with self.assertRaises(ms.Error):
            ms.finalize()

    def test_no_device_error_recorded(self):
        self.assertIsNone(ms.device_error())


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


class DLPackCapsule(unittest.TestCase):
    def setUp(self):
        self.buffer = (ctypes.c_float * 6)(*[0.5 * i for i in range(6)])
        self.addr = ctypes.addressof(self.buffer)

    def capsule(self, shape=(2, 3), code=2, bits=32):
        return ms._C._dlpack_capsule(self.addr, list(shape), code, bits, KDLCPU, 0)

    def test_fields(self):
        capsule = self.capsule()
        t = _capsule_contents(capsule).dl_tensor
        self.assertEqual(t.data, self.addr)
        self.assertEqual((t.device.device_type, t.device.device_id), (KDLCPU, 0))
        self.assertEqual(t.ndim, 2)
        self.assertEqual((t.dtype.code, t.dtype.bits, t.dtype.lanes), (2, 32, 1))
        self.assertEqual([t.shape[0], t.shape[1]], [2, 3])
        self.assertEqual([t.strides[0], t.strides[1]], [3, 1])  # row-major, in elements
        self.assertEqual(t.byte_offset, 0)
        self.assertIsNotNone(_capsule_contents(capsule).deleter)

    def test_scalar_and_empty_shapes(self):
        scalar = self.capsule(shape=())  # the capsule owns what its contents point to: keep it alive
        self.assertEqual(_capsule_contents(scalar).dl_tensor.ndim, 0)
        empty = self.capsule(shape=(0, 4))
        t = _capsule_contents(empty).dl_tensor
        self.assertEqual([t.shape[0], t.shape[1]], [0, 4])
        self.assertEqual([t.strides[0], t.strides[1]], [4, 1])

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            self.capsule(shape=(2, -1))
        with self.assertRaises(ValueError):
            self.capsule(bits=12)

    def test_unconsumed_capsule_is_released(self):
        for _ in range(1000):  # the destructor frees the holder; a double free would crash here
            self.capsule()

    @unittest.skipIf(_import("numpy") is None, "numpy is not importable")
    def test_numpy_reads_it(self):
        import numpy as np
        if not hasattr(np, "from_dlpack"):
            self.skipTest("numpy has no from_dlpack (needs numpy >= 1.22)")
        a = np.from_dlpack(_CpuExporter(self.capsule()))
        self.assertEqual(a.shape, (2, 3))
        self.assertEqual(a.dtype, np.float32)
        self.assertEqual(a.tolist(), [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]])
        self.buffer[5] = 9.0  # the same memory, not a copy (numpy imports DLPack read-only)
        self.assertEqual(a[1, 2], 9.0)

    @unittest.skipIf(_import("torch") is None, "torch is not importable")
    def test_torch_reads_it(self):
        import torch
        t = torch.utils.dlpack.from_dlpack(self.capsule())
        self.assertEqual(tuple(t.shape), (2, 3))
        self.assertEqual(t.dtype, torch.float32)
        self.assertEqual(t.tolist(), [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]])
        self.assertEqual(t.data_ptr(), self.addr)


class TorchHelpers(unittest.TestCase):
    @unittest.skipIf(_import("torch") is not None, "torch is importable here (test_gpu.py covers as_tensor)")
    def test_as_tensor_without_torch_says_so(self):
        with self.assertRaisesRegex(ImportError, "needs torch"):
            ms.as_tensor(0x1000, (4,), "float32")

    @unittest.skipIf(_import("torch") is None, "torch is not importable")
    def test_as_tensor_rejects_unknown_dtypes(self):
        import torch
        with self.assertRaisesRegex(TypeError, "unsupported dtype"):
            ms.as_tensor(0x1000, (4,), torch.complex64)


if __name__ == "__main__":
    unittest.main(verbosity=2)
