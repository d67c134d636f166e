// Message helpers shared by the bootstrap implementations.
#pragma once

#include <stdarg.h>
#include <stdio.h>

#include <string>
#include <vector>

namespace mori::bootstrap {

inline std::string strprintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string strprintf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

// "PE 3" / "PEs 3, 5, 7" / "PEs 3, 5, ... and 120 more".
inline std::string peList(const std::vector<int>& pes, size_t maxShown = 32) {
  std::string s = pes.size() == 1 ? "PE " : "PEs ";
  for (size_t i = 0; i < pes.size() && i < maxShown; ++i) s += (i ? ", " : "") + std::to_string(pes[i]);
  if (pes.size() > maxShown) s += " and " + std::to_string(pes.size() - maxShown) + " more";
  return s;
}

}  // namespace mori::bootstrap
