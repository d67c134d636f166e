// Message helpers of the bootstrap implementations (strprintf, shared by every layer, is in
// src/common/format.hpp).
#pragma once

#include <string>
#include <vector>

#include "src/common/format.hpp"  // strprintf

namespace mori::bootstrap {

// "PE 3" / "PEs 3, 5, 7" / "PEs 3, 5, ... and 120 more".
inline std::string peList(const std::vector<int>& pes, size_t maxShown = 32) {
  std::string s = pes.size() == 1 ? "PE " : "PEs ";
  for (size_t i = 0; i < pes.size() && i < maxShown; ++i) s += (i ? ", " : "") + std::to_string(pes[i]);
  if (pes.size() > maxShown) s += " and " + std::to_string(pes.size() - maxShown) + " more";
  return s;
}

}  // namespace mori::bootstrap
