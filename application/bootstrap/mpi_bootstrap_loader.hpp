// Loading of the MPI bootstrap plugin (libmori_shmem_bootstrap_mpi.so) and the Bootstrap that
// wraps its ops table. createMpi() (bootstrap.hpp) is the entry point; these are for the
// selector and tests.
#pragma once

#include <stddef.h>

#include <string>

namespace mori::bootstrap {

// Loads the plugin once per process (next to libmori_shmem.so, found with dladdr, then by plain
// name through the loader's search path) and checks its interface version. false: *why says
// what failed. The plugin stays loaded until exit (it may have to finalise MPI then).
bool loadMpiPlugin(std::string* why);

// Path the plugin was loaded from ("" before a successful load).
std::string mpiPluginPath();

// Tests: split MPI messages above this many bytes (0: the plugin's default, 1 GiB), so that the
// paths for messages beyond MPI's int counts run with small buffers.
void setMpiMessageLimitForTesting(size_t bytes);

}  // namespace mori::bootstrap
