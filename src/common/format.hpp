// printf into a std::string, for messages built in pieces before they are logged or returned.
#pragma once

#include <stdarg.h>
#include <stdio.h>

#include <string>

namespace mori {

// The formatted text, cut at 1023 bytes.
inline std::string strprintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string strprintf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

}  // namespace mori
