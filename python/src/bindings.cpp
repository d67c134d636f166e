// mori_shmem._C: the host API (mori/shmem.h) for Python. Addresses cross the boundary as plain
// integers (device pointers), so any framework can use them; mori_shmem/__init__.py adds the
// torch helpers on top. Collective calls release the GIL: they wait for the other PEs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdint.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"

namespace py = pybind11;

namespace {

// Raised as mori_shmem.Error (a RuntimeError) for every failure the runtime reports.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check(int status, const char* call) {
  if (status == MORI_SHMEM_SUCCESS) return;
  throw Error(std::string("mori_shmem.") + call + " failed: " + mori_shmem_status_string(status) + " (" +
              std::to_string(status) + "); the mori-shmem log above says why");
}

// Calls that need an initialised runtime say so, instead of returning -1 or 0 as the C API does.
void requireInit(const char* call) {
  if (!mori_shmem_initialized())
    throw Error(std::string("mori_shmem.") + call +
                "(): mori-shmem is not initialised: call mori_shmem.init() or mori_shmem.init_with_uniqueid() first");
}

void* toPointer(uintptr_t addr) { return reinterpret_cast<void*>(addr); }
uintptr_t toAddress(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// ---- DLPack ----------------------------------------------------------------------------------
// The unversioned DLPack ABI (dlpack.h before 1.0, capsule name "dltensor"), which torch, numpy,
// cupy and jax all import. Layout fixed by the DLPack specification.
struct DLDevice {
  int32_t device_type;  // kDLCPU 1, kDLCUDA 2, kDLROCM 10
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
static_assert(sizeof(DLTensor) == 48 && sizeof(DLManagedTensor) == 64, "DLPack layout");

constexpr int32_t kDLGpuDeviceType = MORI_PLATFORM_AMD ? 10 : 2;

// Owns the shape and strides; never the memory, which belongs to the symmetric heap.
struct DLPackHolder {
  DLManagedTensor managed{};
  std::vector<int64_t> shape, strides;
};

void deleteHolder(DLManagedTensor* self) { delete static_cast<DLPackHolder*>(self->manager_ctx); }

// A consumer renames the capsule to "used_dltensor" and calls the deleter itself; a capsule never
// consumed still owns its holder.
void capsuleDestructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (managed) managed->deleter(managed);
}

py::capsule dlpackCapsule(uintptr_t addr, const std::vector<int64_t>& shape, int code, int bits, int deviceType,
                          int deviceId) {
  if (bits <= 0 || bits % 8 != 0 || bits > 255 || code < 0 || code > 255)
    throw py::value_error("mori_shmem: unsupported DLPack dtype (code " + std::to_string(code) + ", bits " +
                          std::to_string(bits) + ")");
  auto* h = new DLPackHolder;
  h->shape = shape;
  h->strides.assign(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] < 0) {
      delete h;
      throw py::value_error("mori_shmem: negative dimension in shape");
    }
    if (i + 1 < shape.size()) h->strides[i] = h->strides[i + 1] * shape[i + 1];
  }
  DLTensor& t = h->managed.dl_tensor;
  t.data = toPointer(addr);
  t.device = {deviceType, deviceId};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = {static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
  t.shape = h->shape.data();
  t.strides = h->strides.data();
  t.byte_offset = 0;
  h->managed.manager_ctx = h;
  h->managed.deleter = &deleteHolder;
  PyObject* c = PyCapsule_New(&h->managed, "dltensor", &capsuleDestructor);
  if (!c) {
    delete h;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(c);
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "mori-shmem host API: init/finalize, PE queries, symmetric memory, barriers";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  m.attr("__version__") = std::to_string(MORI_SHMEM_VERSION_MAJOR) + "." + std::to_string(MORI_SHMEM_VERSION_MINOR) +
                          "." + std::to_string(MORI_SHMEM_VERSION_PATCH);
  m.attr("PLATFORM") = MORI_PLATFORM_AMD ? "amd" : "nvidia";
  m.attr("UNIQUEID_BYTES") = MORI_SHMEM_UNIQUEID_BYTES;
  m.attr("TEAM_WORLD") = static_cast<int>(MORI_SHMEM_TEAM_WORLD);
  m.attr("TEAM_NODE") = static_cast<int>(MORI_SHMEM_TEAM_NODE);
  m.attr("DLPACK_DEVICE_TYPE") = kDLGpuDeviceType;

  // ---- initialisation
  m.def(
      "init",
      [](const std::string& bootstrap) {
        int s = MORI_SHMEM_ERROR_INVALID_USAGE;
        if (bootstrap == "auto") {
          py::gil_scoped_release nogil;
          s = mori_shmem_init();
        } else if (bootstrap == "env") {
          py::gil_scoped_release nogil;
          s = mori_shmem_init_attr(MORI_SHMEM_INIT_WITH_ENV, nullptr);
        } else {
          throw py::value_error("mori_shmem.init: bootstrap must be 'auto' or 'env', got '" + bootstrap + "'");
        }
        check(s, "init");
      },
      py::arg("bootstrap") = "auto",
      "Collective. 'auto': MPI when launched by mpirun, else the launcher environment (MORI_SHMEM_BOOTSTRAP "
      "overrides); 'env': the launcher environment (torchrun RANK/WORLD_SIZE/MASTER_ADDR, SLURM).");
  m.def(
      "get_uniqueid",
      []() {
        mori_shmem_uniqueid_t uid;
        check(mori_shmem_get_uniqueid(&uid), "get_uniqueid");
        return py::bytes(reinterpret_cast<const char*>(uid.internal), sizeof(uid.internal));
      },
      "On the PE that will be rank 0 only: creates the bootstrap ID (bytes) and starts listening for the others.");
  m.def(
      "init_with_uniqueid",
      [](int rank, int nranks, const py::bytes& uidBytes) {
        const std::string raw = uidBytes;
        if (raw.size() != MORI_SHMEM_UNIQUEID_BYTES)
          throw py::value_error("mori_shmem.init_with_uniqueid: uid must be " +
                                std::to_string(MORI_SHMEM_UNIQUEID_BYTES) + " bytes from get_uniqueid(), got " +
                                std::to_string(raw.size()));
        mori_shmem_uniqueid_t uid;
        raw.copy(reinterpret_cast<char*>(uid.internal), sizeof(uid.internal));
        mori_shmem_init_attr_t attr = MORI_SHMEM_INIT_ATTR_INITIALIZER;
        check(mori_shmem_set_attr_uniqueid_args(rank, nranks, &uid, &attr), "init_with_uniqueid");
        int s;
        {
          py::gil_scoped_release nogil;
          s = mori_shmem_init_attr(MORI_SHMEM_INIT_WITH_UNIQUEID, &attr);
        }
        check(s, "init_with_uniqueid");
      },
      py::arg("rank"), py::arg("nranks"), py::arg("uid"), "Collective: every PE passes rank 0's get_uniqueid().");
  m.def("initialized", []() { return mori_shmem_initialized() != 0; });
  m.def(
      "finalize",
      []() {
        int s;
        {
          py::gil_scoped_release nogil;
          s = mori_shmem_finalize();
        }
        check(s, "finalize");
      },
      "Collective. Memory from malloc() and tensors over it are invalid afterwards.");

  // ---- PEs and teams
  m.def("my_pe", []() {
    requireInit("my_pe");
    return mori_shmem_my_pe();
  });
  m.def("n_pes", []() {
    requireInit("n_pes");
    return mori_shmem_n_pes();
  });
  m.def(
      "team_my_pe",
      [](int team) {
        requireInit("team_my_pe");
        const int pe = mori_shmem_team_my_pe(team);
        if (pe < 0) throw py::value_error("mori_shmem.team_my_pe: unknown team " + std::to_string(team));
        return pe;
      },
      py::arg("team"));
  m.def(
      "team_n_pes",
      [](int team) {
        requireInit("team_n_pes");
        const int n = mori_shmem_team_n_pes(team);
        if (n < 0) throw py::value_error("mori_shmem.team_n_pes: unknown team " + std::to_string(team));
        return n;
      },
      py::arg("team"));

  // ---- symmetric memory
  m.def(
      "malloc",
      [](size_t size) -> uintptr_t {
        requireInit("malloc");
        void* p;
        {
          py::gil_scoped_release nogil;
          p = mori_shmem_malloc(size);
        }
        if (!p && size != 0)
          throw Error("mori_shmem.malloc(" + std::to_string(size) + ") failed; the log above says why");
        return toAddress(p);
      },
      py::arg("size"), "Collective: same size on every PE. Returns the device address (0 for size 0).");
  m.def(
      "calloc",
      [](size_t count, size_t size) -> uintptr_t {
        requireInit("calloc");
        void* p;
        {
          py::gil_scoped_release nogil;
          p = mori_shmem_calloc(count, size);
        }
        if (!p && count != 0 && size != 0)
          throw Error("mori_shmem.calloc(" + std::to_string(count) + ", " + std::to_string(size) +
                      ") failed; the log above says why");
        return toAddress(p);
      },
      py::arg("count"), py::arg("size"), "Collective: zeroed symmetric memory. Returns the device address.");
  m.def(
      "free",
      [](uintptr_t addr) {
        requireInit("free");
        py::gil_scoped_release nogil;
        mori_shmem_free(toPointer(addr));
      },
      py::arg("addr"), "Collective. 0 is ignored.");
  m.def(
      "ptr",
      [](uintptr_t addr, int pe) -> py::object {
        requireInit("ptr");
        void* p = mori_shmem_ptr(toPointer(addr), pe);
        if (!p) return py::none();
        return py::int_(toAddress(p));
      },
      py::arg("addr"), py::arg("pe"),
      "Address at which this PE can load/store pe's copy of the symmetric object at addr, or None if pe is not "
      "reached by P2P or addr is not symmetric.");
  m.def(
      "register",
      [](uintptr_t addr, size_t size) {
        requireInit("register");
        int s;
        {
          py::gil_scoped_release nogil;
          s = mori_shmem_register(toPointer(addr), size);
        }
        check(s, "register");
      },
      py::arg("addr"), py::arg("size"), "Collective: makes device memory allocated elsewhere symmetric.");
  m.def(
      "deregister",
      [](uintptr_t addr) {
        requireInit("deregister");
        int s;
        {
          py::gil_scoped_release nogil;
          s = mori_shmem_deregister(toPointer(addr));
        }
        check(s, "deregister");
      },
      py::arg("addr"));

  // ---- synchronisation and diagnostics
  m.def(
      "barrier_all",
      []() {
        requireInit("barrier_all");
        int s;
        {
          py::gil_scoped_release nogil;
          s = mori_shmem_barrier_all();
        }
        check(s, "barrier_all");
      },
      "Collective: waits for this PE's GPU work, then for every PE.");
  m.def(
      "device_error",
      []() -> py::object {
        char buf[1024];
        if (!mori_shmem_device_error(buf, sizeof(buf))) return py::none();
        return py::str(buf);
      },
      "Why a kernel stopped on a mori-shmem device-side error, or None.");

  // ---- GPU runtime queries the torch helpers need
  m.def(
      "device_count",
      []() {
        int n = 0;
        return hipGetDeviceCount(&n) == hipSuccess ? n : 0;
      },
      "GPUs visible to the GPU runtime (0 when the runtime reports an error, e.g. no driver).");
  m.def(
      "pointer_device",
      [](uintptr_t addr) {
        hipPointerAttribute_t attr;
        const hipError_t e = hipPointerGetAttributes(&attr, toPointer(addr));
        if (e != hipSuccess)
          throw Error(std::string("mori_shmem.pointer_device: ") + hipGetErrorName(e) + ": " + hipGetErrorString(e));
        return attr.device;
      },
      py::arg("addr"), "The GPU that device address addr belongs to.");
  m.def("_dlpack_capsule", &dlpackCapsule, py::arg("addr"), py::arg("shape"), py::arg("code"), py::arg("bits"),
        py::arg("device_type"), py::arg("device_id"),
        "A DLPack capsule over existing memory (does not own it); mori_shmem.as_tensor() is the public form.");
}
