// MORI_DMA_MODEL_ON_PES: the PEs whose GPU the DMA-engine model gives engines, as a
// comma-separated list of PE numbers (unset: every PE). Read by the model's plugin, which fails
// its open on the PEs not named, and by the tests that check what the runtime made of that.
// Host only; test-only, never installed.
#pragma once

#include <stdlib.h>

namespace mori::test::dma {

// Whether `list` names `pe`. *valid: whether `list` is such a list (a number >= 0 between
// commas, none empty); false also answers false.
inline bool listNamesPe(const char* list, int pe, bool* valid) {
  bool named = false;
  *valid = false;
  for (const char* p = list;; ++p) {
    char* end = nullptr;
    const long v = strtol(p, &end, 10);
    if (end == p || v < 0 || (*end != ',' && *end != '\0')) return false;
    named = named || v == pe;
    p = end;
    if (*p == '\0') break;
  }
  *valid = true;
  return named;
}

}  // namespace mori::test::dma
