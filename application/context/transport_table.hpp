// The per-PE transport table: pure logic over what every PE reported, so that every PE computes
// the same symmetric table (a pair uses P2P only if both ends can map each other, RDMA only if
// both ends have a NIC) and the same error when some pair cannot communicate.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "mori/shmem/device_host/gpu_states.hpp"

namespace mori::context {

enum class ForcedTransport { Auto, P2P, Rdma, Sdma };

struct TransportInputs {
  int myPe = 0;
  int nPes = 0;
  std::vector<std::string> hostIds;    // per PE
  std::vector<uint8_t> p2pMatrix;      // [a * nPes + b]: PE a can map PE b's GPU memory
  std::vector<uint8_t> rdmaAvailable;  // per PE: has an open RDMA device
  ForcedTransport forced = ForcedTransport::Auto;
  bool disableP2P = false;
  // per PE: has SDMA engines to drive (AMD with the KFD's, or the test-only DMA-engine model);
  // empty: none anywhere
  std::vector<uint8_t> sdmaAvailable;
  // auto: same-node peers this PE can map go to SDMA where this PE has engines (puts and gets of
  // at least MORI_SHMEM_SDMA_MIN_BYTES; smaller ones stay P2P loads and stores)
  bool sdmaPolicy = false;
};

// Whether this PE should open its SDMA engines (decided before the table; identical on all PEs).
bool sdmaWanted(const TransportInputs& in);

// Whether RDMA is needed by any pair (decided before devices are opened; identical on all PEs).
bool rdmaNeeded(const TransportInputs& in);

// Fills `out` (one entry per PE, row of myPe) or returns false with `why` naming the first pair
// that cannot communicate and the reason.
bool buildTransportTable(const TransportInputs& in, std::vector<shmem::Transport>* out, std::string* why);

// What each PE builds the whole table from besides what it probed: MORI_SHMEM_DISABLE_P2P,
// MORI_SHMEM_TRANSPORT and whether MORI_SHMEM_SDMA_MIN_BYTES is set; and its RDMA endpoints:
// MORI_SHMEM_NUM_QP_PER_PE (QP q to a peer connects to that peer's QP q, in one allToAll of every
// PE's QPs). Every PE must give the same, or the PEs' tables disagree (and so do the collectives
// that rely on their symmetry, e.g. whether a host collective spreads over blocks:
// shmem/team_spread.hpp), or the endpoint exchange does.
struct TransportSettings {
  uint8_t disableP2P;
  uint8_t forced;  // ForcedTransport
  uint8_t sdmaPolicy;
  uint8_t qpPerPe;  // 1..64 (env validation)
};
TransportSettings transportSettings(const TransportInputs& in, int qpPerPe);
// Empty when every PE's settings (one per PE, as gathered) are PE 0's; else a message naming the
// first PE whose settings differ, its settings and PE 0's.
std::string transportSettingsDiffer(const std::vector<TransportSettings>& all);

bool parseForcedTransport(const std::string& s, ForcedTransport* out);
const char* transportName(shmem::Transport t);

}  // namespace mori::context
