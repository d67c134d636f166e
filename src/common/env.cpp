#include "src/common/env.hpp"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <initializer_list>

namespace mori::env {

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool parseInt(const char* s, int64_t* out) {
  // strtoll would skip blanks and take a '+'; a value is digits with an optional '-'.
  if (!s || !(isDigit(s[0]) || (s[0] == '-' && isDigit(s[1])))) return false;
  errno = 0;
  char* end = nullptr;
  long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return false;
  *out = v;
  return true;
}

bool parseSize(const char* s, uint64_t* out) {
  // strtoull would skip blanks and wrap a '-' ("' -1'" became 2^64-1): digits first, nothing else.
  if (!s || !isDigit(s[0])) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || end == s) return false;
  unsigned shift = 0;
  if (*end) {
    switch (*end) {
      case 'k':
      case 'K': shift = 10; break;
      case 'm':
      case 'M': shift = 20; break;
      case 'g':
      case 'G': shift = 30; break;
      case 't':
      case 'T': shift = 40; break;
      default: return false;
    }
    ++end;
    if (*end == 'i' || *end == 'I') ++end;  // KiB
    if (*end == 'b' || *end == 'B') ++end;
    if (*end != '\0') return false;
  }
  if (shift && v > (~0ull >> shift)) return false;
  *out = v << shift;
  return true;
}

bool parseBool(const char* s, bool* out) {
  if (!s) return false;
  static const char* yes[] = {"1", "true", "yes", "on"};
  static const char* no[] = {"0", "false", "no", "off"};
  for (const char* y : yes)
    if (strcasecmp(s, y) == 0) return *out = true, true;
  for (const char* n : no)
    if (strcasecmp(s, n) == 0) return *out = false, true;
  return false;
}

bool parseSeconds(const char* s, double* out) {
  // Decimal only: strtod would also skip blanks and take signs, "inf", "nan" and hex floats.
  if (!s || !(isDigit(s[0]) || (s[0] == '.' && isDigit(s[1])))) return false;
  for (const char* p = s; *p && (isDigit(*p) || *p == '.' || *p == 'x' || *p == 'X'); ++p)
    if (*p == 'x' || *p == 'X') return false;
  errno = 0;
  char* end = nullptr;
  double v = strtod(s, &end);
  if (errno != 0 || end == s || !isfinite(v) || v < 0) return false;
  double scale = 1;
  if (strcmp(end, "ms") == 0)
    scale = 1e-3;
  else if (strcmp(end, "us") == 0)
    scale = 1e-6;
  else if (strcmp(end, "s") == 0 || *end == '\0')
    scale = 1;
  else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
    scale = 60;
  else
    return false;
  const double seconds = v * scale;
  // Beyond the limit a deadline or a tick count would overflow; 0 already means "no limit".
  if (!isfinite(seconds) || seconds > kMaxSeconds) return false;
  *out = seconds;
  return true;
}

const std::vector<VarInfo>& table() {
  static const std::vector<VarInfo> t = {
#define MORI_ENV(field, name, type, def, cat, doc) {"MORI_SHMEM_" #name, #type, def, cat, doc},
#include "src/common/env_vars.def"
#undef MORI_ENV
  };
  return t;
}

namespace {
bool parseAs(const char* s, std::string* out) { return *out = s, true; }
bool parseAs(const char* s, int64_t* out) { return parseInt(s, out); }
bool parseAs(const char* s, bool* out) { return parseBool(s, out); }
bool parseAs(const char* s, uint64_t* out) { return parseSize(s, out); }
bool parseAs(const char* s, double* out) { return parseSeconds(s, out); }

const char* expected(const char* type) {
  if (!strcmp(type, "Int")) return "an integer";
  if (!strcmp(type, "Bool")) return "0/1, true/false, yes/no or on/off";
  if (!strcmp(type, "Size")) return "a byte count with an optional K/M/G/T suffix";
  if (!strcmp(type, "Seconds")) return "seconds (e.g. 30, 1.5, 500ms, 2m), at most 1e7 s; 0 for no limit";
  return "a string";
}
}  // namespace

Status load(Config* out) {
  Config c;
#define MORI_ENV(field, name, type, def, cat, doc)                                                                    \
  {                                                                                                                   \
    const char* set = getenv("MORI_SHMEM_" #name);                                                                    \
    const char* text = (set && *set) ? set : def;                                                                     \
    if (!parseAs(text, &c.field))                                                                                     \
      return MORI_FAIL(Status::InvalidUsage, log::kInit, "MORI_SHMEM_%s='%s' is not valid: expected %s", #name, text, \
                       expected(#type));                                                                              \
  }
#include "src/common/env_vars.def"
#undef MORI_ENV
  MORI_TRY(validate(c));
  *out = std::move(c);
  return Status::Success;
}

namespace {
bool oneOf(const std::string& v, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (strcasecmp(v.c_str(), n) == 0) return true;
  return false;
}
}  // namespace

Status validate(const Config& c) {
  auto bad = [](const char* name, long long v, const char* want) {
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "MORI_SHMEM_%s=%lld is not valid: expected %s", name, v, want);
  };
  auto badText = [](const char* name, const std::string& v, const char* want) {
    return MORI_FAIL(Status::InvalidUsage, log::kInit, "MORI_SHMEM_%s='%s' is not valid: expected %s", name, v.c_str(),
                     want);
  };
  if (!oneOf(c.bootstrap, {"auto", "mpi", "env"})) return badText("BOOTSTRAP", c.bootstrap, "one of auto, mpi, env");
  if (!oneOf(c.transport, {"auto", "p2p", "rdma", "sdma"}))
    return badText("TRANSPORT", c.transport, "one of auto, p2p, rdma, sdma");
  if (!oneOf(c.collectiveEntry, {"wait", "caller"}))
    return badText("COLLECTIVE_ENTRY", c.collectiveEntry, "one of wait, caller");
  if (c.bootstrapPort < 0 || c.bootstrapPort > 65535)
    return bad("BOOTSTRAP_PORT", c.bootstrapPort, "a TCP port (1..65535), or 0 for MASTER_PORT + 1");
  if (c.ibGidIndex < -1 || c.ibGidIndex > 255)
    return bad("IB_GID_INDEX", c.ibGidIndex, "-1 (automatic) or a GID table index 0..255");
  if (c.numQpPerPe < kMinQpPerPe || c.numQpPerPe > kMaxQpPerPe)
    return bad("NUM_QP_PER_PE", c.numQpPerPe, "an integer between 1 and 64");
  if (c.qpDepth < kMinQpDepth || c.qpDepth > kMaxQpDepth || (c.qpDepth & (c.qpDepth - 1)) != 0)
    return bad("QP_DEPTH", c.qpDepth, "a power of two between 64 and 32768");
  if (c.sdmaQueues < kMinSdmaQueues || c.sdmaQueues > kMaxSdmaQueues)
    return bad("SDMA_QUEUES", c.sdmaQueues, "an integer between 1 and 16");
  return Status::Success;
}

}  // namespace mori::env
