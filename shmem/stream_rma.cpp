// The RMA host code issues (mori/shmem.h): stream-ordered (mori_shmem_*_on_stream) and
// host-initiated (mori_shmem_host_*: the same operations on the runtime's own stream, waited for
// by the blocking forms and by mori_shmem_host_quiet). Host-side checks, then a copy-engine copy
// on the peer mapping for P2P peers or a device-API kernel for the others; single elements,
// atomics, signals and strided RMA are device-API kernels on every transport.
// The copy engine moved 391-396 GB/s between two H200s against 370 GB/s for SM stores, and it
// leaves the SMs to the caller's kernels.
#include <stdint.h>
#include <string.h>

#include <mutex>
#include <optional>

#include "mori/shmem.h"
#include "shmem/c_api.hpp"
#include "shmem/runtime.hpp"
#include "shmem/stream_rma_kernels.hpp"

using mori::Status;
using mori::shmem::code;
using mori::shmem::Runtime;
namespace log = mori::log;

namespace {

hipStream_t toStream(mori_shmem_stream_t s) { return reinterpret_cast<hipStream_t>(s); }

const char* kindName(mori::shmem::Transport t) {
  switch (t) {
    case mori::shmem::Transport::P2P: return "P2P";
    case mori::shmem::Transport::Rdma: return "RDMA";
    case mori::shmem::Transport::Sdma: return "SDMA";
    default: return "none";
  }
}

// The symmetric range [p, p + bytes) as `pe`'s copy seen from here: checks that it lies in one
// symmetric region of this PE (the heap or one registered buffer). *peer is pe's copy when pe is reached by load/store
// (P2P), else null (the device path serves it).
Status resolve(Runtime& r, const char* call, const char* what, const void* p, size_t bytes, int pe, void** peer) {
  const int me = r.ctx().myPe();
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const bool inside = p && a + bytes > a && r.mem().peerPointer(p, me) == p &&
                      r.mem().peerPointer(reinterpret_cast<const void*>(a + bytes - 1), me) ==
                          reinterpret_cast<const void*>(a + bytes - 1);
  if (!inside)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%s on PE %d: %s %p (%zu bytes) is not inside one symmetric region (the heap of "
                     "mori_shmem_malloc, or a buffer of mori_shmem_register)",
                     call, me, what, p, bytes);
  *peer = r.mem().peerPointer(p, pe);
  if (*peer) {
    const void* peerLast = r.mem().peerPointer(reinterpret_cast<const void*>(a + bytes - 1), pe);
    if (peerLast != static_cast<const uint8_t*>(*peer) + bytes - 1)
      return MORI_FAIL(Status::Internal, log::kMem, "%s on PE %d: %s %p (%zu bytes) maps discontiguously on PE %d",
                       call, me, what, p, bytes, pe);
  } else if (r.ctx().transport(pe) == mori::shmem::Transport::P2P) {
    return MORI_FAIL(Status::Internal, log::kMem, "%s on PE %d: PE %d is a P2P peer without a mapping of %s %p", call,
                     me, pe, what, p);
  }
  return Status::Success;
}

// Common checks: initialised, PE in range, both addresses given (a and b, named aName and bName).
Runtime* begin(const char* call, int pe, const void* a, const void* b, Status* s, const char* aName = "dest",
               const char* bName = "source") {
  Runtime* r = Runtime::get(call);
  if (!r) {
    *s = Status::InvalidUsage;
    return nullptr;
  }
  const int n = r->ctx().nPes();
  if (pe < 0 || pe >= n) {
    *s = MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: pe %d is out of range [0, %d)", call, r->ctx().myPe(),
                   pe, n);
    return nullptr;
  }
  if (!a || !b) {
    *s = MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: NULL address (%s %p, %s %p)", call, r->ctx().myPe(),
                   aName, a, bName, b);
    return nullptr;
  }
  *s = Status::Success;
  return r;
}

// A signal word and operation: sig_op valid, sig_addr aligned and symmetric; *peer as resolve's.
Status checkSignal(Runtime& r, const char* call, uint64_t* sigAddr, int sigOp, int pe, void** peer) {
  const int me = r.ctx().myPe();
  if (sigOp < 0 || sigOp >= mori::shmem::kSignalOpCount)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%s on PE %d: sig_op %d is neither MORI_SHMEM_SIGNAL_SET (0) nor _ADD (1)", call, me, sigOp);
  if (reinterpret_cast<uintptr_t>(sigAddr) % alignof(uint64_t) != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: sig_addr %p is not 8-byte aligned", call, me,
                     static_cast<void*>(sigAddr));
  return resolve(r, call, "sig_addr", sigAddr, sizeof(uint64_t), pe, peer);
}

Status putOnStream(const char* call, void* dest, const void* source, size_t bytes, uint64_t* sigAddr, uint64_t signal,
                   int sigOp, int pe, hipStream_t stream) {
  Status s;
  Runtime* r = begin(call, pe, dest, source, &s);
  if (!r) return s;
  const int me = r->ctx().myPe();
  void* sigPeer = nullptr;
  if (sigAddr) MORI_TRY(checkSignal(*r, call, sigAddr, sigOp, pe, &sigPeer));
  if (bytes == 0 && !sigAddr) return Status::Success;
  void* peer = nullptr;
  if (bytes) MORI_TRY(resolve(*r, call, "dest", dest, bytes, pe, &peer));
  const bool p2p = bytes ? peer != nullptr : sigPeer != nullptr;
  if (p2p) {
    if (bytes) MORI_TRY(r->checkGpu(hipMemcpyAsync(peer, source, bytes, hipMemcpyDeviceToDevice, stream), call));
    if (sigAddr) MORI_TRY(r->launch(call, mori::shmem::launchSignalKernel, sigAddr, signal, sigOp, pe, stream));
    return Status::Success;
  }
  // The device path reads the source through the NIC: it must be registered (symmetric) too.
  void* unused = nullptr;
  if (bytes) MORI_TRY(resolve(*r, call, "source (local side of an RDMA put)", source, bytes, me, &unused));
  MORI_LOG_DEBUG(log::kMem, "%s on PE %d: %zu bytes to PE %d through the device path (%s)", call, me, bytes, pe,
                 kindName(r->ctx().transport(pe)));
  if (sigAddr)
    return r->launch(call, mori::shmem::launchPutSignalKernel, dest, source, bytes, sigAddr, signal, sigOp, pe, stream);
  return r->launch(call, mori::shmem::launchPutKernel, dest, source, bytes, pe, stream);
}

Status getOnStream(const char* call, void* dest, const void* source, size_t bytes, int pe, hipStream_t stream) {
  Status s;
  Runtime* r = begin(call, pe, dest, source, &s);
  if (!r) return s;
  if (bytes == 0) return Status::Success;
  void* peer = nullptr;
  MORI_TRY(resolve(*r, call, "source", source, bytes, pe, &peer));
  if (peer) return r->checkGpu(hipMemcpyAsync(dest, peer, bytes, hipMemcpyDeviceToDevice, stream), call);
  void* unused = nullptr;
  MORI_TRY(resolve(*r, call, "dest (local side of an RDMA get)", dest, bytes, r->ctx().myPe(), &unused));
  return r->launch(call, mori::shmem::launchGetKernel, dest, source, bytes, pe, stream);
}

}  // namespace

MORI_API int mori_shmem_putmem_on_stream(void* dest, const void* source, size_t bytes, int pe,
                                         mori_shmem_stream_t stream) {
  return code(putOnStream("mori_shmem_putmem_on_stream", dest, source, bytes, nullptr, 0, 0, pe, toStream(stream)));
}

MORI_API int mori_shmem_putmem_signal_on_stream(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                                uint64_t signal, int sig_op, int pe, mori_shmem_stream_t stream) {
  const char* call = "mori_shmem_putmem_signal_on_stream";
  if (!sig_addr) {
    Runtime* r = Runtime::get(call);
    return r ? code(MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: sig_addr is NULL", call, r->ctx().myPe()))
             : MORI_SHMEM_ERROR_INVALID_USAGE;
  }
  return code(putOnStream(call, dest, source, bytes, sig_addr, signal, sig_op, pe, toStream(stream)));
}

MORI_API int mori_shmem_getmem_on_stream(void* dest, const void* source, size_t bytes, int pe,
                                         mori_shmem_stream_t stream) {
  return code(getOnStream("mori_shmem_getmem_on_stream", dest, source, bytes, pe, toStream(stream)));
}

// ---- host-initiated ------------------------------------------------------------------------

namespace {

// A put (get) on the runtime's stream; `wait`: then waits for that stream, so the source may be
// reused (the dest holds the data).
Status hostRma(const char* call, bool put, void* dest, const void* source, size_t bytes, int pe, bool wait) {
  Runtime* r = Runtime::get(call);
  if (!r) return Status::InvalidUsage;
  MORI_TRY(r->checkPeers(call));
  const hipStream_t st = r->hostStream();
  MORI_TRY(put ? putOnStream(call, dest, source, bytes, nullptr, 0, 0, pe, st)
               : getOnStream(call, dest, source, bytes, pe, st));
  return wait ? r->checkGpu(hipStreamSynchronize(st), call) : Status::Success;
}

}  // namespace

MORI_API int mori_shmem_host_putmem(void* dest, const void* source, size_t bytes, int pe) {
  return code(hostRma("mori_shmem_host_putmem", true, dest, source, bytes, pe, true));
}

MORI_API int mori_shmem_host_putmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  return code(hostRma("mori_shmem_host_putmem_nbi", true, dest, source, bytes, pe, false));
}

MORI_API int mori_shmem_host_getmem(void* dest, const void* source, size_t bytes, int pe) {
  return code(hostRma("mori_shmem_host_getmem", false, dest, source, bytes, pe, true));
}

MORI_API int mori_shmem_host_getmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  return code(hostRma("mori_shmem_host_getmem_nbi", false, dest, source, bytes, pe, false));
}

MORI_API int mori_shmem_host_quiet(void) {
  const char* call = "mori_shmem_host_quiet";
  Runtime* r = Runtime::get(call);
  if (!r) return MORI_SHMEM_ERROR_INVALID_USAGE;
  Status s = r->quietOnStream(r->hostStream());
  return code(mori::ok(s) ? r->checkGpu(hipStreamSynchronize(r->hostStream()), call) : s);
}

MORI_API int mori_shmem_host_fence(void) { return mori_shmem_host_quiet(); }

namespace {

uint64_t loadElement(const void* p, size_t size) {
  uint64_t v = 0;
  memcpy(&v, p, size);  // the low bytes on the little-endian hosts GPUs attach to
  return v;
}

// One element from host code (mori_shmem_host_p / _g / _atomic, mori_shmem_p / _g_on_stream):
// checks, a one-thread kernel on `stream` (none: the runtime's own); `out` (host memory): the
// fetched element, read back under the result lock once the stream has run it.
Status element(const char* call, int kind, void* dest, const void* value, const void* cond, void* out, size_t size,
               int pe, std::optional<hipStream_t> stream) {
  Status s;
  const bool g = kind == mori::shmem::kElementG;  // begin() names the local side "dest" for a g
  Runtime* r = begin(call, pe, g ? out : dest, g ? dest : value, &s, "dest", g ? "source" : "value");
  if (!r) return s;
  const int me = r->ctx().myPe();
  const bool atomic = kind >= 0;
  if (atomic ? size != 4 && size != 8 : size != 1 && size != 2 && size != 4 && size != 8)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: element size %zu is not %s", call, me, size,
                     atomic ? "4 or 8" : "1, 2, 4 or 8");
  const bool needsOld =
      kind == MORI_SHMEM_AMO_FETCH || kind == MORI_SHMEM_AMO_SWAP || kind == MORI_SHMEM_AMO_COMPARE_SWAP;
  if (atomic && needsOld && !out)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: op %d returns the old value: fetched is NULL", call,
                     me, kind);
  if (kind == MORI_SHMEM_AMO_COMPARE_SWAP && !cond)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: COMPARE_SWAP without cond", call, me);
  if (reinterpret_cast<uintptr_t>(dest) % size != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: dest %p is not aligned to its %zu-byte element",
                     call, me, dest, size);
  void* unused = nullptr;
  MORI_TRY(resolve(*r, call, "dest", dest, size, pe, &unused));
  MORI_TRY(r->checkPeers(call));
  const hipStream_t st = stream ? *stream : r->hostStream();
  const uint64_t v = kind == mori::shmem::kElementG || kind == MORI_SHMEM_AMO_FETCH ? 0 : loadElement(value, size);
  const uint64_t c = kind == MORI_SHMEM_AMO_COMPARE_SWAP ? loadElement(cond, size) : 0;
  const bool fetch = kind == mori::shmem::kElementG || (atomic && out);
  if (!fetch) return r->launch(call, mori::shmem::launchElementKernel, kind, dest, v, c, size, pe, false, nullptr, st);
  hipStreamCaptureStatus capture = hipStreamCaptureStatusNone;
  MORI_TRY(r->checkGpu(hipStreamIsCapturing(st, &capture), call));
  if (capture != hipStreamCaptureStatusNone)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%s on PE %d: returns a value, so it waits for its stream, which is being captured", call, me);
  std::lock_guard<std::mutex> lock(r->hostResultLock());
  MORI_TRY(r->launch(call, mori::shmem::launchElementKernel, kind, dest, v, c, size, pe, true, r->hostResult(), st));
  MORI_TRY(r->checkGpu(hipMemcpyAsync(out, r->hostResult(), size, hipMemcpyDeviceToHost, st), call));
  return r->checkGpu(hipStreamSynchronize(st), call);
}

}  // namespace

MORI_API int mori_shmem_host_p(void* dest, const void* value, size_t size, int pe) {
  return code(
      element("mori_shmem_host_p", mori::shmem::kElementP, dest, value, nullptr, nullptr, size, pe, std::nullopt));
}

MORI_API int mori_shmem_host_g(void* value, const void* source, size_t size, int pe) {
  return code(element("mori_shmem_host_g", mori::shmem::kElementG, const_cast<void*>(source), nullptr, nullptr, value,
                      size, pe, std::nullopt));
}

MORI_API int mori_shmem_host_atomic(int op, void* dest, const void* value, const void* cond, void* fetched, size_t size,
                                    int pe) {
  const char* call = "mori_shmem_host_atomic";
  if (op < 0 || op >= mori::shmem::kAmoCount) {
    Runtime* r = Runtime::get(call);
    return r ? code(MORI_FAIL(Status::InvalidUsage, log::kMem,
                              "%s on PE %d: op %d is not one of MORI_SHMEM_AMO_FETCH (0) .. _XOR (7)", call,
                              r->ctx().myPe(), op))
             : MORI_SHMEM_ERROR_INVALID_USAGE;
  }
  const void* v = op == MORI_SHMEM_AMO_FETCH ? dest : value;  // FETCH takes no value
  return code(element(call, op, dest, v, cond, fetched, size, pe, std::nullopt));
}

MORI_API int mori_shmem_p_on_stream(void* dest, const void* value, size_t size, int pe, mori_shmem_stream_t stream) {
  return code(element("mori_shmem_p_on_stream", mori::shmem::kElementP, dest, value, nullptr, nullptr, size, pe,
                      toStream(stream)));
}

MORI_API int mori_shmem_g_on_stream(void* value, const void* source, size_t size, int pe, mori_shmem_stream_t stream) {
  return code(element("mori_shmem_g_on_stream", mori::shmem::kElementG, const_cast<void*>(source), nullptr, nullptr,
                      value, size, pe, toStream(stream)));
}

namespace {

// A signal on `stream` (none: the runtime's own), after the stream's earlier puts (the kernel fences).
Status signalOnStream(const char* call, uint64_t* sigAddr, uint64_t signal, int sigOp, int pe,
                      std::optional<hipStream_t> stream) {
  Status s;
  Runtime* r = begin(call, pe, sigAddr, sigAddr, &s, "sig_addr", "sig_addr");
  if (!r) return s;
  void* peer = nullptr;
  MORI_TRY(checkSignal(*r, call, sigAddr, sigOp, pe, &peer));
  MORI_TRY(r->checkPeers(call));
  return r->launch(call, mori::shmem::launchSignalKernel, sigAddr, signal, sigOp, pe,
                   stream ? *stream : r->hostStream());
}

// The bytes that elements 0 .. n-1 (n > 0) of `size` bytes, `stride` elements apart from p, span:
// [*lo, *lo + *span). False when that range does not fit in the address space.
bool stridedSpan(const void* p, ptrdiff_t stride, size_t n, size_t size, uintptr_t* lo, size_t* span) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const size_t step = stride < 0 ? size_t{0} - static_cast<size_t>(stride) : static_cast<size_t>(stride);
  size_t reach = 0;
  if (__builtin_mul_overflow(n - 1, step, &reach) || __builtin_mul_overflow(reach, size, &reach)) return false;
  if (stride < 0 && reach > a) return false;
  *lo = stride < 0 ? a - reach : a;
  return !__builtin_add_overflow(reach, size, span) && *lo + *span - 1 >= *lo;
}

// The local side of a strided kernel's accesses: symmetric, or memory the GPU reaches (device,
// managed, registered host memory), checked at both ends of [lo, lo + span).
Status checkLocal(Runtime& r, const char* call, const char* what, uintptr_t lo, size_t span) {
  const int me = r.ctx().myPe();
  for (const uintptr_t a : {lo, lo + span - 1}) {
    const void* p = reinterpret_cast<const void*>(a);
    if (r.mem().peerPointer(p, me) == p) continue;
    hipPointerAttribute_t attr{};
    const hipError_t e = hipPointerGetAttributes(&attr, p);
    if (e != hipSuccess) (void)hipGetLastError();  // unregistered host memory (HIP): not an error of ours
    if (e != hipSuccess || attr.devicePointer == nullptr)
      return MORI_FAIL(Status::InvalidUsage, log::kMem,
                       "%s on PE %d: %s's byte %p (of %zu bytes at %p) is not memory the GPU reaches (device, managed "
                       "or registered host memory)",
                       call, me, what, p, span, reinterpret_cast<const void*>(lo));
  }
  return Status::Success;
}

// Strided put (get) of `n` elements on `stream` (none: the runtime's own, waited for).
Status stridedRma(const char* call, bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                  size_t size, int pe, std::optional<hipStream_t> stream) {
  Status s;
  Runtime* r = begin(call, pe, dest, source, &s);
  if (!r) return s;
  const int me = r->ctx().myPe();
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: element size %zu is not 1, 2, 4, 8 or 16", call, me,
                     size);
  const size_t align = size < 8 ? size : 8;  // 16-byte elements move as two 8-byte words
  if (reinterpret_cast<uintptr_t>(dest) % align != 0 || reinterpret_cast<uintptr_t>(source) % align != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%s on PE %d: dest %p and source %p must be aligned to %zu bytes (%zu-byte elements)", call, me,
                     dest, source, align, size);
  if (n == 0) return Status::Success;
  uintptr_t dLo = 0, sLo = 0;
  size_t dSpan = 0, sSpan = 0;
  if (!stridedSpan(dest, dst, n, size, &dLo, &dSpan) || !stridedSpan(source, sst, n, size, &sLo, &sSpan))
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%s on PE %d: %zu elements at strides %td (dest %p) and %td (source %p) overrun the address space",
                     call, me, n, dst, dest, sst, source);
  const char* remote = put ? "dest" : "source";
  void* unused = nullptr;
  MORI_TRY(resolve(*r, call, remote, reinterpret_cast<const void*>(put ? dLo : sLo), put ? dSpan : sSpan, pe, &unused));
  MORI_TRY(put ? checkLocal(*r, call, "source", sLo, sSpan) : checkLocal(*r, call, "dest", dLo, dSpan));
  MORI_TRY(r->checkPeers(call));
  const hipStream_t st = stream ? *stream : r->hostStream();
  MORI_TRY(r->launch(call, mori::shmem::launchStridedKernel, put, dest, source, dst, sst, n, size, pe, st));
  return stream ? Status::Success : r->checkGpu(hipStreamSynchronize(st), call);
}

// The stream waits until ivars[0 .. nelems) (what: the caller's name for them) satisfy cmp
// (mori_shmem_wait_until_on_stream's contract).
Status waitOnStream(const char* call, const char* what, void* ivars, size_t nelems, int dtype, const int* status,
                    int cmp, const void* value, const void* values, hipStream_t stream) {
  Runtime* r = Runtime::get(call);
  if (!r) return Status::InvalidUsage;
  const int me = r->ctx().myPe();
  size_t size = 0;
  bool isSigned = false;
  switch (dtype) {
    case MORI_SHMEM_DTYPE_INT16: isSigned = true; [[fallthrough]];
    case MORI_SHMEM_DTYPE_UINT16: size = 2; break;
    case MORI_SHMEM_DTYPE_INT32: isSigned = true; [[fallthrough]];
    case MORI_SHMEM_DTYPE_UINT32: size = 4; break;
    case MORI_SHMEM_DTYPE_INT64: isSigned = true; [[fallthrough]];
    case MORI_SHMEM_DTYPE_UINT64: size = 8; break;
    default:
      return MORI_FAIL(Status::InvalidUsage, log::kMem,
                       "%s on PE %d: dtype %d is not an integer type of 2, 4 or 8 bytes (MORI_SHMEM_DTYPE_INT16 .. "
                       "_INT64, _UINT16 .. _UINT64)",
                       call, me, dtype);
  }
  if (cmp < 0 || cmp >= mori::shmem::kCmpCount)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%s on PE %d: cmp %d is not one of MORI_SHMEM_CMP_EQ (0) .. _LE (5)", call, me, cmp);
  if (!value == !values)
    return MORI_FAIL(Status::InvalidUsage, log::kMem,
                     "%s on PE %d: give exactly one of cmp_value (%p) and cmp_values (%p)", call, me, value, values);
  if (nelems == 0) return Status::Success;
  if (reinterpret_cast<uintptr_t>(ivars) % size != 0)
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: %s %p is not %zu-byte aligned", call, me, what,
                     ivars, size);
  size_t bytes = 0;
  if (__builtin_mul_overflow(nelems, size, &bytes))
    return MORI_FAIL(Status::InvalidUsage, log::kMem, "%s on PE %d: %zu elements of %zu bytes overflow", call, me,
                     nelems, size);
  void* unused = nullptr;
  MORI_TRY(resolve(*r, call, what, ivars, bytes, me, &unused));
  if (status) MORI_TRY(checkLocal(*r, call, "status", reinterpret_cast<uintptr_t>(status), nelems * sizeof(int)));
  if (values) MORI_TRY(checkLocal(*r, call, "cmp_values", reinterpret_cast<uintptr_t>(values), bytes));
  uint64_t v = 0;
  if (value) memcpy(&v, value, size);  // little-endian: the element's bytes are v's low ones
  return r->launch(call, mori::shmem::launchWaitKernel, ivars, nelems, size, isSigned, status, cmp, v, values, stream);
}

}  // namespace

MORI_API int mori_shmem_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                            mori_shmem_stream_t stream) {
  return code(signalOnStream("mori_shmem_signal_op_on_stream", sig_addr, signal, sig_op, pe, toStream(stream)));
}

MORI_API int mori_shmem_host_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  return code(signalOnStream("mori_shmem_host_signal_op", sig_addr, signal, sig_op, pe, std::nullopt));
}

MORI_API int mori_shmem_iput_on_stream(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                       size_t elem_size, int pe, mori_shmem_stream_t stream) {
  return code(
      stridedRma("mori_shmem_iput_on_stream", true, dest, source, dst, sst, nelems, elem_size, pe, toStream(stream)));
}

MORI_API int mori_shmem_iget_on_stream(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                       size_t elem_size, int pe, mori_shmem_stream_t stream) {
  return code(
      stridedRma("mori_shmem_iget_on_stream", false, dest, source, dst, sst, nelems, elem_size, pe, toStream(stream)));
}

MORI_API int mori_shmem_host_iput(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                  size_t elem_size, int pe) {
  return code(stridedRma("mori_shmem_host_iput", true, dest, source, dst, sst, nelems, elem_size, pe, std::nullopt));
}

MORI_API int mori_shmem_host_iget(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                  size_t elem_size, int pe) {
  return code(stridedRma("mori_shmem_host_iget", false, dest, source, dst, sst, nelems, elem_size, pe, std::nullopt));
}

MORI_API int mori_shmem_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value,
                                                    mori_shmem_stream_t stream) {
  return code(waitOnStream("mori_shmem_signal_wait_until_on_stream", "sig_addr", sig_addr, 1, MORI_SHMEM_DTYPE_UINT64,
                           nullptr, cmp, &cmp_value, nullptr, toStream(stream)));
}

MORI_API int mori_shmem_wait_until_on_stream(void* ivars, size_t nelems, int dtype, const int* status, int cmp,
                                             const void* cmp_value, const void* cmp_values,
                                             mori_shmem_stream_t stream) {
  return code(waitOnStream("mori_shmem_wait_until_on_stream", "ivars", ivars, nelems, dtype, status, cmp, cmp_value,
                           cmp_values, toStream(stream)));
}
