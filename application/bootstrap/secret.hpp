// The 16-byte secret every socket-bootstrap connection proves it knows (join_auth.hpp; it never
// crosses the wire): random for a unique ID, given by MORI_SHMEM_BOOTSTRAP_SECRET or derived from
// the job's launcher variables for the env bootstrap.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>

#include "src/common/status.hpp"

namespace mori::bootstrap {

struct Secret {
  uint8_t bytes[16] = {};
};
static_assert(sizeof(Secret) == 16, "Secret travels as 16 raw bytes");

// Compares without an early exit, so that timing does not reveal how much of a guess was right.
bool secretsEqual(const Secret& a, const Secret& b);

// Bytes from the kernel's CSPRNG (getrandom; /dev/urandom where the call is missing).
Status randomBytes(void* out, size_t n);
inline Status randomSecret(Secret* out) { return randomBytes(out->bytes, sizeof(out->bytes)); }

// The first 16 bytes of SHA-256(domain, text) (lengths included, so that the split between the
// two cannot be moved). Used for the derived secret (which keeps out strays from other jobs, not
// someone who can read the job's environment) and for the job tag.
Secret digestSecret(const char* domain, const std::string& text);

// Names a job without being a secret: the root compares a refused PE's tag with its own to say
// whether the PE belongs to another job (derived from the launcher's job identity variables).
struct JobTag {
  uint8_t bytes[16] = {};
  bool operator==(const JobTag& o) const;
};
JobTag jobTagOf(const std::string& identity);

}  // namespace mori::bootstrap
