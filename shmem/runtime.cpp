#include "shmem/runtime.hpp"

#include <stdio.h>
#include <string.h>

#include <chrono>
#include <mutex>

#include "application/bootstrap/process_exit.hpp"
#include "application/bootstrap/shm_bootstrap.hpp"
#include "mori/platform/clock.hpp"
#include "shmem/module_registry.hpp"
#include "shmem/team_registry.hpp"
#include "src/common/gpu_check.hpp"

namespace mori::shmem {
namespace {

std::mutex& runtimeMutex() {
  static std::mutex m;
  return m;
}
Runtime*& currentSlot() {
  static Runtime* r = nullptr;
  return r;
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

DeviceErrorRecord* deviceErrorRecord(DeviceErrorRecord** devicePtr) {
  // Allocated once per process and never freed: it must stay readable after finalize and after
  // the GPU context has failed.
  static DeviceErrorRecord* host = nullptr;
  static DeviceErrorRecord* device = nullptr;
  if (!host) {
    void* h = nullptr;
    if (hipHostMalloc(&h, sizeof(DeviceErrorRecord), hipHostMallocMapped | hipHostMallocPortable) != hipSuccess)
      return nullptr;
    memset(h, 0, sizeof(DeviceErrorRecord));
    void* d = nullptr;
    if (hipHostGetDevicePointer(&d, h, 0) != hipSuccess) return nullptr;
    host = static_cast<DeviceErrorRecord*>(h);
    device = static_cast<DeviceErrorRecord*>(d);
  }
  if (devicePtr) *devicePtr = device;
  return host;
}

void formatDeviceError(const DeviceErrorRecord& r, char* buf, size_t len) {
  const char* where = r.where[0] ? r.where : "?";
  switch (static_cast<DeviceErrorCode>(r.code)) {
    case DeviceErrorCode::InvalidPe:
      snprintf(buf, len, "PE %d: %s (line %u): PE %lld is out of range", r.pe, where, r.line,
               static_cast<long long>(r.a));
      break;
    case DeviceErrorCode::NotSymmetric:
      snprintf(
          buf, len,
          "PE %d: %s (line %u): address 0x%llx (+%llu bytes) is not in the symmetric heap or a registered region%s",
          r.pe, where, r.line, static_cast<unsigned long long>(r.a), static_cast<unsigned long long>(r.b),
          r.c == 1   ? " (RDMA put source larger than the inline limit)"
          : r.c == 2 ? " (RDMA get destination)"
                     : "");
      break;
    case DeviceErrorCode::Timeout:
      snprintf(buf, len,
               "PE %d: %s (line %u): timed out after %.3f s waiting (kind %llu) on peer %d qp %d qpn 0x%x: progress "
               "%llu, awaited %llu",
               r.pe, where, r.line, static_cast<double>(r.b) * 1e-9, static_cast<unsigned long long>(r.a), r.peer, r.qp,
               r.qpn, static_cast<unsigned long long>(r.c), static_cast<unsigned long long>(r.d));
      break;
    case DeviceErrorCode::ErrorCompletion:
      snprintf(
          buf, len,
          "PE %d: %s (line %u): error completion from peer %d qp %d qpn 0x%x: opcode 0x%llx syndrome 0x%llx vendor "
          "syndrome 0x%llx at WQE index %llu",
          r.pe, where, r.line, r.peer, r.qp, r.qpn, static_cast<unsigned long long>(r.a),
          static_cast<unsigned long long>(r.b), static_cast<unsigned long long>(r.c),
          static_cast<unsigned long long>(r.d));
      break;
    case DeviceErrorCode::PeerFailed:
      snprintf(buf, len,
               "PE %d: PE %lld failed (its bootstrap connection dropped, or the bootstrap root reported it): device "
               "waits were aborted",
               r.pe, static_cast<long long>(r.a));
      break;
    case DeviceErrorCode::Unsupported:
      snprintf(buf, len, "PE %d: %s (line %u): no device path for transport %llu to peer %d", r.pe, where, r.line,
               static_cast<unsigned long long>(r.a), r.peer);
      break;
    default:
      snprintf(buf, len, "PE %d: %s (line %u): device error %u (0x%llx 0x%llx 0x%llx 0x%llx)", r.pe, where, r.line,
               r.code, static_cast<unsigned long long>(r.a), static_cast<unsigned long long>(r.b),
               static_cast<unsigned long long>(r.c), static_cast<unsigned long long>(r.d));
  }
}

bool markPeerFailed(DeviceErrorRecord* rec, int myPe, int failedPe) {
  if (!rec) return false;
  // Claim the record the way a kernel does (compare-and-swap of the code from 0), then fill it: a
  // device wait needs only code != 0 to stop; the fields are read after the kernel has ended.
  uint32_t expected = 0;
  if (!__atomic_compare_exchange_n(&rec->code, &expected, static_cast<uint32_t>(DeviceErrorCode::PeerFailed), false,
                                   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    return false;
  rec->pe = myPe;
  rec->peer = failedPe;
  rec->qp = -1;
  rec->qpn = 0;
  rec->a = static_cast<uint64_t>(failedPe);
  rec->b = rec->c = rec->d = 0;
  rec->line = 0;
  snprintf(rec->where, sizeof(rec->where), "peer monitor (host)");
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return true;
}

Runtime* Runtime::current() { return currentSlot(); }

Runtime* Runtime::get(const char* call) {
  Runtime* r = currentSlot();
  if (!r) MORI_LOG_ERROR(log::kInit, "%s called before mori_shmem_init (or after mori_shmem_finalize)", call);
  return r;
}

Status Runtime::initialize(unsigned flags, const mori_shmem_init_attr_t* attr) {
  std::lock_guard<std::mutex> lock(runtimeMutex());
  if (currentSlot()) return MORI_FAIL(Status::InvalidUsage, log::kInit, "mori_shmem_init: already initialised");
  std::unique_ptr<Runtime> r(new Runtime);
  MORI_TRY(r->start(flags, attr));
  currentSlot() = r.release();
  return Status::Success;
}

Status Runtime::start(unsigned flags, const mori_shmem_init_attr_t* attr) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!log::configureFromEnv()) return Status::InvalidUsage;
  MORI_TRY(env::load(&cfg_));
  if (flags & MORI_SHMEM_INIT_WITH_MPI_COMM) {
    MORI_TRY(bootstrap::createMpi(attr->mpi_comm, cfg_, &boot_));
  } else if (flags & MORI_SHMEM_INIT_WITH_UNIQUEID) {
    MORI_TRY(bootstrap::createUniqueId(attr->rank, attr->nranks, attr->uid, cfg_, &boot_));
  } else if (flags & MORI_SHMEM_INIT_WITH_ENV) {
    MORI_TRY(bootstrap::createFromLauncherEnv(cfg_, &boot_));
  } else {
    MORI_TRY(bootstrap::createDefault(cfg_, &boot_));
  }
  // PEs that all share this host: collectives through shared memory (the symmetric check of each
  // malloc/free is one), not the TCP star. MPI keeps its own same-host path.
  if (strcmp(boot_->name(), "mpi") != 0) MORI_TRY(bootstrap::attachSharedMemory(cfg_.bootstrapTimeout, &boot_));
  log::setPe(boot_->rank());
  const double tBoot = msSince(t0);
  MORI_TRY(context::Context::create(*boot_, cfg_, &ctx_));
  const double tCtx = msSince(t0);
  MORI_TRY(ctx_->connectEndpoints(cfg_));
  const double tEp = msSince(t0);
  MORI_TRY(memory::SymmetricMemory::create(*ctx_, cfg_.heapSize, &mem_));
  const double tMem = msSince(t0);
  MORI_HIP_TRY(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), log::kInit);
  MORI_HIP_TRY(hipMalloc(&hostResult_, sizeof(uint64_t)), log::kInit);
  MORI_TRY(createTeams(*this));  // GpuStates carries the team table
  MORI_TRY(buildGpuStates());
  MORI_TRY(bindAllModules(states_));
  if (cfg_.warmup) {
    MORI_TRY(launch("the warm-up kernel's launch", launchWarmupKernel, stream_));
    MORI_TRY(checkGpu(hipStreamSynchronize(stream_), "the warm-up kernel"));
  }
  // Nobody may reach into a peer before that peer's state is bound.
  MORI_TRY(boot_->barrier());
  monitor_ = std::make_unique<bootstrap::PeerMonitor>(
      *boot_, [this](int pe) { onPeerFailure(pe); }, bootstrap::PeerMonitor::kDefaultPeriodS,
      [this] { checkDeviceExit(); });
  if (!monitor_->start()) return MORI_FAIL(Status::Internal, log::kInit, "the peer monitor's thread did not start");
  if (!monitor_->watchesPeers() && boot_->size() > 1)
    MORI_LOG_DEBUG(log::kInit,
                   "the %s bootstrap does not report failed PEs: the monitor only watches for a global exit from "
                   "device code (the launcher ends the job when a PE dies)",
                   boot_->name());
  MORI_LOG_INFO(log::kInit,
                "initialised %d PEs (%s bootstrap, GPU %d) in %.1f ms: bootstrap %.1f, context %.1f, endpoints %.1f, "
                "heap %.1f, states %.1f",
                boot_->size(), boot_->name(), ctx_->gpu(), msSince(t0), tBoot, tCtx - tBoot, tEp - tCtx, tMem - tEp,
                msSince(t0) - tMem);
  return Status::Success;
}

Status Runtime::buildGpuStates() {
  const int n = ctx_->nPes();
  GpuStates& s = states_;
  memset(&s, 0, sizeof(s));
  s.magic = kGpuStatesMagic;
  s.abiVersion = kDeviceAbiVersion;
  s.myPe = ctx_->myPe();
  s.nPes = n;

  std::vector<uint8_t> table(n);
  for (int pe = 0; pe < n; ++pe) table[pe] = static_cast<uint8_t>(ctx_->transport(pe));
  MORI_HIP_TRY(hipMalloc(&transportDev_, n), log::kInit);
  MORI_HIP_TRY(hipMemcpy(transportDev_, table.data(), n, hipMemcpyHostToDevice), log::kInit);
  s.transport = transportDev_;

  s.heap = mem_->heapRegion();
  for (int pe = 0; pe < n && pe < kInlinePes; ++pe) {
    s.inlineTransport[pe] = table[pe];
    s.inlineHeapP2pBase[pe] = mem_->heapPeerWindow(pe).p2pBase;
  }
  s.regions = mem_->deviceRegions();
  s.numRegions = mem_->deviceRegionCount();

  s.numQpPerPe = ctx_->numQpPerPe();
  if (s.numQpPerPe) {
    std::vector<rdma::EndpointDevice> eps(static_cast<size_t>(n) * s.numQpPerPe);
    memset(eps.data(), 0, eps.size() * sizeof(rdma::EndpointDevice));
    for (int pe = 0; pe < n; ++pe)
      for (uint32_t q = 0; q < s.numQpPerPe; ++q)
        if (const rdma::Endpoint* ep = ctx_->endpoint(pe, q)) eps[pe * s.numQpPerPe + q] = ep->deviceHandle();
    MORI_HIP_TRY(hipMalloc(&endpointsDev_, eps.size() * sizeof(rdma::EndpointDevice)), log::kInit);
    MORI_HIP_TRY(hipMemcpy(endpointsDev_, eps.data(), eps.size() * sizeof(rdma::EndpointDevice), hipMemcpyHostToDevice),
                 log::kInit);
    s.endpoints = endpointsDev_;
  }

  if (const sdma::SdmaQueues* q = ctx_->sdmaQueues()) s.sdmaPeers = q->devicePeersOnGpu();
  s.sdmaMinBytes = cfg_.sdmaMinBytes;
  if (team::callerEntry(cfg_.collectiveEntry)) s.collectiveFlags |= kCollectiveCallerEntry;

  s.syncOffset = mem_->syncOffset();
  MORI_HIP_TRY(hipMalloc(&barrierEpochDev_, sizeof(uint64_t)), log::kInit);
  MORI_HIP_TRY(hipMemset(barrierEpochDev_, 0, sizeof(uint64_t)), log::kInit);
  s.barrierEpoch = barrierEpochDev_;
  s.teams = teamTable();

  DeviceErrorRecord* dev = nullptr;
  DeviceErrorRecord* host = deviceErrorRecord(&dev);
  if (!host) return MORI_FAIL(Status::System, log::kInit, "cannot allocate the host-mapped device error record");
  memset(host, 0, sizeof(*host));
  s.errorRecord = dev;
  s.timeoutTicks = static_cast<uint64_t>(cfg_.timeout * static_cast<double>(gpu::kWallClockHz));
  MORI_HIP_TRY(hipDeviceSynchronize(), log::kInit);
  return Status::Success;
}

void Runtime::onPeerFailure(int pe) {
  failedPe_.store(pe);
  const bool set = markPeerFailed(deviceErrorRecord(nullptr), boot_->rank(), pe);
  MORI_LOG_ERROR(log::kInit,
                 "PE %d: PE %d failed (its bootstrap connection dropped, or the bootstrap root reported it)%s; every "
                 "further mori_shmem call returns an error",
                 boot_->rank(), pe, set ? ": device waits are aborted" : " (a device error was already recorded)");
}

void Runtime::checkDeviceExit() {
  const DeviceErrorRecord* rec = deviceErrorRecord(nullptr);
  if (!rec || __atomic_load_n(&rec->exitRequest, __ATOMIC_ACQUIRE) != 2) return;
  const int status = __atomic_load_n(&rec->exitStatus, __ATOMIC_RELAXED);
  MORI_LOG_WARN(log::kInit, "PE %d: mori_shmem_global_exit(%d) in device code: every PE of the job exits",
                boot_->rank(), status);
  boot_->globalExit(status);
}

Status Runtime::checkPeers(const char* call) const {
  const int pe = failedPe_.load();
  if (pe < 0) return Status::Success;
  return MORI_FAIL(Status::Remote, log::kInit, "%s: PE %d failed earlier (see above); finalize and exit", call, pe);
}

Status kernelsNotLinked(const char* call) {
  return MORI_FAIL(Status::NotSupported, log::kDevice,
                   "%s: this program was linked without the runtime's kernels (the object library "
                   "mori_shmem_kernels, part of libmori_shmem): link libmori_shmem",
                   call);
}

Status Runtime::checkGpu(hipError_t err, const char* call) {
  MORI_TRY(checkPeers(call));
  if (err == hipSuccess) return Status::Success;
  DeviceErrorRecord* rec = deviceErrorRecord(nullptr);
  if (rec && rec->code) {
    char msg[512];
    formatDeviceError(*rec, msg, sizeof(msg));
    return MORI_FAIL(Status::Remote, log::kDevice, "%s: a kernel stopped on a device-side error: %s", call, msg);
  }
  return MORI_FAIL(Status::System, log::kDevice, "%s: %s (%s)", call, hipGetErrorName(err), hipGetErrorString(err));
}

Status Runtime::quietAll() {
  MORI_TRY(checkPeers("quiet"));
  MORI_TRY(checkGpu(hipDeviceSynchronize(), "waiting for the GPU"));
  MORI_TRY(quietOnStream(stream_));
  return checkGpu(hipStreamSynchronize(stream_), "quiet");
}

Status Runtime::quietOnStream(hipStream_t stream) {
  MORI_TRY(checkPeers("quiet on stream"));
  return launch("quiet kernel launch", launchQuietKernel, stream);
}

Status Runtime::barrierOnStream(hipStream_t stream) {
  MORI_TRY(checkPeers("barrier on stream"));
  return launch("barrier kernel launch", launchBarrierKernel, stream);
}

Runtime::~Runtime() {
  monitor_.reset();  // joins its thread before what it watches goes away
  destroyTeams();
  unbindAllModules();
  mem_.reset();
  if (endpointsDev_) (void)hipFree(endpointsDev_);
  if (transportDev_) (void)hipFree(transportDev_);
  if (barrierEpochDev_) (void)hipFree(barrierEpochDev_);
  if (hostResult_) (void)hipFree(hostResult_);
  if (stream_) (void)hipStreamDestroy(stream_);
  ctx_.reset();
  boot_.reset();
}

void Runtime::globalExit(int status) {
  // Unlocked, as every API call reads it: an init or finalize on another thread may hold the lock
  // for as long as its bootstrap waits, and a global exit must not wait for that.
  if (Runtime* r = currentSlot()) {
    MORI_LOG_WARN(log::kInit, "PE %d: mori_shmem_global_exit(%d): every PE of the job exits", r->boot_->rank(), status);
    r->boot_->globalExit(status);
  }
  MORI_LOG_WARN(log::kInit,
                "mori_shmem_global_exit(%d) before mori_shmem_init or after mori_shmem_finalize: only this process "
                "exits",
                status);
  bootstrap::exitProcess(status);
}

Status Runtime::finalize() {
  std::lock_guard<std::mutex> lock(runtimeMutex());
  Runtime* r = currentSlot();
  if (!r) return MORI_FAIL(Status::InvalidUsage, log::kInit, "mori_shmem_finalize: not initialised");
  // No WQE may still be in flight into memory that is about to be freed, on any PE.
  Status s = r->quietAll();
  // Peers close their connections once past the barrier: that is not a failure to report.
  if (r->monitor_) r->monitor_->stop();
  if (ok(s)) s = r->boot_->barrier();
  currentSlot() = nullptr;
  delete r;
  log::setPe(-1);
  return s;
}

}  // namespace mori::shmem
