// Error check for the micro-benchmarks: a failed GPU runtime call ends the program naming it.
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include "mori/platform/gpu_runtime.hpp"

#define MICRO_OK(x)                                                                      \
  do {                                                                                   \
    hipError_t e_ = (x);                                                                 \
    if (e_ != hipSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)
