#include "application/bootstrap/shm_bootstrap.hpp"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "application/bootstrap/deadline.hpp"
#include "application/bootstrap/format.hpp"
#include "application/bootstrap/secret.hpp"
#include "application/bootstrap/socket_wire.hpp"

namespace mori::bootstrap {
namespace {

// Segment: a header line, then one slot per PE. Slot: a control block, then two buffers (rounds
// alternate between them), each a call header line and kSlotPayload bytes.
constexpr uint64_t kMagic = 0x4d4f5249424f4f32ULL;  // "MORIBOO2": layout version 2
constexpr size_t kLine = 64;
constexpr size_t kBufBytes = kLine + kSlotPayload;
constexpr size_t kCtlBytes = 4 * kLine;
constexpr size_t kSlotBytes = kCtlBytes + 2 * kBufBytes;
static_assert(kBufBytes % kLine == 0, "buffers stay line-aligned");
static_assert(sizeof(wire::Call) <= kLine, "a call header fits its line");

struct SegmentHeader {
  uint64_t magic;
  uint64_t token;  // rank 0's random value: proves a PE mapped the segment rank 0 made
  uint32_t nranks;
  uint32_t slotBytes;
  std::atomic<uint32_t> sleepers;  // PEs in a futex wait: writers skip the wake call when 0
};
static_assert(sizeof(SegmentHeader) <= kLine, "header fits its line");

struct SlotCtl {
  std::atomic<uint32_t> round;   // the last round whose buffer this PE has filled
  std::atomic<uint32_t> failed;  // 1: this PE's bootstrap failed (why: reason); no PE waits for it
  char reason[kCtlBytes - 8];    // written before failed is set
};
static_assert(sizeof(SlotCtl) == kCtlBytes, "control block layout");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "shared between processes");

// Waiting: a round through the segment takes under a microsecond when every PE is running (0.1-0.7
// us, 2 PEs on the CI machine), while a futex wake costs the writer a system call and the sleeper
// a scheduler wake-up (tens of microseconds from an idle core). PEs making the same calls arrive
// within microseconds of each other, but a free_tensor() waits for the GPU first, which skews
// them more; so a waiter spins this long before it sleeps, yielding the CPU past kYieldAfter
// (PEs may outnumber cores).
constexpr auto kSpin = std::chrono::microseconds(200);
constexpr auto kYieldAfter = std::chrono::microseconds(5);
constexpr long kSleepSliceNs = 1000000;                      // a sleeping waiter re-checks failures every 1 ms
constexpr auto kProbeEvery = std::chrono::milliseconds(10);  // wrapped failedPe(): a poll() call

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void futexWait(std::atomic<uint32_t>* word, uint32_t expected, long ns) {
  timespec ts{0, ns};
  (void)syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futexWake(std::atomic<uint32_t>* word) {
  (void)syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

class ShmBootstrap final : public Bootstrap {
 public:
  ShmBootstrap(std::unique_ptr<Bootstrap> inner, void* base, size_t bytes, double timeoutS)
      : inner_(std::move(inner)), base_(static_cast<uint8_t*>(base)), bytes_(bytes), timeoutS_(timeoutS) {
    name_ = std::string(inner_->name()) + "+shm";
  }
  ~ShmBootstrap() override { munmap(base_, bytes_); }

  Status start() { return discoverLocalRanks(); }

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  const char* name() const override { return name_.c_str(); }

  Status allGather(const void* in, void* out, size_t bytes) override {
    const int n = size();
    const bool inSegment = bytes <= kSlotPayload;
    uint32_t r = 0;
    MORI_TRY(exchange(call(wire::Op::AllGather, bytes, 0), inSegment ? in : nullptr, inSegment ? bytes : 0, &r));
    if (!inSegment) return delegate(inner_->allGather(in, out, bytes));
    for (int pe = 0; pe < n; ++pe)
      if (bytes) memcpy(static_cast<char*>(out) + pe * bytes, payload(pe, r), bytes);
    return Status::Success;
  }

  Status allToAll(const void* in, void* out, size_t bytes) override {
    const int n = size(), me = rank();
    const bool inSegment = bytes <= kSlotPayload / n;
    uint32_t r = 0;
    MORI_TRY(exchange(call(wire::Op::AllToAll, bytes, 0), inSegment ? in : nullptr, inSegment ? n * bytes : 0, &r));
    if (!inSegment) return delegate(inner_->allToAll(in, out, bytes));
    for (int pe = 0; pe < n; ++pe)
      if (bytes) memcpy(static_cast<char*>(out) + pe * bytes, payload(pe, r) + me * bytes, bytes);
    return Status::Success;
  }

  Status barrier() override {
    uint32_t r = 0;
    return exchange(call(wire::Op::Barrier, 0, 0), nullptr, 0, &r);
  }

  Status broadcast(void* buf, size_t bytes, int root) override {
    if (root < 0 || root >= size())
      return MORI_FAIL(Status::InvalidUsage, log::kBootstrap, "PE %d: broadcast root %d is not a PE (0..%d)", rank(),
                       root, size() - 1);
    const bool inSegment = bytes <= kSlotPayload;
    const bool send = inSegment && rank() == root;
    uint32_t r = 0;
    MORI_TRY(exchange(call(wire::Op::Broadcast, bytes, root), send ? buf : nullptr, send ? bytes : 0, &r));
    if (!inSegment) return delegate(inner_->broadcast(buf, bytes, root));
    if (rank() != root && bytes) memcpy(buf, payload(root, r), bytes);
    return Status::Success;
  }

  int failedPe() override { return inner_->failedPe(); }
  // The exit request and notices travel through the wrapped bootstrap: its failedPe(), which the
  // waits here poll, reads a notice.
  void globalExit(int status) override { inner_->globalExit(status); }
  bool detectsPeerFailure() const override { return inner_->detectsPeerFailure(); }

 private:
  SegmentHeader& header() { return *reinterpret_cast<SegmentHeader*>(base_); }
  uint8_t* slot(int pe) { return base_ + kLine + static_cast<size_t>(pe) * kSlotBytes; }
  SlotCtl& ctl(int pe) { return *reinterpret_cast<SlotCtl*>(slot(pe)); }
  uint8_t* buffer(int pe, uint32_t r) { return slot(pe) + kCtlBytes + (r & 1) * kBufBytes; }
  const uint8_t* payload(int pe, uint32_t r) { return buffer(pe, r) + kLine; }
  bool arrived(int pe, uint32_t r) {
    return static_cast<int32_t>(ctl(pe).round.load(std::memory_order_acquire) - r) >= 0;
  }

  wire::Call call(wire::Op op, size_t bytes, int root) {
    wire::Call c;
    c.op = op;
    c.seq = ++seq_;
    c.bytes = bytes;
    c.root = root;
    return c;
  }

  // One round: publishes this PE's call header and `n` bytes of payload, waits for every PE's,
  // and checks that all called the same collective. *r: the round, for payload(pe, *r). A peer
  // can be at most one round ahead (it needs this PE's next header to finish its own round), so
  // this round's buffers stay intact until this PE publishes the next one.
  Status exchange(const wire::Call& c, const void* data, size_t n, uint32_t* r) {
    if (!ok(failed_))
      return MORI_FAIL(failed_, log::kBootstrap,
                       "PE %d: %s: the bootstrap failed earlier and cannot be used (finalize and initialize again): %s",
                       rank(), c.describe().c_str(), failure_.c_str());
    *r = ++round_;
    uint8_t* b = buffer(rank(), *r);
    memcpy(b, &c, sizeof(c));
    if (n) memcpy(b + kLine, data, n);
    ctl(rank()).round.store(*r, std::memory_order_seq_cst);
    if (header().sleepers.load(std::memory_order_seq_cst)) futexWake(&ctl(rank()).round);
    MORI_TRY(waitAll(c, *r));
    std::vector<int> odd;
    wire::Call first{};
    bool alike = true;
    for (int pe = 0; pe < size(); ++pe) {
      wire::Call theirs;
      memcpy(&theirs, buffer(pe, *r), sizeof(theirs));
      if (theirs == c) continue;
      if (odd.empty()) first = theirs;
      alike &= theirs == first;
      odd.push_back(pe);
    }
    if (odd.empty()) return Status::Success;
    return fail(Status::InvalidUsage,
                strprintf("collective mismatch: PE %d called %s but %s called %s%s", rank(), c.describe().c_str(),
                          peList(odd).c_str(), first.describe().c_str(), alike ? "" : " (the first of them)"));
  }

  Status waitAll(const wire::Call& c, uint32_t r) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const int n = size();
    int pe = 0;  // every PE below has arrived
    for (unsigned i = 0;; ++i) {
      while (pe < n && arrived(pe, r)) ++pe;
      if (pe == n) return Status::Success;
      if ((i & 63) == 63) {
        const auto spun = Clock::now() - t0;
        if (spun > kSpin) break;
        if (spun > kYieldAfter) sched_yield();
      }
      cpuRelax();
    }
    Deadline dl(timeoutS_);
    auto nextProbe = Clock::now();
    for (;;) {
      while (pe < n && arrived(pe, r)) ++pe;
      if (pe == n) return Status::Success;
      // A PE that gave up (even after it arrived) fails this round: it will not take the next.
      std::vector<int> late, gaveUp;
      for (int q = 0; q < n; ++q) {
        if (q >= pe && !arrived(q, r)) late.push_back(q);
        if (ctl(q).failed.load(std::memory_order_acquire)) gaveUp.push_back(q);
      }
      if (!gaveUp.empty()) {
        // The first one's reason: often the PE that died or is missing, which this PE has not seen yet.
        const SlotCtl& first = ctl(gaveUp[0]);
        const std::string why(first.reason, strnlen(first.reason, sizeof(first.reason)));
        return fail(Status::Remote, strprintf("%s: %s gave up on the bootstrap; PE %d's reason: %s",
                                              c.describe().c_str(), peList(gaveUp).c_str(), gaveUp[0], why.c_str()));
      }
      if (Clock::now() >= nextProbe) {
        const int dead = inner_->failedPe();
        while (dead >= 0 && pe < n && arrived(pe, r)) ++pe;  // it may have arrived, finished and closed since the scan
        if (pe == n) return Status::Success;
        if (dead >= 0)
          return fail(Status::Remote, strprintf("%s: PE %d failed (its bootstrap connection dropped, or the root "
                                                "reported it)",
                                                c.describe().c_str(), dead));
        nextProbe = Clock::now() + kProbeEvery;
      }
      if (dl.expired())
        return fail(Status::Timeout, strprintf("%s: %s did not arrive within %.1f s", c.describe().c_str(),
                                               peList(late).c_str(), dl.seconds()));
      std::atomic<uint32_t>* word = &ctl(pe).round;
      header().sleepers.fetch_add(1, std::memory_order_seq_cst);
      const uint32_t seen = word->load(std::memory_order_seq_cst);
      if (static_cast<int32_t>(seen - r) < 0) futexWait(word, seen, kSleepSliceNs);
      header().sleepers.fetch_sub(1, std::memory_order_seq_cst);
    }
  }

  // Marks this bootstrap failed, and this PE's slot with the reason: the others stop waiting.
  void markFailed(Status st, const std::string& msg) {
    failed_ = st;
    failure_ = msg;
    SlotCtl& mine = ctl(rank());
    snprintf(mine.reason, sizeof(mine.reason), "%s", msg.c_str());
    mine.failed.store(1, std::memory_order_seq_cst);
    futexWake(&mine.round);
  }

  Status fail(Status st, const std::string& msg) {
    markFailed(st, msg);
    return MORI_FAIL(st, log::kBootstrap, "PE %d: %s (same-host shared-memory bootstrap)", rank(), msg.c_str());
  }

  Status delegate(Status s) {
    if (!ok(s)) markFailed(s, "a collective of the wrapped bootstrap failed (its log says why)");
    return s;
  }

  std::unique_ptr<Bootstrap> inner_;
  uint8_t* base_;
  size_t bytes_;
  double timeoutS_;
  std::string name_;
  uint32_t round_ = 0;
  uint64_t seq_ = 0;
  Status failed_ = Status::Success;
  std::string failure_;
};

struct Offer {
  char name[64];
  uint64_t token;
};

// Maps the segment `o` names and checks that rank 0 made it for this job. Empty: mapped at *map.
std::string openSegment(const Offer& o, int nranks, size_t bytes, void** map) {
  const int fd = shm_open(o.name, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return strprintf("shm_open(%s): %s", o.name, strerror(errno));
  struct stat st;
  std::string why;
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != bytes) {
    why = strprintf("%s is not the %zu-byte segment of rank 0", o.name, bytes);
  } else {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      why = strprintf("mmap(%s): %s", o.name, strerror(errno));
    } else {
      const SegmentHeader& h = *static_cast<const SegmentHeader*>(p);
      if (h.magic != kMagic || h.token != o.token || h.nranks != static_cast<uint32_t>(nranks) ||
          h.slotBytes != kSlotBytes) {
        munmap(p, bytes);
        why = strprintf("%s does not carry rank 0's token (another segment by that name?)", o.name);
      } else {
        *map = p;
      }
    }
  }
  close(fd);
  return why;
}

// Rank 0: creates the segment. Empty: mapped at *map, named in *o.
std::string createSegment(int nranks, size_t bytes, Offer* o, void** map) {
  uint64_t rnd[2];
  if (!ok(randomBytes(rnd, sizeof(rnd)))) return "no random bytes for the segment's name";
  snprintf(o->name, sizeof(o->name), "/mori-shmem-boot-%d-%016llx", static_cast<int>(getpid()),
           static_cast<unsigned long long>(rnd[0]));
  o->token = rnd[1] | 1;
  const int fd = shm_open(o->name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return strprintf("shm_open(%s): %s", o->name, strerror(errno));
  std::string why;
  void* p = MAP_FAILED;
  // posix_fallocate: a full /dev/shm fails here rather than with SIGBUS at the first write.
  int err = 0;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0)
    why = strprintf("ftruncate(%s, %zu): %s", o->name, bytes, strerror(errno));
  else if ((err = posix_fallocate(fd, 0, static_cast<off_t>(bytes))) != 0)
    why = strprintf("posix_fallocate(%s, %zu): %s", o->name, bytes, strerror(err));
  else if ((p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
    why = strprintf("mmap(%s): %s", o->name, strerror(errno));
  close(fd);
  if (!why.empty()) {
    shm_unlink(o->name);
    return why;
  }
  SegmentHeader* h = static_cast<SegmentHeader*>(p);  // the pages are zero: every round 0, none failed
  h->magic = kMagic;
  h->token = o->token;
  h->nranks = static_cast<uint32_t>(nranks);
  h->slotBytes = kSlotBytes;
  *map = p;
  return "";
}

}  // namespace

Status attachSharedMemory(double timeoutS, std::unique_ptr<Bootstrap>* boot) {
  Bootstrap& in = **boot;
  const int n = in.size(), me = in.rank();
  if (n < 2 || in.localSize() != n) return Status::Success;
  const size_t bytes = kLine + static_cast<size_t>(n) * kSlotBytes;
  Offer offer{};
  void* map = nullptr;
  std::string why;
  if (me == 0) {
    why = createSegment(n, bytes, &offer, &map);
    if (!why.empty()) offer.name[0] = '\0';
  }
  Status s = in.broadcast(&offer, sizeof(offer), 0);
  if (ok(s) && me != 0)
    why = offer.name[0] ? openSegment(offer, n, bytes, &map) : "rank 0 could not create the segment";
  // Every PE has opened the segment (or given up) before its verdict arrives: then the name can go.
  const uint8_t mine = map != nullptr;
  std::vector<uint8_t> all(n);
  if (ok(s)) s = in.allGather(&mine, all.data(), 1);
  if (me == 0 && offer.name[0]) shm_unlink(offer.name);
  std::vector<int> without;
  for (int pe = 0; ok(s) && pe < n; ++pe)
    if (!all[pe]) without.push_back(pe);
  if (!ok(s) || !without.empty()) {
    if (map) munmap(map, bytes);
    if (ok(s))
      MORI_LOG_INFO(log::kBootstrap,
                    "PE %d: collectives stay on the %s bootstrap: %s could not map the same-host shared-memory "
                    "segment%s%s",
                    me, in.name(), peList(without).c_str(), why.empty() ? "" : "; here: ", why.c_str());
    return s;
  }
  auto shm = std::make_unique<ShmBootstrap>(std::move(*boot), map, bytes, timeoutS);
  ShmBootstrap* p = shm.get();
  *boot = std::move(shm);
  MORI_TRY(p->start());  // local ranks through the segment: its first round
  MORI_LOG_INFO(log::kBootstrap, "PE %d of %d: collectives through a %zu-byte shared-memory segment on this host", me,
                n, bytes);
  return Status::Success;
}

}  // namespace mori::bootstrap
