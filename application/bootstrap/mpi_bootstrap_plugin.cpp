// libmori_shmem_bootstrap_mpi.so: the MPI bootstrap behind the C ops table of
// mpi_bootstrap_plugin.h. Only this library links MPI.
//
// Every wait is a Test loop against a deadline, so nothing blocks forever. Each collective first
// checks arrival through rank 0 with point-to-point messages: every rank sends rank 0 a call
// header, rank 0 answers each with a verdict. Rank 0 therefore knows which ranks have not
// arrived (and whether all called the same collective) and tells the others; a timed-out
// MPI_Ibarrier could name nobody. Once all have arrived, the data moves with MPI's own
// non-blocking collectives.
#include "application/bootstrap/mpi_bootstrap_plugin.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "application/bootstrap/deadline.hpp"
#include "mori/shmem.h"

#define MORI_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

using mori::bootstrap::Deadline;

namespace {

constexpr int kLogError = 1, kLogInfo = 3, kLogDebug = 4;
constexpr int kTagCall = 0x6d73, kTagVerdict = 0x6d74, kTagData = 0x6d75;
constexpr size_t kDefaultMaxMessage = size_t(1) << 30;

enum class Op : uint16_t { AllGather = 1, AllToAll = 2, Barrier = 3, Broadcast = 4 };

struct Call {
  uint32_t magic;
  uint16_t op;
  uint16_t reserved;
  uint64_t seq;
  uint64_t bytes;
  int32_t root;
  uint32_t reserved2;
};
static_assert(sizeof(Call) == 32, "call header layout");
constexpr uint32_t kCallMagic = 0x3143706du;  // "mpC1"

struct Verdict {
  int32_t status;
  int32_t pe;
  char text[504];
};
static_assert(sizeof(Verdict) == 512, "verdict layout");

struct Ctx {
  mori_bootstrap_mpi_t pub;
  MPI_Comm comm = MPI_COMM_NULL;
  double timeout = 0;
  size_t maxMsg = kDefaultMaxMessage;
  mori_bootstrap_log_fn log = nullptr;
  uint64_t seq = 0;
  int failed = 0;
  std::string failure;
};

bool gWeInitialisedMpi = false;

void vsay(mori_bootstrap_log_fn log, int level, const char* file, int line, const char* fmt, va_list ap) {
  char buf[2048];
  vsnprintf(buf, sizeof(buf), fmt, ap);
  if (log) log(level, file, line, buf);
}

void say(mori_bootstrap_log_fn log, int level, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
void say(mori_bootstrap_log_fn log, int level, const char* file, int line, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(log, level, file, line, fmt, ap);
  va_end(ap);
}
#define SAY(log, level, ...) say(log, level, __FILE__, __LINE__, __VA_ARGS__)

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof(buf), f, ap);
  va_end(ap);
  return buf;
}

std::string mpiError(int code) {
  char s[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (MPI_Error_string(code, s, &len) != MPI_SUCCESS) snprintf(s, sizeof(s), "MPI error %d", code);
  return s;
}

std::string peList(const std::vector<int>& pes) {
  std::string s = pes.size() == 1 ? "PE " : "PEs ";
  for (size_t i = 0; i < pes.size() && i < 32; ++i) s += (i ? ", " : "") + std::to_string(pes[i]);
  if (pes.size() > 32) s += " and " + std::to_string(pes.size() - 32) + " more";
  return s;
}

std::string describe(Op op, uint64_t seq, uint64_t bytes, int root) {
  const unsigned long long s = seq, b = bytes;
  switch (op) {
    case Op::AllGather: return fmt("allGather #%llu (%llu B per PE)", s, b);
    case Op::AllToAll: return fmt("allToAll #%llu (%llu B per pair)", s, b);
    case Op::Barrier: return fmt("barrier #%llu", s);
    case Op::Broadcast: return fmt("broadcast #%llu (%llu B from PE %d)", s, b, root);
  }
  return fmt("collective %u #%llu", static_cast<unsigned>(op), s);
}

// Records the failure (the handle then refuses further collectives) and reports it.
int fail(Ctx* c, int status, const char* file, int line, const std::string& msg) {
  c->failed = status;
  c->failure = msg;
  say(c->log, kLogError, file, line, "PE %d: %s", c->pub.rank, msg.c_str());
  return status;
}
#define FAIL(c, status, msg) fail(c, status, __FILE__, __LINE__, msg)

enum class Wait { Done, TimedOut, Error };

// Tests `reqs` until every one is complete (then MPI_REQUEST_NULL) or the deadline passes.
// Sleeps a little more each idle round so that oversubscribed ranks leave the CPU to others.
Wait waitAll(std::vector<MPI_Request>& reqs, const Deadline& dl, int* mpiErr) {
  std::vector<int> idx(reqs.size());
  std::vector<MPI_Status> st(reqs.size());
  int idle = 0;
  for (;;) {
    int count = 0;
    int rc = MPI_Testsome(static_cast<int>(reqs.size()), reqs.data(), &count, idx.data(), st.data());
    if (rc != MPI_SUCCESS) {
      *mpiErr = rc;
      if (rc == MPI_ERR_IN_STATUS)
        for (int i = 0; i < count; ++i)
          if (st[i].MPI_ERROR != MPI_SUCCESS) *mpiErr = st[i].MPI_ERROR;
      return Wait::Error;
    }
    if (count == MPI_UNDEFINED) return Wait::Done;
    bool all = true;
    for (MPI_Request r : reqs) all &= r == MPI_REQUEST_NULL;
    if (all) return Wait::Done;
    if (dl.expired()) return Wait::TimedOut;
    if (count > 0) {
      idle = 0;
    } else if (++idle > 64) {
      int us = idle > 1000 ? 1000 : idle;
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    }
  }
}

// Gives up on point-to-point requests that did not complete: receives are cancelled, sends are
// left to finish on their own. Their buffers must then outlive any late completion (a cancel
// can lose the race with a match), so the caller leaks them on purpose: a few hundred bytes,
// only after a failure. (Requests of non-blocking collectives may not be freed at all; one that
// timed out is left in place, and the handle is unusable anyway.) Returns whether any was left.
bool abandon(std::vector<MPI_Request>& reqs, const std::vector<bool>& isRecv) {
  bool any = false;
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    if (isRecv[i]) MPI_Cancel(&reqs[i]);
    MPI_Request_free(&reqs[i]);
    any = true;
  }
  return any;
}

// Posts sends/receives of `bytes` split into messages of at most c->maxMsg.
int postChunked(Ctx* c, bool send, void* buf, size_t bytes, int peer, int tag, std::vector<MPI_Request>* reqs) {
  char* p = static_cast<char*>(buf);
  for (size_t off = 0; off < bytes; off += c->maxMsg) {
    int n = static_cast<int>(bytes - off < c->maxMsg ? bytes - off : c->maxMsg);
    MPI_Request r;
    int rc = send ? MPI_Isend(p + off, n, MPI_BYTE, peer, tag, c->comm, &r)
                  : MPI_Irecv(p + off, n, MPI_BYTE, peer, tag, c->comm, &r);
    if (rc != MPI_SUCCESS) return rc;
    reqs->push_back(r);
  }
  return MPI_SUCCESS;
}

int postBcast(Ctx* c, void* buf, size_t bytes, int root, std::vector<MPI_Request>* reqs) {
  char* p = static_cast<char*>(buf);
  for (size_t off = 0; off < bytes; off += c->maxMsg) {
    int n = static_cast<int>(bytes - off < c->maxMsg ? bytes - off : c->maxMsg);
    MPI_Request r;
    int rc = MPI_Ibcast(p + off, n, MPI_BYTE, root, c->comm, &r);
    if (rc != MPI_SUCCESS) return rc;
    reqs->push_back(r);
  }
  return MPI_SUCCESS;
}

// Rank 0 tells every other rank how the collective went; best effort for ranks that did not
// arrive (they read it if they arrive later).
void sendVerdicts(Ctx* c, int status, int pe, const std::string& text, const std::vector<bool>& arrived) {
  Verdict* v = new Verdict[c->pub.nranks]();
  bool leftBehind = false;
  std::vector<MPI_Request> reqs;
  std::vector<bool> recvFlags;
  for (int r = 1; r < c->pub.nranks; ++r) {
    v[r].status = status;
    v[r].pe = pe;
    snprintf(v[r].text, sizeof(v[r].text), "%s", text.c_str());
    MPI_Request req;
    if (MPI_Isend(&v[r], sizeof(Verdict), MPI_BYTE, r, kTagVerdict, c->comm, &req) != MPI_SUCCESS) continue;
    if (arrived[r]) {
      reqs.push_back(req);
      recvFlags.push_back(false);
    } else {
      MPI_Request_free(&req);
      leftBehind = true;
    }
  }
  int err = 0;
  Deadline dl(status == 0 ? c->timeout : 1.0);
  if (waitAll(reqs, dl, &err) != Wait::Done) leftBehind |= abandon(reqs, recvFlags);
  if (!leftBehind) delete[] v;
}

// Arrival check through rank 0: returns 0 when every rank called `call`.
int arrive(Ctx* c, const Call& call, const std::string& what) {
  const int n = c->pub.nranks, me = c->pub.rank;
  int err = 0;
  if (me == 0) {
    std::unique_ptr<Call[]> heads(new Call[n]());
    std::vector<MPI_Request> reqs(n - 1, MPI_REQUEST_NULL);
    for (int r = 1; r < n; ++r) {
      int rc = MPI_Irecv(&heads[r], sizeof(Call), MPI_BYTE, r, kTagCall, c->comm, &reqs[r - 1]);
      if (rc != MPI_SUCCESS) {
        if (abandon(reqs, std::vector<bool>(reqs.size(), true))) (void)heads.release();
        return FAIL(c, MORI_SHMEM_ERROR_SYSTEM, what + ": MPI_Irecv: " + mpiError(rc));
      }
    }
    Deadline dl(c->timeout);
    Wait w = waitAll(reqs, dl, &err);
    std::vector<bool> arrived(n, true);
    if (w != Wait::Done) {
      std::vector<int> missing;
      for (int r = 1; r < n; ++r)
        if (reqs[r - 1] != MPI_REQUEST_NULL) {
          missing.push_back(r);
          arrived[r] = false;
        }
      if (abandon(reqs, std::vector<bool>(reqs.size(), true))) (void)heads.release();
      std::string msg = w == Wait::TimedOut ? fmt("%s: %s did not arrive within %.1f s", what.c_str(),
                                                  peList(missing).c_str(), dl.seconds())
                                            : what + ": receiving call headers failed: " + mpiError(err);
      int status = w == Wait::TimedOut ? MORI_SHMEM_ERROR_TIMEOUT : MORI_SHMEM_ERROR_SYSTEM;
      sendVerdicts(c, status, missing.empty() ? -1 : missing[0], "bootstrap root (PE 0) reports: " + msg, arrived);
      return FAIL(c, status, msg);
    }
    auto text = [](const Call& h) {
      return h.magic == kCallMagic ? describe(static_cast<Op>(h.op), h.seq, h.bytes, h.root) : "something else";
    };
    std::vector<int> odd;
    bool alike = true;
    for (int r = 1; r < n; ++r) {
      const Call& h = heads[r];
      if (h.magic != call.magic || h.op != call.op || h.seq != call.seq || h.bytes != call.bytes ||
          h.root != call.root) {
        if (!odd.empty()) alike &= text(h) == text(heads[odd[0]]);
        odd.push_back(r);
      }
    }
    if (!odd.empty()) {
      std::string msg = fmt("collective mismatch: PE 0 called %s but %s called %s%s", what.c_str(), peList(odd).c_str(),
                            text(heads[odd[0]]).c_str(), alike ? "" : " (the first of them)");
      sendVerdicts(c, MORI_SHMEM_ERROR_INVALID_USAGE, odd[0], "bootstrap root (PE 0) reports: " + msg, arrived);
      return FAIL(c, MORI_SHMEM_ERROR_INVALID_USAGE, msg);
    }
    sendVerdicts(c, 0, -1, "", arrived);
    return 0;
  }
  struct Exchange {
    Call call;
    Verdict verdict;
  };
  std::unique_ptr<Exchange> x(new Exchange());
  x->call = call;
  Verdict& v = x->verdict;
  std::vector<MPI_Request> reqs(2, MPI_REQUEST_NULL);
  int rc = MPI_Isend(&x->call, sizeof(Call), MPI_BYTE, 0, kTagCall, c->comm, &reqs[0]);
  if (rc == MPI_SUCCESS) rc = MPI_Irecv(&v, sizeof(Verdict), MPI_BYTE, 0, kTagVerdict, c->comm, &reqs[1]);
  if (rc != MPI_SUCCESS) {
    if (abandon(reqs, {false, true})) (void)x.release();
    return FAIL(c, MORI_SHMEM_ERROR_SYSTEM, what + ": posting the call header: " + mpiError(rc));
  }
  // Wait a little beyond the timeout: rank 0's report names the missing rank, ours could not.
  Deadline dl(c->timeout);
  Wait w = waitAll(reqs, dl.extendedBy(mori::bootstrap::rootReportGrace(c->timeout)), &err);
  if (w != Wait::Done) {
    if (abandon(reqs, {false, true})) (void)x.release();
    return FAIL(c, w == Wait::TimedOut ? MORI_SHMEM_ERROR_TIMEOUT : MORI_SHMEM_ERROR_SYSTEM,
                w == Wait::TimedOut ? fmt("%s: no answer from the bootstrap root (PE 0) within %.1f s; the root's log "
                                          "names the PE it waits for",
                                          what.c_str(), dl.seconds())
                                    : what + ": waiting for the root's verdict: " + mpiError(err));
  }
  if (v.status != 0) {
    v.text[sizeof(v.text) - 1] = '\0';
    // A verdict is data from another process: only mori-shmem error codes pass.
    if (v.status > MORI_SHMEM_ERROR_INVALID_USAGE || v.status < MORI_SHMEM_ERROR_INTERNAL)
      return FAIL(c, MORI_SHMEM_ERROR_REMOTE,
                  fmt("%s: rank 0 answered with status %d, which is not a mori-shmem error code (%s)", what.c_str(),
                      v.status, v.text));
    return FAIL(c, v.status, what + " failed: " + v.text);
  }
  return 0;
}

int waitData(Ctx* c, std::vector<MPI_Request>& reqs, const std::string& what) {
  int err = 0;
  Deadline dl(c->timeout);
  Wait w = waitAll(reqs, dl, &err);
  if (w == Wait::Done) return 0;
  if (w == Wait::Error) return FAIL(c, MORI_SHMEM_ERROR_SYSTEM, what + ": " + mpiError(err));
  return FAIL(c, MORI_SHMEM_ERROR_TIMEOUT,
              fmt("%s: the data did not move within %.1f s although every PE had arrived (a PE failed?)", what.c_str(),
                  dl.seconds()));
}

// Common prologue: refuses a failed handle, then the arrival check.
int begin(Ctx* c, Op op, size_t bytes, int root, std::string* what) {
  Call call{};
  call.magic = kCallMagic;
  call.op = static_cast<uint16_t>(op);
  call.seq = ++c->seq;
  call.bytes = bytes;
  call.root = root;
  *what = describe(op, call.seq, bytes, root);
  if (c->failed) {
    SAY(c->log, kLogError, "PE %d: %s: the MPI bootstrap failed earlier and cannot be used: %s", c->pub.rank,
        what->c_str(), c->failure.c_str());
    return c->failed;
  }
  if (c->pub.nranks == 1) return 0;
  return arrive(c, call, *what);
}

int opAllgather(mori_bootstrap_mpi_t* self, const void* in, void* out, size_t bytes) {
  Ctx* c = static_cast<Ctx*>(self->internal);
  std::string what;
  if (int rc = begin(c, Op::AllGather, bytes, 0, &what)) return rc;
  char* o = static_cast<char*>(out);
  const int n = self->nranks, me = self->rank;
  if (in != o + me * bytes) memmove(o + me * bytes, in, bytes);
  if (n == 1 || bytes == 0) return 0;
  std::vector<MPI_Request> reqs;
  int rc = MPI_SUCCESS;
  if (bytes <= c->maxMsg) {
    reqs.resize(1);
    rc = MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, o, static_cast<int>(bytes), MPI_BYTE, c->comm, &reqs[0]);
  } else {
    for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) rc = postBcast(c, o + r * bytes, bytes, r, &reqs);
  }
  if (rc != MPI_SUCCESS) return FAIL(c, MORI_SHMEM_ERROR_SYSTEM, what + ": " + mpiError(rc));
  return waitData(c, reqs, what);
}

int opAlltoall(mori_bootstrap_mpi_t* self, const void* in, void* out, size_t bytes) {
  Ctx* c = static_cast<Ctx*>(self->internal);
  std::string what;
  if (int rc = begin(c, Op::AllToAll, bytes, 0, &what)) return rc;
  const int n = self->nranks, me = self->rank;
  char* o = static_cast<char*>(out);
  std::vector<char> copy;
  const char* src = static_cast<const char*>(in);
  if (src == o && n > 1 && bytes) {
    copy.assign(src, src + n * bytes);
    src = copy.data();
  }
  if (src != o) memmove(o + me * bytes, src + me * bytes, bytes);
  if (n == 1 || bytes == 0) return 0;
  std::vector<MPI_Request> reqs;
  int rc = MPI_SUCCESS;
  if (bytes <= c->maxMsg) {
    reqs.resize(1);
    rc = MPI_Ialltoall(src, static_cast<int>(bytes), MPI_BYTE, o, static_cast<int>(bytes), MPI_BYTE, c->comm, &reqs[0]);
  } else {
    for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) {
      if (r == me) continue;
      rc = postChunked(c, false, o + r * bytes, bytes, r, kTagData, &reqs);
      if (rc == MPI_SUCCESS) rc = postChunked(c, true, const_cast<char*>(src) + r * bytes, bytes, r, kTagData, &reqs);
    }
  }
  if (rc != MPI_SUCCESS) return FAIL(c, MORI_SHMEM_ERROR_SYSTEM, what + ": " + mpiError(rc));
  return waitData(c, reqs, what);
}

int opBarrier(mori_bootstrap_mpi_t* self) {
  Ctx* c = static_cast<Ctx*>(self->internal);
  std::string what;
  return begin(c, Op::Barrier, 0, 0, &what);
}

int opBcast(mori_bootstrap_mpi_t* self, void* buf, size_t bytes, int root) {
  Ctx* c = static_cast<Ctx*>(self->internal);
  if (root < 0 || root >= self->nranks) {
    SAY(c->log, kLogError, "PE %d: broadcast root %d is not a PE (0..%d)", self->rank, root, self->nranks - 1);
    return MORI_SHMEM_ERROR_INVALID_USAGE;
  }
  std::string what;
  if (int rc = begin(c, Op::Broadcast, bytes, root, &what)) return rc;
  if (self->nranks == 1 || bytes == 0) return 0;
  std::vector<MPI_Request> reqs;
  int rc = postBcast(c, buf, bytes, root, &reqs);
  if (rc != MPI_SUCCESS) return FAIL(c, MORI_SHMEM_ERROR_SYSTEM, what + ": " + mpiError(rc));
  return waitData(c, reqs, what);
}

int opFinalize(mori_bootstrap_mpi_t* self) {
  Ctx* c = static_cast<Ctx*>(self->internal);
  int finalized = 0;
  MPI_Finalized(&finalized);
  // After MPI_Finalize (the application's, or ours at exit) the communicator is gone already.
  if (!finalized && c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
  delete c;
  return 0;
}

int opAbort(mori_bootstrap_mpi_t* self, int status) {
  Ctx* c = static_cast<Ctx*>(self->internal);
  // Any state will do: MPI_Abort is meant for jobs in trouble, and the duplicate may have failed.
  const int rc = MPI_Abort(c->comm != MPI_COMM_NULL ? c->comm : MPI_COMM_WORLD, status);
  return FAIL(c, MORI_SHMEM_ERROR_SYSTEM, "MPI bootstrap: MPI_Abort returned: " + mpiError(rc));
}

// A communicator duplicate that timed out: MPI still owns the request and will write the new
// communicator into `comm` when (if) the other ranks join, so both live until exit.
struct PendingDup {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> req = std::vector<MPI_Request>(1, MPI_REQUEST_NULL);
};
std::vector<PendingDup*> gAbandonedDups;
mori_bootstrap_log_fn gExitLog = nullptr;

// Open MPI's MPI_Finalize crashes (SIGSEGV in mca_pml_ob1_del_comm) on a communicator whose
// MPI_Comm_idup is still in flight: complete abandoned duplicates first, for a few seconds; if
// one cannot complete (a rank never came), MPI_Finalize is skipped, saying why, rather than crash.
bool settleAbandonedDups() {
  bool settled = true;
  for (PendingDup* d : gAbandonedDups) {
    int err = 0;
    if (waitAll(d->req, Deadline(5.0), &err) != Wait::Done) {
      settled = false;
      continue;
    }
    if (d->comm != MPI_COMM_NULL) MPI_Comm_free(&d->comm);
  }
  return settled;
}

// MPI_Finalize first deletes MPI_COMM_SELF's attributes: settles abandoned duplicates also when
// the application, not our exit handler, finalises MPI.
int settleAtFinalize(MPI_Comm, int, void*, void*) {
  (void)settleAbandonedDups();
  return MPI_SUCCESS;
}

void abandonDup(PendingDup* d) {
  static bool watching = false;
  gAbandonedDups.push_back(d);
  if (watching) return;
  int key = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, settleAtFinalize, &key, nullptr) == MPI_SUCCESS &&
      MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) == MPI_SUCCESS)
    watching = true;
}

void finalizeMpiAtExit() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return;
  if (!settleAbandonedDups()) {
    SAY(gExitLog, kLogError,
        "MPI bootstrap: at exit, a duplicate of the communicator that timed out during init is still in flight (a "
        "rank never called mori-shmem init): MPI_Finalize is skipped, since it would crash on it");
    return;
  }
  MPI_Finalize();
}

// Open MPI loads its components with dlopen and resolves their references to libmpi's symbols
// globally; when libmpi came in through this RTLD_LOCAL plugin those would be missing.
void makeMpiSymbolsGlobal() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);  // a reference kept for the process
}

}  // namespace

MORI_PLUGIN_EXPORT int mori_shmem_bootstrap_mpi_interface(void) { return MORI_BOOTSTRAP_MPI_INTERFACE; }

MORI_PLUGIN_EXPORT int mori_shmem_bootstrap_mpi_open(const mori_bootstrap_mpi_args_t* args,
                                                     mori_bootstrap_mpi_t** out) {
  if (!args || !out) return MORI_SHMEM_ERROR_INVALID_USAGE;
  mori_bootstrap_log_fn log = args->log;
  gExitLog = log;
  if (args->interface_version != MORI_BOOTSTRAP_MPI_INTERFACE || args->size < sizeof(mori_bootstrap_mpi_args_t)) {
    SAY(log, kLogError,
        "MPI bootstrap plugin: the runtime speaks interface %u (args of %u B), this plugin %d (%zu B): "
        "libmori_shmem and libmori_shmem_bootstrap_mpi come from different builds",
        args->interface_version, args->size, MORI_BOOTSTRAP_MPI_INTERFACE, sizeof(mori_bootstrap_mpi_args_t));
    return MORI_SHMEM_ERROR_NOT_SUPPORTED;
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) {
    SAY(log, kLogError,
        "MPI bootstrap: MPI has already been finalized in this process; initialise mori-shmem before "
        "MPI_Finalize, or use MORI_SHMEM_BOOTSTRAP=env");
    return MORI_SHMEM_ERROR_INVALID_USAGE;
  }
  if (!initialized) {
    if (args->mpi_comm) {
      SAY(log, kLogError, "MPI bootstrap: a communicator was passed, but MPI is not initialised in this process");
      return MORI_SHMEM_ERROR_INVALID_USAGE;
    }
    makeMpiSymbolsGlobal();
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
      SAY(log, kLogError, "MPI bootstrap: MPI_Init_thread failed: %s", mpiError(rc).c_str());
      return MORI_SHMEM_ERROR_SYSTEM;
    }
    // Finalised at exit, not at mori_shmem_finalize: MPI cannot be initialised twice, and a later
    // mori_shmem_init must still find it.
    if (!gWeInitialisedMpi) atexit(finalizeMpiAtExit);
    gWeInitialisedMpi = true;
    SAY(log, kLogInfo, "MPI bootstrap: the application had not initialised MPI; mori-shmem did (finalised at exit)");
  }
  MPI_Comm parent = args->mpi_comm ? *static_cast<MPI_Comm*>(args->mpi_comm) : MPI_COMM_WORLD;
  if (parent == MPI_COMM_NULL) {
    SAY(log, kLogError, "MPI bootstrap: the communicator passed is MPI_COMM_NULL");
    return MORI_SHMEM_ERROR_INVALID_USAGE;
  }
  const char* commName = args->mpi_comm ? "the application's communicator" : "MPI_COMM_WORLD";
  // MPI writes the new communicator into *dup when the request completes, which may be after a
  // timeout below, and such a request may not be freed: on that path both stay on the heap, and
  // are settled before MPI_Finalize (abandonDup), which otherwise crashed at exit under mpirun.
  std::unique_ptr<PendingDup> pending(new PendingDup());
  MPI_Comm& dup = pending->comm;
  std::vector<MPI_Request>& req = pending->req;
  int rc = MPI_Comm_idup(parent, &dup, &req[0]);
  if (rc != MPI_SUCCESS) {
    SAY(log, kLogError, "MPI bootstrap: MPI_Comm_idup of %s failed: %s", commName, mpiError(rc).c_str());
    return MORI_SHMEM_ERROR_SYSTEM;
  }
  Deadline dl(args->timeout_s);
  int err = 0;
  Wait w = waitAll(req, dl, &err);
  if (w != Wait::Done) {
    if (w == Wait::TimedOut) abandonDup(pending.release());  // still in flight: see PendingDup
    int prank = -1, psize = 0;
    MPI_Comm_rank(parent, &prank);
    MPI_Comm_size(parent, &psize);
    if (w == Wait::TimedOut)
      SAY(log, kLogError,
          "MPI bootstrap: rank %d of %d: duplicating %s did not complete within %.1f s: not every rank of it has "
          "called mori-shmem init",
          prank, psize, commName, dl.seconds());
    else
      SAY(log, kLogError, "MPI bootstrap: MPI_Comm_idup of %s failed: %s", commName, mpiError(err).c_str());
    return w == Wait::TimedOut ? MORI_SHMEM_ERROR_TIMEOUT : MORI_SHMEM_ERROR_SYSTEM;
  }
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  Ctx* c = new Ctx();
  c->comm = dup;
  c->timeout = args->timeout_s;
  c->maxMsg = args->max_message_bytes ? args->max_message_bytes : kDefaultMaxMessage;
  if (c->maxMsg > kDefaultMaxMessage) c->maxMsg = kDefaultMaxMessage;
  c->log = log;
  c->pub.interface_version = MORI_BOOTSTRAP_MPI_INTERFACE;
  MPI_Comm_rank(dup, &c->pub.rank);
  MPI_Comm_size(dup, &c->pub.nranks);
  c->pub.initialized_mpi = gWeInitialisedMpi ? 1 : 0;
  c->pub.allgather = opAllgather;
  c->pub.alltoall = opAlltoall;
  c->pub.barrier = opBarrier;
  c->pub.bcast = opBcast;
  c->pub.finalize = opFinalize;
  c->pub.abort = opAbort;
  c->pub.internal = c;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int vlen = 0;
  MPI_Get_library_version(version, &vlen);
  if (char* nl = strchr(version, '\n')) *nl = '\0';
  SAY(log, kLogDebug, "MPI bootstrap: rank %d of %d on a duplicate of %s (%s)", c->pub.rank, c->pub.nranks, commName,
      version);
  *out = &c->pub;
  return 0;
}
