#include "tests/support/nic_model/model_config.hpp"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

namespace mori::test::nicmodel {
namespace {

// Parses a whole decimal number; false on anything else.
bool parseNumber(const char* s, long long* out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s) return false;
  *out = v;
  return *end == '\0' || *end == ':';
}

// "pe:qp:n" with pe, qp, n >= 0.
bool parseFault(const char* s, QpFault* out) {
  long long v[3];
  const char* p = s;
  for (int i = 0; i < 3; ++i) {
    if (!parseNumber(p, &v[i]) || v[i] < 0) return false;
    p = strchr(p, ':');
    if (i < 2) {
      if (!p) return false;
      ++p;
    } else if (p) {
      return false;
    }
  }
  out->pe = static_cast<int>(v[0]);
  out->qp = static_cast<int>(v[1]);
  out->wqe = static_cast<uint64_t>(v[2]);
  return true;
}

bool parseFlag(const char* s, bool* out) {
  if (!strcmp(s, "0")) return *out = false, true;
  if (!strcmp(s, "1")) return *out = true, true;
  return false;
}

Status bad(const char* name, const char* value, const char* expected) {
  return MORI_FAIL(Status::InvalidUsage, log::kRdma, "%s='%s' is not valid: expected %s", name, value, expected);
}

}  // namespace

const char* providerName(rdma::Provider p) {
  switch (p) {
    case rdma::Provider::Mlx5: return "mlx5";
    case rdma::Provider::Bnxt: return "bnxt";
    case rdma::Provider::Ionic: return "ionic";
    default: return "none";
  }
}

Status loadModelConfig(ModelConfig* out) {
  ModelConfig c;
  if (const char* v = getenv("MORI_NIC_MODEL_PROVIDER")) {
    if (!strcasecmp(v, "mlx5"))
      c.provider = rdma::Provider::Mlx5;
    else if (!strcasecmp(v, "bnxt"))
      c.provider = rdma::Provider::Bnxt;
    else if (!strcasecmp(v, "ionic"))
      c.provider = rdma::Provider::Ionic;
    else
      return bad("MORI_NIC_MODEL_PROVIDER", v, "mlx5, bnxt or ionic");
  }
  if (const char* v = getenv("MORI_NIC_MODEL_ERROR"))
    if (*v && !parseFault(v, &c.error)) return bad("MORI_NIC_MODEL_ERROR", v, "pe:qp:wqeIndex (numbers >= 0)");
  if (const char* v = getenv("MORI_NIC_MODEL_STALL"))
    if (*v && !parseFault(v, &c.stall)) return bad("MORI_NIC_MODEL_STALL", v, "pe:qp:afterWqes (numbers >= 0)");
  if (const char* v = getenv("MORI_NIC_MODEL_SINK"))
    if (!parseFlag(v, &c.sink)) return bad("MORI_NIC_MODEL_SINK", v, "0 or 1");
  if (const char* v = getenv("MORI_NIC_MODEL_BNXT_PSN_EXT"))
    if (!parseFlag(v, &c.bnxtPsnSearchExt)) return bad("MORI_NIC_MODEL_BNXT_PSN_EXT", v, "0 or 1");
  if (const char* v = getenv("MORI_NIC_MODEL_IONIC_FW")) {
    long long n = 0;
    if (!parseNumber(v, &n) || strchr(v, ':') || (n != 1 && n != 2)) return bad("MORI_NIC_MODEL_IONIC_FW", v, "1 or 2");
    c.ionicFirmware = static_cast<uint32_t>(n);
  }
  if (const char* v = getenv("MORI_NIC_MODEL_IDLE_US")) {
    long long n = 0;
    if (!parseNumber(v, &n) || strchr(v, ':') || n < 1 || n > 10000000)
      return bad("MORI_NIC_MODEL_IDLE_US", v, "microseconds between 1 and 10000000");
    c.idleNs = static_cast<uint64_t>(n) * 1000;
  }
  if (const char* v = getenv("MORI_NIC_MODEL_CARVEOUT")) {
    long long n = 0;
    if (!parseNumber(v, &n) || strchr(v, ':') || n < -1 || n > 100)
      return bad("MORI_NIC_MODEL_CARVEOUT", v, "a percentage between 0 and 100, or -1 for the driver's choice");
    c.carveout = static_cast<int>(n);
  }
  *out = c;
  return Status::Success;
}

}  // namespace mori::test::nicmodel
