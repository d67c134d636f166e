// The 16-byte secret every socket-bootstrap connection presents: random for a unique ID, given by
// MORI_SHMEM_BOOTSTRAP_SECRET or derived from the job's launcher variables for the env bootstrap.
#pragma once

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

// 16 bytes from the kernel's CSPRNG (getrandom; /dev/urandom where the call is missing).
Status randomSecret(Secret* out);

// Deterministic 128-bit digest of `text` under a domain tag (not cryptographic: it tags a job so
// that strays from other jobs are refused; it does not keep out someone who knows the job).
Secret digestSecret(const char* domain, const std::string& text);

}  // namespace mori::bootstrap
