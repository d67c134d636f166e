#include "application/bootstrap/mpi_bootstrap_loader.hpp"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <mutex>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/mpi_bootstrap_plugin.h"
#include "application/bootstrap/process_exit.hpp"
#include "application/bootstrap/remote_status.hpp"

namespace mori::bootstrap {
namespace {

struct Plugin {
  std::mutex mutex;
  mori_bootstrap_mpi_open_fn open = nullptr;
  std::string path;
  size_t messageLimit = 0;
};

Plugin& plugin() {
  static Plugin p;
  return p;
}

// Directory of the object this code is linked into (libmori_shmem.so, or a test executable).
std::string selfDir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&selfDir), &info) || !info.dli_fname) return "";
  std::string f = info.dli_fname;
  size_t slash = f.rfind('/');
  return slash == std::string::npos ? "" : f.substr(0, slash);
}

void pluginLog(int level, const char* file, int line, const char* message) {
  if (level < static_cast<int>(log::Level::Error)) level = static_cast<int>(log::Level::Error);
  if (level > static_cast<int>(log::Level::Trace)) level = static_cast<int>(log::Level::Trace);
  auto l = static_cast<log::Level>(level);
  if (log::enabled(l, log::kBootstrap)) log::write(l, log::kBootstrap, file ? file : "?", line, "%s", message);
}

class MpiBootstrap final : public Bootstrap {
 public:
  explicit MpiBootstrap(mori_bootstrap_mpi_t* h) : h_(h) {}
  ~MpiBootstrap() override {
    if (h_) h_->finalize(h_);
  }

  Status start() {
    MORI_TRY(discoverLocalRanks());
    MORI_LOG_INFO(log::kBootstrap, "PE %d of %d: MPI bootstrap ready (local rank %d of %d)%s", rank(), size(),
                  localRank(), localSize(), h_->initialized_mpi ? "; MPI initialised by mori-shmem" : "");
    return Status::Success;
  }

  int rank() const override { return h_->rank; }
  int size() const override { return h_->nranks; }
  const char* name() const override { return "mpi"; }

  Status allGather(const void* in, void* out, size_t bytes) override {
    return check(h_->allgather(h_, in, out, bytes), "allGather");
  }
  Status allToAll(const void* in, void* out, size_t bytes) override {
    return check(h_->alltoall(h_, in, out, bytes), "allToAll");
  }
  Status barrier() override { return check(h_->barrier(h_), "barrier"); }
  Status broadcast(void* buf, size_t bytes, int root) override {
    return check(h_->bcast(h_, buf, bytes, root), "broadcast");
  }
  void globalExit(int status) override {
    fflush(nullptr);  // MPI_Abort may end this process before anything else runs
    (void)check(h_->abort(h_, status), "global exit (MPI_Abort)");
    exitProcess(status);  // MPI_Abort returned: this PE at least
  }

 private:
  // The plugin has logged the reason; this adds the frame, as MORI_TRY does.
  Status check(int rc, const char* op) {
    if (rc == 0) return Status::Success;
    if (!isErrorCode(rc))
      return MORI_FAIL(Status::Remote, log::kBootstrap,
                       "MPI bootstrap %s (PE %d): the plugin returned %d, which is not a mori-shmem error code", op,
                       h_->rank, rc);
    return MORI_FAIL(static_cast<Status>(rc), log::kBootstrap, "  <- MPI bootstrap %s (PE %d)", op, h_->rank);
  }

  mori_bootstrap_mpi_t* h_;
};

}  // namespace

bool loadMpiPlugin(std::string* why) {
  Plugin& p = plugin();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.open) return true;
  std::string errors;
  std::string dir = selfDir();
  std::vector<std::string> candidates;
  if (!dir.empty()) candidates.push_back(dir + "/" + MORI_BOOTSTRAP_MPI_LIBRARY);
  candidates.push_back(MORI_BOOTSTRAP_MPI_LIBRARY);
  for (const std::string& c : candidates) {
    // NODELETE: the plugin may have registered MPI_Finalize for process exit.
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
      const char* e = dlerror();
      errors += (errors.empty() ? "" : "; ") + std::string(e ? e : c + ": not loadable");
      continue;
    }
    auto version = reinterpret_cast<mori_bootstrap_mpi_interface_fn>(dlsym(h, MORI_BOOTSTRAP_MPI_INTERFACE_SYMBOL));
    auto open = reinterpret_cast<mori_bootstrap_mpi_open_fn>(dlsym(h, MORI_BOOTSTRAP_MPI_OPEN_SYMBOL));
    std::string where = c;
    Dl_info info;
    if (open && dladdr(reinterpret_cast<void*>(open), &info) && info.dli_fname) where = info.dli_fname;
    if (!version || !open) {
      errors += (errors.empty() ? "" : "; ") + where + " lacks " + MORI_BOOTSTRAP_MPI_OPEN_SYMBOL;
      continue;
    }
    if (version() != MORI_BOOTSTRAP_MPI_INTERFACE) {
      errors += (errors.empty() ? "" : "; ") + where + " implements plugin interface " + std::to_string(version()) +
                ", this runtime needs " + std::to_string(MORI_BOOTSTRAP_MPI_INTERFACE) +
                " (libmori_shmem and the plugin come from different builds)";
      continue;
    }
    p.open = open;
    p.path = where;
    MORI_LOG_DEBUG(log::kBootstrap, "MPI bootstrap plugin loaded from %s", where.c_str());
    return true;
  }
  if (why) *why = errors;
  return false;
}

std::string mpiPluginPath() {
  Plugin& p = plugin();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.path;
}

void setMpiMessageLimitForTesting(size_t bytes) {
  Plugin& p = plugin();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.messageLimit = bytes;
}

Status createMpi(void* mpiComm, const env::Config& cfg, std::unique_ptr<Bootstrap>* out) {
  std::string why;
  if (!loadMpiPlugin(&why))
    return MORI_FAIL(Status::NotSupported, log::kBootstrap,
                     "the MPI bootstrap needs %s, which could not be loaded: %s (is MPI installed, and the plugin "
                     "next to libmori_shmem.so?)",
                     MORI_BOOTSTRAP_MPI_LIBRARY, why.c_str());
  mori_bootstrap_mpi_args_t args{};
  args.interface_version = MORI_BOOTSTRAP_MPI_INTERFACE;
  args.size = sizeof(args);
  args.mpi_comm = mpiComm;
  args.timeout_s = cfg.bootstrapTimeout;
  args.log = pluginLog;
  mori_bootstrap_mpi_open_fn open;
  {
    Plugin& p = plugin();
    std::lock_guard<std::mutex> lock(p.mutex);
    args.max_message_bytes = p.messageLimit;
    open = p.open;
  }
  mori_bootstrap_mpi_t* h = nullptr;
  int rc = open(&args, &h);
  if (rc != 0 || !h)
    return MORI_FAIL(rc == 0 ? Status::Internal : remoteError(rc), log::kBootstrap,
                     "  <- MPI bootstrap: opening %s failed (plugin status %d)",
                     mpiComm ? "the application's communicator" : "MPI_COMM_WORLD", rc);
  if (h->interface_version != MORI_BOOTSTRAP_MPI_INTERFACE) {
    h->finalize(h);
    return MORI_FAIL(Status::NotSupported, log::kBootstrap, "MPI bootstrap plugin answered with interface %u, not %d",
                     h->interface_version, MORI_BOOTSTRAP_MPI_INTERFACE);
  }
  std::unique_ptr<MpiBootstrap> b(new MpiBootstrap(h));
  MORI_TRY(b->start());
  *out = std::move(b);
  return Status::Success;
}

}  // namespace mori::bootstrap
