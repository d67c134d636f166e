// Command line of mori-shmem-perf: the test table (NVSHMEM perftest's names and conventions, each
// test's defaults), argument parsing and validation, and the size sweep. Host-only: no GPU, no
// MPI, so tests/host/perf checks it on the CPU.
//
//   mori-shmem-perf <test> [options]        or        mori-shmem-perf -T <test> [options]
//
// Options follow NVSHMEM perftest: -b/-e min/max bytes (K/M/G suffixes), -f step factor, -n
// iterations, -w warm-up iterations, -c CTAs, -t threads per CTA, -s thread|warp|block|all,
// -a atomic op, -d datatype (reductions), --bidir, --msgrate; plus --json <file> and
// --no-verify. An option that a test does not use is an error, never ignored.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "tools/perf/perf_types.hpp"

namespace mori::perf {

// Every data buffer has this many bytes past the largest size; the benchmarks check that they
// stay untouched.
constexpr size_t kGuardBytes = 256;

// One row of the test table.
struct TestInfo {
  Test test;
  const char* name;  // NVSHMEM perftest's name
  Kind kind;
  bool scoped;      // -s picks thread / warp / block
  bool atomic;      // -a picks the operation
  bool elements64;  // sizes are whole uint64_t elements (multiples of 8 bytes)
  bool bidir;       // --bidir allowed
  bool msgrate;     // --msgrate allowed
  Scope defaultScope;
  size_t minBytes, maxBytes;  // defaults of -b / -e
  int iters, warmup;          // defaults of -n / -w
  int ctas, threads;          // defaults of -c / -t
  const char* summary;
};

const std::vector<TestInfo>& testTable();
const TestInfo* findTest(const std::string& name);  // nullptr if unknown
const TestInfo& testInfo(Test t);

const char* scopeName(Scope s);
bool parseScope(const std::string& text, Scope* s);
const char* atomicOpName(AtomicOp op);
bool parseAtomicOp(const std::string& text, AtomicOp* op);
// Fetching operations return the old value (fetch_*, swap, compare_swap, fetch).
bool atomicFetches(AtomicOp op);

// Collective tests (Kind::Collective): which collective, and whether the host calls its
// _on_stream form (else a kernel calls the device form at the run's scopes). onStream is also
// true for shmem_put_on_stream_bw (host-enqueued puts: no -s, -t or -c).
Coll collOf(Test t);
bool onStream(Test t);
// Collectives that move data (all but barrier and sync).
bool collMovesData(Coll c);
const char* dataTypeName(DataType d);
bool parseDataType(const std::string& text, DataType* d);
size_t dataTypeBytes(DataType d);
// Bytes of one element of a collective test's data (reductions and reducescatter: -d; others: 8).
size_t elementBytes(Test t, DataType d);
// The byte count of each piece a PE contributes for a collective of `size` bytes per PE's
// destination over `npes` PEs (alltoall, fcollect: size / npes; broadcast, reduction: size;
// reducescatter: size / npes of the source's size), or 0
// when `size` does not divide into whole elements per piece.
size_t collectivePieceBytes(Test t, DataType d, size_t size, int npes);

struct Options {
  Test test = Test::PutBw;
  size_t minBytes = 0, maxBytes = 0;
  uint64_t stepFactor = 2;
  int iters = 0, warmup = 0;
  int ctas = 0, threads = 0;
  std::vector<Scope> scopes;  // in the order they run
  AtomicOp atomicOp = AtomicOp::Add;
  DataType dataType = DataType::Int32;  // reductions
  bool bidir = false;
  bool msgrate = false;
  bool verify = true;
  std::string jsonPath;     // empty: no JSON
  std::string commandLine;  // argv joined with spaces, for the record
};

struct ParseResult {
  enum class Action { Run, Help, List, Error };
  Action action = Action::Error;
  Options options;
  std::string error;  // Action::Error: what was wrong, naming the argument
};

ParseResult parseArgs(int argc, const char* const* argv);

// "8", "64K", "4m", "1G": a positive byte count with an optional binary K/M/G suffix.
bool parseSize(const std::string& text, size_t* bytes, std::string* error);

// The sizes a run covers: minBytes, minBytes * f, ... while <= maxBytes (barrier and sync: one
// row of size 0; shmem_init_time: none).
std::vector<size_t> sizeSweep(const Options& o);

// Threads per CTA and CTAs of the kernels of `scope`, given the GPU's wave width.
//   Bandwidth: -c CTAs of -t threads.  Latency / ping-pong / device collectives: one CTA of one
//   thread (thread scope), one wave (warp scope) or -t threads (block scope and the unscoped p /
//   atomic tests).
int threadsFor(const Options& o, Scope scope, int waveSize);
int ctasFor(const Options& o);

// Checks that depend on the GPU (wave width, largest block); empty if the options fit.
std::string checkAgainstDevice(const Options& o, int waveSize, int maxThreadsPerBlock);

// Checks of the job's PE count; empty if it fits. Collective tests run on any count from 2 (the
// world team; reductions up to kReduceExactPes, whose sums the check knows exactly), every other
// test on exactly 2 (PE 0 drives, PE 1 is the target).
std::string checkPeCount(const Options& o, int npes);

// Symmetric heap bytes a run needs (0 for shmem_init_time: the library's default is measured).
size_t heapBytesNeeded(const Options& o);

std::string usage(const char* program);
std::string testListing();

}  // namespace mori::perf
