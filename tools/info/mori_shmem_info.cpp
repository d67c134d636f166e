// mori-shmem-info: what the runtime sees on this machine. Without arguments: environment, GPUs,
// P2P matrix, RDMA devices, SDMA engines. Under mpirun (or with --pes) it also initialises and prints, per PE,
// the transport it uses for every peer. With no GPU it says so and exits 0.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "mori/shmem.h"

extern "C" int mori_shmemi_report(const char* section, char* buf, size_t len);

namespace {

std::string report(const char* section) {
  int n = mori_shmemi_report(section, nullptr, 0);
  if (n < 0) return std::string("(") + section + ": " + mori_shmem_status_string(n) + ")\n";
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  mori_shmemi_report(section, buf.data(), buf.size());
  return buf.data();
}

bool underLauncher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "WORLD_SIZE", "SLURM_NTASKS"})
    if (getenv(v)) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  bool pes = underLauncher();
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--pes")) {
      pes = true;
    } else {
      fprintf(stderr, "usage: %s [--pes]   (under mpirun/torchrun the per-PE transport table is printed)\n", argv[0]);
      return 2;
    }
  }
  const bool root = !pes || !getenv("OMPI_COMM_WORLD_RANK") || !strcmp(getenv("OMPI_COMM_WORLD_RANK"), "0");
  if (root) {
    printf("mori-shmem %d.%d.%d (%s)\n", MORI_SHMEM_VERSION_MAJOR, MORI_SHMEM_VERSION_MINOR, MORI_SHMEM_VERSION_PATCH,
           MORI_PLATFORM_NVIDIA ? "NVIDIA" : "AMD");
    printf("%s%s%s%s", report("env").c_str(), report("gpus").c_str(), report("rdma").c_str(), report("sdma").c_str());
    fflush(stdout);
  }
  if (!pes) return 0;
  if (mori_shmem_init() != 0) {
    fprintf(stderr, "mori-shmem-info: mori_shmem_init failed (see above)\n");
    return 1;
  }
  const int me = mori_shmem_my_pe(), n = mori_shmem_n_pes();
  if (me == 0) printf("transport per peer (PE: peer:transport ...):\n");
  for (int pe = 0; pe < n; ++pe) {
    fflush(stdout);
    mori_shmem_barrier_all();
    if (pe == me) printf("  %s", report("transports").c_str());
  }
  for (int pe = 0; pe < n; ++pe) {
    fflush(stdout);
    mori_shmem_barrier_all();
    if (pe == me) printf("  %s", report("sdma-queues").c_str());
  }
  fflush(stdout);
  mori_shmem_barrier_all();
  return mori_shmem_finalize() == 0 ? 0 : 1;
}
