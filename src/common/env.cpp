#include "src/common/env.hpp"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

namespace mori::env {

bool parseInt(const char* s, int64_t* out) {
  if (!s || !*s) return false;
  errno = 0;
  char* end = nullptr;
  long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return false;
  *out = v;
  return true;
}

bool parseSize(const char* s, uint64_t* out) {
  if (!s || !*s || *s == '-') return false;
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
  if (!s || !*s) return false;
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
  *out = v * scale;
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
  if (!strcmp(type, "Seconds")) return "seconds (e.g. 30, 1.5, 500ms, 2m)";
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
  *out = std::move(c);
  return Status::Success;
}

}  // namespace mori::env
