// Host side of the P2P transport: GPU memory exported by IPC handle and mapped by same-host peers.
#pragma once

#include <stdint.h>

#include "mori/platform/gpu_runtime.hpp"
#include "src/common/status.hpp"

namespace mori::p2p {

// What a PE publishes (by Allgather) about one range of its GPU memory.
struct IpcExport {
  hipIpcMemHandle_t handle;  // of the allocation containing the range
  uint64_t address;          // the range's address in the exporter's address space
  uint64_t offset;           // address - allocation base
  uint64_t size;             // bytes of the range
};

Status exportRange(void* ptr, uint64_t size, IpcExport* out);

// Maps `peer`'s exported range; *mapped is the peer's `address` as seen here, *mapping what
// closeRange() takes.
Status openRange(const IpcExport& e, int peer, void** mapped, void** mapping);
void closeRange(void* mapping);

}  // namespace mori::p2p
