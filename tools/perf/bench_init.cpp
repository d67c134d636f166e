// shmem_init_time: wall time of the library's initialisation of the 2 PEs through a unique ID
// (rank 0 creates it, MPI_Bcast shares it, every PE calls init), maximum over PEs:
//   init      the GPU context already exists (created and timed before, see Session)
//   init+ctx  the same plus this PE's GPU context creation (from its first GPU call)
// The library's default heap size is used (the tool sets none for this test). Afterwards a
// symmetric allocation and a barrier show that the initialised library works.
#include "tools/perf/harness.hpp"

namespace mori::perf {

void runInitTime(Session& s) {
  MPI_Barrier(s.comm());  // every PE starts its init together
  const double init = s.initBackend();
  void* probe = s.allocSymmetric(4096, "post-init probe");
  s.barrier("first barrier after init");
  s.freeSymmetric(probe);

  const double initMax = s.maxOverPes(init);
  const double withContextMax = s.maxOverPes(init + s.contextSeconds());
  const uint64_t pes = static_cast<uint64_t>(s.npes());
  s.add({"init", pes, metric::kInitTime, metric::kInitTimeUnits, '-', initMax, 1, initMax * 1e3});
  s.add({"init+ctx", pes, metric::kInitTime, metric::kInitTimeUnits, '-', withContextMax, 1, withContextMax * 1e3});
  s.print();
}

}  // namespace mori::perf
