/* The C interface between libmori_shmem and an RDMA provider plugin: a shared library named by
 * MORI_SHMEM_RDMA_PLUGIN that provides the RDMA device in place of the NICs (the test NIC model in
 * tests/support/nic_model, or a provider built outside this project). The runtime lends the
 * plugin its PE group, one collective and its logger (mori_rdma_plugin_host_t); the plugin
 * answers with an ops table for the device (mori_rdma_plugin_device_t) and one per endpoint.
 *
 * Versioning: the loader calls mori_shmem_rdma_plugin_interface() first and refuses a plugin
 * whose MORI_RDMA_PLUGIN_INTERFACE differs; open() checks host->interface_version; the loader
 * checks interface_version of the device and of every endpoint. Any change to the structs or
 * function signatures below, or to the layouts they carry (mori::rdma::EndpointDevice in
 * include/mori/transport/rdma/device_host/endpoint.hpp, mori::rdma::EndpointWireInfo in
 * transport/rdma/core/rdma_device.hpp), bumps the number.
 *
 * Every int-returning function returns 0 or a negative mori_shmem_status_t, after logging the
 * reason through host->log. Calls on one device or endpoint come from one thread at a time. */
#ifndef MORI_RDMA_PLUGIN_H
#define MORI_RDMA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MORI_RDMA_PLUGIN_INTERFACE 2
#define MORI_RDMA_PLUGIN_INTERFACE_SYMBOL "mori_shmem_rdma_plugin_interface"
#define MORI_RDMA_PLUGIN_OPEN_SYMBOL "mori_shmem_rdma_plugin_open"
#define MORI_RDMA_PLUGIN_WIRE_INFO_BYTES 64 /* sizeof(mori::rdma::EndpointWireInfo) */

/* The runtime's logger. level as mori::log::Level (1 ERROR, 2 WARN, 3 INFO, 4 DEBUG, 5 TRACE),
 * subsys one mori::log::Subsys bit; message is one line without the tag the logger adds. */
typedef void (*mori_rdma_plugin_log_fn)(int level, uint32_t subsys, const char* file, int line, const char* message);

/* What the runtime lends the plugin; valid until the device's close() returns. */
typedef struct mori_rdma_plugin_host {
  uint32_t interface_version; /* MORI_RDMA_PLUGIN_INTERFACE of the runtime */
  uint32_t size;              /* sizeof(mori_rdma_plugin_host_t) */
  int rank;                   /* this PE */
  int nranks;
  int local_rank; /* among the PEs on this host */
  int local_size;
  /* Collective over all PEs, in the same order on each: out[r * bytes ..) receives PE r's in. */
  int (*allgather)(const struct mori_rdma_plugin_host* self, const void* in, void* out, size_t bytes);
  /* Lines the plugin logs go here; it drops those above log_level or outside log_subsys (the
   * runtime's settings, so that both sides agree on what is shown). */
  mori_rdma_plugin_log_fn log;
  int log_level;
  uint32_t log_subsys;
  void* internal; /* the runtime's */
} mori_rdma_plugin_host_t;

/* A registration of GPU memory for local and remote access. */
typedef struct mori_rdma_plugin_mr {
  uint32_t lkey;
  uint32_t rkey;
  void* handle; /* the plugin's */
} mori_rdma_plugin_mr_t;

typedef struct mori_rdma_plugin_endpoint_config {
  int peer;          /* the PE this endpoint connects to */
  uint32_t qp_index; /* which of the QPs towards that PE */
  uint32_t sq_depth; /* SQ slots, a power of two */
} mori_rdma_plugin_endpoint_config_t;

/* One RC QP + CQ towards one peer, with its queues in GPU memory. */
typedef struct mori_rdma_plugin_endpoint {
  uint32_t interface_version; /* MORI_RDMA_PLUGIN_INTERFACE of the plugin */
  /* The view GPU threads post through: a mori::rdma::EndpointDevice of device_handle_bytes
   * bytes, valid until destroy(). */
  const void* device_handle;
  uint32_t device_handle_bytes;
  size_t device_memory_bytes; /* GPU memory the endpoint holds */
  /* What this endpoint tells its peer: a mori::rdma::EndpointWireInfo. */
  uint8_t local_info[MORI_RDMA_PLUGIN_WIRE_INFO_BYTES];
  /* RESET -> INIT -> RTR -> RTS towards the endpoint whose local_info is remote_info. */
  int (*connect)(struct mori_rdma_plugin_endpoint* self, const uint8_t* remote_info);
  /* Frees the endpoint; the GPU no longer uses it. */
  void (*destroy)(struct mori_rdma_plugin_endpoint* self);
  void* internal; /* the plugin's */
} mori_rdma_plugin_endpoint_t;

typedef struct mori_rdma_plugin_device {
  uint32_t interface_version; /* MORI_RDMA_PLUGIN_INTERFACE of the plugin */
  char name[32];              /* NUL-terminated, for messages */
  uint32_t provider;          /* mori::rdma::Provider whose formats the endpoints use */
  /* Collective: every PE registers its corresponding range in the same order. */
  int (*register_memory)(struct mori_rdma_plugin_device* self, void* ptr, size_t bytes, mori_rdma_plugin_mr_t* out);
  int (*deregister_memory)(struct mori_rdma_plugin_device* self, const mori_rdma_plugin_mr_t* mr);
  int (*create_endpoint)(struct mori_rdma_plugin_device* self, const mori_rdma_plugin_endpoint_config_t* cfg,
                         mori_rdma_plugin_endpoint_t** out);
  /* Frees the device after every endpoint was destroyed and every registration released. */
  void (*close)(struct mori_rdma_plugin_device* self);
  void* internal; /* the plugin's */
} mori_rdma_plugin_device_t;

/* The two entry points a plugin exports. */
typedef int (*mori_rdma_plugin_interface_fn)(void);
typedef int (*mori_rdma_plugin_open_fn)(const mori_rdma_plugin_host_t* host, mori_rdma_plugin_device_t** out);

#ifdef __cplusplus
}
#endif

#endif /* MORI_RDMA_PLUGIN_H */
