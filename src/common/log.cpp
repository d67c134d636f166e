#include "src/common/log.hpp"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace mori::log {
namespace {

struct State {
  std::atomic<int> level{static_cast<int>(Level::Warn)};
  std::atomic<uint32_t> mask{kAll};
  std::atomic<int> pe{-1};
  std::atomic<Sink> sink{nullptr};
  FILE* out = stderr;
  std::mutex mutex;
  char host[64] = "";
  bool configured = false;
};

State& state() {
  static State s;
  return s;
}

const char* levelName(Level l) {
  switch (l) {
    case Level::Error: return "ERROR";
    case Level::Warn: return "WARN";
    case Level::Info: return "INFO";
    case Level::Debug: return "DEBUG";
    case Level::Trace: return "TRACE";
    default: return "NONE";
  }
}

const char* subsysName(Subsys s) {
  switch (s) {
    case kInit: return "INIT";
    case kBootstrap: return "BOOTSTRAP";
    case kMem: return "MEM";
    case kP2P: return "P2P";
    case kRdma: return "RDMA";
    case kDevice: return "DEVICE";
    default: return "ALL";
  }
}

const char* baseName(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void ensureConfigured() {
  State& s = state();
  if (!s.configured) configureFromEnv();
}

}  // namespace

bool configureFromEnv() {
  State& s = state();
  s.configured = true;
  if (gethostname(s.host, sizeof(s.host) - 1) != 0) snprintf(s.host, sizeof(s.host), "?");
  bool good = true;
  if (const char* v = getenv("MORI_SHMEM_DEBUG"); v && *v) {
    static const char* names[] = {"NONE", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"};
    int found = -1;
    for (int i = 0; i < 6; ++i)
      if (strcasecmp(v, names[i]) == 0) found = i;
    if (found < 0) {
      fprintf(stderr, "[mori-shmem] ERROR: MORI_SHMEM_DEBUG='%s' is not one of NONE, ERROR, WARN, INFO, DEBUG, TRACE\n",
              v);
      good = false;
    } else {
      s.level = found;
    }
  }
  if (const char* v = getenv("MORI_SHMEM_DEBUG_SUBSYS"); v && *v) {
    uint32_t mask = 0;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", v);
    char* save = nullptr;
    for (char* tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(nullptr, ",", &save)) {
      static const struct {
        const char* name;
        Subsys bit;
      } table[] = {{"INIT", kInit}, {"BOOTSTRAP", kBootstrap}, {"MEM", kMem}, {"P2P", kP2P},
                   {"RDMA", kRdma}, {"DEVICE", kDevice},       {"ALL", kAll}};
      bool matched = false;
      for (const auto& e : table)
        if (strcasecmp(tok, e.name) == 0) {
          mask |= e.bit;
          matched = true;
        }
      if (!matched) {
        fprintf(stderr,
                "[mori-shmem] ERROR: MORI_SHMEM_DEBUG_SUBSYS entry '%s' is not one of INIT, BOOTSTRAP, MEM, P2P, RDMA, "
                "DEVICE, ALL\n",
                tok);
        good = false;
      }
    }
    if (mask) s.mask = mask;
  }
  if (const char* v = getenv("MORI_SHMEM_DEBUG_FILE"); v && *v) {
    char path[512];
    // %p in the name becomes the pid so that PEs do not share a file.
    const char* p = strstr(v, "%p");
    if (p)
      snprintf(path, sizeof(path), "%.*s%d%s", static_cast<int>(p - v), v, static_cast<int>(getpid()), p + 2);
    else
      snprintf(path, sizeof(path), "%s", v);
    FILE* f = fopen(path, "a");
    if (!f) {
      fprintf(stderr, "[mori-shmem] ERROR: MORI_SHMEM_DEBUG_FILE='%s': cannot open: %s\n", path, strerror(errno));
      good = false;
    } else {
      s.out = f;
    }
  }
  return good;
}

bool enabled(Level level, Subsys subsys) {
  ensureConfigured();
  State& s = state();
  return static_cast<int>(level) <= s.level.load(std::memory_order_relaxed) &&
         (level == Level::Error || (subsys & s.mask.load(std::memory_order_relaxed)) != 0);
}

void setPe(int pe) { state().pe = pe; }

Level level() {
  ensureConfigured();
  return static_cast<Level>(state().level.load(std::memory_order_relaxed));
}

Subsys mask() {
  ensureConfigured();
  return state().mask.load(std::memory_order_relaxed);
}

void forwardTo(Sink sink, Level runtimeLevel, Subsys runtimeMask) {
  State& s = state();
  s.configured = true;  // the runtime's settings, not this library's reading of the environment
  s.level = static_cast<int>(runtimeLevel);
  s.mask = runtimeMask;
  s.sink = sink;
}

void write(Level level, Subsys subsys, const char* file, int line, const char* fmt, ...) {
  ensureConfigured();
  State& s = state();
  if (static_cast<int>(level) > s.level.load(std::memory_order_relaxed)) return;
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (Sink sink = s.sink.load()) {
    sink(static_cast<int>(level), subsys, file, line, msg);
    return;
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  int pe = s.pe.load();
  if (pe >= 0)
    fprintf(s.out, "[mori-shmem PE %d %s:%d] %s %s %s:%d %s\n", pe, s.host, static_cast<int>(getpid()),
            levelName(level), subsysName(subsys), baseName(file), line, msg);
  else
    fprintf(s.out, "[mori-shmem %s:%d] %s %s %s:%d %s\n", s.host, static_cast<int>(getpid()), levelName(level),
            subsysName(subsys), baseName(file), line, msg);
  fflush(s.out);
}

}  // namespace mori::log
