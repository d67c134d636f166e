#include "tools/perf/perf_options.hpp"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <limits>

#include "tools/perf/expected_data.hpp"

namespace mori::perf {
namespace {

constexpr size_t KiB = size_t{1} << 10;
constexpr size_t MiB = size_t{1} << 20;

const std::vector<TestInfo>& table() {
  // clang-format off
  static const std::vector<TestInfo> t = {
    // test, name, kind, scoped, atomic, elements64, bidir, msgrate, default scope,
    //   -b, -e, -n, -w, -c, -t, summary
    {Test::PutBw, "shmem_put_bw", Kind::Bandwidth, true, false, false, true, true, Scope::Block,
     1 * KiB, 64 * MiB, 20, 5, 32, 256,
     "putmem_nbi_<scope> from PE 0 to PE 1; each iteration moves <size> bytes split over the grid"},
    {Test::GetBw, "shmem_get_bw", Kind::Bandwidth, true, false, false, true, true, Scope::Block,
     1 * KiB, 64 * MiB, 20, 5, 32, 256,
     "getmem_nbi_<scope> by PE 0 from PE 1; each iteration moves <size> bytes split over the grid"},
    {Test::PutLatency, "shmem_put_latency", Kind::Latency, true, false, false, false, false, Scope::Thread,
     8, 64 * KiB, 1000, 100, 1, 256,
     "putmem_nbi_<scope> + quiet by one thread / wave / block of PE 0, per iteration"},
    {Test::GetLatency, "shmem_get_latency", Kind::Latency, true, false, false, false, false, Scope::Thread,
     8, 64 * KiB, 1000, 100, 1, 256,
     "blocking getmem_<scope> by one thread / wave / block of PE 0, per iteration"},
    {Test::PBw, "shmem_p_bw", Kind::Bandwidth, false, false, true, false, true, Scope::Thread,
     64 * KiB, 16 * MiB, 20, 5, 32, 256,
     "uint64_p by every thread of the grid; each iteration writes <size> bytes in 8-byte messages"},
    {Test::PLatency, "shmem_p_latency", Kind::Latency, false, false, true, false, false, Scope::Thread,
     8, 4 * KiB, 1000, 100, 1, 1,
     "uint64_p of <size> bytes by -t threads of one CTA, then quiet, per iteration"},
    {Test::AtomicBw, "shmem_atomic_bw", Kind::Bandwidth, false, true, true, false, true, Scope::Thread,
     64 * KiB, 16 * MiB, 20, 5, 32, 256,
     "uint64 atomic -a by every thread of the grid, one per 8-byte target word per iteration"},
    {Test::AtomicLatency, "shmem_atomic_latency", Kind::Latency, false, true, true, false, false, Scope::Thread,
     8, 4 * KiB, 1000, 100, 1, 1,
     "uint64 atomic -a on <size> bytes of words by -t threads of one CTA, then quiet, per iteration"},
    {Test::PutPingPongLatency, "shmem_put_ping_pong_latency", Kind::PingPong, true, false, false, false, false,
     Scope::Thread, 8, 64 * KiB, 1000, 100, 1, 256,
     "putmem_nbi_<scope> + fence + signal_op, answered by the peer; round trip per iteration"},
    {Test::PutSignalPingPongLatency, "shmem_put_signal_ping_pong_latency", Kind::PingPong, true, false, false, false,
     false, Scope::Thread, 8, 64 * KiB, 1000, 100, 1, 256,
     "putmem_signal_nbi_<scope>, answered by the peer; round trip per iteration"},
    {Test::InitTime, "shmem_init_time", Kind::Init, false, false, false, false, false, Scope::Thread,
     0, 0, 1, 0, 1, 1,
     "time of the library's unique-ID initialisation of 2 PEs (max over PEs), with and without GPU context creation"},
    // Collectives on the world team, called by every PE. <size>: the bytes that land in each PE's
    // dest per call (alltoall / fcollect: PEs x piece; broadcast, reduction: the whole message);
    // reducescatter: each PE's source (PEs x piece, each PE's dest a piece), as NVSHMEM counts it.
    {Test::AlltoallLatency, "alltoall_latency", Kind::Collective, true, false, true, false, false, Scope::Block,
     16, 1 * MiB, 1000, 100, 1, 256,
     "int64 alltoall_<scope> by one thread / wave / block of every PE, per call"},
    {Test::BcastLatency, "bcast_latency", Kind::Collective, true, false, true, false, false, Scope::Block,
     8, 1 * MiB, 1000, 100, 1, 256,
     "int64 broadcast_<scope> from PE 0 by one thread / wave / block of every PE, per call"},
    {Test::FcollectLatency, "fcollect_latency", Kind::Collective, true, false, true, false, false, Scope::Block,
     16, 1 * MiB, 1000, 100, 1, 256,
     "int64 fcollect_<scope> by one thread / wave / block of every PE, per call"},
    {Test::ReductionLatency, "reduction_latency", Kind::Collective, true, false, false, false, false, Scope::Block,
     4, 1 * MiB, 1000, 100, 1, 256,
     "<-d type>_sum_reduce_<scope> by one thread / wave / block of every PE, per call"},
    {Test::ReducescatterLatency, "reducescatter_latency", Kind::Collective, true, false, false, false, false,
     Scope::Block, 16, 1 * MiB, 1000, 100, 1, 256,
     "<-d type>_sum_reducescatter_<scope> by one thread / wave / block of every PE, per call"},
    {Test::BarrierLatency, "barrier_latency", Kind::Collective, true, false, false, false, false, Scope::Block,
     0, 0, 1000, 100, 1, 256,
     "barrier_<scope> (quiet + sync) by one thread / wave / block of every PE, per call"},
    {Test::SyncLatency, "sync_latency", Kind::Collective, true, false, false, false, false, Scope::Block,
     0, 0, 1000, 100, 1, 256,
     "team_sync_<scope> by one thread / wave / block of every PE, per call"},
    {Test::AlltoallOnStream, "alltoall_on_stream", Kind::Collective, false, false, true, false, false, Scope::Block,
     16, 1 * MiB, 200, 20, 1, 256,
     "int64 alltoall_on_stream enqueued by every PE's host, per call"},
    {Test::BroadcastOnStream, "broadcast_on_stream", Kind::Collective, false, false, true, false, false,
     Scope::Block, 8, 1 * MiB, 200, 20, 1, 256,
     "int64 broadcast_on_stream from PE 0 enqueued by every PE's host, per call"},
    {Test::FcollectOnStream, "fcollect_on_stream", Kind::Collective, false, false, true, false, false, Scope::Block,
     16, 1 * MiB, 200, 20, 1, 256,
     "int64 fcollect_on_stream enqueued by every PE's host, per call"},
    {Test::ReductionOnStream, "reduction_on_stream", Kind::Collective, false, false, false, false, false,
     Scope::Block, 4, 1 * MiB, 200, 20, 1, 256,
     "<-d type>_sum_reduce_on_stream enqueued by every PE's host, per call"},
    {Test::ReducescatterOnStream, "reducescatter_on_stream", Kind::Collective, false, false, false, false, false,
     Scope::Block, 16, 1 * MiB, 200, 20, 1, 256,
     "<-d type>_sum_reducescatter_on_stream enqueued by every PE's host, per call"},
    {Test::BarrierOnStream, "barrier_on_stream", Kind::Collective, false, false, false, false, false, Scope::Block,
     0, 0, 200, 20, 1, 256,
     "barrier_on_stream enqueued by every PE's host, per call"},
    {Test::SyncOnStream, "sync_on_stream", Kind::Collective, false, false, false, false, false, Scope::Block,
     0, 0, 200, 20, 1, 256,
     "team_sync_on_stream enqueued by every PE's host, per call"},
    // RMA from the host: no grid (-c, -t, -s do not apply); the library picks the copy engine or a kernel.
    {Test::PutOnStreamBw, "shmem_put_on_stream_bw", Kind::Bandwidth, false, false, false, false, false,
     Scope::Block, 64 * KiB, 256 * MiB, 20, 5, 1, 1,
     "putmem_on_stream from PE 0's host to PE 1, -n calls then one quiet_on_stream; <size> bytes per call"},
  };
  // clang-format on
  return t;
}

bool parseUnsigned(const std::string& text, uint64_t* v) {
  if (text.empty()) return false;
  uint64_t x = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (x > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    x = x * 10 + d;
  }
  *v = x;
  return true;
}

bool parseIntIn(const std::string& opt, const std::string& text, long lo, long hi, int* out, std::string* err) {
  uint64_t v = 0;
  if (!parseUnsigned(text, &v) || v < static_cast<uint64_t>(lo) || v > static_cast<uint64_t>(hi)) {
    *err = opt + " '" + text + "': expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

std::string quoteArg(const char* a) {
  std::string s(a);
  if (!s.empty() && s.find_first_of(" \t\"'\\$`") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string sizeText(size_t b) {
  if (b >= MiB && b % MiB == 0) return std::to_string(b / MiB) + "M";
  if (b >= KiB && b % KiB == 0) return std::to_string(b / KiB) + "K";
  return std::to_string(b);
}

}  // namespace

const std::vector<TestInfo>& testTable() { return table(); }

const TestInfo* findTest(const std::string& name) {
  for (const TestInfo& t : table())
    if (name == t.name) return &t;
  return nullptr;
}

const TestInfo& testInfo(Test t) {
  for (const TestInfo& i : table())
    if (i.test == t) return i;
  return table().front();  // unreachable: every Test has a row
}

const char* scopeName(Scope s) {
  switch (s) {
    case Scope::Thread: return "thread";
    case Scope::Warp: return "warp";
    case Scope::Block: return "block";
  }
  return "?";
}

bool parseScope(const std::string& text, Scope* s) {
  for (Scope c : {Scope::Thread, Scope::Warp, Scope::Block})
    if (text == scopeName(c)) {
      *s = c;
      return true;
    }
  return false;
}

namespace {
constexpr AtomicOp kAllOps[] = {AtomicOp::Inc,      AtomicOp::FetchInc, AtomicOp::Add,         AtomicOp::FetchAdd,
                                AtomicOp::Set,      AtomicOp::Swap,     AtomicOp::CompareSwap, AtomicOp::And,
                                AtomicOp::FetchAnd, AtomicOp::Or,       AtomicOp::FetchOr,     AtomicOp::Xor,
                                AtomicOp::FetchXor, AtomicOp::Fetch};
}

const char* atomicOpName(AtomicOp op) {
  switch (op) {
    case AtomicOp::Inc: return "inc";
    case AtomicOp::FetchInc: return "fetch_inc";
    case AtomicOp::Add: return "add";
    case AtomicOp::FetchAdd: return "fetch_add";
    case AtomicOp::Set: return "set";
    case AtomicOp::Swap: return "swap";
    case AtomicOp::CompareSwap: return "compare_swap";
    case AtomicOp::And: return "and";
    case AtomicOp::FetchAnd: return "fetch_and";
    case AtomicOp::Or: return "or";
    case AtomicOp::FetchOr: return "fetch_or";
    case AtomicOp::Xor: return "xor";
    case AtomicOp::FetchXor: return "fetch_xor";
    case AtomicOp::Fetch: return "fetch";
  }
  return "?";
}

bool parseAtomicOp(const std::string& text, AtomicOp* op) {
  for (AtomicOp c : kAllOps)
    if (text == atomicOpName(c)) {
      *op = c;
      return true;
    }
  return false;
}

bool atomicFetches(AtomicOp op) {
  switch (op) {
    case AtomicOp::Inc:
    case AtomicOp::Add:
    case AtomicOp::Set:
    case AtomicOp::And:
    case AtomicOp::Or:
    case AtomicOp::Xor: return false;
    default: return true;
  }
}

Coll collOf(Test t) {
  switch (t) {
    case Test::AlltoallLatency:
    case Test::AlltoallOnStream: return Coll::Alltoall;
    case Test::BcastLatency:
    case Test::BroadcastOnStream: return Coll::Broadcast;
    case Test::FcollectLatency:
    case Test::FcollectOnStream: return Coll::Fcollect;
    case Test::ReductionLatency:
    case Test::ReductionOnStream: return Coll::Reduction;
    case Test::ReducescatterLatency:
    case Test::ReducescatterOnStream: return Coll::Reducescatter;
    case Test::SyncLatency:
    case Test::SyncOnStream: return Coll::Sync;
    default: return Coll::Barrier;
  }
}

bool onStream(Test t) {
  switch (t) {
    case Test::AlltoallOnStream:
    case Test::BroadcastOnStream:
    case Test::FcollectOnStream:
    case Test::ReductionOnStream:
    case Test::ReducescatterOnStream:
    case Test::BarrierOnStream:
    case Test::SyncOnStream:
    case Test::PutOnStreamBw: return true;
    default: return false;
  }
}

bool collMovesData(Coll c) { return c != Coll::Barrier && c != Coll::Sync; }

namespace {
constexpr DataType kAllTypes[] = {DataType::Int32, DataType::Int64, DataType::Float, DataType::Bfloat16};
}

const char* dataTypeName(DataType d) {
  switch (d) {
    case DataType::Int32: return "int32";
    case DataType::Int64: return "int64";
    case DataType::Float: return "float";
    case DataType::Bfloat16: return "bfloat16";
  }
  return "?";
}

bool parseDataType(const std::string& text, DataType* d) {
  for (DataType c : kAllTypes)
    if (text == dataTypeName(c)) {
      *d = c;
      return true;
    }
  return false;
}

size_t dataTypeBytes(DataType d) {
  switch (d) {
    case DataType::Int32:
    case DataType::Float: return 4;
    case DataType::Int64: return 8;
    case DataType::Bfloat16: return 2;
  }
  return 1;
}

size_t elementBytes(Test t, DataType d) { return collReduces(collOf(t)) ? dataTypeBytes(d) : 8; }

size_t collectivePieceBytes(Test t, DataType d, size_t size, int npes) {
  const Coll c = collOf(t);
  const size_t elem = elementBytes(t, d);
  const bool split = c == Coll::Alltoall || c == Coll::Fcollect || c == Coll::Reducescatter;
  if (npes < 1 || (split && size % static_cast<size_t>(npes) != 0)) return 0;
  const size_t piece = split ? size / static_cast<size_t>(npes) : size;
  return piece % elem == 0 ? piece : 0;
}

bool parseSize(const std::string& text, size_t* bytes, std::string* error) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  uint64_t mult = 1;
  const std::string suffix = text.substr(digits);
  if (suffix == "k" || suffix == "K") {
    mult = KiB;
  } else if (suffix == "m" || suffix == "M") {
    mult = MiB;
  } else if (suffix == "g" || suffix == "G") {
    mult = size_t{1} << 30;
  } else if (!suffix.empty()) {
    *error = "bad size '" + text + "': expected a number with an optional K, M or G suffix";
    return false;
  }
  uint64_t v = 0;
  if (digits == 0 || !parseUnsigned(text.substr(0, digits), &v)) {
    *error = "bad size '" + text + "': expected a number with an optional K, M or G suffix";
    return false;
  }
  if (v == 0) {
    *error = "bad size '" + text + "': must be at least 1 byte";
    return false;
  }
  if (v > std::numeric_limits<size_t>::max() / mult) {
    *error = "bad size '" + text + "': too large";
    return false;
  }
  *bytes = static_cast<size_t>(v * mult);
  return true;
}

std::vector<size_t> sizeSweep(const Options& o) {
  std::vector<size_t> sizes;
  const TestInfo& t = testInfo(o.test);
  if (t.kind == Kind::Init) return sizes;
  if (t.kind == Kind::Collective && !collMovesData(collOf(o.test))) return {0};
  for (size_t s = o.minBytes; s <= o.maxBytes;) {
    sizes.push_back(s);
    if (s > o.maxBytes / o.stepFactor) break;  // s * f would pass max (or overflow)
    s *= o.stepFactor;
  }
  return sizes;
}

int threadsFor(const Options& o, Scope scope, int waveSize) {
  const TestInfo& t = testInfo(o.test);
  if (t.kind == Kind::Bandwidth || !t.scoped) return o.threads;
  switch (scope) {
    case Scope::Thread: return 1;
    case Scope::Warp: return waveSize;
    case Scope::Block: return o.threads;
  }
  return o.threads;
}

int ctasFor(const Options& o) { return testInfo(o.test).kind == Kind::Bandwidth ? o.ctas : 1; }

std::string checkAgainstDevice(const Options& o, int waveSize, int maxThreadsPerBlock) {
  const TestInfo& t = testInfo(o.test);
  if (t.kind == Kind::Init) return "";
  for (Scope s : o.scopes) {
    const int threads = threadsFor(o, s, waveSize);
    if (threads > maxThreadsPerBlock)
      return std::string("-t ") + std::to_string(threads) + ": the GPU runs at most " +
             std::to_string(maxThreadsPerBlock) + " threads per CTA";
    if (s == Scope::Warp && threads % waveSize != 0)
      return std::string("-t ") + std::to_string(threads) + " is not a multiple of the GPU's wave width " +
             std::to_string(waveSize) + " (warp scope needs whole waves)";
  }
  return "";
}

std::string checkPeCount(const Options& o, int npes) {
  const TestInfo& t = testInfo(o.test);
  if (t.kind != Kind::Collective) {
    if (npes == 2) return "";
    return std::string(t.name) + " runs with exactly 2 PEs (mpirun -np 2, one GPU each); this job has " +
           std::to_string(npes);
  }
  if (npes < 2) return std::string(t.name) + " runs with 2 PEs or more; this job has " + std::to_string(npes);
  if (collReduces(collOf(o.test)) && npes > kReduceExactPes)
    return std::string(t.name) + " checks exact sums of up to " + std::to_string(kReduceExactPes) +
           " PEs; this job has " + std::to_string(npes);
  return "";
}

size_t heapBytesNeeded(const Options& o) {
  const TestInfo& t = testInfo(o.test);
  if (t.kind == Kind::Init) return 0;
  const size_t buffer = o.maxBytes + kGuardBytes;
  const size_t buffers = t.atomic ? buffer : 2 * buffer;  // atomics: targets only; others: source + destination
  const size_t align = 2 * MiB;
  // 64 MiB on top for the library's own symmetric objects and per-allocation rounding.
  return (buffers + 4096 + align - 1) / align * align + 64 * MiB;
}

ParseResult parseArgs(int argc, const char* const* argv) {
  ParseResult r;
  Options& o = r.options;
  for (int i = 0; i < argc; ++i) {
    if (i) o.commandLine += ' ';
    o.commandLine += quoteArg(argv[i]);
  }
  auto fail = [&](const std::string& msg) {
    r.action = ParseResult::Action::Error;
    r.error = msg;
    return r;
  };

  std::string testName;
  bool haveB = false, haveE = false, haveF = false, haveN = false, haveW = false, haveC = false, haveT = false;
  bool haveS = false, haveA = false, haveD = false, haveNoVerify = false;
  std::string bText, eText, sText, aText, dText;
  size_t minB = 0, maxB = 0;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      r.action = ParseResult::Action::Help;
      return r;
    }
    if (arg == "--list") {
      r.action = ParseResult::Action::List;
      return r;
    }
    if (arg == "--bidir") {
      o.bidir = true;
      continue;
    }
    if (arg == "--msgrate" || arg == "--report_msgrate") {
      o.msgrate = true;
      continue;
    }
    if (arg == "--no-verify") {
      o.verify = false;
      haveNoVerify = true;
      continue;
    }
    if (arg.empty() || arg[0] != '-') {
      if (!testName.empty()) return fail("unexpected argument '" + arg + "' (the test is already " + testName + ")");
      testName = arg;
      continue;
    }
    // Options with a value: "-b 8", "-b8", "--min_size 8", "--min_size=8".
    std::string name = arg, value;
    bool inlineValue = false;
    if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-') {
      name = arg.substr(0, 2);
      value = arg.substr(2);
      inlineValue = true;
    } else if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      name = arg.substr(0, arg.find('='));
      value = arg.substr(arg.find('=') + 1);
      inlineValue = true;
    }
    static const char* const kValued[][2] = {
        {"-b", "--min_size"},        {"-e", "--max_size"},     {"-f", "--step"},
        {"-n", "--iters"},           {"-w", "--warmup_iters"}, {"-c", "--ctas"},
        {"-t", "--threads_per_cta"}, {"-s", "--scope"},        {"-a", "--atomic_op"},
        {"-d", "--datatype"},        {"-T", "--test"},         {"--json", "--json"}};
    char key = 0;
    for (const auto& v : kValued)
      if (name == v[0] || name == v[1]) key = v[0][1] == '-' ? 'j' : v[0][1];
    if (!key) return fail("unknown option '" + arg + "' (see --help)");
    if (!inlineValue) {
      if (i + 1 >= argc) return fail("option " + name + " needs a value");
      value = argv[++i];
    }
    std::string err;
    switch (key) {
      case 'b':
        if (!parseSize(value, &minB, &err)) return fail("-b: " + err);
        haveB = true;
        bText = value;
        break;
      case 'e':
        if (!parseSize(value, &maxB, &err)) return fail("-e: " + err);
        haveE = true;
        eText = value;
        break;
      case 'f': {
        int f = 0;
        if (!parseIntIn("-f", value, 2, 1 << 20, &f, &err)) return fail(err);
        o.stepFactor = static_cast<uint64_t>(f);
        haveF = true;
        break;
      }
      case 'n':
        if (!parseIntIn("-n", value, 1, 1 << 30, &o.iters, &err)) return fail(err);
        haveN = true;
        break;
      case 'w':
        if (!parseIntIn("-w", value, 0, 1 << 30, &o.warmup, &err)) return fail(err);
        haveW = true;
        break;
      case 'c':
        if (!parseIntIn("-c", value, 1, 1 << 20, &o.ctas, &err)) return fail(err);
        haveC = true;
        break;
      case 't':
        if (!parseIntIn("-t", value, 1, 1024, &o.threads, &err)) return fail(err);
        haveT = true;
        break;
      case 's':
        sText = value;
        haveS = true;
        break;
      case 'a':
        aText = value;
        haveA = true;
        break;
      case 'd':
        dText = value;
        haveD = true;
        break;
      case 'T':
        if (!testName.empty() && testName != value)
          return fail("two tests given: '" + testName + "' and '" + value + "'");
        testName = value;
        break;
      case 'j':
        if (value.empty()) return fail("--json needs a file name");
        o.jsonPath = value;
        break;
      default: return fail("unknown option '" + arg + "'");
    }
  }

  if (testName.empty()) return fail("no test given: name one as the first argument or with -T (see --list)");
  const TestInfo* t = findTest(testName);
  if (!t) return fail("unknown test '" + testName + "' (see --list)");
  o.test = t->test;
  const std::string tn = t->name;

  if (t->kind == Kind::Init) {
    const char* given = haveB          ? "-b"
                        : haveE        ? "-e"
                        : haveF        ? "-f"
                        : haveN        ? "-n"
                        : haveW        ? "-w"
                        : haveC        ? "-c"
                        : haveT        ? "-t"
                        : haveS        ? "-s"
                        : haveA        ? "-a"
                        : haveD        ? "-d"
                        : o.bidir      ? "--bidir"
                        : o.msgrate    ? "--msgrate"
                        : haveNoVerify ? "--no-verify"
                                       : nullptr;
    if (given) return fail(std::string(given) + " does not apply to " + tn + " (it times one initialisation)");
    o.iters = 1;
    o.warmup = 0;
    o.ctas = 1;
    o.threads = 1;
    o.scopes = {Scope::Thread};
    r.action = ParseResult::Action::Run;
    return r;
  }

  const bool collective = t->kind == Kind::Collective;
  if (haveD && !(collective && collReduces(collOf(t->test))))
    return fail("-d does not apply to " + tn + " (only to the reduction and reducescatter tests)");
  if (haveD && !parseDataType(dText, &o.dataType)) {
    std::string types;
    for (DataType d : kAllTypes) types += std::string(types.empty() ? "" : ", ") + dataTypeName(d);
    return fail("-d '" + dText + "': expected one of " + types);
  }
  if (collective && !collMovesData(collOf(t->test)) && (haveB || haveE || haveF))
    return fail(std::string(haveB   ? "-b"
                            : haveE ? "-e"
                                    : "-f") +
                " does not apply to " + tn + " (it moves no data: one row of size 0)");
  if (onStream(t->test) && haveS)
    return fail("-s does not apply to " + tn + ": the host enqueues it on a stream" +
                (collective ? " (the device forms are the *_latency tests)" : " (the device form is shmem_put_bw)"));
  if (onStream(t->test) && haveT)
    return fail("-t does not apply to " + tn + ": the library sizes the kernels of its stream operations");
  if (!collective && onStream(t->test) && haveC)
    return fail("-c does not apply to " + tn + ": the library sizes the kernels of its stream operations");

  o.minBytes = haveB ? minB : t->minBytes;
  o.maxBytes = haveE ? maxB : t->maxBytes;
  if (haveB && !haveE && o.maxBytes < o.minBytes) o.maxBytes = o.minBytes;  // "-b 1G" alone runs one size
  if (haveE && !haveB && o.minBytes > o.maxBytes) o.minBytes = o.maxBytes;
  if (o.minBytes > o.maxBytes)
    return fail("-b " + bText + " is larger than -e " + (haveE ? eText : sizeText(o.maxBytes)));
  if (t->elements64 && o.minBytes % 8 != 0)
    return fail("-b " + (haveB ? bText : sizeText(o.minBytes)) + ": " + tn +
                " moves whole 8-byte elements; sizes must be multiples of 8");
  if (collective && collReduces(collOf(t->test)) && o.minBytes % dataTypeBytes(o.dataType) != 0)
    return fail("-b " + (haveB ? bText : sizeText(o.minBytes)) + ": " + tn + " reduces whole " +
                dataTypeName(o.dataType) + " elements; sizes must be multiples of " +
                std::to_string(dataTypeBytes(o.dataType)));
  if (!haveN) o.iters = t->iters;
  if (!haveW) o.warmup = t->warmup;

  if (haveC && t->kind != Kind::Bandwidth)
    return fail("-c does not apply to " + tn + ": it runs one CTA (-c sets the grid of bandwidth tests)");
  o.ctas = haveC ? o.ctas : t->ctas;
  o.threads = haveT ? o.threads : t->threads;

  if (haveS && !t->scoped)
    return fail("-s does not apply to " + tn + ": every operation is issued by one thread (no scope to choose)");
  if (haveS) {
    if (sText == "all") {
      o.scopes = {Scope::Thread, Scope::Warp, Scope::Block};
    } else {
      Scope s;
      if (!parseScope(sText, &s)) return fail("-s '" + sText + "': expected thread, warp, block or all");
      o.scopes = {s};
    }
  } else {
    o.scopes = {t->defaultScope};
  }
  // Latency and ping-pong tests size their CTA by the scope; -t only sizes block scope there.
  if (haveT && t->scoped && t->kind != Kind::Bandwidth) {
    bool block = false;
    for (Scope s : o.scopes) block |= s == Scope::Block;
    if (!block)
      return fail("-t does not apply to " + tn + " with scope " + scopeName(o.scopes.front()) +
                  " (one thread or one wave runs it; -t sizes block scope)");
  }

  if (haveA && !t->atomic) return fail("-a does not apply to " + tn + " (only to shmem_atomic_bw / _latency)");
  if (haveA && !parseAtomicOp(aText, &o.atomicOp)) {
    std::string ops;
    for (AtomicOp op : kAllOps) ops += std::string(ops.empty() ? "" : ", ") + atomicOpName(op);
    return fail("-a '" + aText + "': expected one of " + ops);
  }
  if (o.bidir && !t->bidir) return fail("--bidir does not apply to " + tn + " (only to shmem_put_bw / shmem_get_bw)");
  if (o.msgrate && !t->msgrate) return fail("--msgrate does not apply to " + tn + " (only to bandwidth tests)");
  r.action = ParseResult::Action::Run;
  return r;
}

std::string testListing() {
  std::string s;
  for (const TestInfo& t : table()) {
    char line[512];
    snprintf(line, sizeof(line), "  %-36s %s\n", t.name, t.summary);
    s += line;
  }
  return s;
}

std::string usage(const char* program) {
  std::string u = std::string("usage: ") + program + " <test> [options]   (or -T <test>)\n\n" + "tests:\n" +
                  testListing() +
                  "\noptions (NVSHMEM perftest conventions; sizes take K/M/G suffixes):\n"
                  "  -b, --min_size <bytes>       smallest size\n"
                  "  -e, --max_size <bytes>       largest size\n"
                  "  -f, --step <factor>          size step factor (>= 2)\n"
                  "  -n, --iters <n>              timed iterations, all in one kernel\n"
                  "  -w, --warmup_iters <n>       warm-up iterations (a kernel of their own)\n"
                  "  -c, --ctas <n>               CTAs (bandwidth tests)\n"
                  "  -t, --threads_per_cta <n>    threads per CTA (bandwidth tests; block scope; p/atomic latency)\n"
                  "  -s, --scope <s>              thread | warp | block | all\n"
                  "  -a, --atomic_op <op>         inc fetch_inc add fetch_add set swap compare_swap and fetch_and\n"
                  "                               or fetch_or xor fetch_xor fetch\n"
                  "  -d, --datatype <type>        int32 int64 float bfloat16 (reductions, reducescatter; sum)\n"
                  "      --bidir                  both PEs drive at once (put/get bandwidth)\n"
                  "      --msgrate                also report operations per second\n"
                  "      --json <file>            write the results as JSON (PE 0)\n"
                  "      --no-verify              skip checking the moved data (checked by default)\n"
                  "      --list                   list the tests\n\n"
                  "Run with exactly 2 PEs, one GPU each (collective tests: 2 or more): mpirun -np 2 " +
                  program + " shmem_put_bw -c 132 -t 1024 -b 1M -e 1G\n";
  return u;
}

}  // namespace mori::perf
