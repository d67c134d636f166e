// Layout of mori_shmem_uniqueid_t (128 bytes, little-endian; port big-endian as on the wire):
//
//   0   magic "MSUI" (u32)       4  layout version (u16)     6  family: 4 or 6 (u16)
//   8   root port (u16, BE)      10 reserved (u16)           12 IPv6 scope id (u32)
//   16  root address (16 B; IPv4 in the first 4)             32 secret (16 B, random)
//   48  checksum of bytes 0..47 (u32)                        52 zero up to 128
//
// generateUniqueId() (bootstrap.hpp) opens the root's listening socket at once and keeps it in a
// process-global until createUniqueId(rank 0, ...) takes it, so PEs may connect before rank 0
// calls init.
#pragma once

#include "application/bootstrap/secret.hpp"
#include "application/bootstrap/socket_address.hpp"
#include "mori/shmem.h"
#include "src/common/status.hpp"

namespace mori::bootstrap {

struct UniqueIdInfo {
  SockAddr root;
  Secret secret;
};

void encodeUniqueId(const UniqueIdInfo& info, mori_shmem_uniqueid_t* uid);
// InvalidUsage (naming what is wrong) for anything generateUniqueId() did not produce.
Status decodeUniqueId(const mori_shmem_uniqueid_t& uid, UniqueIdInfo* info);

// Listeners opened by generateUniqueId() in this process and not yet used (tests).
size_t pendingUniqueIdListeners();

}  // namespace mori::bootstrap
