/* The C interface between libmori_shmem and its MPI bootstrap plugin,
 * libmori_shmem_bootstrap_mpi.so. libmori_shmem never links MPI: it loads the plugin with dlopen
 * when an MPI bootstrap is asked for, so the runtime starts on machines without MPI.
 *
 * Versioning: the loader calls mori_shmem_bootstrap_mpi_interface() first and refuses a plugin
 * whose MORI_BOOTSTRAP_MPI_INTERFACE differs; open() checks args->interface again. Any change to
 * the structs or function signatures below bumps the number.
 *
 * Every function returns 0 or a negative mori_shmem_status_t, after reporting the reason through
 * args->log. Calls on one handle must not overlap (one thread at a time). Every wait is bounded by
 * args->timeout_s; after a failure the handle only accepts finalize. */
#ifndef MORI_BOOTSTRAP_MPI_PLUGIN_H
#define MORI_BOOTSTRAP_MPI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MORI_BOOTSTRAP_MPI_INTERFACE 2
#define MORI_BOOTSTRAP_MPI_LIBRARY "libmori_shmem_bootstrap_mpi.so"
#define MORI_BOOTSTRAP_MPI_INTERFACE_SYMBOL "mori_shmem_bootstrap_mpi_interface"
#define MORI_BOOTSTRAP_MPI_OPEN_SYMBOL "mori_shmem_bootstrap_mpi_open"

/* Log levels as mori::log::Level: 1 ERROR, 2 WARN, 3 INFO, 4 DEBUG. */
typedef void (*mori_bootstrap_log_fn)(int level, const char* file, int line, const char* message);

typedef struct mori_bootstrap_mpi_args {
  uint32_t interface_version; /* MORI_BOOTSTRAP_MPI_INTERFACE of the loader */
  uint32_t size;              /* sizeof(mori_bootstrap_mpi_args_t) */
  /* Pointer to the caller's MPI_Comm, duplicated (MPI_Comm_idup) for the bootstrap's own use;
   * NULL: MPI_COMM_WORLD, initialising MPI first if the application has not (then MPI is
   * finalised at process exit, never earlier, so that a later init still finds it). */
  void* mpi_comm;
  double timeout_s;          /* bound of every wait; <= 0: no bound */
  size_t max_message_bytes;  /* split messages larger than this (0: 1 GiB; tests make it small) */
  mori_bootstrap_log_fn log; /* required */
} mori_bootstrap_mpi_args_t;

/* The ops table (the shape of NVSHMEM's bootstrap handle). */
typedef struct mori_bootstrap_mpi {
  uint32_t interface_version; /* MORI_BOOTSTRAP_MPI_INTERFACE of the plugin */
  int rank;
  int nranks;
  int initialized_mpi; /* 1 if this plugin called MPI_Init (it then finalises MPI at exit) */
  /* out[r*bytes ..) = rank r's in; in may equal out + rank*bytes. */
  int (*allgather)(struct mori_bootstrap_mpi* self, const void* in, void* out, size_t bytes);
  /* in[r*bytes ..) goes to rank r; out[r*bytes ..) comes from rank r; in may equal out. */
  int (*alltoall)(struct mori_bootstrap_mpi* self, const void* in, void* out, size_t bytes);
  int (*barrier)(struct mori_bootstrap_mpi* self);
  int (*bcast)(struct mori_bootstrap_mpi* self, void* buf, size_t bytes, int root);
  /* Frees the duplicated communicator and the handle; never calls MPI_Finalize. */
  int (*finalize)(struct mori_bootstrap_mpi* self);
  /* Global exit: MPI_Abort(communicator, status), which ends every process of the job with the
   * launcher reporting `status`. Returns (a negative status) only where MPI_Abort did. */
  int (*abort)(struct mori_bootstrap_mpi* self, int status);
  void* internal;
} mori_bootstrap_mpi_t;

typedef int (*mori_bootstrap_mpi_interface_fn)(void);
typedef int (*mori_bootstrap_mpi_open_fn)(const mori_bootstrap_mpi_args_t* args, mori_bootstrap_mpi_t** out);

#ifdef __cplusplus
}
#endif

#endif /* MORI_BOOTSTRAP_MPI_PLUGIN_H */
