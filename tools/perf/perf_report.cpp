#include "tools/perf/perf_report.hpp"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

namespace mori::perf {

std::string seriesName(const Options& o) {
  const TestInfo& t = testInfo(o.test);
  std::string name = t.name;
  if (t.atomic) name += std::string("_") + atomicOpName(o.atomicOp);
  if (t.kind == Kind::Collective && collReduces(collOf(o.test)))
    name += std::string("_") + dataTypeName(o.dataType) + "_sum";
  if (o.bidir) name += "_bidir";
  return name;
}

double bandwidthGBps(uint64_t bytes, int iters, double ms) {
  return static_cast<double>(bytes) * iters / (ms * 1e-3) / 1e9;
}
double rateGops(uint64_t opsPerIter, int iters, double ms) {
  return static_cast<double>(opsPerIter) * iters / (ms * 1e-3) / 1e9;
}
double latencyUs(int iters, double ms) { return ms * 1e3 / iters; }

std::string formatTable(const std::string& test, const std::vector<Result>& rows) {
  std::vector<std::pair<std::string, std::string>> series;  // (scope, metric) in order of first appearance
  for (const Result& r : rows) {
    bool seen = false;
    for (const auto& s : series) seen |= s.first == r.scope && s.second == r.metric;
    if (!seen) series.emplace_back(r.scope, r.metric);
  }
  std::string out;
  char line[256];
  for (const auto& s : series) {
    const Result* first = nullptr;
    for (const Result& r : rows)
      if (r.scope == s.first && r.metric == s.second) {
        first = &r;
        break;
      }
    const std::string heading = first->metric + " (" + first->units + ")";
    snprintf(line, sizeof(line), "#%10s\n%-10s  %-8s  %-16s\n", test.c_str(), "size(B)", "scope", heading.c_str());
    out += line;
    for (const Result& r : rows) {
      if (r.scope != s.first || r.metric != s.second) continue;
      snprintf(line, sizeof(line), "%-10" PRIu64 "  %-8s  %-16.6f\n", r.size, r.scope.c_str(), r.value);
      out += line;
    }
  }
  return out;
}

std::string formatPerfLine(const std::string& test, const Result& r) {
  char line[512];
  snprintf(line, sizeof(line), "&&&& PERF %s___%s___size__%" PRIu64 "___%s %f %c%s\n", test.c_str(), r.scope.c_str(),
           r.size, r.metric.c_str(), r.value, r.sign, r.units.c_str());
  return line;
}

std::string formatPerfLines(const std::string& test, const std::vector<Result>& rows) {
  std::string out;
  for (const Result& r : rows) out += formatPerfLine(test, r);
  return out;
}

std::string jsonEscape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) {
          char u[8];
          snprintf(u, sizeof(u), "\\u%04x", c);
          o += u;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o;
}

std::string jsonNumber(double v) {
  if (!isfinite(v)) return "null";
  char b[64];
  snprintf(b, sizeof(b), "%.9g", v);
  return b;
}

namespace {
std::string str(const std::string& s) { return "\"" + jsonEscape(s) + "\""; }
std::string boolean(bool b) { return b ? "true" : "false"; }
}  // namespace

std::string toJson(const RunInfo& run, const std::vector<Result>& rows) {
  const Options& o = run.options;
  const TestInfo& t = testInfo(o.test);
  std::string j = "{\n";
  j += "  \"tool\": " + str(run.tool) + ",\n";
  j += "  \"backend\": " + str(run.backend) + ",\n";
  j += "  \"backend_version\": " + str(run.backendVersion) + ",\n";
  j += "  \"test\": " + str(t.name) + ",\n";
  j += "  \"series\": " + str(seriesName(o)) + ",\n";
  j += "  \"command\": " + str(o.commandLine) + ",\n";
  j += "  \"npes\": " + std::to_string(run.npes) + ",\n";
  j += "  \"device\": " + str(run.device) + ",\n";
  j += "  \"config\": {";
  if (t.kind != Kind::Init) {
    std::string scopes;
    for (Scope s : o.scopes) scopes += std::string(scopes.empty() ? "" : ", ") + str(scopeName(s));
    j += "\"min_bytes\": " + std::to_string(o.minBytes) + ", \"max_bytes\": " + std::to_string(o.maxBytes) +
         ", \"step_factor\": " + std::to_string(o.stepFactor) + ", \"iters\": " + std::to_string(o.iters) +
         ", \"warmup\": " + std::to_string(o.warmup) + ", \"ctas\": " + std::to_string(o.ctas) +
         ", \"threads\": " + std::to_string(o.threads) + ", \"scopes\": [" + scopes + "]" +
         ", \"atomic_op\": " + (t.atomic ? str(atomicOpName(o.atomicOp)) : std::string("null")) + ", \"datatype\": " +
         (t.kind == Kind::Collective && collReduces(collOf(o.test)) ? str(dataTypeName(o.dataType))
                                                                    : std::string("null")) +
         ", \"bidir\": " + boolean(o.bidir) + ", \"msgrate\": " + boolean(o.msgrate) +
         ", \"verify\": " + boolean(o.verify);
  }
  j += "},\n";
  j += "  \"environment\": {";
  for (size_t i = 0; i < run.environment.size(); ++i)
    j += (i ? ", " : "") + str(run.environment[i].first) + ": " + str(run.environment[i].second);
  j += "},\n";
  j += "  \"status\": " + str(run.status) + ",\n";
  j += "  \"error\": " + str(run.error) + ",\n";
  j += "  \"results\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Result& r = rows[i];
    j += std::string(i ? ",\n" : "\n") + "    {\"scope\": " + str(r.scope) + ", \"size\": " + std::to_string(r.size) +
         ", \"metric\": " + str(r.metric) + ", \"units\": " + str(r.units) +
         ", \"higher_is_better\": " + boolean(r.sign == '+') + ", \"value\": " + jsonNumber(r.value) +
         ", \"iters\": " + std::to_string(r.iters) + ", \"elapsed_ms\": " + jsonNumber(r.elapsedMs) + "}";
  }
  j += rows.empty() ? "]\n" : "\n  ]\n";
  j += "}\n";
  return j;
}

}  // namespace mori::perf
