/*
 * mori-shmem host API (C). Symmetric-memory SHMEM for GPUs: every PE (process, one GPU each)
 * allocates the same symmetric objects; GPU threads then put, get and apply atomics to other
 * PEs' copies (device API: mori/shmem_device.h, included here when a GPU compiler compiles).
 *
 * Threading: the host API is meant to be called from one thread per PE. Collective calls
 * (init, finalize, malloc/calloc/align/free, register/deregister, barrier_all) must be made by
 * every PE, in the same order, with the same arguments where stated.
 *
 * Errors: calls returning int give MORI_SHMEM_SUCCESS (0) or a negative mori_shmem_status_t;
 * calls returning pointers give NULL. Every failure is logged to stderr with the PE, the call
 * and the reason (see MORI_SHMEM_DEBUG in README.md).
 */
#ifndef MORI_SHMEM_H
#define MORI_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "mori/platform/config.h"

/* Compiled by a GPU compiler as relocatable device code (what CMake's mori::shmem target sets up),
 * this header declares the device API too (mori/shmem_device.h, included at its end).
 * MORI_SHMEM_HOST_ONLY: the host API only. */
#if (defined(__CUDACC__) || defined(__HIPCC__)) && !defined(MORI_SHMEM_HOST_ONLY) && \
    (defined(__CUDACC_RDC__) || defined(__CLANG_RDC__))
#define MORI_SHMEM_WITH_DEVICE_API 1
#else
#define MORI_SHMEM_WITH_DEVICE_API 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ---------------------------------------------------------------------- */
typedef enum mori_shmem_status {
  MORI_SHMEM_SUCCESS = 0,
  MORI_SHMEM_ERROR_INVALID_USAGE = -1, /* bad argument or call order: the caller can fix it */
  MORI_SHMEM_ERROR_TIMEOUT = -2,       /* a peer or device did not answer in time */
  MORI_SHMEM_ERROR_REMOTE = -3,        /* a peer failed or disagreed (e.g. mismatched allocation) */
  MORI_SHMEM_ERROR_SYSTEM = -4,        /* the OS, GPU runtime, MPI or verbs returned an error */
  MORI_SHMEM_ERROR_OUT_OF_MEMORY = -5, /* symmetric heap or device memory exhausted */
  MORI_SHMEM_ERROR_NOT_SUPPORTED = -6, /* not available on this platform / build / hardware */
  MORI_SHMEM_ERROR_INTERNAL = -7       /* a bug in mori-shmem: please report it */
} mori_shmem_status_t;

/* Short name of a status code ("TIMEOUT", ...). */
const char* mori_shmem_status_string(int status);

/* ---- initialisation -------------------------------------------------------------------- */

/* Opaque bootstrap identifier for unique-ID initialisation; carries the root's address and a
 * secret that every connecting PE must present. Share it by any means (MPI_Bcast, a file, a
 * torch broadcast). */
#define MORI_SHMEM_UNIQUEID_BYTES 128
typedef struct mori_shmem_uniqueid {
  unsigned char internal[MORI_SHMEM_UNIQUEID_BYTES];
} mori_shmem_uniqueid_t;
#define MORI_SHMEM_UNIQUEID_INITIALIZER \
  {                                     \
    { 0 }                               \
  }

/* How mori_shmem_init_attr bootstraps. */
typedef enum mori_shmem_init_flags {
  MORI_SHMEM_INIT_WITH_MPI_COMM = 1, /* attr carries an MPI communicator */
  MORI_SHMEM_INIT_WITH_UNIQUEID = 2, /* attr carries rank, size and a unique ID */
  MORI_SHMEM_INIT_WITH_ENV = 4       /* launcher environment (torchrun, SLURM, Open MPI) */
} mori_shmem_init_flags_t;

#define MORI_SHMEM_INIT_ATTR_MAGIC 0x4d534941u /* "MSIA" */
#define MORI_SHMEM_INIT_ATTR_VERSION 1u

typedef struct mori_shmem_init_attr {
  size_t size;      /* sizeof(mori_shmem_init_attr_t), set by the initializer */
  uint32_t magic;   /* MORI_SHMEM_INIT_ATTR_MAGIC */
  uint32_t version; /* MORI_SHMEM_INIT_ATTR_VERSION */
  /* MORI_SHMEM_INIT_WITH_MPI_COMM: pointer to the caller's MPI_Comm (must outlive init). */
  void* mpi_comm;
  /* MORI_SHMEM_INIT_WITH_UNIQUEID */
  int rank;
  int nranks;
  mori_shmem_uniqueid_t uid;
} mori_shmem_init_attr_t;

#define MORI_SHMEM_INIT_ATTR_INITIALIZER                                                                      \
  {                                                                                                           \
    sizeof(mori_shmem_init_attr_t), MORI_SHMEM_INIT_ATTR_MAGIC, MORI_SHMEM_INIT_ATTR_VERSION, NULL, -1, -1, { \
      { 0 }                                                                                                   \
    }                                                                                                         \
  }

/* Initialises with the bootstrap chosen by MORI_SHMEM_BOOTSTRAP (default: detected: MPI when
 * launched by mpirun and MPI is available, else the launcher environment). Collective.
 * Selects the GPU local_rank % device_count unless the caller already selected one. */
int mori_shmem_init(void);

/* Creates a unique ID on the PE that will be rank 0 and starts listening for the others on the
 * interface MORI_SHMEM_SOCKET_IFNAME (default: the first non-loopback interface that is up, else
 * loopback). Call once, before mori_shmem_init_attr on that PE. */
int mori_shmem_get_uniqueid(mori_shmem_uniqueid_t* uid);

/* Fill attr for MORI_SHMEM_INIT_WITH_UNIQUEID / _WITH_MPI_COMM. */
int mori_shmem_set_attr_uniqueid_args(int rank, int nranks, const mori_shmem_uniqueid_t* uid,
                                      mori_shmem_init_attr_t* attr);
int mori_shmem_set_attr_mpi_comm(void* mpi_comm, mori_shmem_init_attr_t* attr);

/* Initialises with an explicit bootstrap (one of mori_shmem_init_flags_t). Collective. */
int mori_shmem_init_attr(unsigned int flags, mori_shmem_init_attr_t* attr);

/* 1 if this process is initialised. */
int mori_shmem_initialized(void);

/* Completes outstanding device operations, releases every resource; collective. MPI is never
 * finalised by mori-shmem. A later init starts afresh. */
int mori_shmem_finalize(void);

/* Ends every PE of the job with exit status `status` (the launcher sees its low 8 bits); does
 * not return (OpenSHMEM's shmem_global_exit). Not collective: one PE, from any host thread, at
 * any time, whatever the others are doing (in a GPU wait, a kernel, a bootstrap call). MPI
 * bootstrap: MPI_Abort. Socket bootstraps (unique ID, launcher environment): the bootstrap root
 * sends every PE a notice, which each reads in its next bootstrap step or through its peer
 * monitor (within about 50 ms), and exits; every PE has exited within a few seconds. Every PE
 * flushes C stdio (std::cout and std::cerr included) and logs why at WARN; no atexit handler or
 * destructor runs anywhere, since the PEs stop wherever they are. Before mori_shmem_init or after
 * mori_shmem_finalize only this process exits.
 * Device code may call it too where this header declares the device API (a host-and-device
 * function then): the first caller's status goes to the host-mapped error record, which a runtime
 * thread polls (every 10 ms), and the calling threads wait for the process to end. */
#if !MORI_SHMEM_WITH_DEVICE_API
__attribute__((noreturn)) void mori_shmem_global_exit(int status);
#endif
__attribute__((noreturn)) void mori_shmemi_global_exit(int status);

/* ---- PEs and teams --------------------------------------------------------------------- */
/* mori_shmem_my_pe(), mori_shmem_n_pes() and mori_shmem_ptr() are callable from host and
 * device code; where this header declares the device API (MORI_SHMEM_WITH_DEVICE_API) they are
 * host-and-device inline functions, elsewhere host functions. */
#if !MORI_SHMEM_WITH_DEVICE_API
int mori_shmem_my_pe(void);
int mori_shmem_n_pes(void);
/* Address at which this PE can load/store `pe`'s copy of the symmetric object `dest`, or NULL
 * if `pe` is not directly reachable (RDMA peer, other host) or dest is not symmetric. */
void* mori_shmem_ptr(const void* dest, int pe);
#endif
int mori_shmemi_my_pe(void);
int mori_shmemi_n_pes(void);
void* mori_shmemi_ptr(const void* dest, int pe);

typedef int32_t mori_shmem_team_t;
#define MORI_SHMEM_TEAM_INVALID ((mori_shmem_team_t)-1)
#define MORI_SHMEM_TEAM_WORLD ((mori_shmem_team_t)0)
#define MORI_SHMEM_TEAM_NODE ((mori_shmem_team_t)1) /* PEs on this host, ordered by world PE */

/* Host and device where the device API is declared, as mori_shmem_my_pe (mori/shmem_team.h has
 * the rest). */
#if !MORI_SHMEM_WITH_DEVICE_API
int mori_shmem_team_my_pe(mori_shmem_team_t team);
int mori_shmem_team_n_pes(mori_shmem_team_t team);
/* PE number in dest_team of src_pe in src_team, or -1 if it is not a member. */
int mori_shmem_team_translate_pe(mori_shmem_team_t src_team, int src_pe, mori_shmem_team_t dest_team);
#endif

/* ---- symmetric memory ------------------------------------------------------------------ */
/* Collective: every PE must make the same calls with the same sizes in the same order; a
 * mismatch is detected on every call and reported with each PE's request. NULL on failure
 * (exhaustion reports requested, free and largest free block). size 0 returns NULL, no error. */
void* mori_shmem_malloc(size_t size);
void* mori_shmem_calloc(size_t count, size_t size);
void* mori_shmem_align(size_t alignment, size_t size); /* alignment: power of two */
void mori_shmem_free(void* ptr);                       /* collective; NULL is ignored */

/* Collective registration of device memory allocated elsewhere (e.g. a framework's tensor) as
 * a symmetric region: every PE passes its own buffer of the same size. Afterwards the device
 * API accepts addresses inside it as it does heap addresses. */
int mori_shmem_register(void* ptr, size_t size);
int mori_shmem_deregister(void* ptr); /* collective */

/* ---- synchronisation ------------------------------------------------------------------- */
/* Completes this PE's outstanding device operations (waits for the GPU), then synchronises all
 * PEs. */
int mori_shmem_barrier_all(void);

#if MORI_PLATFORM_NVIDIA
typedef struct CUstream_st* mori_shmem_stream_t; /* a cudaStream_t */
#else
typedef struct ihipStream_t* mori_shmem_stream_t; /* a hipStream_t */
#endif
/* Stream-ordered forms: enqueue on `stream`, return at once. */
int mori_shmem_barrier_all_on_stream(mori_shmem_stream_t stream);
int mori_shmem_quiet_on_stream(mori_shmem_stream_t stream);

/* ---- collective kernel launch --------------------------------------------------------- */
/* NVSHMEM's collective launch, for a kernel whose blocks wait for other PEs (signal waits,
 * barriers, collectives, the device API's blocking calls on another PE's data): every PE launches
 * its kernel this way (a collective call: every PE, in the same order; the grids may differ), and
 * every block of it runs at once (a cooperative launch), beside every block of the other PEs'
 * kernels launched so on the same GPU. The largest such grid (query_gridsize): the blocks of
 * `func` one multiprocessor holds (for block.x * block.y * block.z threads and shared_mem bytes of
 * dynamic shared memory) x the GPU's multiprocessors / the PEs sharing the GPU. A grid of 0
 * ({0, 0, 0}, or dim3(0): {0, 1, 1}) runs that largest grid (x only). A larger grid, another
 * dimension 0, or a kernel no multiprocessor can hold returns MORI_SHMEM_ERROR_INVALID_USAGE
 * naming the sizes and launches nothing: launched, its blocks could wait forever for blocks with
 * no room to start. `args` as for cudaLaunchKernel / hipLaunchKernel (an array of pointers to the
 * arguments).
 *   int mori_shmem_collective_launch(const void* func, mori_shmem_dim3_t grid,
 *                                    mori_shmem_dim3_t block, void** args, size_t shared_mem,
 *                                    mori_shmem_stream_t stream);
 *   int mori_shmem_collective_launch_query_gridsize(const void* func, mori_shmem_dim3_t block,
 *                                                   void** args, size_t shared_mem, int* grid_size);
 * Both are inline in the caller's code (mori/shmem/collective_launch.hpp, C++ compiled by nvcc
 * or hipcc): a kernel's address names it only in the GPU runtime of the program that defines it
 * (the CUDA runtime is linked statically into each). */
typedef struct mori_shmem_dim3 {
  unsigned int x, y, z;
} mori_shmem_dim3_t;
/* Their parts inside the library: the checks and the grid to run (*run; *max_grid, the largest),
 * from the kernel's blocks per multiprocessor and the GPU's multiprocessors as the caller's
 * runtime gives them; and a failed GPU runtime call of the caller's, logged. Each returns a
 * mori_shmem_status_t. */
int mori_shmemi_collective_grid(const char* call, const void* func, mori_shmem_dim3_t grid, mori_shmem_dim3_t block,
                                size_t shared_mem, int per_sm, int sms, mori_shmem_dim3_t* run, int* max_grid);
int mori_shmemi_collective_gpu_error(const char* call, const char* what, const char* error_name,
                                     const char* error_string);

/* ---- diagnostics ----------------------------------------------------------------------- */
/* If a kernel stopped on a device-side mori-shmem error (error completion, timeout, misuse),
 * copies its description into buf and returns 1; else returns 0. Readable after the GPU
 * context has failed. */
int mori_shmem_device_error(char* buf, size_t len);

/* Whether kernels of `processes` processes that use GPU `device` (an ordinal of this process) run
 * at the same time: 1 yes, 0 no, negative on bad arguments. With 0, device-side waits between
 * those processes (signals, barriers, RDMA completions) never end: on NVIDIA start CUDA MPS
 * (docs/MULTIPLE_PES_PER_GPU.md). `how` (NULL allowed) receives the mechanism or the reason.
 * Reads driver state only; callable before mori_shmem_init. */
int mori_shmem_gpu_sharing_concurrent(int device, int processes, char* how, size_t len);

/* Signal operations (sig_op) and comparisons (cmp) of the signal and wait calls, host and device. */
enum mori_shmem_signal_ops { MORI_SHMEM_SIGNAL_SET = 0, MORI_SHMEM_SIGNAL_ADD = 1 };
enum mori_shmem_cmp_ops {
  MORI_SHMEM_CMP_EQ = 0,
  MORI_SHMEM_CMP_NE = 1,
  MORI_SHMEM_CMP_GT = 2,
  MORI_SHMEM_CMP_GE = 3,
  MORI_SHMEM_CMP_LT = 4,
  MORI_SHMEM_CMP_LE = 5
};

/* The element types of the typed RMA calls (mori/shmem_device.h) as X(name, type): the device
 * API's mori_shmem_<name>_put_block and the like, and mori/nvshmem.h's typed names. */
/* clang-format off */
#define MORI_SHMEM_RMA_TYPES(X)                                                                                       \
  X(float, float) X(double, double) X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long)    \
  X(longlong, long long) X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int)                     \
  X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)       \
  X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)    \
  X(ptrdiff, ptrdiff_t)
/* clang-format on */

/* The element types of the atomics (32 and 64 bits) as X(name, type): the device API's
 * mori_shmem_<name>_atomic_* and mori/nvshmem.h's atomic names. */
#define MORI_SHMEM_AMO_TYPES(X)    \
  X(int, int)                      \
  X(long, long)                    \
  X(longlong, long long)           \
  X(uint, unsigned int)            \
  X(ulong, unsigned long)          \
  X(ulonglong, unsigned long long) \
  X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)

/* The types of the point-to-point waits and tests (device: mori_shmem_<name>_wait_until & co.;
 * host: mori_shmem_wait_until_on_stream) as X(name, type): the atomics' and 16-bit integers. */
#define MORI_SHMEM_SYNC_TYPES(X) MORI_SHMEM_AMO_TYPES(X) X(short, short) X(ushort, unsigned short)

/* ---- stream-ordered RMA ---------------------------------------------------------------- */
/* NVSHMEM's *_on_stream RMA: each call checks its arguments, enqueues the operation on `stream`
 * (a cudaStream_t / hipStream_t of the current device; NULL: the legacy default stream) and
 * returns; the stream then runs it in order with the caller's other work, so CUDA/HIP graph
 * capture records it like any other stream operation. dest/source/sig_addr name symmetric
 * objects (heap or mori_shmem_register'ed) as in the device API; the local side of a put/get may
 * be any device memory for P2P peers and must be symmetric for RDMA peers (device API rules).
 *   P2P peers (mori_shmem_ptr != NULL): a device-to-device copy on the peer mapping (the copy
 *   engine); RDMA peers: a kernel running the device API's block-scope call.
 * Completion, as in NVSHMEM: when the stream reaches a put, the source may be reused and (P2P)
 * the data is in place; RDMA puts are delivered by the next mori_shmem_quiet_on_stream. A get
 * completes when the stream passes it. Misuse (not initialised, PE out of range, an address
 * range outside one symmetric region) returns MORI_SHMEM_ERROR_INVALID_USAGE and enqueues
 * nothing; bytes == 0 enqueues nothing. */
int mori_shmem_putmem_on_stream(void* dest, const void* source, size_t bytes, int pe, mori_shmem_stream_t stream);
int mori_shmem_getmem_on_stream(void* dest, const void* source, size_t bytes, int pe, mori_shmem_stream_t stream);
/* Put, then update pe's sig_addr with `signal` once the data is delivered. sig_op:
 * MORI_SHMEM_SIGNAL_SET (0) or MORI_SHMEM_SIGNAL_ADD (1). */
int mori_shmem_putmem_signal_on_stream(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                       uint64_t signal, int sig_op, int pe, mori_shmem_stream_t stream);
/* The stream waits until this PE's symmetric sig_addr satisfies cmp against cmp_value (cmp:
 * MORI_SHMEM_CMP_EQ 0, _NE 1, _GT 2, _GE 3, _LT 4, _LE 5); later work on
 * the stream sees what was delivered before the signal. */
int mori_shmem_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value, mori_shmem_stream_t stream);
/* The stream waits until every entry i < nelems of this PE's symmetric ivars whose status[i] is 0
 * (status NULL: every entry) satisfies cmp against *cmp_value, or against cmp_values[i]: exactly
 * one of the two is given (NVSHMEM's nvshmemx_<T>_wait_until[_all[_vector]]_on_stream; one
 * variable: nelems 1, status NULL). dtype: MORI_SHMEM_DTYPE_INT16 .. _INT64 or _UINT16 .. _UINT64
 * (mori/shmem_team.h), ivars aligned to its size. *cmp_value (one element of dtype, any memory) is
 * read when the call is made; status and cmp_values when the stream runs the wait, so they must be
 * memory the GPU reaches (device, managed or registered host memory) until then. Bounded by
 * MORI_SHMEM_TIMEOUT as the device waits are. nelems == 0 enqueues nothing. */
int mori_shmem_wait_until_on_stream(void* ivars, size_t nelems, int dtype, const int* status, int cmp,
                                    const void* cmp_value, const void* cmp_values, mori_shmem_stream_t stream);

/* ---- host-initiated RMA ----------------------------------------------------------------- */
/* OpenSHMEM's RMA called from host code (NVSHMEM's nvshmem_putmem & co. in host code): the
 * stream-ordered operation above, with its rules and checks, on the runtime's own stream, which
 * does not wait for other streams' work (finish what produces the source first). putmem returns
 * once the source may be reused (P2P peers: the data is in place), getmem once dest holds the
 * data; the _nbi forms return once the operation is enqueued. mori_shmem_host_quiet returns when
 * every host-initiated operation of this PE is complete (RDMA puts delivered);
 * mori_shmem_host_fence orders them by completing them (a quiet). Device work is not covered:
 * mori_shmem_barrier_all and the device quiet complete that. */
int mori_shmem_host_putmem(void* dest, const void* source, size_t bytes, int pe);
int mori_shmem_host_putmem_nbi(void* dest, const void* source, size_t bytes, int pe);
int mori_shmem_host_getmem(void* dest, const void* source, size_t bytes, int pe);
int mori_shmem_host_getmem_nbi(void* dest, const void* source, size_t bytes, int pe);
int mori_shmem_host_quiet(void);
int mori_shmem_host_fence(void);
/* One element from host code: `size` is its bytes (1, 2, 4 or 8; atomics 4 or 8, and dest aligned
 * to it); value, cond and fetched point to one element in host memory. p and the atomics that
 * fetch nothing return once issued (complete at mori_shmem_host_quiet); g returns the value,
 * an atomic given `fetched` stores there the value before the operation (ADD with fetched is
 * fetch_add; FETCH, SWAP and COMPARE_SWAP need it). op: MORI_SHMEM_AMO_*; COMPARE_SWAP stores
 * value where dest equals cond.
 * Atomic against the device API's atomics on the same object. */
enum mori_shmem_amo_ops {
  MORI_SHMEM_AMO_FETCH = 0,
  MORI_SHMEM_AMO_SET = 1,
  MORI_SHMEM_AMO_SWAP = 2,
  MORI_SHMEM_AMO_COMPARE_SWAP = 3,
  MORI_SHMEM_AMO_ADD = 4,
  MORI_SHMEM_AMO_AND = 5,
  MORI_SHMEM_AMO_OR = 6,
  MORI_SHMEM_AMO_XOR = 7
};
int mori_shmem_host_p(void* dest, const void* value, size_t size, int pe);
int mori_shmem_host_g(void* value, const void* source, size_t size, int pe);
int mori_shmem_host_atomic(int op, void* dest, const void* value, const void* cond, void* fetched, size_t size, int pe);
/* A signal from host code (NVSHMEM's host nvshmemx_signal_op): pe's symmetric sig_addr updated with
 * `signal` by sig_op (MORI_SHMEM_SIGNAL_SET / _ADD), atomically against the device API's signal
 * calls, after this PE's earlier host-initiated puts are delivered (as mori_shmem_signal_op_on_stream
 * below); returns once issued (complete at mori_shmem_host_quiet). */
int mori_shmem_host_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);

/* ---- single elements, signals and strided RMA on a stream -------------------------------- */
/* The stream-ordered forms of the calls above (NVSHMEM's nvshmemx_<T>_p / _g / iput / iget /
 * signal_op _on_stream), with their checks; each enqueues one kernel on `stream`.
 * p: `value` (size bytes: 1, 2, 4 or 8, dest aligned to it) is read when the call is made.
 * g: returns once the stream has run it, with the element in *value: it waits for the stream (not
 *   while the stream is being captured: INVALID_USAGE), and so for the work before it.
 * signal_op: pe's sig_addr updated after every earlier put on the stream is delivered (the kernel
 *   fences first).
 * iput / iget (OpenSHMEM's strided put / get): element i (elem_size bytes: 1, 2, 4, 8 or 16; 16-byte
 *   elements need 8-byte alignment and move as two 8-byte words) of source at
 *   source + i * sst * elem_size goes to dest + i * dst * elem_size, i < nelems (strides in
 *   elements, of any sign). The remote side (iput's dest, iget's source) must lie, every element
 *   of it, in one symmetric region; the local side may be any memory the GPU reaches (device,
 *   managed or registered host memory), with every transport: each element travels inline (one
 *   load or store on a P2P peer, one inline write or read on the others). nelems == 0 enqueues
 *   nothing. Completion as for putmem / getmem_on_stream. */
int mori_shmem_p_on_stream(void* dest, const void* value, size_t size, int pe, mori_shmem_stream_t stream);
int mori_shmem_g_on_stream(void* value, const void* source, size_t size, int pe, mori_shmem_stream_t stream);
int mori_shmem_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, mori_shmem_stream_t stream);
int mori_shmem_iput_on_stream(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                              size_t elem_size, int pe, mori_shmem_stream_t stream);
int mori_shmem_iget_on_stream(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                              size_t elem_size, int pe, mori_shmem_stream_t stream);
/* Strided RMA from host code: the stream form on the runtime's stream, returning once it is
 * complete (iput: the source may be reused, the data delivered by mori_shmem_host_quiet; iget:
 * dest holds the data). */
int mori_shmem_host_iput(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size,
                         int pe);
int mori_shmem_host_iget(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size,
                         int pe);

/* mori_shmem_free that reports its status, for bindings that raise on failure: collective;
 * MORI_SHMEM_ERROR_REMOTE (nothing freed) when the PEs did not all free the same object,
 * MORI_SHMEM_ERROR_INVALID_USAGE when not initialised. NULL is freed by every PE or none. */
int mori_shmem_free_status(void* ptr);

/* ---- JIT-loaded GPU modules (Triton: docs/TRITON.md) ------------------------------------ */
/* A module that links the device library's bitcode (lib/mori_shmem_device_<arch>.bc) defines
 * its own device state; binding copies the runtime's into it. Callable before and after
 * mori_shmem_init (before: bound when init runs) and while a stream is being captured;
 * idempotent. INVALID_USAGE when the handle is NULL, the module defines no device state (does not
 * link the library) or one of another device ABI; SYSTEM when the GPU runtime fails. */
typedef enum mori_shmem_module_kind {
  MORI_SHMEM_MODULE = 0, /* CUmodule (NVIDIA), hipModule_t (AMD) */
  MORI_SHMEM_LIBRARY = 1 /* CUlibrary (NVIDIA) */
} mori_shmem_module_kind_t;
int mori_shmem_module_init(void* module); /* a MORI_SHMEM_MODULE */
int mori_shmem_module_init_kind(void* handle, int kind);
/* 1 when the module defines the device state, 0 when not, negative on failure; binds nothing. */
int mori_shmem_module_uses_device_api(void* handle, int kind);
/* Forgets a module before it is unloaded (INVALID_USAGE when it was never initialised). */
int mori_shmem_module_finalize(void* handle, int kind);

#ifdef __cplusplus
}
#endif

/* The 16-bit floating types (C++), the vendor's __half and bfloat16, wherever the compiler can name
 * them (GPU compilers; host compilers that find the vendor's headers: mori/platform/half.hpp).
 * Typed RMA, broadcast, fcollect, alltoall and the reductions take them, in device code and on
 * the host (MORI_SHMEM_RMA_HALF_TYPES, MORI_SHMEM_REDUCE_HALF_TYPES); MORI_SHMEM_HAS_HALF_TYPES
 * says whether they are declared. */
#ifdef __cplusplus
#include "mori/platform/half.hpp"
#define MORI_SHMEM_HAS_HALF_TYPES MORI_GPU_HALF_TYPES
#else
#define MORI_SHMEM_HAS_HALF_TYPES 0
#endif
#if MORI_SHMEM_HAS_HALF_TYPES
typedef mori::gpu::half mori_shmem_half_t;
typedef mori::gpu::bfloat16 mori_shmem_bfloat16_t;
#define MORI_SHMEM_RMA_HALF_TYPES(X) X(half, mori_shmem_half_t) X(bfloat16, mori_shmem_bfloat16_t)
#define MORI_SHMEM_REDUCE_HALF_TYPES(X) \
  X(half, mori_shmem_half_t, MORI_SHMEM_DTYPE_HALF) X(bfloat16, mori_shmem_bfloat16_t, MORI_SHMEM_DTYPE_BFLOAT16)
#endif

#if MORI_SHMEM_WITH_DEVICE_API
#include "mori/shmem_device.h"
#endif
#if defined(__cplusplus) && (defined(__CUDACC__) || defined(__HIPCC__))
#include "mori/shmem/collective_launch.hpp"
#endif

#include "mori/shmem_team.h"

#endif /* MORI_SHMEM_H */
