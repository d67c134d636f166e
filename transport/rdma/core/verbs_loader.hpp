// rdma-core reached through dlopen only: the runtime starts (and uses its other transports) on
// machines without libibverbs, and one binary serves every rdma-core version from Debian 12's 44
// on. Each table is loaded once per process; members marked "optional" are null where the
// installed library predates them. Never call rdma-core's inline wrappers that reference library
// symbols (ibv_query_port, ibv_reg_mr, ibv_create_qp_ex, ibv_query_device_ex, ...): use the
// helpers below, which go through these tables or the context's ops.
#pragma once

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace mori::rdma {

// Opaque "struct ibv_buf" of rdma-core's user-buffer API (IBVERBS_1.19, used by bnxt_re direct verbs);
// rdma-core 44 does not declare it.
struct IbvBuf;

struct VerbsApi {
  void* lib = nullptr;
  decltype(&::ibv_get_device_list) getDeviceList = nullptr;
  decltype(&::ibv_free_device_list) freeDeviceList = nullptr;
  decltype(&::ibv_get_device_name) getDeviceName = nullptr;
  decltype(&::ibv_open_device) openDevice = nullptr;
  decltype(&::ibv_close_device) closeDevice = nullptr;
  decltype(&::ibv_query_device) queryDevice = nullptr;
  decltype(&::ibv_query_port) queryPortCompat = nullptr;  // legacy entry; see queryPort()
  decltype(&::ibv_query_gid) queryGid = nullptr;
  decltype(&::_ibv_query_gid_ex) queryGidEx = nullptr;  // optional (rdma-core >= 33)
  decltype(&::ibv_alloc_pd) allocPd = nullptr;
  decltype(&::ibv_dealloc_pd) deallocPd = nullptr;
  decltype(&::ibv_reg_mr) regMr = nullptr;
  decltype(&::ibv_reg_dmabuf_mr) regDmabufMr = nullptr;  // optional (rdma-core >= 34)
  decltype(&::ibv_dereg_mr) deregMr = nullptr;
  decltype(&::ibv_create_ah) createAh = nullptr;
  decltype(&::ibv_destroy_ah) destroyAh = nullptr;
  decltype(&::ibv_destroy_cq) destroyCq = nullptr;
  decltype(&::ibv_modify_qp) modifyQp = nullptr;
  decltype(&::ibv_destroy_qp) destroyQp = nullptr;
  // optional (upstream IBVERBS_1.19): ibv_alloc_user_buf(pd, addr, size, dmabuf_fd)
  IbvBuf* (*allocUserBuf)(ibv_pd* pd, void* addr, size_t size, int dmabufFd) = nullptr;
  void (*freeUserBuf)(IbvBuf* buf) = nullptr;
};

struct Mlx5Api {
  void* lib = nullptr;
  decltype(&::mlx5dv_is_supported) isSupported = nullptr;
  decltype(&::mlx5dv_open_device) openDevice = nullptr;
  decltype(&::mlx5dv_init_obj) initObj = nullptr;
  decltype(&::mlx5dv_devx_general_cmd) generalCmd = nullptr;
  decltype(&::mlx5dv_devx_obj_create) objCreate = nullptr;
  decltype(&::mlx5dv_devx_obj_modify) objModify = nullptr;
  decltype(&::mlx5dv_devx_obj_destroy) objDestroy = nullptr;
  decltype(&::mlx5dv_devx_umem_reg) umemReg = nullptr;
  decltype(&::mlx5dv_devx_umem_reg_ex) umemRegEx = nullptr;  // optional (rdma-core >= 35): dma-buf umems
  decltype(&::mlx5dv_devx_umem_dereg) umemDereg = nullptr;
  decltype(&::mlx5dv_devx_alloc_uar) allocUar = nullptr;
  decltype(&::mlx5dv_devx_free_uar) freeUar = nullptr;
  decltype(&::mlx5dv_devx_query_eqn) queryEqn = nullptr;
};

// libibverbs.so.1, or null with *why naming the library and dlopen/dlsym's reason.
const VerbsApi* verbsApi(std::string* why);
// libmlx5.so.1 (loads libibverbs first), or null with *why.
const Mlx5Api* mlx5Api(std::string* why);

// A provider's direct-verbs library (e.g. stem "libbnxt_re"), kept loaded for the process. Its
// functions cast verbs objects to the provider's private structures, so the copy libibverbs
// itself loaded for the device is preferred (found among the loaded objects by file-name stem,
// e.g. libibverbs/libbnxt_re-rdmav34.so); else the first of `sonames` that loads. Null with *why.
void* loadProviderLibrary(const char* stem, const std::vector<std::string>& sonames, std::string* why);

// One function of a provider's direct-verbs table and the member its address goes to.
struct SymbolSlot {
  const char* name;
  void** slot;
};
// Resolves every entry of `syms` in `lib` (missing ones stay null); returns the names of those
// missing, comma-separated ("" when none).
std::string bindSymbols(void* lib, std::initializer_list<SymbolSlot> syms);

// ibv_query_port without the inline wrapper: the context's extended op when present (full
// struct ibv_port_attr), else the legacy library entry.
int queryPort(const VerbsApi& api, ibv_context* ctx, uint8_t port, ibv_port_attr* out);
// ibv_create_cq_ex / ibv_create_qp_ex / ibv_alloc_parent_domain through the context's ops
// (null with errno = EOPNOTSUPP where the provider lacks them).
ibv_cq_ex* createCqEx(ibv_context* ctx, ibv_cq_init_attr_ex* attr);
ibv_qp* createQpEx(ibv_context* ctx, ibv_qp_init_attr_ex* attr);
ibv_pd* allocParentDomain(ibv_context* ctx, ibv_parent_domain_init_attr* attr);

}  // namespace mori::rdma
