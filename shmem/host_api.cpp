// The host C API (mori/shmem.h): argument checks and status conversion around the Runtime.
#include <stdio.h>
#include <string.h>

#include "application/context/gpu_sharing.hpp"
#include "mori/shmem.h"
#include "shmem/c_api.hpp"
#include "shmem/runtime.hpp"

using mori::Status;
using mori::shmem::code;
using mori::shmem::Runtime;
namespace log = mori::log;

// ---- initialisation ------------------------------------------------------------------------

MORI_API int mori_shmem_init(void) { return code(Runtime::initialize(0, nullptr)); }

MORI_API int mori_shmem_get_uniqueid(mori_shmem_uniqueid_t* uid) {
  if (!uid) return code(MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "mori_shmem_get_uniqueid: uid is NULL"));
  mori::env::Config cfg;
  Status s = mori::env::load(&cfg);
  if (!mori::ok(s)) return code(s);
  return code(mori::bootstrap::generateUniqueId(cfg, uid));
}

MORI_API int mori_shmem_set_attr_uniqueid_args(int rank, int nranks, const mori_shmem_uniqueid_t* uid,
                                               mori_shmem_init_attr_t* attr) {
  if (!uid || !attr || nranks < 1 || rank < 0 || rank >= nranks)
    return code(MORI_FAIL(Status::InvalidUsage, log::kBootstrap,
                          "mori_shmem_set_attr_uniqueid_args(rank %d, nranks %d, uid %p, attr %p): invalid argument",
                          rank, nranks, static_cast<const void*>(uid), static_cast<void*>(attr)));
  attr->rank = rank;
  attr->nranks = nranks;
  attr->uid = *uid;
  return MORI_SHMEM_SUCCESS;
}

MORI_API int mori_shmem_set_attr_mpi_comm(void* mpi_comm, mori_shmem_init_attr_t* attr) {
  if (!mpi_comm || !attr)
    return code(MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "mori_shmem_set_attr_mpi_comm: NULL argument"));
  attr->mpi_comm = mpi_comm;
  return MORI_SHMEM_SUCCESS;
}

MORI_API int mori_shmem_init_attr(unsigned int flags, mori_shmem_init_attr_t* attr) {
  const unsigned kinds =
      flags & (MORI_SHMEM_INIT_WITH_MPI_COMM | MORI_SHMEM_INIT_WITH_UNIQUEID | MORI_SHMEM_INIT_WITH_ENV);
  if (flags != kinds || (kinds & (kinds - 1)) != 0)
    return code(MORI_FAIL(Status::InvalidUsage, log::kInit,
                          "mori_shmem_init_attr: flags 0x%x must be exactly one of MORI_SHMEM_INIT_WITH_MPI_COMM, "
                          "_WITH_UNIQUEID, _WITH_ENV",
                          flags));
  if (kinds != MORI_SHMEM_INIT_WITH_ENV) {
    if (!attr || attr->size != sizeof(mori_shmem_init_attr_t) || attr->magic != MORI_SHMEM_INIT_ATTR_MAGIC ||
        attr->version != MORI_SHMEM_INIT_ATTR_VERSION)
      return code(
          MORI_FAIL(Status::InvalidUsage, log::kInit,
                    "mori_shmem_init_attr: attr is NULL or was not set up with MORI_SHMEM_INIT_ATTR_INITIALIZER "
                    "for this version of mori/shmem.h"));
    if (kinds == MORI_SHMEM_INIT_WITH_MPI_COMM && !attr->mpi_comm)
      return code(MORI_FAIL(Status::InvalidUsage, log::kInit, "mori_shmem_init_attr: no MPI communicator in attr"));
    if (kinds == MORI_SHMEM_INIT_WITH_UNIQUEID && (attr->nranks < 1 || attr->rank < 0 || attr->rank >= attr->nranks))
      return code(MORI_FAIL(Status::InvalidUsage, log::kInit, "mori_shmem_init_attr: rank %d / nranks %d are invalid",
                            attr->rank, attr->nranks));
  }
  return code(Runtime::initialize(kinds, attr));
}

MORI_API int mori_shmem_initialized(void) { return Runtime::current() ? 1 : 0; }

MORI_API int mori_shmem_finalize(void) { return code(Runtime::finalize()); }

MORI_API void mori_shmemi_global_exit(int status) { Runtime::globalExit(status); }
MORI_API void mori_shmem_global_exit(int status) { Runtime::globalExit(status); }

// ---- PEs and teams -------------------------------------------------------------------------

MORI_API int mori_shmemi_my_pe(void) {
  Runtime* r = Runtime::get("mori_shmem_my_pe");
  return r ? r->ctx().myPe() : -1;
}
MORI_API int mori_shmemi_n_pes(void) {
  Runtime* r = Runtime::get("mori_shmem_n_pes");
  return r ? r->ctx().nPes() : -1;
}
MORI_API int mori_shmem_my_pe(void) { return mori_shmemi_my_pe(); }
MORI_API int mori_shmem_n_pes(void) { return mori_shmemi_n_pes(); }

// Teams: shmem/team_api.cpp.

// ---- symmetric memory ----------------------------------------------------------------------

namespace {
void* allocate(const char* call, size_t size, size_t align, bool zero) {
  Runtime* r = Runtime::get(call);
  if (!r) return nullptr;
  void* p = nullptr;
  return mori::ok(r->mem().allocate(size, align, zero, &p)) ? p : nullptr;
}
}  // namespace

MORI_API void* mori_shmem_malloc(size_t size) { return allocate("mori_shmem_malloc", size, 256, false); }

MORI_API void* mori_shmem_calloc(size_t count, size_t size) {
  if (size && count > ~size_t{0} / size) {
    MORI_LOG_ERROR(log::kMem, "mori_shmem_calloc(%zu, %zu): size overflows", count, size);
    return nullptr;
  }
  return allocate("mori_shmem_calloc", count * size, 256, true);
}

MORI_API void* mori_shmem_align(size_t alignment, size_t size) {
  return allocate("mori_shmem_align", size, alignment, false);
}

MORI_API void mori_shmem_free(void* ptr) {
  if (Runtime* r = Runtime::get("mori_shmem_free")) (void)r->mem().release(ptr);
}

MORI_API void* mori_shmemi_ptr(const void* dest, int pe) {
  Runtime* r = Runtime::get("mori_shmem_ptr");
  return r ? r->mem().peerPointer(dest, pe) : nullptr;
}
MORI_API void* mori_shmem_ptr(const void* dest, int pe) { return mori_shmemi_ptr(dest, pe); }

MORI_API int mori_shmem_register(void* ptr, size_t size) {
  Runtime* r = Runtime::get("mori_shmem_register");
  return r ? code(r->mem().registerRegion(ptr, size)) : MORI_SHMEM_ERROR_INVALID_USAGE;
}

MORI_API int mori_shmem_deregister(void* ptr) {
  Runtime* r = Runtime::get("mori_shmem_deregister");
  return r ? code(r->mem().deregisterRegion(ptr)) : MORI_SHMEM_ERROR_INVALID_USAGE;
}

// ---- synchronisation -----------------------------------------------------------------------

MORI_API int mori_shmem_barrier_all(void) {
  Runtime* r = Runtime::get("mori_shmem_barrier_all");
  if (!r) return MORI_SHMEM_ERROR_INVALID_USAGE;
  Status s = r->quietAll();
  return code(mori::ok(s) ? r->boot().barrier() : s);
}

MORI_API int mori_shmem_barrier_all_on_stream(mori_shmem_stream_t stream) {
  Runtime* r = Runtime::get("mori_shmem_barrier_all_on_stream");
  return r ? code(r->barrierOnStream(reinterpret_cast<hipStream_t>(stream))) : MORI_SHMEM_ERROR_INVALID_USAGE;
}

MORI_API int mori_shmem_quiet_on_stream(mori_shmem_stream_t stream) {
  Runtime* r = Runtime::get("mori_shmem_quiet_on_stream");
  return r ? code(r->quietOnStream(reinterpret_cast<hipStream_t>(stream))) : MORI_SHMEM_ERROR_INVALID_USAGE;
}

// ---- diagnostics ---------------------------------------------------------------------------

MORI_API int mori_shmem_device_error(char* buf, size_t len) {
  mori::shmem::DeviceErrorRecord* rec = mori::shmem::deviceErrorRecord(nullptr);
  if (!rec || rec->code == 0) return 0;
  if (buf && len) mori::shmem::formatDeviceError(*rec, buf, len);
  return 1;
}

MORI_API int mori_shmem_gpu_sharing_concurrent(int device, int processes, char* how, size_t len) {
  if (processes < 1 || device < 0)
    return code(MORI_FAIL(Status::InvalidUsage, log::kInit,
                          "mori_shmem_gpu_sharing_concurrent: device %d, processes %d (need >= 0 and >= 1)", device,
                          processes));
  const mori::context::GpuSharing s = mori::context::gpuSharing(device, processes);
  if (how && len) snprintf(how, len, "%s", s.how.c_str());
  return s.concurrent ? 1 : 0;
}
