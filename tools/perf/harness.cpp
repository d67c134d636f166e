#include "tools/perf/harness.hpp"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <chrono>

#include "tools/perf/kernel_util.hpp"

namespace mori::perf {
namespace {

int g_pe = -1;  // for fatal(), set as soon as MPI knows it

// Grid of the fill/check kernels: enough CTAs to cover HBM bandwidth, no more than the work.
void dataGrid(size_t n, unsigned* blocks, unsigned* threads) {
  *threads = 256;
  const size_t words = n / 8 + 1;
  size_t b = (words + *threads - 1) / *threads;
  *blocks = static_cast<unsigned>(b < 1 ? 1 : b > 2048 ? 2048 : b);
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// ---- data generation and checking -------------------------------------------------------------
// A buffer region holds pattern bytes [first, first + n) of a pattern key at p .. p + n (byte i at
// p + (i - first)). Whole pattern words are written and compared 8 bytes at a time when the region
// is 8-byte aligned with the pattern (always so for the benchmarks' buffers); the few bytes before
// the first and after the last whole word go byte by byte.

struct RegionSplit {
  uint64_t wordBegin, wordEnd;  // whole pattern words [wordBegin, wordEnd) (empty when equal)
  uint64_t headEnd;             // bytes [first, headEnd) precede the words
  uint64_t tailBegin;           // bytes [tailBegin, first + n) follow them
};

MORI_PERF_DEVICE RegionSplit splitRegion(const void* p, size_t n, uint64_t first) {
  RegionSplit r;
  const bool aligned = ((reinterpret_cast<uintptr_t>(p) - first) & 7) == 0;
  r.wordBegin = (first + 7) / 8;
  r.wordEnd = (first + n) / 8;
  if (!aligned || r.wordEnd <= r.wordBegin) {
    r.wordBegin = r.wordEnd = 0;
    r.headEnd = r.tailBegin = first + n;
  } else {
    r.headEnd = 8 * r.wordBegin;
    r.tailBegin = 8 * r.wordEnd;
  }
  return r;
}

__global__ void fillPatternKernel(uint8_t* p, size_t n, uint64_t key, uint64_t first) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t nth = gridDim.x * static_cast<size_t>(blockDim.x);
  const RegionSplit r = splitRegion(p, n, first);
  for (uint64_t k = r.wordBegin + tid; k < r.wordEnd; k += nth)
    *reinterpret_cast<uint64_t*>(p + (8 * k - first)) = patternWord(key, k);
  for (uint64_t i = first + tid; i < r.headEnd; i += nth) p[i - first] = patternByte(key, i);
  for (uint64_t i = r.tailBegin + tid; i < first + n; i += nth) p[i - first] = patternByte(key, i);
}

// counters[0] += mismatching bytes; counters[1] = min(counters[1], first mismatching index).
__global__ void checkPatternKernel(const uint8_t* p, size_t n, uint64_t key, uint64_t first,
                                   unsigned long long* counters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t nth = gridDim.x * static_cast<size_t>(blockDim.x);
  const RegionSplit r = splitRegion(p, n, first);
  unsigned long long bad = 0, firstBad = ~0ull;
  for (uint64_t k = r.wordBegin + tid; k < r.wordEnd; k += nth) {
    const uint64_t diff = *reinterpret_cast<const uint64_t*>(p + (8 * k - first)) ^ patternWord(key, k);
    if (diff == 0) continue;
    for (int b = 0; b < 8; ++b)
      if ((diff >> (8 * b)) & 0xff) {
        ++bad;
        firstBad = firstBad < 8 * k + b ? firstBad : 8 * k + b;
      }
  }
  for (int part = 0; part < 2; ++part) {
    const uint64_t from = part == 0 ? first : r.tailBegin, to = part == 0 ? r.headEnd : first + n;
    for (uint64_t i = from + tid; i < to; i += nth)
      if (p[i - first] != patternByte(key, i)) {
        ++bad;
        firstBad = firstBad < i ? firstBad : i;
      }
  }
  if (bad) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], firstBad);
  }
}

// counters[0] += words of dst[0, n) that differ from `expected`; counters[1] = first such index.
__global__ void checkWordsKernel(const uint64_t* dst, size_t n, uint64_t expected, unsigned long long* counters) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t nth = gridDim.x * static_cast<size_t>(blockDim.x);
  unsigned long long bad = 0, firstBad = ~0ull;
  for (size_t i = tid; i < n; i += nth)
    if (dst[i] != expected) {
      ++bad;
      firstBad = firstBad < i ? firstBad : i;
    }
  if (bad) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], firstBad);
  }
}

__global__ void fillWordsKernel(uint64_t* dst, size_t n, uint64_t value) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t nth = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = tid; i < n; i += nth) dst[i] = value;
}

}  // namespace

void fatal(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "mori-shmem-perf: PE %d: %s\n", g_pe, msg);
  std::string deviceError;
  if (backend::deviceError(&deviceError))
    fprintf(stderr, "mori-shmem-perf: PE %d: %s device-side error: %s\n", g_pe, backend::name(), deviceError.c_str());
  fflush(stderr);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, kExitRuntime);
  abort();  // MPI_Abort does not return; keeps [[noreturn]] honest if it ever does
}

void checkHip(hipError_t e, const char* call, const char* file, int line) {
  if (e != hipSuccess) fatal("%s failed at %s:%d: %s (%s)", call, file, line, hipGetErrorName(e), hipGetErrorString(e));
}

Session::Session(const Options& options, MPI_Comm comm) : opt_(options), comm_(comm) {
  MPI_Comm_rank(comm_, &pe_);
  MPI_Comm_size(comm_, &npes_);
  g_pe = pe_;
  MPI_Comm local;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, pe_, MPI_INFO_NULL, &local);
  int localRank = 0, localSize = 1;
  MPI_Comm_rank(local, &localRank);
  MPI_Comm_size(local, &localSize);
  MPI_Comm_free(&local);

  // Context creation, timed from the first GPU call (driver initialisation included).
  MPI_Barrier(comm_);
  const auto t0 = std::chrono::steady_clock::now();
  int count = 0;
  MORI_PERF_HIP(hipGetDeviceCount(&count));
  if (count < 1) fatal("no GPU is visible");
  device_ = localRank % count;
  MORI_PERF_HIP(hipSetDevice(device_));
  if (count < localSize) {
    // Spin-waits between processes that share a GPU end only if their kernels run at once.
#if MORI_PLATFORM_NVIDIA
    int mps = 0;
    MORI_PERF_HIP(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, device_));
    if (!mps)
      fatal(
          "%d PEs run on this host but %d GPU(s) are visible and CUDA MPS is off: PEs that share a GPU need MPS "
          "(tools/mps.sh), else their kernels never run at once and spin-waits never finish",
          localSize, count);
#endif
    if (pe_ == 0)
      printf("# %d PEs share %d GPU(s): figures measure one GPU's memory, not an interconnect\n", localSize, count);
  }
  MORI_PERF_HIP(hipFree(nullptr));  // creates the context now
  contextSeconds_ = secondsSince(t0);

  hipDeviceProp_t prop;
  MORI_PERF_HIP(hipGetDeviceProperties(&prop, device_));
  deviceName_ = prop.name;
  waveSize_ = prop.warpSize;
  maxThreads_ = prop.maxThreadsPerBlock;
  MORI_PERF_HIP(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking));
  MORI_PERF_HIP(hipEventCreate(&start_));
  MORI_PERF_HIP(hipEventCreate(&stop_));
  MORI_PERF_HIP(hipMalloc(&counters_, 2 * sizeof(unsigned long long)));
}

Session::~Session() {
  if (initialized_) {
    const int s = backend::finalize();
    if (s != 0) fprintf(stderr, "mori-shmem-perf: PE %d: %s finalize failed with status %d\n", pe_, backend::name(), s);
  }
  if (counters_) (void)hipFree(counters_);
  if (start_) (void)hipEventDestroy(start_);
  if (stop_) (void)hipEventDestroy(stop_);
  if (stream_) (void)hipStreamDestroy(stream_);
}

double Session::initBackend() {
  const auto t0 = std::chrono::steady_clock::now();
  const char* what = "?";
  const int s = backend::initUniqueId(comm_, pe_, npes_, &what);
  const double seconds = secondsSince(t0);
  if (s != 0) fatal("%s failed with status %d", what, s);
  initialized_ = true;
  if (backend::myPe() != pe_ || backend::nPes() != npes_)
    fatal("%s numbers this process PE %d of %d, MPI rank %d of %d: unique-ID init must keep MPI's numbering",
          backend::name(), backend::myPe(), backend::nPes(), pe_, npes_);
  return seconds;
}

void* Session::allocSymmetric(size_t bytes, const char* what) {
  void* p = backend::malloc(bytes);
  if (!p)
    fatal("%s_malloc(%zu) for the %s returned NULL: symmetric heap too small? (%s=%s)", backend::name(), bytes, what,
          backend::heapSizeVariable(),
          getenv(backend::heapSizeVariable()) ? getenv(backend::heapSizeVariable()) : "unset");
  return p;
}

void Session::freeSymmetric(void* p) { backend::free(p); }

void Session::sync(const char* what) {
  const hipError_t e = hipStreamSynchronize(stream_);
  if (e != hipSuccess) fatal("%s: the GPU reports %s (%s)", what, hipGetErrorName(e), hipGetErrorString(e));
}

void Session::barrier(const char* what) {
  sync(what);
  const int s = backend::barrierAll();
  if (s != 0) fatal("%s_barrier_all after %s failed with status %d", backend::name(), what, s);
}

uint64_t Session::seedFor(size_t bytes, Scope scope) const {
  return mix64(0x6d6f72692d706572ull ^ (static_cast<uint64_t>(bytes) * 0x9e3779b97f4a7c15ull) ^
               (static_cast<uint64_t>(scope) << 56) ^ (static_cast<uint64_t>(opt_.test) << 48));
}

void Session::fillPattern(void* p, size_t n, uint64_t seed, int pe, uint64_t first) {
  if (n == 0) return;
  unsigned blocks, threads;
  dataGrid(n, &blocks, &threads);
  fillPatternKernel<<<blocks, threads, 0, stream_>>>(static_cast<uint8_t*>(p), n, patternKey(seed, pe), first);
  MORI_PERF_HIP(hipGetLastError());
}

void Session::fillWords(uint64_t* p, size_t n, uint64_t value) {
  if (n == 0) return;
  unsigned blocks, threads;
  dataGrid(n * 8, &blocks, &threads);
  fillWordsKernel<<<blocks, threads, 0, stream_>>>(p, n, value);
  MORI_PERF_HIP(hipGetLastError());
}

bool Session::checkPattern(bool check, const void* p, size_t n, uint64_t seed, int srcPe, uint64_t first,
                           const std::string& what) {
  unsigned long long h[2] = {0, ~0ull};
  if (check && n) {
    MORI_PERF_HIP(hipMemcpyAsync(counters_, h, sizeof(h), hipMemcpyHostToDevice, stream_));
    unsigned blocks, threads;
    dataGrid(n, &blocks, &threads);
    checkPatternKernel<<<blocks, threads, 0, stream_>>>(static_cast<const uint8_t*>(p), n, patternKey(seed, srcPe),
                                                        first, counters_);
    MORI_PERF_HIP(hipGetLastError());
    MORI_PERF_HIP(hipMemcpyAsync(h, counters_, sizeof(h), hipMemcpyDeviceToHost, stream_));
    sync("data check");
  }
  return reduceMismatch(h[0], h[1], what);
}

bool Session::checkWords(bool check, const uint64_t* p, size_t n, uint64_t expected, const std::string& what) {
  unsigned long long h[2] = {0, ~0ull};
  if (check && n) {
    MORI_PERF_HIP(hipMemcpyAsync(counters_, h, sizeof(h), hipMemcpyHostToDevice, stream_));
    unsigned blocks, threads;
    dataGrid(n * 8, &blocks, &threads);
    checkWordsKernel<<<blocks, threads, 0, stream_>>>(p, n, expected, counters_);
    MORI_PERF_HIP(hipGetLastError());
    MORI_PERF_HIP(hipMemcpyAsync(h, counters_, sizeof(h), hipMemcpyDeviceToHost, stream_));
    sync("word check");
  }
  return reduceMismatch(h[0], h[1], what);
}

bool Session::agree(unsigned long long localBad, const std::string& what) {
  return reduceMismatch(localBad, localBad ? 0 : ~0ull, what);
}

bool Session::agreeMismatch(unsigned long long localBad, unsigned long long firstBad, const std::string& what) {
  return reduceMismatch(localBad, firstBad, what);
}

bool Session::reduceMismatch(unsigned long long bad, unsigned long long firstBad, const std::string& what) {
  unsigned long long total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm_);
  if (total == 0) return true;
  struct {
    double index;
    int pe;
  } mine{bad ? static_cast<double>(firstBad) : 1e300, pe_}, first{0, 0};
  MPI_Allreduce(&mine, &first, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm_);
  char msg[512];
  snprintf(msg, sizeof(msg), "%s: %llu mismatching element(s), the first at index %.0f on PE %d", what.c_str(), total,
           first.index, first.pe);
  failure_ = msg;
  if (pe_ == 0) {
    fprintf(stderr, "mori-shmem-perf: VERIFICATION FAILED (%s): %s\n", backend::name(), msg);
    fflush(stderr);
  }
  return false;
}

double Session::sumOverPes(double v) {
  double total = 0;
  MPI_Allreduce(&v, &total, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return total;
}

double Session::maxOverPes(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return m;
}

void Session::add(const Result& r) {
  if (pe_ == 0) results_.push_back(r);
}

void Session::print() {
  if (pe_ != 0 || printed_ == results_.size()) return;
  const std::vector<Result> rows(results_.begin() + static_cast<std::ptrdiff_t>(printed_), results_.end());
  const std::string test = seriesName(opt_);
  fputs(formatTable(test, rows).c_str(), stdout);
  fputs(formatPerfLines(test, rows).c_str(), stdout);
  fflush(stdout);
  printed_ = results_.size();
}

}  // namespace mori::perf
