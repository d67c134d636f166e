// mori-shmem-perf (and mori-shmem-perf-nvshmem, the same source over NVSHMEM): NVSHMEM perftest's
// point-to-point and collective benchmarks and the library's init time under mpirun: exactly 2
// PEs, or any count from 2 for the collectives (checkPeCount).
//
//   mpirun -np 2 mori-shmem-perf shmem_put_bw -s block -c 132 -t 1024 -b 1M -e 1G --json put.json
//
// Exit status: 0 ok, 1 verification failed, 2 bad arguments or job shape, 3 a GPU or library call
// failed (the job is aborted).
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/perf/harness.hpp"

namespace mori::perf {
namespace {

// Agrees over PEs on whether any PE found a problem; PE 0 (or the PE that found it) prints it.
bool agreeOnError(MPI_Comm comm, int pe, const std::string& error) {
  const int mine = error.empty() ? 0 : 1;
  int any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  if (mine) fprintf(stderr, "mori-shmem-perf: PE %d: %s\n", pe, error.c_str());
  return any != 0;
}

int runTool(const Options& o, MPI_Comm comm) {
  Session s(o, comm);
  const TestInfo& t = testInfo(o.test);
  if (agreeOnError(comm, s.pe(), checkAgainstDevice(o, s.waveSize(), s.maxThreadsPerBlock()))) return kExitUsage;

  RunInfo run;
  run.backend = backend::name();
  run.device = s.deviceName();
  run.npes = s.npes();
  run.options = o;
  std::string envError;
  if (agreeOnError(comm, s.pe(), backend::prepareEnvironment(&envError) ? "" : envError)) return kExitUsage;

  const char* heapVar = backend::heapSizeVariable();
  const size_t heap = heapBytesNeeded(o);
  if (heap && !getenv(heapVar)) {
    const std::string value = std::to_string((heap + (1u << 20) - 1) >> 20) + "M";
    if (setenv(heapVar, value.c_str(), 1) != 0)
      fatal("setenv(%s=%s) failed: %s", heapVar, value.c_str(), strerror(errno));
  }
  for (const char* var :
       {heapVar, "NVSHMEM_DISABLE_NVLS", "NCCL_NVLS_ENABLE", "MORI_SHMEM_TRANSPORT", "MORI_SHMEM_COLLECTIVE_ENTRY"})
    if (getenv(var)) run.environment.emplace_back(var, getenv(var));

  if (o.test != Test::InitTime) s.initBackend();
  // Context creation and init are timed by shmem_init_time itself.
  if (s.pe() == 0) {
    printf("# %s\n# backend %s, %d PEs, %s (wave %d), heap %s=%s%s\n", o.commandLine.c_str(), run.backend.c_str(),
           s.npes(), s.deviceName().c_str(), s.waveSize(), heapVar, getenv(heapVar) ? getenv(heapVar) : "(default)",
           o.verify ? ", verifying data" : ", NOT verifying data (--no-verify)");
    fflush(stdout);
  }
  switch (o.test) {
    case Test::PutBw:
    case Test::GetBw:
    case Test::PutLatency:
    case Test::GetLatency:
    case Test::PutOnStreamBw: runRma(s); break;
    case Test::PBw:
    case Test::PLatency: runP(s); break;
    case Test::AtomicBw:
    case Test::AtomicLatency: runAtomic(s); break;
    case Test::PutPingPongLatency:
    case Test::PutSignalPingPongLatency: runPingPong(s); break;
    case Test::InitTime: runInitTime(s); break;
    case Test::AlltoallLatency:
    case Test::BcastLatency:
    case Test::FcollectLatency:
    case Test::ReductionLatency:
    case Test::ReducescatterLatency:
    case Test::BarrierLatency:
    case Test::SyncLatency:
    case Test::AlltoallOnStream:
    case Test::BroadcastOnStream:
    case Test::FcollectOnStream:
    case Test::ReductionOnStream:
    case Test::ReducescatterOnStream:
    case Test::BarrierOnStream:
    case Test::SyncOnStream: runCollective(s); break;
  }
  run.backendVersion = backend::version();
  if (!s.failure().empty()) {
    run.status = "verify_failed";
    run.error = s.failure();
  }
  int code = s.failure().empty() ? kExitOk : kExitVerifyFailed;
  if (s.pe() == 0 && !o.jsonPath.empty()) {
    FILE* f = fopen(o.jsonPath.c_str(), "w");
    const std::string json = toJson(run, s.results());
    if (!f || fwrite(json.data(), 1, json.size(), f) != json.size() || fclose(f) != 0) {
      fprintf(stderr, "mori-shmem-perf: PE 0: writing %s failed: %s\n", o.jsonPath.c_str(), strerror(errno));
      code = kExitRuntime;
    }
  }
  if (s.pe() == 0 && code == kExitVerifyFailed)
    fprintf(stderr, "mori-shmem-perf: %s: data verification FAILED: %s\n", t.name, s.failure().c_str());
  return code;
}

}  // namespace
}  // namespace mori::perf

int main(int argc, char** argv) {
  using namespace mori::perf;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const ParseResult parsed = parseArgs(argc, argv);
  int code = kExitOk;
  switch (parsed.action) {
    case ParseResult::Action::Help:
      if (rank == 0) fputs(usage(argv[0]).c_str(), stdout);
      break;
    case ParseResult::Action::List:
      if (rank == 0) fputs(testListing().c_str(), stdout);
      break;
    case ParseResult::Action::Error:
      if (rank == 0) fprintf(stderr, "mori-shmem-perf: %s\n", parsed.error.c_str());
      code = kExitUsage;
      break;
    case ParseResult::Action::Run:
      if (const std::string e = checkPeCount(parsed.options, size); !e.empty()) {
        if (rank == 0) fprintf(stderr, "mori-shmem-perf: %s\n", e.c_str());
        code = kExitUsage;
        break;
      }
      code = runTool(parsed.options, MPI_COMM_WORLD);
      break;
  }
  fflush(stdout);
  MPI_Finalize();
  return code;
}
