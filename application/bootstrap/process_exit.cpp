#include "application/bootstrap/process_exit.hpp"

#include <stdio.h>
#include <unistd.h>

namespace mori::bootstrap {

void exitProcess(int status) {
  fflush(nullptr);
  _exit(status);
}

}  // namespace mori::bootstrap
