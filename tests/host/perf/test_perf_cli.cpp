// mori-shmem-perf host logic on the CPU: argument parsing (valid and invalid), the size sweep,
// per-scope launch shapes, device-dependent checks, heap sizing, the work split of bandwidth
// kernels, the expected-data model, and the three output formats.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/perf/expected_data.hpp"
#include "tools/perf/perf_options.hpp"
#include "tools/perf/perf_report.hpp"
#include "tools/perf/work_split.hpp"

namespace mori::perf {
namespace {

ParseResult parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mori-shmem-perf");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return parseArgs(static_cast<int>(argv.size()), argv.data());
}

Options ok(std::vector<std::string> args) {
  ParseResult r = parse(args);
  EXPECT_EQ(r.action, ParseResult::Action::Run) << r.error;
  return r.options;
}

std::string error(std::vector<std::string> args) {
  ParseResult r = parse(args);
  EXPECT_EQ(r.action, ParseResult::Action::Error);
  return r.error;
}

constexpr size_t MiB = size_t{1} << 20;

// ---- sizes -------------------------------------------------------------------------------------

TEST(PerfSize, Suffixes) {
  size_t b = 0;
  std::string e;
  EXPECT_TRUE(parseSize("8", &b, &e));
  EXPECT_EQ(b, 8u);
  EXPECT_TRUE(parseSize("4k", &b, &e));
  EXPECT_EQ(b, 4096u);
  EXPECT_TRUE(parseSize("64M", &b, &e));
  EXPECT_EQ(b, 64 * MiB);
  EXPECT_TRUE(parseSize("1G", &b, &e));
  EXPECT_EQ(b, size_t{1} << 30);
  EXPECT_TRUE(parseSize("3g", &b, &e));
  EXPECT_EQ(b, size_t{3} << 30);
}

TEST(PerfSize, BadSizes) {
  size_t b = 0;
  std::string e;
  for (const char* bad :
       {"", "K", "4X", "4KB", "4MiB", "-4", "4.5M", "0", "0K", " 4", "4 ", "99999999999999999999", "17179869184G"}) {
    EXPECT_FALSE(parseSize(bad, &b, &e)) << "'" << bad << "' parsed as " << b;
    EXPECT_NE(e.find("bad size"), std::string::npos) << e;
  }
}

// ---- parsing -----------------------------------------------------------------------------------

TEST(PerfArgs, NvshmemStyleBandwidthRun) {
  Options o = ok({"shmem_put_bw", "-s", "block", "-c", "132", "-t", "1024", "-b",        "1M",     "-e",
                  "1G",           "-f", "2",     "-n", "50",  "-w", "5",    "--msgrate", "--json", "out.json"});
  EXPECT_EQ(o.test, mori::perf::Test::PutBw);
  EXPECT_EQ(o.minBytes, MiB);
  EXPECT_EQ(o.maxBytes, size_t{1} << 30);
  EXPECT_EQ(o.stepFactor, 2u);
  EXPECT_EQ(o.iters, 50);
  EXPECT_EQ(o.warmup, 5);
  EXPECT_EQ(o.ctas, 132);
  EXPECT_EQ(o.threads, 1024);
  ASSERT_EQ(o.scopes.size(), 1u);
  EXPECT_EQ(o.scopes[0], Scope::Block);
  EXPECT_TRUE(o.msgrate);
  EXPECT_FALSE(o.bidir);
  EXPECT_TRUE(o.verify);
  EXPECT_EQ(o.jsonPath, "out.json");
  EXPECT_EQ(o.commandLine.rfind("mori-shmem-perf shmem_put_bw -s block", 0), 0u) << o.commandLine;
}

TEST(PerfArgs, TestByFlagLongNamesAndInlineValues) {
  Options o = ok({"-T", "shmem_get_bw", "--scope=warp", "--ctas", "8", "--threads_per_cta=64", "-b4K", "-e", "16K",
                  "--iters", "3", "--warmup_iters", "0", "--bidir", "--no-verify"});
  EXPECT_EQ(o.test, mori::perf::Test::GetBw);
  EXPECT_EQ(o.scopes, std::vector<Scope>{Scope::Warp});
  EXPECT_EQ(o.ctas, 8);
  EXPECT_EQ(o.threads, 64);
  EXPECT_EQ(o.minBytes, 4096u);
  EXPECT_EQ(o.maxBytes, 16384u);
  EXPECT_EQ(o.iters, 3);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_TRUE(o.bidir);
  EXPECT_FALSE(o.verify);
  // -T and the positional name may both be given when they agree.
  EXPECT_EQ(ok({"shmem_get_bw", "-T", "shmem_get_bw"}).test, mori::perf::Test::GetBw);
}

TEST(PerfArgs, DefaultsComeFromTheTestTable) {
  for (const TestInfo& t : testTable()) {
    Options o = ok({t.name});
    EXPECT_EQ(o.test, t.test);
    if (t.kind == Kind::Init) continue;
    EXPECT_EQ(o.minBytes, t.minBytes) << t.name;
    EXPECT_EQ(o.maxBytes, t.maxBytes) << t.name;
    EXPECT_EQ(o.iters, t.iters) << t.name;
    EXPECT_EQ(o.warmup, t.warmup) << t.name;
    EXPECT_EQ(o.scopes, std::vector<Scope>{t.defaultScope}) << t.name;
    EXPECT_FALSE(sizeSweep(o).empty()) << t.name;
  }
  EXPECT_EQ(ok({"shmem_put_bw"}).scopes, std::vector<Scope>{Scope::Block});
  EXPECT_EQ(ok({"shmem_put_latency"}).scopes, std::vector<Scope>{Scope::Thread});
  EXPECT_EQ(ok({"shmem_atomic_bw"}).atomicOp, AtomicOp::Add);
}

TEST(PerfArgs, EveryNvshmemTestNameIsKnown) {
  for (const char* n : {"shmem_put_bw", "shmem_get_bw", "shmem_put_latency", "shmem_get_latency", "shmem_p_bw",
                        "shmem_p_latency", "shmem_atomic_bw", "shmem_atomic_latency", "shmem_put_ping_pong_latency",
                        "shmem_put_signal_ping_pong_latency", "shmem_init_time"}) {
    ASSERT_NE(findTest(n), nullptr) << n;
    EXPECT_STREQ(findTest(n)->name, n);
  }
}

TEST(PerfArgs, ScopeAllAndAtomicOps) {
  EXPECT_EQ(ok({"shmem_put_bw", "-s", "all"}).scopes, (std::vector<Scope>{Scope::Thread, Scope::Warp, Scope::Block}));
  for (const char* op : {"inc", "fetch_inc", "add", "fetch_add", "set", "swap", "compare_swap", "and", "fetch_and",
                         "or", "fetch_or", "xor", "fetch_xor", "fetch"}) {
    Options o = ok({"shmem_atomic_bw", "-a", op});
    EXPECT_STREQ(atomicOpName(o.atomicOp), op);
  }
  EXPECT_TRUE(atomicFetches(AtomicOp::FetchAdd));
  EXPECT_TRUE(atomicFetches(AtomicOp::Swap));
  EXPECT_TRUE(atomicFetches(AtomicOp::CompareSwap));
  EXPECT_TRUE(atomicFetches(AtomicOp::Fetch));
  EXPECT_FALSE(atomicFetches(AtomicOp::Add));
  EXPECT_FALSE(atomicFetches(AtomicOp::Set));
  EXPECT_FALSE(atomicFetches(AtomicOp::Xor));
}

TEST(PerfArgs, HelpAndList) {
  EXPECT_EQ(parse({"--help"}).action, ParseResult::Action::Help);
  EXPECT_EQ(parse({"shmem_put_bw", "-h"}).action, ParseResult::Action::Help);
  EXPECT_EQ(parse({"--list"}).action, ParseResult::Action::List);
  const std::string u = usage("mori-shmem-perf");
  for (const TestInfo& t : testTable()) EXPECT_NE(u.find(t.name), std::string::npos) << t.name;
}

TEST(PerfArgs, Errors) {
  EXPECT_NE(error({}).find("no test given"), std::string::npos);
  EXPECT_NE(error({"shmem_nonexistent_bw"}).find("unknown test 'shmem_nonexistent_bw'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "shmem_get_bw"}).find("unexpected argument 'shmem_get_bw'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-T", "shmem_get_bw"}).find("two tests given"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-b", "4X"}).find("-b: bad size '4X'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-e", "1T"}).find("-e: bad size '1T'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-b", "64M", "-e", "1M"}).find("-b 64M is larger than -e 1M"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "--frobnicate"}).find("unknown option '--frobnicate'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-x", "3"}).find("unknown option '-x'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-n"}).find("-n needs a value"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-n", "0"}).find("-n '0'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-n", "-5"}).find("-n '-5'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-n", "ten"}).find("-n 'ten'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-w", "-1"}).find("-w '-1'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-f", "1"}).find("-f '1'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-t", "2048"}).find("-t '2048'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-c", "0"}).find("-c '0'"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-s", "grid"}).find("-s 'grid'"), std::string::npos);
  EXPECT_NE(error({"shmem_atomic_bw", "-a", "multiply"}).find("-a 'multiply': expected one of inc"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "--json"}).find("--json needs a value"), std::string::npos);
}

TEST(PerfArgs, OptionsATestDoesNotUseAreErrors) {
  EXPECT_NE(error({"shmem_put_latency", "-c", "4"}).find("-c does not apply to shmem_put_latency"), std::string::npos);
  EXPECT_NE(error({"shmem_put_latency", "-t", "64"}).find("-t does not apply"), std::string::npos);
  EXPECT_EQ(ok({"shmem_put_latency", "-s", "block", "-t", "64"}).threads, 64);
  EXPECT_EQ(ok({"shmem_put_latency", "-s", "all", "-t", "64"}).threads, 64);
  EXPECT_NE(error({"shmem_p_bw", "-s", "warp"}).find("-s does not apply to shmem_p_bw"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-a", "add"}).find("-a does not apply to shmem_put_bw"), std::string::npos);
  EXPECT_NE(error({"shmem_put_latency", "--bidir"}).find("--bidir does not apply"), std::string::npos);
  EXPECT_NE(error({"shmem_p_bw", "--bidir"}).find("--bidir does not apply"), std::string::npos);
  EXPECT_NE(error({"shmem_put_signal_ping_pong_latency", "--msgrate"}).find("--msgrate does not apply"),
            std::string::npos);
  EXPECT_NE(error({"shmem_p_bw", "-b", "12"}).find("multiples of 8"), std::string::npos);
  EXPECT_NE(error({"shmem_atomic_latency", "-b", "4"}).find("multiples of 8"), std::string::npos);
  for (const char* opt : {"-b", "-e", "-n", "-w", "-c", "-t", "-f"})
    EXPECT_NE(error({"shmem_init_time", opt, "8"}).find(std::string(opt) + " does not apply to shmem_init_time"),
              std::string::npos)
        << opt;
  EXPECT_NE(error({"shmem_init_time", "--no-verify"}).find("--no-verify does not apply"), std::string::npos);
  EXPECT_EQ(ok({"shmem_init_time", "--json", "i.json"}).jsonPath, "i.json");
}

// ---- collectives ---------------------------------------------------------------------------------

TEST(PerfCollectives, NvshmemNamesFormsAndCollectives) {
  const struct {
    const char* name;
    Coll coll;
    bool stream;
  } tests[] = {{"alltoall_latency", Coll::Alltoall, false},
               {"bcast_latency", Coll::Broadcast, false},
               {"fcollect_latency", Coll::Fcollect, false},
               {"reduction_latency", Coll::Reduction, false},
               {"reducescatter_latency", Coll::Reducescatter, false},
               {"reducescatter_on_stream", Coll::Reducescatter, true},
               {"barrier_latency", Coll::Barrier, false},
               {"sync_latency", Coll::Sync, false},
               {"alltoall_on_stream", Coll::Alltoall, true},
               {"broadcast_on_stream", Coll::Broadcast, true},
               {"fcollect_on_stream", Coll::Fcollect, true},
               {"reduction_on_stream", Coll::Reduction, true},
               {"barrier_on_stream", Coll::Barrier, true},
               {"sync_on_stream", Coll::Sync, true}};
  for (const auto& c : tests) {
    const TestInfo* t = findTest(c.name);
    ASSERT_NE(t, nullptr) << c.name;
    EXPECT_EQ(t->kind, Kind::Collective) << c.name;
    EXPECT_EQ(collOf(t->test), c.coll) << c.name;
    EXPECT_EQ(onStream(t->test), c.stream) << c.name;
    EXPECT_EQ(t->scoped, !c.stream) << c.name;
    EXPECT_EQ(collMovesData(c.coll), c.coll != Coll::Barrier && c.coll != Coll::Sync) << c.name;
  }
}

TEST(PerfCollectives, ArgumentsAndShapes) {
  Options o = ok({"fcollect_latency", "-s", "all", "-t", "512", "-b", "16", "-e", "1M", "-f", "4"});
  EXPECT_EQ(o.scopes, (std::vector<Scope>{Scope::Thread, Scope::Warp, Scope::Block}));
  EXPECT_EQ(threadsFor(o, Scope::Thread, 32), 1);
  EXPECT_EQ(threadsFor(o, Scope::Warp, 64), 64);
  EXPECT_EQ(threadsFor(o, Scope::Block, 32), 512);
  EXPECT_EQ(ctasFor(o), 1);
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576}));
  // Barrier and sync: one row of size 0, and no size options.
  EXPECT_EQ(sizeSweep(ok({"barrier_latency", "-s", "all"})), std::vector<size_t>{0});
  EXPECT_EQ(sizeSweep(ok({"sync_on_stream", "-n", "50"})), std::vector<size_t>{0});
  for (const char* opt : {"-b", "-e", "-f"})
    EXPECT_NE(error({"sync_latency", opt, "8"}).find(std::string(opt) + " does not apply to sync_latency"),
              std::string::npos)
        << opt;
  // Stream forms take no scope and no thread count; the device forms take no CTA count.
  EXPECT_NE(error({"alltoall_on_stream", "-s", "block"}).find("-s does not apply to alltoall_on_stream"),
            std::string::npos);
  EXPECT_NE(error({"barrier_on_stream", "-t", "64"}).find("-t does not apply to barrier_on_stream"), std::string::npos);
  EXPECT_NE(error({"bcast_latency", "-c", "4"}).find("-c does not apply to bcast_latency"), std::string::npos);
  EXPECT_NE(error({"bcast_latency", "-s", "warp", "-t", "64"}).find("-t does not apply"), std::string::npos);
  EXPECT_NE(error({"alltoall_latency", "--msgrate"}).find("--msgrate does not apply"), std::string::npos);
  // 64-bit elements, except the reductions' -d type.
  EXPECT_NE(error({"bcast_latency", "-b", "12"}).find("multiples of 8"), std::string::npos);
  EXPECT_EQ(ok({"reduction_latency", "-b", "4"}).dataType, DataType::Int32);
  EXPECT_EQ(ok({"reduction_latency", "-d", "bfloat16", "-b", "2"}).minBytes, 2u);
  EXPECT_NE(error({"reduction_latency", "-d", "float", "-b", "6"}).find("multiples of 4"), std::string::npos);
  EXPECT_NE(error({"reduction_on_stream", "-d", "int64", "-b", "4"}).find("multiples of 8"), std::string::npos);
  EXPECT_NE(error({"reduction_latency", "-d", "complex"}).find("-d 'complex': expected one of int32, int64"),
            std::string::npos);
  EXPECT_NE(error({"fcollect_latency", "-d", "float"}).find("-d does not apply to fcollect_latency"),
            std::string::npos);
  // reducescatter: the -d type, and <size> is the source's, split into a piece per PE.
  EXPECT_EQ(ok({"reducescatter_latency", "-d", "int64", "-b", "16"}).dataType, DataType::Int64);
  EXPECT_NE(error({"reducescatter_on_stream", "-d", "float", "-b", "6"}).find("multiples of 4"), std::string::npos);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::ReducescatterLatency, DataType::Float, 64, 4), 16u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::ReducescatterOnStream, DataType::Bfloat16, 12, 4),
            0u);  // 3 bytes a piece
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::ReductionLatency, DataType::Float, 64, 4), 64u);
  EXPECT_EQ(checkPeCount(ok({"reducescatter_latency"}), 2), "");
  EXPECT_NE(checkPeCount(ok({"reducescatter_latency"}), 64).find("exact sums"), std::string::npos);
  EXPECT_NE(error({"shmem_put_bw", "-d", "float"}).find("-d does not apply"), std::string::npos);
  EXPECT_NE(error({"shmem_init_time", "-d", "float"}).find("-d does not apply to shmem_init_time"), std::string::npos);
  for (const char* d : {"int32", "int64", "float", "bfloat16"}) {
    Options r = ok({"reduction_on_stream", "-d", d, "-b", "8"});
    EXPECT_STREQ(dataTypeName(r.dataType), d);
    EXPECT_EQ(elementBytes(r.test, r.dataType), dataTypeBytes(r.dataType));
    EXPECT_EQ(seriesName(r), std::string("reduction_on_stream_") + d + "_sum");
  }
  EXPECT_EQ(elementBytes(mori::perf::Test::AlltoallLatency, DataType::Bfloat16), 8u);
}

TEST(PerfArgs, PutOnStreamBw) {
  // The host's stream-ordered put: a bandwidth test without a grid, scope, message rate or --bidir.
  const TestInfo* t = findTest("shmem_put_on_stream_bw");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->test, mori::perf::Test::PutOnStreamBw);
  EXPECT_EQ(t->kind, Kind::Bandwidth);
  EXPECT_TRUE(onStream(t->test));
  EXPECT_FALSE(t->scoped);
  Options o = ok({"shmem_put_on_stream_bw"});
  EXPECT_EQ(o.minBytes, size_t{64} << 10);
  EXPECT_EQ(o.maxBytes, size_t{256} << 20);
  EXPECT_EQ(seriesName(o), "shmem_put_on_stream_bw");
  // The standard.list row.
  o = ok({"shmem_put_on_stream_bw", "-b", "64M", "-e", "256M", "-f", "4", "-n", "20", "-w", "2"});
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{size_t{64} << 20, size_t{256} << 20}));
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.warmup, 2);
  EXPECT_GE(heapBytesNeeded(o), 2 * ((size_t{256} << 20) + kGuardBytes));
  EXPECT_EQ(sizeSweep(ok({"shmem_put_on_stream_bw", "-b", "3", "-e", "100", "-f", "4"})),
            (std::vector<size_t>{3, 12, 48}));
  // Bad inputs name the option and the test.
  EXPECT_NE(error({"shmem_put_on_stream_bw", "-s", "block"}).find("-s does not apply to shmem_put_on_stream_bw"),
            std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "-t", "64"}).find("-t does not apply to shmem_put_on_stream_bw"),
            std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "-c", "4"}).find("-c does not apply to shmem_put_on_stream_bw"),
            std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "--bidir"}).find("--bidir does not apply"), std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "--msgrate"}).find("--msgrate does not apply"), std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "-a", "add"}).find("-a does not apply"), std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "-d", "float"}).find("-d does not apply"), std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "-b", "1G", "-e", "1M"}).find("-b 1G is larger than -e 1M"),
            std::string::npos);
  EXPECT_NE(error({"shmem_put_on_stream_bw", "-n", "0"}).find("-n '0'"), std::string::npos);
  EXPECT_NE(testListing().find("shmem_put_on_stream_bw"), std::string::npos);
}

TEST(PerfCollectives, PieceBytes) {
  // alltoall / fcollect: <size> is what lands in each PE, PEs x piece; broadcast / reduction: all of it.
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::AlltoallLatency, DataType::Int32, 1024, 2), 512u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::FcollectOnStream, DataType::Int32, 48, 3), 16u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::FcollectOnStream, DataType::Int32, 48, 4), 0u);  // 12-byte pieces
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::AlltoallLatency, DataType::Int32, 24, 2), 0u);   // 12-byte pieces
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::AlltoallLatency, DataType::Int32, 17, 2), 0u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::BcastLatency, DataType::Int32, 24, 2), 24u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::BcastLatency, DataType::Int32, 20, 2), 0u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::ReductionLatency, DataType::Bfloat16, 6, 2), 6u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::ReductionLatency, DataType::Int64, 12, 2), 0u);
  EXPECT_EQ(collectivePieceBytes(mori::perf::Test::ReductionLatency, DataType::Int64, 16, 0), 0u);
}

TEST(PerfCollectives, ReductionSourcesSumExactly) {
  // Every element is an integer in [-64, 63]; kReduceExactPes of them sum within bfloat16's exact
  // integers (|x| <= 256), so the expected result is the integer sum in every -d type.
  std::set<int> seen;
  for (int pe = 0; pe < kReduceExactPes; ++pe)
    for (uint64_t i = 0; i < 20000; ++i) {
      const int v = reduceValue(patternKey(0x1234, pe), i);
      ASSERT_GE(v, -64);
      ASSERT_LE(v, 63);
      seen.insert(v);
    }
  EXPECT_EQ(seen.size(), 128u);  // the whole range occurs
  EXPECT_LE(kReduceExactPes * 64, 256);
  int differ = 0;
  for (uint64_t i = 0; i < 64; ++i) differ += reduceValue(patternKey(1, 0), i) != reduceValue(patternKey(1, 1), i);
  EXPECT_GT(differ, 32);  // PEs' sources differ
}

TEST(PerfArgs, OneSidedRangeRunsOneSize) {
  Options o = ok({"shmem_put_bw", "-b", "1G"});
  EXPECT_EQ(sizeSweep(o), std::vector<size_t>{size_t{1} << 30});
  o = ok({"shmem_put_latency", "-e", "4"});
  EXPECT_EQ(sizeSweep(o), std::vector<size_t>{4});
}

// Every run of tools/perf/standard.list (run_benchmarks.sh's set) is a valid command line, and each
// fits the GPUs of the 2xH200 machine (heap per PE well under 141 GB). Its collective runs also
// run at 4 and 8 PEs (MORI_PERF_NP): every size splits into whole elements per PE there.
TEST(PerfArgs, StandardListParses) {
  const char* path = getenv("MORI_PERF_LIST");
  if (!path) GTEST_SKIP() << "MORI_PERF_LIST is not set (ctest sets it to tools/perf/standard.list)";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot read " << path;
  std::string line;
  int runs = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string id;
    if (!(words >> id) || id[0] == '#' || id[0] == '@') continue;
    std::vector<std::string> args;
    for (std::string w; words >> w;) args.push_back(w);
    args.push_back("--json");
    args.push_back("x.json");
    ParseResult r = parse(args);
    EXPECT_EQ(r.action, ParseResult::Action::Run) << id << ": " << r.error;
    EXPECT_LT(heapBytesNeeded(r.options), size_t{8} << 30) << id;
    EXPECT_EQ(checkAgainstDevice(r.options, 32, 1024), "") << id;
    const auto t = r.options.test;
    if (testInfo(t).kind == Kind::Collective && collMovesData(collOf(t))) {
      for (int npes : {2, 4, 8}) {
        for (size_t bytes : sizeSweep(r.options)) {
          EXPECT_NE(collectivePieceBytes(t, r.options.dataType, bytes, npes), 0u)
              << id << ": " << bytes << " bytes at " << npes << " PEs";
        }
      }
    }
    ++runs;
  }
  EXPECT_GE(runs, 10);
}

// ---- sweep, shapes, checks -----------------------------------------------------------------------

TEST(PerfSweep, Steps) {
  Options o = ok({"shmem_put_bw", "-b", "1M", "-e", "1G"});
  std::vector<size_t> s = sizeSweep(o);
  ASSERT_EQ(s.size(), 11u);
  EXPECT_EQ(s.front(), MiB);
  EXPECT_EQ(s.back(), size_t{1} << 30);
  o = ok({"shmem_put_bw", "-b", "8", "-e", "256", "-f", "32"});
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{8, 256}));
  o = ok({"shmem_put_bw", "-b", "3", "-e", "100", "-f", "4"});
  EXPECT_EQ(sizeSweep(o), (std::vector<size_t>{3, 12, 48}));
  // No overflow near the top of size_t.
  o = ok({"shmem_put_bw", "-b", "8G", "-e", "17179869183G", "-f", "1048576"});
  s = sizeSweep(o);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1], (size_t{8} << 30) * 1048576);
}

TEST(PerfShape, ThreadsAndCtas) {
  Options bw = ok({"shmem_put_bw", "-s", "all", "-c", "132", "-t", "1024"});
  for (Scope s : bw.scopes) EXPECT_EQ(threadsFor(bw, s, 32), 1024);
  EXPECT_EQ(ctasFor(bw), 132);
  Options lat = ok({"shmem_put_latency", "-s", "all", "-t", "512"});
  EXPECT_EQ(threadsFor(lat, Scope::Thread, 64), 1);
  EXPECT_EQ(threadsFor(lat, Scope::Warp, 64), 64);
  EXPECT_EQ(threadsFor(lat, Scope::Block, 64), 512);
  EXPECT_EQ(ctasFor(lat), 1);
  Options pl = ok({"shmem_p_latency", "-t", "128"});
  EXPECT_EQ(threadsFor(pl, Scope::Thread, 32), 128);
  EXPECT_EQ(ctasFor(pl), 1);
  Options pp = ok({"shmem_put_signal_ping_pong_latency", "-s", "warp"});
  EXPECT_EQ(threadsFor(pp, Scope::Warp, 32), 32);
}

TEST(PerfShape, DeviceChecks) {
  Options warp = ok({"shmem_put_bw", "-s", "warp", "-t", "96"});
  EXPECT_EQ(checkAgainstDevice(warp, 32, 1024), "");
  EXPECT_NE(checkAgainstDevice(warp, 64, 1024).find("not a multiple of the GPU's wave width 64"), std::string::npos);
  Options big = ok({"shmem_put_bw", "-t", "1024"});
  EXPECT_NE(checkAgainstDevice(big, 64, 512).find("at most 512 threads"), std::string::npos);
  Options lat = ok({"shmem_put_latency", "-s", "warp"});
  EXPECT_EQ(checkAgainstDevice(lat, 64, 1024), "");
}

TEST(PerfShape, PeCounts) {
  // Point-to-point and init: PE 0 drives PE 1, nothing else.
  for (const char* test :
       {"shmem_put_bw", "shmem_p_latency", "shmem_put_signal_ping_pong_latency", "shmem_init_time"}) {
    const Options o = ok({test});
    EXPECT_EQ(checkPeCount(o, 2), "") << test;
    for (int npes : {1, 3, 4})
      EXPECT_EQ(checkPeCount(o, npes), std::string(test) + " runs with exactly 2 PEs (mpirun -np 2, one GPU each); " +
                                           "this job has " + std::to_string(npes));
  }
  // Collectives: the world team of any count from 2.
  for (const char* test :
       {"alltoall_latency", "bcast_latency", "fcollect_on_stream", "barrier_latency", "sync_on_stream"}) {
    const Options o = ok({test});
    for (int npes : {2, 3, 4, 8, 64}) EXPECT_EQ(checkPeCount(o, npes), "") << test << " " << npes;
    EXPECT_EQ(checkPeCount(o, 1), std::string(test) + " runs with 2 PEs or more; this job has 1");
  }
  // Reductions: as many PEs as the check sums exactly.
  for (const char* test : {"reduction_latency", "reduction_on_stream"}) {
    const Options o = ok({test, "-d", "bfloat16"});
    EXPECT_EQ(checkPeCount(o, kReduceExactPes), "");
    EXPECT_EQ(checkPeCount(o, kReduceExactPes + 1),
              std::string(test) + " checks exact sums of up to 4 PEs; this job has 5");
  }
}

TEST(PerfShape, HeapCoversTheBuffers) {
  Options o = ok({"shmem_put_bw", "-b", "1M", "-e", "1G"});
  EXPECT_GE(heapBytesNeeded(o), 2 * ((size_t{1} << 30) + kGuardBytes) + 16 * MiB);
  EXPECT_EQ(heapBytesNeeded(o) % (2 * MiB), 0u);
  Options a = ok({"shmem_atomic_bw", "-b", "64M", "-e", "64M"});
  EXPECT_GE(heapBytesNeeded(a), 64 * MiB + kGuardBytes);
  EXPECT_LT(heapBytesNeeded(a), heapBytesNeeded(ok({"shmem_put_bw", "-b", "64M", "-e", "64M"})));
  EXPECT_EQ(heapBytesNeeded(ok({"shmem_init_time"})), 0u);
}

// ---- work split --------------------------------------------------------------------------------

TEST(PerfSplit, SharesCoverEveryByteOnceAndStayAligned) {
  for (size_t bytes : {size_t{1}, size_t{3}, size_t{8}, size_t{24}, size_t{1000}, size_t{4096}, MiB, 64 * MiB + 8}) {
    for (size_t units : {size_t{1}, size_t{7}, size_t{132}, size_t{4224}, size_t{135168}}) {
      size_t covered = 0, next = 0, nonEmpty = 0;
      for (size_t u = 0; u < units; ++u) {
        size_t begin = 0, len = 0;
        unitShare(bytes, units, u, &begin, &len);
        ASSERT_EQ(begin, next) << bytes << " bytes, " << units << " units, unit " << u;
        if (bytes % 16 == 0) {
          EXPECT_EQ(begin % 16, 0u);
        }
        next = begin + len;
        covered += len;
        nonEmpty += len != 0;
      }
      EXPECT_EQ(covered, bytes);
      EXPECT_EQ(nonEmpty, nonEmptyShares(bytes, units)) << bytes << " bytes, " << units << " units";
    }
  }
  // Block scope, 1 MiB over 132 CTAs: near-equal shares of 496 or 497 16-byte grains.
  size_t b = 0, l = 0;
  unitShare(MiB, 132, 0, &b, &l);
  EXPECT_TRUE(l == 496 * 16 || l == 497 * 16) << l;
}

// ---- expected data -----------------------------------------------------------------------------

TEST(PerfData, PatternBytesAreTheLittleEndianWordBytes) {
  const uint64_t key = patternKey(42, 1);
  for (uint64_t i = 0; i < 64; ++i) EXPECT_EQ(patternByte(key, i), (patternWord(key, i / 8) >> (8 * (i % 8))) & 0xff);
  // Different PEs, seeds and positions give different data.
  EXPECT_NE(patternKey(42, 0), patternKey(42, 1));
  EXPECT_NE(patternKey(42, 0), patternKey(43, 0));
  std::set<uint64_t> words;
  for (uint64_t w = 0; w < 1000; ++w) words.insert(patternWord(key, w));
  EXPECT_EQ(words.size(), 1000u);
}

TEST(PerfData, AtomicModelClosedForms) {
  EXPECT_EQ(amoExpected(AtomicOp::Inc, 220), 220u);
  EXPECT_EQ(amoExpected(AtomicOp::FetchInc, 5), 5u);
  uint64_t sum = 0;
  for (uint64_t k = 0; k < 221; ++k) sum += (k & 7) + 1;
  EXPECT_EQ(amoExpected(AtomicOp::Add, 221), sum);
  EXPECT_EQ(amoExpected(AtomicOp::FetchAdd, 221), sum);
  EXPECT_EQ(amoExpected(AtomicOp::Set, 37), 37u);
  EXPECT_EQ(amoExpected(AtomicOp::Swap, 37), 37u);
  EXPECT_EQ(amoExpected(AtomicOp::CompareSwap, 37), 37u);  // every compare_swap succeeds in order
  EXPECT_EQ(amoExpected(AtomicOp::And, 3), ~0ull & ~1ull & ~2ull & ~4ull);
  EXPECT_EQ(amoExpected(AtomicOp::And, 64), 0u);
  EXPECT_EQ(amoExpected(AtomicOp::Or, 2), (1ull << 0) | (1ull << 7));
  EXPECT_EQ(amoExpected(AtomicOp::Xor, 2), mix64(0) ^ mix64(1));
  EXPECT_EQ(amoExpected(AtomicOp::Fetch, 1000), amoInitial(AtomicOp::Fetch));
  // A compare_swap out of order fails and leaves the word alone.
  EXPECT_EQ(amoApply(AtomicOp::CompareSwap, 5, 7), 5u);
  // The fetch check: the old value seen by operation k is amoExpected(op, k).
  for (AtomicOp op : {AtomicOp::FetchAdd, AtomicOp::Swap, AtomicOp::CompareSwap, AtomicOp::FetchXor})
    EXPECT_EQ(amoApply(op, amoExpected(op, 10), 10), amoExpected(op, 11));
}

// ---- output formats ----------------------------------------------------------------------------

Result row(const char* scope, uint64_t size, const char* metric, const char* units, char sign, double v) {
  Result r;
  r.scope = scope;
  r.size = size;
  r.metric = metric;
  r.units = units;
  r.sign = sign;
  r.value = v;
  r.iters = 10;
  r.elapsedMs = 1.5;
  return r;
}

TEST(PerfOutput, PerfLinesMatchNvshmemPerftest) {
  EXPECT_EQ(formatPerfLine("shmem_put_bw", row("block", 1048576, "BW", "GB/sec", '+', 237.5)),
            "&&&& PERF shmem_put_bw___block___size__1048576___BW 237.500000 +GB/sec\n");
  EXPECT_EQ(formatPerfLine("shmem_put_signal_ping_pong_latency", row("thread", 8, "latency", "us", '-', 1.4)),
            "&&&& PERF shmem_put_signal_ping_pong_latency___thread___size__8___latency 1.400000 -us\n");
  EXPECT_EQ(formatPerfLine("shmem_p_bw", row("thread", 67108864, "msgrate", "Gops/s", '+', 46.25)),
            "&&&& PERF shmem_p_bw___thread___size__67108864___msgrate 46.250000 +Gops/s\n");
}

TEST(PerfOutput, TableGroupsEachSeries) {
  std::vector<Result> rows = {row("block", 1024, "BW", "GB/sec", '+', 1.0),
                              row("block", 1024, "msgrate", "Gops/s", '+', 2.0),
                              row("block", 2048, "BW", "GB/sec", '+', 3.0)};
  const std::string t = formatTable("shmem_put_bw", rows);
  EXPECT_EQ(t,
            "#shmem_put_bw\n"
            "size(B)     scope     BW (GB/sec)     \n"
            "1024        block     1.000000        \n"
            "2048        block     3.000000        \n"
            "#shmem_put_bw\n"
            "size(B)     scope     msgrate (Gops/s)\n"
            "1024        block     2.000000        \n");
  EXPECT_EQ(formatPerfLines("x", rows),
            formatPerfLine("x", rows[0]) + formatPerfLine("x", rows[1]) + formatPerfLine("x", rows[2]));
}

TEST(PerfOutput, SeriesNames) {
  EXPECT_EQ(seriesName(ok({"shmem_put_bw"})), "shmem_put_bw");
  EXPECT_EQ(seriesName(ok({"shmem_put_bw", "--bidir"})), "shmem_put_bw_bidir");
  EXPECT_EQ(seriesName(ok({"shmem_atomic_bw", "-a", "fetch_add"})), "shmem_atomic_bw_fetch_add");
}

TEST(PerfOutput, Units) {
  EXPECT_DOUBLE_EQ(bandwidthGBps(1u << 30, 50, 150.0), (1u << 30) * 50.0 / 0.150 / 1e9);
  EXPECT_DOUBLE_EQ(rateGops(135168, 100, 0.3), 135168 * 100.0 / 0.0003 / 1e9);
  EXPECT_DOUBLE_EQ(latencyUs(10000, 14.0), 1.4);
}

TEST(PerfOutput, Json) {
  EXPECT_EQ(jsonEscape("a\"b\\c\nd\te\x01"), "a\\\"b\\\\c\\nd\\te\\u0001");
  EXPECT_EQ(jsonNumber(1.5), "1.5");
  EXPECT_EQ(jsonNumber(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(jsonNumber(std::numeric_limits<double>::infinity()), "null");

  RunInfo run;
  run.backend = "mori-shmem";
  run.backendVersion = "0.1.0";
  run.device = "NVIDIA H200";
  run.npes = 2;
  run.options = ok({"shmem_put_bw", "-c", "132", "-t", "1024", "-b", "1M", "-e", "2M", "--json", "x \"y\".json"});
  run.environment = {{"MORI_SHMEM_HEAP_SIZE", "70M"}};
  const std::string j = toJson(run, {row("block", 1048576, "BW", "GB/sec", '+', 300.25)});
  for (const char* part :
       {"\"tool\": \"mori-shmem-perf\"", "\"backend\": \"mori-shmem\"", "\"backend_version\": \"0.1.0\"",
        "\"test\": \"shmem_put_bw\"", "\"series\": \"shmem_put_bw\"", "\"npes\": 2", "\"device\": \"NVIDIA H200\"",
        "\"min_bytes\": 1048576", "\"max_bytes\": 2097152", "\"ctas\": 132", "\"threads\": 1024",
        "\"scopes\": [\"block\"]", "\"atomic_op\": null", "\"bidir\": false", "\"verify\": true",
        "\"MORI_SHMEM_HEAP_SIZE\": \"70M\"", "\"status\": \"ok\"",
        "{\"scope\": \"block\", \"size\": 1048576, \"metric\": \"BW\", \"units\": \"GB/sec\", \"higher_is_better\": "
        "true, \"value\": 300.25, \"iters\": 10, \"elapsed_ms\": 1.5}",
        "x \\\"y\\\".json"})
    EXPECT_NE(j.find(part), std::string::npos) << part << "\n" << j;
  // Balanced braces and brackets outside strings: a cheap structural check.
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < j.size(); ++i) {
    if (inString) {
      if (j[i] == '\\')
        ++i;
      else if (j[i] == '"')
        inString = false;
      continue;
    }
    if (j[i] == '"') inString = true;
    if (j[i] == '{' || j[i] == '[') ++depth;
    if (j[i] == '}' || j[i] == ']') --depth;
    ASSERT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(inString);

  RunInfo init;
  init.options = ok({"shmem_init_time"});
  init.status = "verify_failed";
  init.error = "x";
  const std::string ji = toJson(init, {});
  EXPECT_NE(ji.find("\"config\": {}"), std::string::npos) << ji;
  EXPECT_NE(ji.find("\"results\": []"), std::string::npos) << ji;
  EXPECT_NE(ji.find("\"status\": \"verify_failed\""), std::string::npos) << ji;
}

}  // namespace
}  // namespace mori::perf
