// The one logger. Lines go to stderr (or MORI_SHMEM_DEBUG_FILE), never stdout, tagged
//   [mori-shmem PE <pe> <host>:<pid>] LEVEL SUBSYS file:line message
// Level from MORI_SHMEM_DEBUG (NONE, ERROR, WARN (default), INFO, DEBUG, TRACE); subsystems
// from MORI_SHMEM_DEBUG_SUBSYS (comma list of INIT, BOOTSTRAP, MEM, P2P, RDMA, DEVICE, ALL).
#pragma once

#include <stdint.h>

namespace mori::log {

enum class Level : int { None = 0, Error = 1, Warn = 2, Info = 3, Debug = 4, Trace = 5 };

using Subsys = uint32_t;
constexpr Subsys kInit = 1u << 0;
constexpr Subsys kBootstrap = 1u << 1;
constexpr Subsys kMem = 1u << 2;
constexpr Subsys kP2P = 1u << 3;
constexpr Subsys kRdma = 1u << 4;
constexpr Subsys kDevice = 1u << 5;
constexpr Subsys kAll = ~0u;

bool enabled(Level level, Subsys subsys);
void write(Level level, Subsys subsys, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
// Tags later lines with this PE (-1: not yet known).
void setPe(int pe);
// Re-reads MORI_SHMEM_DEBUG*; returns false (and logs why) on a bad value.
bool configureFromEnv();
// The level and subsystem mask in force (what a library the runtime loads is handed).
Level level();
Subsys mask();

// In a library the runtime loads (an RDMA provider plugin, transport/rdma/core/rdma_plugin.h):
// every later line goes to `sink`, the runtime's logger, instead of being written here, and
// `runtimeLevel` / `runtimeMask` decide what is enabled. One output, one tag, one setting.
// `level` as Level, `subsys` one Subsys bit, `message` the formatted text without the tag.
using Sink = void (*)(int level, uint32_t subsys, const char* file, int line, const char* message);
void forwardTo(Sink sink, Level runtimeLevel, Subsys runtimeMask);

}  // namespace mori::log

#define MORI_LOG(LEVEL, SUBSYS, ...)                                                          \
  do {                                                                                        \
    if (::mori::log::enabled(::mori::log::Level::LEVEL, SUBSYS))                              \
      ::mori::log::write(::mori::log::Level::LEVEL, SUBSYS, __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)
#define MORI_LOG_ERROR(SUBSYS, ...) MORI_LOG(Error, SUBSYS, __VA_ARGS__)
#define MORI_LOG_WARN(SUBSYS, ...) MORI_LOG(Warn, SUBSYS, __VA_ARGS__)
#define MORI_LOG_INFO(SUBSYS, ...) MORI_LOG(Info, SUBSYS, __VA_ARGS__)
#define MORI_LOG_DEBUG(SUBSYS, ...) MORI_LOG(Debug, SUBSYS, __VA_ARGS__)
#define MORI_LOG_TRACE(SUBSYS, ...) MORI_LOG(Trace, SUBSYS, __VA_ARGS__)
