// Results of mori-shmem-perf and the three ways they are written, all host-only:
//   - NVSHMEM perftest's table:   #<test> / "size(B)  scope  <metric> (<units>)" / one row per size;
//   - NVSHMEM perftest's machine-readable lines:
//       &&&& PERF <test>___<scope>___size__<bytes>___<metric> <value> <+|-><units>
//     ('+': higher is better, '-': lower is better);
//   - one JSON document per run (--json), with the configuration, the verdict and every row.
#pragma once

#include <stdint.h>

#include <string>
#include <utility>
#include <vector>

#include "tools/perf/perf_options.hpp"

namespace mori::perf {

struct Result {
  std::string scope;   // thread / warp / block; for shmem_init_time "init" or "init+ctx"
  uint64_t size = 0;   // bytes per iteration (PE count for shmem_init_time)
  std::string metric;  // "BW", "msgrate", "latency", "init_time"
  std::string units;   // "GB/sec", "Gops/s", "us", "sec"
  char sign = '+';     // '+': higher is better; '-': lower is better
  double value = 0;
  int iters = 0;         // timed iterations behind the value
  double elapsedMs = 0;  // time the value was computed from (driver PE; sum of PEs' rates with --bidir)
};

struct RunInfo {
  std::string tool = "mori-shmem-perf";
  std::string backend;  // "mori-shmem" or "nvshmem"
  std::string backendVersion;
  std::string device;  // GPU name of PE 0
  int npes = 0;
  Options options;
  std::string status = "ok";                                     // "ok", "verify_failed"
  std::string error;                                             // what failed, when status is not ok
  std::vector<std::pair<std::string, std::string>> environment;  // variables that shaped the run
};

// Metric names and units of every test.
namespace metric {
constexpr const char* kBw = "BW";
constexpr const char* kBwUnits = "GB/sec";
constexpr const char* kMsgrate = "msgrate";
constexpr const char* kMsgrateUnits = "Gops/s";
constexpr const char* kLatency = "latency";
constexpr const char* kLatencyUnits = "us";
constexpr const char* kInitTime = "init_time";
constexpr const char* kInitTimeUnits = "sec";
}  // namespace metric

// The <test> of table headings and PERF lines: the test's name, plus "_<op>" for the atomic tests
// (NVSHMEM's perftest names its atomic tables after the operation too), "_<type>_sum" for the
// reductions and "_bidir" for --bidir.
std::string seriesName(const Options& o);

// GB/s of `bytes` moved `iters` times in `ms` milliseconds (1 GB = 1e9 bytes).
double bandwidthGBps(uint64_t bytes, int iters, double ms);
// Operations per second in units of 1e9.
double rateGops(uint64_t opsPerIter, int iters, double ms);
// Microseconds per iteration.
double latencyUs(int iters, double ms);

// The table of every (scope, metric) series in `rows`, in order of first appearance.
std::string formatTable(const std::string& test, const std::vector<Result>& rows);
std::string formatPerfLine(const std::string& test, const Result& r);
std::string formatPerfLines(const std::string& test, const std::vector<Result>& rows);

std::string jsonEscape(const std::string& s);  // without the surrounding quotes
std::string jsonNumber(double v);              // null for NaN / infinity
std::string toJson(const RunInfo& run, const std::vector<Result>& rows);

}  // namespace mori::perf
