#include "application/bootstrap/join_auth.hpp"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace mori::bootstrap {

namespace {
constexpr char kDomain[] = "mori-shmem bootstrap join v2";
}  // namespace

Status newNonce(Nonce* out) { return randomBytes(out->bytes, sizeof(out->bytes)); }

bool joinMac(const Secret& secret, const Nonce& nonce, const uint8_t* fields, size_t len, Mac* out) {
  // One buffer, one HMAC() call: the one-shot interface is the one OpenSSL 3 keeps undeprecated.
  uint8_t msg[sizeof(kDomain) + sizeof(nonce.bytes) + kMaxMacFields];
  if (len > kMaxMacFields) return false;
  size_t n = 0;
  memcpy(msg + n, kDomain, sizeof(kDomain));
  n += sizeof(kDomain);
  memcpy(msg + n, nonce.bytes, sizeof(nonce.bytes));
  n += sizeof(nonce.bytes);
  memcpy(msg + n, fields, len);
  n += len;
  unsigned int macLen = sizeof(out->bytes);
  return HMAC(EVP_sha256(), secret.bytes, sizeof(secret.bytes), msg, n, out->bytes, &macLen) != nullptr &&
         macLen == sizeof(out->bytes);
}

bool macsEqual(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.bytes, b.bytes, sizeof(a.bytes)) == 0; }

}  // namespace mori::bootstrap
