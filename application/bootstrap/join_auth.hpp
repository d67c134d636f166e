// Challenge-response of the socket bootstrap's join, so that the secret never crosses the wire
// and a recorded join cannot be replayed: the root sends each accepted connection a fresh random
// nonce; the PE answers with its hello, which carries HMAC-SHA256(secret, domain | nonce | the
// hello's other fields). A listener learns the rank, nranks, pid and job tag, nothing that lets
// it join; a join recorded once is useless against another nonce.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "application/bootstrap/secret.hpp"

namespace mori::bootstrap {

struct Nonce {
  uint8_t bytes[32] = {};
};
struct Mac {
  uint8_t bytes[32] = {};
};

// A fresh nonce from the kernel's CSPRNG.
Status newNonce(Nonce* out);

// HMAC-SHA256 (libcrypto) keyed with `secret` over the domain tag, `nonce` and `fields` (the
// encoded hello up to its MAC, at most kMaxMacFields bytes). false: libcrypto failed (then no
// MAC is produced, so nothing can match by accident).
constexpr size_t kMaxMacFields = 256;
bool joinMac(const Secret& secret, const Nonce& nonce, const uint8_t* fields, size_t len, Mac* out);

// Constant-time comparison.
bool macsEqual(const Mac& a, const Mac& b);

}  // namespace mori::bootstrap
