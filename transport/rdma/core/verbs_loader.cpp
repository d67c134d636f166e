#include "transport/rdma/core/verbs_loader.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include <map>
#include <mutex>

namespace mori::rdma {
namespace {

std::string dlopenError(const char* soname) {
  const char* e = dlerror();
  return std::string("cannot load ") + soname + ": " + (e ? e : "unknown dlopen error");
}

// Resolves `name` into `slot`; a missing required symbol fails the whole table.
template <class Fn>
bool bind(void* lib, const char* soname, const char* name, Fn* slot, bool required, std::string* why) {
  *slot = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!*slot && required) {
    *why = std::string(soname) + " lacks " + name + " (rdma-core too old or not rdma-core)";
    return false;
  }
  return true;
}

struct Loaded {
  VerbsApi verbs;
  bool verbsOk = false;
  std::string verbsWhy;
  Mlx5Api mlx5;
  bool mlx5Ok = false;
  std::string mlx5Why;
};

Loaded& state() {
  static Loaded s;
  return s;
}

void loadVerbs() {
  Loaded& s = state();
  const char* so = "libibverbs.so.1";
  void* lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    s.verbsWhy = dlopenError(so);
    return;
  }
  VerbsApi& v = s.verbs;
  std::string& why = s.verbsWhy;
  bool ok = bind(lib, so, "ibv_get_device_list", &v.getDeviceList, true, &why) &&
            bind(lib, so, "ibv_free_device_list", &v.freeDeviceList, true, &why) &&
            bind(lib, so, "ibv_get_device_name", &v.getDeviceName, true, &why) &&
            bind(lib, so, "ibv_open_device", &v.openDevice, true, &why) &&
            bind(lib, so, "ibv_close_device", &v.closeDevice, true, &why) &&
            bind(lib, so, "ibv_query_device", &v.queryDevice, true, &why) &&
            bind(lib, so, "ibv_query_port", &v.queryPortCompat, true, &why) &&
            bind(lib, so, "ibv_query_gid", &v.queryGid, true, &why) &&
            bind(lib, so, "_ibv_query_gid_ex", &v.queryGidEx, false, &why) &&
            bind(lib, so, "ibv_alloc_pd", &v.allocPd, true, &why) &&
            bind(lib, so, "ibv_dealloc_pd", &v.deallocPd, true, &why) &&
            bind(lib, so, "ibv_reg_mr", &v.regMr, true, &why) &&
            bind(lib, so, "ibv_reg_dmabuf_mr", &v.regDmabufMr, false, &why) &&
            bind(lib, so, "ibv_dereg_mr", &v.deregMr, true, &why) &&
            bind(lib, so, "ibv_create_ah", &v.createAh, true, &why) &&
            bind(lib, so, "ibv_destroy_ah", &v.destroyAh, true, &why) &&
            bind(lib, so, "ibv_destroy_cq", &v.destroyCq, true, &why) &&
            bind(lib, so, "ibv_modify_qp", &v.modifyQp, true, &why) &&
            bind(lib, so, "ibv_destroy_qp", &v.destroyQp, true, &why) &&
            bind(lib, so, "ibv_alloc_user_buf", &v.allocUserBuf, false, &why) &&
            bind(lib, so, "ibv_free_user_buf", &v.freeUserBuf, false, &why);
  if (!ok) {
    dlclose(lib);
    return;
  }
  v.lib = lib;
  s.verbsOk = true;
}

void loadMlx5() {
  Loaded& s = state();
  const char* so = "libmlx5.so.1";
  void* lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    s.mlx5Why = dlopenError(so);
    return;
  }
  Mlx5Api& m = s.mlx5;
  std::string& why = s.mlx5Why;
  bool ok = bind(lib, so, "mlx5dv_is_supported", &m.isSupported, true, &why) &&
            bind(lib, so, "mlx5dv_open_device", &m.openDevice, true, &why) &&
            bind(lib, so, "mlx5dv_init_obj", &m.initObj, true, &why) &&
            bind(lib, so, "mlx5dv_devx_general_cmd", &m.generalCmd, true, &why) &&
            bind(lib, so, "mlx5dv_devx_obj_create", &m.objCreate, true, &why) &&
            bind(lib, so, "mlx5dv_devx_obj_modify", &m.objModify, true, &why) &&
            bind(lib, so, "mlx5dv_devx_obj_destroy", &m.objDestroy, true, &why) &&
            bind(lib, so, "mlx5dv_devx_umem_reg", &m.umemReg, true, &why) &&
            bind(lib, so, "mlx5dv_devx_umem_reg_ex", &m.umemRegEx, false, &why) &&
            bind(lib, so, "mlx5dv_devx_umem_dereg", &m.umemDereg, true, &why) &&
            bind(lib, so, "mlx5dv_devx_alloc_uar", &m.allocUar, true, &why) &&
            bind(lib, so, "mlx5dv_devx_free_uar", &m.freeUar, true, &why) &&
            bind(lib, so, "mlx5dv_devx_query_eqn", &m.queryEqn, true, &why);
  if (!ok) {
    dlclose(lib);
    return;
  }
  m.lib = lib;
  s.mlx5Ok = true;
}

}  // namespace

const VerbsApi* verbsApi(std::string* why) {
  static std::once_flag once;
  std::call_once(once, loadVerbs);
  if (!state().verbsOk) {
    if (why) *why = state().verbsWhy;
    return nullptr;
  }
  return &state().verbs;
}

const Mlx5Api* mlx5Api(std::string* why) {
  if (!verbsApi(why)) return nullptr;
  static std::once_flag once;
  std::call_once(once, loadMlx5);
  if (!state().mlx5Ok) {
    if (why) *why = state().mlx5Why;
    return nullptr;
  }
  return &state().mlx5;
}

namespace {

struct StemSearch {
  const char* stem;
  std::string path;
};

int findLoaded(dl_phdr_info* info, size_t, void* data) {
  StemSearch* s = static_cast<StemSearch*>(data);
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  const char* base = strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  if (strncmp(base, s->stem, strlen(s->stem)) != 0) return 0;
  s->path = info->dlpi_name;
  return 1;
}

}  // namespace

void* loadProviderLibrary(const char* stem, const std::vector<std::string>& sonames, std::string* why) {
  static std::mutex mutex;
  static std::map<std::string, void*> libs;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = libs.find(stem);
  if (it != libs.end() && it->second) return it->second;
  void* lib = nullptr;
  StemSearch search{stem, std::string()};
  dl_iterate_phdr(findLoaded, &search);
  if (!search.path.empty()) lib = dlopen(search.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  std::string tried;
  for (size_t i = 0; !lib && i < sonames.size(); ++i) {
    lib = dlopen(sonames[i].c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(e ? e : sonames[i].c_str());
    }
  }
  if (!lib) {
    if (why) *why = std::string("no ") + stem + " library is loaded or loadable (" + tried + ")";
    return nullptr;
  }
  libs[stem] = lib;
  return lib;
}

std::string bindSymbols(void* lib, std::initializer_list<SymbolSlot> syms) {
  std::string missing;
  for (const SymbolSlot& s : syms) {
    *s.slot = dlsym(lib, s.name);
    if (!*s.slot) missing += (missing.empty() ? "" : ", ") + std::string(s.name);
  }
  return missing;
}

int queryPort(const VerbsApi& api, ibv_context* ctx, uint8_t port, ibv_port_attr* out) {
  memset(out, 0, sizeof(*out));
  verbs_context* vctx = verbs_get_ctx_op(ctx, query_port);
  if (vctx) return vctx->query_port(ctx, port, out, sizeof(*out));
  return api.queryPortCompat(ctx, port, reinterpret_cast<_compat_ibv_port_attr*>(out));
}

ibv_cq_ex* createCqEx(ibv_context* ctx, ibv_cq_init_attr_ex* attr) {
  verbs_context* vctx = verbs_get_ctx_op(ctx, create_cq_ex);
  if (!vctx) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  return vctx->create_cq_ex(ctx, attr);
}

ibv_qp* createQpEx(ibv_context* ctx, ibv_qp_init_attr_ex* attr) {
  verbs_context* vctx = verbs_get_ctx_op(ctx, create_qp_ex);
  if (!vctx) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  return vctx->create_qp_ex(ctx, attr);
}

ibv_pd* allocParentDomain(ibv_context* ctx, ibv_parent_domain_init_attr* attr) {
  verbs_context* vctx = verbs_get_ctx_op(ctx, alloc_parent_domain);
  if (!vctx) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  return vctx->alloc_parent_domain(ctx, attr);
}

}  // namespace mori::rdma
