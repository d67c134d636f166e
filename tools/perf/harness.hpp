// What every benchmark of mori-shmem-perf needs around its kernels: the MPI job (2 PEs, or more
// for the collectives, one GPU each), GPU selection and context, the library's unique-ID
// initialisation, symmetric buffers, GPU-event timing of one kernel, data generation and
// verification reduced over PEs, and the results (kept and printed by PE 0).
//
// Failures: a GPU or library call that fails stops the whole job at once (MPI_Abort, exit code 3)
// with the PE, the call, file:line and the runtime's message. A verification mismatch is a
// collective verdict: every PE learns it, PE 0 prints what was wrong (bytes, first index, PE), the
// sweep stops and the tool exits 1.
#pragma once

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "tools/perf/backend.hpp"
#include "tools/perf/perf_options.hpp"
#include "tools/perf/perf_report.hpp"

namespace mori::perf {

constexpr int kExitOk = 0;
constexpr int kExitVerifyFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRuntime = 3;

// Prints "mori-shmem-perf: PE <pe>: <message>" (plus the library's device-side error, if any) and
// aborts the MPI job with kExitRuntime.
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void checkHip(hipError_t e, const char* call, const char* file, int line);
#define MORI_PERF_HIP(call) ::mori::perf::checkHip((call), #call, __FILE__, __LINE__)

class Session {
 public:
  // Selects this PE's GPU (local rank; with fewer GPUs than PEs on the host, PEs share them
  // round-robin, which needs kernels of several processes to run at once: CUDA MPS on NVIDIA)
  // and creates its context; times that (contextSeconds()).
  Session(const Options& options, MPI_Comm comm);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Options& options() const { return opt_; }
  int pe() const { return pe_; }
  int npes() const { return npes_; }
  MPI_Comm comm() const { return comm_; }
  int waveSize() const { return waveSize_; }
  int maxThreadsPerBlock() const { return maxThreads_; }
  const std::string& deviceName() const { return deviceName_; }
  hipStream_t stream() const { return stream_; }
  double contextSeconds() const { return contextSeconds_; }

  // Unique-ID initialisation of the library; returns its wall time on this PE in seconds.
  double initBackend();
  bool backendInitialized() const { return initialized_; }

  void* allocSymmetric(size_t bytes, const char* what);
  void freeSymmetric(void* p);

  // Records the GPU events around `launch()` (one kernel) on stream(), waits, returns milliseconds.
  template <class Launch>
  double timeKernelMs(Launch&& launch) {
    MORI_PERF_HIP(hipEventRecord(start_, stream_));
    launch();
    MORI_PERF_HIP(hipGetLastError());
    MORI_PERF_HIP(hipEventRecord(stop_, stream_));
    sync("timed kernel");
    float ms = 0;
    MORI_PERF_HIP(hipEventElapsedTime(&ms, start_, stop_));
    return ms;
  }
  // Waits for stream(); a kernel error stops the job naming `what`.
  void sync(const char* what);
  // sync(), then the library's barrier_all: every PE arrives, every PE's operations are complete.
  void barrier(const char* what);

  // Seed of one (size, scope) step: every step writes fresh data, so stale bytes cannot pass.
  uint64_t seedFor(size_t bytes, Scope scope) const;

  // Fills p[0, n) with pattern bytes [first, first + n) of (seed, pe) on this PE's GPU.
  void fillPattern(void* p, size_t n, uint64_t seed, int pe, uint64_t first = 0);
  void fillWords(uint64_t* p, size_t n, uint64_t value);
  // Collective: PEs with check=true compare their region with pattern (seed, srcPe) from byte
  // `first`; mismatches are summed over PEs. False (and failure() set on every PE, reported by
  // PE 0) if any byte differs.
  bool checkPattern(bool check, const void* p, size_t n, uint64_t seed, int srcPe, uint64_t first,
                    const std::string& what);
  // Collective, as checkPattern: every word of p[0, n) must equal `expected`.
  bool checkWords(bool check, const uint64_t* p, size_t n, uint64_t expected, const std::string& what);
  // Collective: records a mismatch seen by some PEs (count > 0 on any PE) as a failure.
  bool agree(unsigned long long localBad, const std::string& what);
  // Collective, as agree, with this PE's first bad index (~0 when none) for the report.
  bool agreeMismatch(unsigned long long localBad, unsigned long long firstBad, const std::string& what);
  const std::string& failure() const { return failure_; }

  // Sum over PEs (rates of --bidir runs).
  double sumOverPes(double v);
  double maxOverPes(double v);

  // Results: PE 0 keeps them; print() writes the table and PERF lines of rows added since the last
  // print().
  void add(const Result& r);
  void print();
  const std::vector<Result>& results() const { return results_; }

 private:
  bool reduceMismatch(unsigned long long bad, unsigned long long firstBad, const std::string& what);

  const Options& opt_;
  MPI_Comm comm_;
  int pe_ = 0, npes_ = 0;
  int device_ = 0;
  int waveSize_ = 0, maxThreads_ = 0;
  std::string deviceName_;
  double contextSeconds_ = 0;
  bool initialized_ = false;
  hipStream_t stream_ = nullptr;
  hipEvent_t start_ = nullptr, stop_ = nullptr;
  unsigned long long* counters_ = nullptr;  // device: mismatch count, first bad index
  std::string failure_;
  std::vector<Result> results_;
  size_t printed_ = 0;
};

// The benchmarks (one file each); they add results to the session and stop at the first
// verification failure.
void runRma(Session& s);         // shmem_put_bw, shmem_get_bw, shmem_put_latency, shmem_get_latency,
                                 // shmem_put_on_stream_bw
void runP(Session& s);           // shmem_p_bw, shmem_p_latency
void runAtomic(Session& s);      // shmem_atomic_bw, shmem_atomic_latency
void runPingPong(Session& s);    // shmem_put_ping_pong_latency, shmem_put_signal_ping_pong_latency
void runInitTime(Session& s);    // shmem_init_time
void runCollective(Session& s);  // <coll>_latency (device forms), <coll>_on_stream

}  // namespace mori::perf
