// Same-host fast path of a Bootstrap: when every PE runs on this host, collectives go through a
// shared-memory segment (one slot per PE, spin then futex wait) instead of the TCP star, which
// costs a socket round trip through rank 0 for each call: the symmetric check of every
// mori_shmem_malloc/free is one allGather, so that round trip was the cost of a small allocation.
//
// The contract is Bootstrap's: every collective first publishes its call header (operation,
// sequence number, size, root) in this PE's slot, and every PE compares all headers, so a PE that
// calls another collective fails every PE with both calls named (InvalidUsage), never a hang.
// Payloads up to kSlotPayload bytes per PE travel in the segment; larger ones, after the headers
// agree, through the wrapped bootstrap. Waits are bounded by MORI_SHMEM_BOOTSTRAP_TIMEOUT (the PEs
// that did not arrive are named); a PE whose bootstrap failed marks its slot so the others stop
// waiting; a PE that died is found through the wrapped bootstrap's failedPe() (its connection).
// After a failure every collective is refused, as in every Bootstrap.
#pragma once

#include <memory>

#include "application/bootstrap/bootstrap.hpp"

namespace mori::bootstrap {

// Collective over *boot. When every PE shares this host and there are at least two, replaces
// *boot by the shared-memory bootstrap wrapping it; otherwise, or when a PE cannot map the segment
// (e.g. containers without a common /dev/shm: logged, naming the PEs), leaves *boot as it is.
// Errors are those of *boot's own collectives (then *boot is unchanged).
Status attachSharedMemory(double timeoutS, std::unique_ptr<Bootstrap>* boot);

// Bytes of payload per PE and collective that travel through the segment (allGather: bytes;
// allToAll: nranks * bytes; broadcast: bytes).
constexpr size_t kSlotPayload = 4096 - 64;

}  // namespace mori::bootstrap
