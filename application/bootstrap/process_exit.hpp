// The end of a process in a global exit (Bootstrap::globalExit): the one place the bootstrap ends
// its own process. Flushes C stdio (std::cout and std::cerr write through it) and calls _exit: no
// atexit handler or static destructor runs, since the process's other threads (the
// application's, the GPU runtime's) may be anywhere, and a finaliser would wait for peers that are
// exiting too. The launcher sees the low 8 bits of `status`. Callers log why first.
#pragma once

namespace mori::bootstrap {

[[noreturn]] void exitProcess(int status);

}  // namespace mori::bootstrap
