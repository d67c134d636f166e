// Typed, strict access to the MORI_SHMEM_* environment (table: env_vars.def). A value that does
// not parse is an error naming the variable and the value, never a silent default.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "src/common/status.hpp"

namespace mori::env {

struct Config {
#define MORI_ENV_TYPE_String std::string
#define MORI_ENV_TYPE_Int int64_t
#define MORI_ENV_TYPE_Bool bool
#define MORI_ENV_TYPE_Size uint64_t
#define MORI_ENV_TYPE_Seconds double
#define MORI_ENV(field, name, type, def, cat, doc) MORI_ENV_TYPE_##type field{};
#include "src/common/env_vars.def"
#undef MORI_ENV
};

struct VarInfo {
  const char* name;  // full name, MORI_SHMEM_...
  const char* type;
  const char* defaultValue;
  const char* category;
  const char* doc;
};
const std::vector<VarInfo>& table();

// Limits checked when the environment is read, whatever transports end up in use (the RDMA
// layer checks the same numbers again where it builds queues).
constexpr double kMaxSeconds = 1e7;  // ~115 days: deadlines and device tick counts stay far from overflow
constexpr int64_t kMinQpDepth = 64, kMaxQpDepth = 32768;
constexpr int64_t kMinQpPerPe = 1, kMaxQpPerPe = 64;
constexpr int64_t kMinSdmaQueues = 1, kMaxSdmaQueues = 16;

// Reads every variable, then validate()s the result; fails on the first bad value, naming it.
Status load(Config* out);
// Range and choice checks of every variable (also for values set in code).
Status validate(const Config& c);

// Parsers (exposed for tests). Return false on malformed input: anything but the forms below,
// including leading blanks and '+' signs (and '-' except for integers).
bool parseSize(const char* s, uint64_t* out);  // 4096, 64K, 1M, 2G, 1T (binary units), no overflow
bool parseInt(const char* s, int64_t* out);
bool parseBool(const char* s, bool* out);       // 0/1, true/false, yes/no, on/off
bool parseSeconds(const char* s, double* out);  // 10, 1.5, 500ms, 2s, 1m; at most kMaxSeconds

}  // namespace mori::env
