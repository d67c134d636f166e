/* The provider-plugin interface (transport/rdma/core/rdma_plugin.h) compiled as C: a plugin may be
 * written in C, and test_rdma_open checks that C and C++ agree on the tables' layout. */
#include <stddef.h>

#include "transport/rdma/core/rdma_plugin.h"

size_t mori_test_rdma_plugin_c_layout(int which) {
  switch (which) {
    case 0: return sizeof(mori_rdma_plugin_host_t);
    case 1: return sizeof(mori_rdma_plugin_device_t);
    case 2: return sizeof(mori_rdma_plugin_endpoint_t);
    case 3: return offsetof(mori_rdma_plugin_endpoint_t, connect);
    default: return 0;
  }
}
