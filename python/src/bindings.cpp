// mori_shmem._C: the host API (mori/shmem.h) for Python, through nanobind. Addresses and streams
// cross the boundary as plain integers (device pointers, cudaStream_t/hipStream_t handles), so any
// framework can use them; tensors over symmetric memory are made with nanobind's ndarray (DLPack).
// mori_shmem/*.py add the torch layer on top. Collective calls release the GIL: they wait for
// the other PEs.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdint.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mori/platform/gpu_runtime.hpp"
#include "mori/shmem.h"

namespace nb = nanobind;

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
mori_shmem_stream_t toStream(uintptr_t s) { return reinterpret_cast<mori_shmem_stream_t>(s); }

constexpr int32_t kDLGpuDeviceType = MORI_PLATFORM_AMD ? 10 : 2;  // kDLROCM / kDLCUDA

// A contiguous row-major DLPack tensor over existing memory (no copy), exported to `framework`
// ("torch", "numpy", "dlpack": nanobind's array object with __dlpack__/__dlpack_device__, or
// "capsule": a legacy "dltensor" capsule, which torch.from_dlpack consumes without the
// __dlpack_device__/current-stream exchange that costs microseconds per tensor in Python; the memory
// is fresh, so there is no producer stream to order against). `owner` is kept alive by the result.
nb::object wrap(uintptr_t addr, const std::vector<int64_t>& shape, int code, int bits, int deviceType, int deviceId,
                nb::handle owner, const std::string& framework) {
  if (bits <= 0 || bits % 8 != 0 || bits > 255 || code < 0 || code > 255)
    throw nb::value_error(
        ("mori_shmem: unsupported DLPack dtype (code " + std::to_string(code) + ", bits " + std::to_string(bits) + ")")
            .c_str());
  std::vector<size_t> dims(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw nb::value_error("mori_shmem: negative dimension in shape");
    dims[i] = static_cast<size_t>(shape[i]);
  }
  const nb::dlpack::dtype dt{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
  nb::ndarray<> a(toPointer(addr), dims.size(), dims.data(), owner, nullptr, dt, deviceType, deviceId);
  if (framework == "torch") return nb::cast(nb::ndarray<nb::pytorch>(a));
  if (framework == "numpy") return nb::cast(nb::ndarray<nb::numpy>(a));
  if (framework == "dlpack") return nb::cast(nb::ndarray<nb::array_api>(a));
  if (framework == "capsule") return nb::cast(a);
  throw nb::value_error(
      ("mori_shmem: framework must be 'torch', 'numpy', 'dlpack' or 'capsule', got '" + framework + "'").c_str());
}

// Runs a host call that may wait for other PEs without the GIL.
template <typename F>
int nogil(F&& f) {
  nb::gil_scoped_release release;
  return f();
}

}  // namespace

NB_MODULE(_C, m) {
  m.doc() =
      "mori-shmem host API: init/finalize, PE queries, teams, symmetric memory, barriers, stream-ordered RMA and "
      "collectives";
  nb::exception<Error>(m, "Error", PyExc_RuntimeError);
  m.attr("__version__") = std::to_string(MORI_SHMEM_VERSION_MAJOR) + "." + std::to_string(MORI_SHMEM_VERSION_MINOR) +
                          "." + std::to_string(MORI_SHMEM_VERSION_PATCH);
  m.attr("PLATFORM") = MORI_PLATFORM_AMD ? "amd" : "nvidia";
  m.attr("UNIQUEID_BYTES") = MORI_SHMEM_UNIQUEID_BYTES;
  m.attr("TEAM_WORLD") = static_cast<int>(MORI_SHMEM_TEAM_WORLD);
  m.attr("TEAM_NODE") = static_cast<int>(MORI_SHMEM_TEAM_NODE);
  m.attr("TEAM_SHARED") = static_cast<int>(MORI_SHMEM_TEAM_SHARED);
  m.attr("TEAM_SAME_MYPE_NODE") = static_cast<int>(MORI_SHMEM_TEAM_SAME_MYPE_NODE);
  m.attr("TEAM_INVALID") = static_cast<int>(MORI_SHMEM_TEAM_INVALID);
  m.attr("DLPACK_DEVICE_TYPE") = kDLGpuDeviceType;
  // sig_op and cmp values of mori/shmem.h.
  m.attr("SIGNAL_SET") = static_cast<int>(MORI_SHMEM_SIGNAL_SET);
  m.attr("SIGNAL_ADD") = static_cast<int>(MORI_SHMEM_SIGNAL_ADD);
  m.attr("CMP_EQ") = static_cast<int>(MORI_SHMEM_CMP_EQ);
  m.attr("CMP_NE") = static_cast<int>(MORI_SHMEM_CMP_NE);
  m.attr("CMP_GT") = static_cast<int>(MORI_SHMEM_CMP_GT);
  m.attr("CMP_GE") = static_cast<int>(MORI_SHMEM_CMP_GE);
  m.attr("CMP_LT") = static_cast<int>(MORI_SHMEM_CMP_LT);
  m.attr("CMP_LE") = static_cast<int>(MORI_SHMEM_CMP_LE);
  // The collective entry's kind, dtype and op values (mori/shmem_team.h), for the torch layer.
  m.attr("_COLL_BROADCAST") = static_cast<int>(MORI_SHMEM_COLL_BROADCAST);
  m.attr("_COLL_FCOLLECT") = static_cast<int>(MORI_SHMEM_COLL_FCOLLECT);
  m.attr("_COLL_ALLTOALL") = static_cast<int>(MORI_SHMEM_COLL_ALLTOALL);
  m.attr("_COLL_REDUCE") = static_cast<int>(MORI_SHMEM_COLL_REDUCE);
  m.attr("_COLL_REDUCESCATTER") = static_cast<int>(MORI_SHMEM_COLL_REDUCESCATTER);
  nb::dict dtypes, ops;
  dtypes["int8"] = static_cast<int>(MORI_SHMEM_DTYPE_INT8);
  dtypes["int16"] = static_cast<int>(MORI_SHMEM_DTYPE_INT16);
  dtypes["int32"] = static_cast<int>(MORI_SHMEM_DTYPE_INT32);
  dtypes["int64"] = static_cast<int>(MORI_SHMEM_DTYPE_INT64);
  dtypes["uint8"] = static_cast<int>(MORI_SHMEM_DTYPE_UINT8);
  dtypes["uint16"] = static_cast<int>(MORI_SHMEM_DTYPE_UINT16);
  dtypes["uint32"] = static_cast<int>(MORI_SHMEM_DTYPE_UINT32);
  dtypes["uint64"] = static_cast<int>(MORI_SHMEM_DTYPE_UINT64);
  dtypes["float32"] = static_cast<int>(MORI_SHMEM_DTYPE_FLOAT);
  dtypes["float64"] = static_cast<int>(MORI_SHMEM_DTYPE_DOUBLE);
  dtypes["float16"] = static_cast<int>(MORI_SHMEM_DTYPE_HALF);
  dtypes["bfloat16"] = static_cast<int>(MORI_SHMEM_DTYPE_BFLOAT16);
  ops["sum"] = static_cast<int>(MORI_SHMEM_REDUCE_SUM);
  ops["prod"] = static_cast<int>(MORI_SHMEM_REDUCE_PROD);
  ops["min"] = static_cast<int>(MORI_SHMEM_REDUCE_MIN);
  ops["max"] = static_cast<int>(MORI_SHMEM_REDUCE_MAX);
  ops["and"] = static_cast<int>(MORI_SHMEM_REDUCE_AND);
  ops["or"] = static_cast<int>(MORI_SHMEM_REDUCE_OR);
  ops["xor"] = static_cast<int>(MORI_SHMEM_REDUCE_XOR);
  m.attr("_REDUCE_DTYPES") = dtypes;  // by torch dtype name
  m.attr("_REDUCE_OPS") = ops;

  // ---- initialisation
  m.def(
      "init",
      [](const std::string& bootstrap) {
        if (bootstrap == "auto") {
          check(nogil([] { return mori_shmem_init(); }), "init");
        } else if (bootstrap == "env") {
          check(nogil([] { return mori_shmem_init_attr(MORI_SHMEM_INIT_WITH_ENV, nullptr); }), "init");
        } else {
          throw nb::value_error(
              ("mori_shmem.init: bootstrap must be 'auto' or 'env', got '" + bootstrap + "'").c_str());
        }
      },
      nb::arg("bootstrap") = "auto",
      "Collective. 'auto': MPI when launched by mpirun, else the launcher environment (MORI_SHMEM_BOOTSTRAP "
      "overrides); 'env': the launcher environment (torchrun RANK/WORLD_SIZE/MASTER_ADDR, SLURM).");
  m.def(
      "get_uniqueid",
      []() {
        mori_shmem_uniqueid_t uid;
        check(mori_shmem_get_uniqueid(&uid), "get_uniqueid");
        return nb::bytes(reinterpret_cast<const char*>(uid.internal), sizeof(uid.internal));
      },
      "On the PE that will be rank 0 only: creates the bootstrap ID (bytes) and starts listening for the others.");
  m.def(
      "init_with_uniqueid",
      [](int rank, int nranks, nb::bytes uidBytes) {
        if (uidBytes.size() != MORI_SHMEM_UNIQUEID_BYTES)
          throw nb::value_error(("mori_shmem.init_with_uniqueid: uid must be " +
                                 std::to_string(MORI_SHMEM_UNIQUEID_BYTES) + " bytes from get_uniqueid(), got " +
                                 std::to_string(uidBytes.size()))
                                    .c_str());
        mori_shmem_uniqueid_t uid;
        const char* raw = uidBytes.c_str();
        std::copy(raw, raw + sizeof(uid.internal), reinterpret_cast<char*>(uid.internal));
        mori_shmem_init_attr_t attr = MORI_SHMEM_INIT_ATTR_INITIALIZER;
        check(mori_shmem_set_attr_uniqueid_args(rank, nranks, &uid, &attr), "init_with_uniqueid");
        check(nogil([&] { return mori_shmem_init_attr(MORI_SHMEM_INIT_WITH_UNIQUEID, &attr); }), "init_with_uniqueid");
      },
      nb::arg("rank"), nb::arg("nranks"), nb::arg("uid"), "Collective: every PE passes rank 0's get_uniqueid().");
  m.def("initialized", []() { return mori_shmem_initialized() != 0; });
  m.def(
      "_require_init", [](const std::string& call) { requireInit(call.c_str()); }, nb::arg("call"),
      "Raises Error naming mori_shmem.<call>() when the runtime is not initialised (the torch layer's check before "
      "it touches the GPU).");
  m.def(
      "finalize", []() { check(nogil([] { return mori_shmem_finalize(); }), "finalize"); },
      "Collective. Memory from malloc() and tensors over it are invalid afterwards.");
  m.def(
      "global_exit",
      [](int status) {
        nb::gil_scoped_release released;  // another Python thread may hold what this one waits for
        mori_shmem_global_exit(status);
      },
      nb::arg("status"),
      "Ends every PE of the job with exit status `status` and does not return (OpenSHMEM's shmem_global_exit); "
      "before init only this process. C stdio is flushed; Python's buffers (sys.stdout) and atexit handlers are "
      "not: flush first.");

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
        if (pe < 0) throw nb::value_error(("mori_shmem.team_my_pe: unknown team " + std::to_string(team)).c_str());
        return pe;
      },
      nb::arg("team"));
  m.def(
      "team_n_pes",
      [](int team) {
        requireInit("team_n_pes");
        const int n = mori_shmem_team_n_pes(team);
        if (n < 0) throw nb::value_error(("mori_shmem.team_n_pes: unknown team " + std::to_string(team)).c_str());
        return n;
      },
      nb::arg("team"));

  m.def(
      "team_translate_pe",
      [](int srcTeam, int pe, int destTeam) -> nb::object {
        requireInit("team_translate_pe");
        const int out = mori_shmem_team_translate_pe(srcTeam, pe, destTeam);
        if (out < 0) return nb::none();
        return nb::int_(out);
      },
      nb::arg("src_team"), nb::arg("pe"), nb::arg("dest_team"),
      "pe's number (of src_team) in dest_team, or None when it is not a member or a team is unknown.");
  m.def(
      "team_split_strided",
      [](int parent, int start, int stride, int size) -> nb::object {
        requireInit("team_split_strided");
        mori_shmem_team_t team = MORI_SHMEM_TEAM_INVALID;
        check(nogil([&] { return mori_shmem_team_split_strided(parent, start, stride, size, nullptr, 0, &team); }),
              "team_split_strided");
        if (team == MORI_SHMEM_TEAM_INVALID) return nb::none();
        return nb::int_(static_cast<int>(team));
      },
      nb::arg("parent"), nb::arg("start"), nb::arg("stride"), nb::arg("size"),
      "Collective over parent: the team of parent PEs start, start + stride, ... (size of them). Returns its "
      "handle, or None on parent PEs outside it. Arguments that differ between PEs raise Error on every PE.");
  m.def(
      "team_split_2d",
      [](int parent, int xrange) -> nb::tuple {
        requireInit("team_split_2d");
        mori_shmem_team_t x = MORI_SHMEM_TEAM_INVALID, y = MORI_SHMEM_TEAM_INVALID;
        check(nogil([&] { return mori_shmem_team_split_2d(parent, xrange, nullptr, 0, &x, nullptr, 0, &y); }),
              "team_split_2d");
        auto handle = [](mori_shmem_team_t t) -> nb::object {
          if (t == MORI_SHMEM_TEAM_INVALID) return nb::none();
          return nb::int_(static_cast<int>(t));
        };
        return nb::make_tuple(handle(x), handle(y));
      },
      nb::arg("parent"), nb::arg("xrange"),
      "Collective over parent: the parent as a grid of xrange columns; returns (this PE's row team, its column "
      "team).");
  m.def(
      "team_destroy",
      [](int team) {
        requireInit("team_destroy");
        check(nogil([&] { return mori_shmem_team_destroy(team); }), "team_destroy");
      },
      nb::arg("team"), "Collective over the team; the predefined teams cannot be destroyed.");

  // ---- symmetric memory
  m.def(
      "malloc",
      [](size_t size) -> uintptr_t {
        requireInit("malloc");
        void* p;
        {
          nb::gil_scoped_release release;
          p = mori_shmem_malloc(size);
        }
        if (!p && size != 0)
          throw Error("mori_shmem.malloc(" + std::to_string(size) + ") failed; the log above says why");
        return toAddress(p);
      },
      nb::arg("size"), "Collective: same size on every PE. Returns the device address (0 for size 0).");
  m.def(
      "calloc",
      [](size_t count, size_t size) -> uintptr_t {
        requireInit("calloc");
        void* p;
        {
          nb::gil_scoped_release release;
          p = mori_shmem_calloc(count, size);
        }
        if (!p && count != 0 && size != 0)
          throw Error("mori_shmem.calloc(" + std::to_string(count) + ", " + std::to_string(size) +
                      ") failed; the log above says why");
        return toAddress(p);
      },
      nb::arg("count"), nb::arg("size"), "Collective: zeroed symmetric memory. Returns the device address.");
  m.def(
      "free",
      [](uintptr_t addr) {
        requireInit("free");
        check(nogil([&] { return mori_shmem_free_status(toPointer(addr)); }), "free");
      },
      nb::arg("addr"),
      "Collective; 0 is ignored. Raises Error (nothing freed) when the PEs did not all free the same object.");
  m.def(
      "ptr",
      [](uintptr_t addr, int pe) -> nb::object {
        requireInit("ptr");
        void* p = mori_shmem_ptr(toPointer(addr), pe);
        if (!p) return nb::none();
        return nb::int_(toAddress(p));
      },
      nb::arg("addr"), nb::arg("pe"),
      "Address at which this PE can load/store pe's copy of the symmetric object at addr, or None if pe is not "
      "reached by P2P or addr is not symmetric.");
  m.def(
      "register",
      [](uintptr_t addr, size_t size) {
        requireInit("register");
        check(nogil([&] { return mori_shmem_register(toPointer(addr), size); }), "register");
      },
      nb::arg("addr"), nb::arg("size"), "Collective: makes device memory allocated elsewhere symmetric.");
  m.def(
      "deregister",
      [](uintptr_t addr) {
        requireInit("deregister");
        check(nogil([&] { return mori_shmem_deregister(toPointer(addr)); }), "deregister");
      },
      nb::arg("addr"));

  // ---- synchronisation and diagnostics
  m.def(
      "barrier_all",
      []() {
        requireInit("barrier_all");
        check(nogil([] { return mori_shmem_barrier_all(); }), "barrier_all");
      },
      "Collective: waits for this PE's GPU work, then for every PE.");
  m.def(
      "barrier_all_on_stream",
      [](uintptr_t stream) {
        requireInit("barrier_all_on_stream");
        check(mori_shmem_barrier_all_on_stream(toStream(stream)), "barrier_all_on_stream");
      },
      nb::arg("stream"), "Collective, stream-ordered: enqueues a barrier kernel on the stream handle.");
  m.def(
      "quiet_on_stream",
      [](uintptr_t stream) {
        requireInit("quiet_on_stream");
        check(mori_shmem_quiet_on_stream(toStream(stream)), "quiet_on_stream");
      },
      nb::arg("stream"), "Stream-ordered: completes this PE's device operations when the stream reaches it.");

  // ---- stream-ordered RMA (addresses and stream handles as ints; see mori/shmem.h)
  m.def(
      "putmem_on_stream",
      [](uintptr_t dest, uintptr_t source, size_t bytes, int pe, uintptr_t stream) {
        requireInit("putmem_on_stream");
        check(mori_shmem_putmem_on_stream(toPointer(dest), toPointer(source), bytes, pe, toStream(stream)),
              "putmem_on_stream");
      },
      nb::arg("dest"), nb::arg("source"), nb::arg("bytes"), nb::arg("pe"), nb::arg("stream"));
  m.def(
      "getmem_on_stream",
      [](uintptr_t dest, uintptr_t source, size_t bytes, int pe, uintptr_t stream) {
        requireInit("getmem_on_stream");
        check(mori_shmem_getmem_on_stream(toPointer(dest), toPointer(source), bytes, pe, toStream(stream)),
              "getmem_on_stream");
      },
      nb::arg("dest"), nb::arg("source"), nb::arg("bytes"), nb::arg("pe"), nb::arg("stream"));
  m.def(
      "putmem_signal_on_stream",
      [](uintptr_t dest, uintptr_t source, size_t bytes, uintptr_t sig, uint64_t signal, int sigOp, int pe,
         uintptr_t stream) {
        requireInit("putmem_signal_on_stream");
        check(mori_shmem_putmem_signal_on_stream(toPointer(dest), toPointer(source), bytes,
                                                 static_cast<uint64_t*>(toPointer(sig)), signal, sigOp, pe,
                                                 toStream(stream)),
              "putmem_signal_on_stream");
      },
      nb::arg("dest"), nb::arg("source"), nb::arg("bytes"), nb::arg("sig_addr"), nb::arg("signal"), nb::arg("sig_op"),
      nb::arg("pe"), nb::arg("stream"));
  m.def(
      "signal_wait_until_on_stream",
      [](uintptr_t sig, int cmp, uint64_t value, uintptr_t stream) {
        requireInit("signal_wait_until_on_stream");
        check(mori_shmem_signal_wait_until_on_stream(static_cast<uint64_t*>(toPointer(sig)), cmp, value,
                                                     toStream(stream)),
              "signal_wait_until_on_stream");
      },
      nb::arg("sig_addr"), nb::arg("cmp"), nb::arg("cmp_value"), nb::arg("stream"));
  // ---- team collectives, stream-ordered (mori/shmem_team.h)
  using TeamOnStream = int (*)(mori_shmem_team_t, mori_shmem_stream_t);
  const std::pair<const char*, TeamOnStream> teamSyncs[] = {{"barrier_on_stream", mori_shmem_barrier_on_stream},
                                                            {"team_sync_on_stream", mori_shmem_team_sync_on_stream}};
  for (const auto& call : teamSyncs)
    m.def(
        call.first,
        [name = call.first, fn = call.second](int team, uintptr_t stream) {
          requireInit(name);
          check(fn(team, toStream(stream)), name);
        },
        nb::arg("team"), nb::arg("stream"));
  m.def(
      "_collective_on_stream",
      [](const std::string& call, int kind, int team, uintptr_t dest, uintptr_t source, size_t nelems, size_t elemBytes,
         int root, int dtype, int op, uintptr_t stream) {
        requireInit(call.c_str());
        check(mori_shmemi_collective(kind, team, toPointer(dest), toPointer(source), nelems, elemBytes, root, dtype, op,
                                     toStream(stream), 0),
              call.c_str());
      },
      nb::arg("call"), nb::arg("kind"), nb::arg("team"), nb::arg("dest"), nb::arg("source"), nb::arg("nelems"),
      nb::arg("elem_bytes"), nb::arg("root"), nb::arg("dtype"), nb::arg("op"), nb::arg("stream"),
      "mori_shmemi_collective on a stream (the torch layer's broadcast, fcollect, alltoall, reduce, reducescatter).");
  m.def(
      "device_error",
      []() -> nb::object {
        char buf[1024];
        if (!mori_shmem_device_error(buf, sizeof(buf))) return nb::none();
        return nb::str(buf);
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
      "device_synchronize",
      []() {
        hipError_t e;
        {
          nb::gil_scoped_release release;
          e = hipDeviceSynchronize();
        }
        if (e != hipSuccess)
          throw Error(std::string("mori_shmem.device_synchronize: ") + hipGetErrorName(e) + ": " +
                      hipGetErrorString(e));
      },
      "Waits for all work on this thread's current GPU (what free_tensor() does before the collective free).");
  m.def(
      "pointer_device",
      [](uintptr_t addr) {
        hipPointerAttribute_t attr;
        const hipError_t e = hipPointerGetAttributes(&attr, toPointer(addr));
        if (e != hipSuccess)
          throw Error(std::string("mori_shmem.pointer_device: ") + hipGetErrorName(e) + ": " + hipGetErrorString(e));
        return attr.device;
      },
      nb::arg("addr"), "The GPU that device address addr belongs to.");
  m.def("_wrap", &wrap, nb::arg("addr"), nb::arg("shape"), nb::arg("code"), nb::arg("bits"), nb::arg("device_type"),
        nb::arg("device_id"), nb::arg("owner").none(), nb::arg("framework"),
        "A DLPack tensor over existing memory (no copy; owner is kept alive by it); mori_shmem.as_tensor() and "
        "empty() are the public forms.");
}
