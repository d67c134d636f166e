#include "application/context/transport_table.hpp"

#include <strings.h>

namespace mori::context {

using shmem::Transport;

namespace {

bool pairP2P(const TransportInputs& in, int a, int b) {
  if (a == b) return true;
  if (in.disableP2P || in.hostIds[a] != in.hostIds[b]) return false;
  return in.p2pMatrix[a * in.nPes + b] && in.p2pMatrix[b * in.nPes + a];
}

}  // namespace

TransportSettings transportSettings(const TransportInputs& in, int qpPerPe) {
  TransportSettings s{};
  s.disableP2P = in.disableP2P ? 1 : 0;
  s.forced = static_cast<uint8_t>(in.forced);
  s.sdmaPolicy = in.sdmaPolicy ? 1 : 0;
  s.qpPerPe = static_cast<uint8_t>(qpPerPe);
  return s;
}

namespace {
std::string describe(const TransportSettings& s) {
  static const char* const kForced[] = {"auto", "p2p", "rdma", "sdma"};
  return std::string("MORI_SHMEM_DISABLE_P2P=") + (s.disableP2P ? "1" : "0") +
         ", MORI_SHMEM_TRANSPORT=" + (s.forced < 4 ? kForced[s.forced] : "?") + ", MORI_SHMEM_SDMA_MIN_BYTES " +
         (s.sdmaPolicy ? "set" : "0") + ", MORI_SHMEM_NUM_QP_PER_PE=" + std::to_string(s.qpPerPe);
}
}  // namespace

std::string transportSettingsDiffer(const std::vector<TransportSettings>& all) {
  for (size_t pe = 1; pe < all.size(); ++pe) {
    const TransportSettings &a = all[0], &b = all[pe];
    if (a.disableP2P != b.disableP2P || a.forced != b.forced || a.sdmaPolicy != b.sdmaPolicy || a.qpPerPe != b.qpPerPe)
      return "the transport settings differ between PEs: PE 0 has " + describe(a) + ", PE " + std::to_string(pe) +
             " has " + describe(b) +
             "; every PE must set them alike (each builds the whole transport table and connects its RDMA queue pairs "
             "from its own)";
  }
  return "";
}

bool parseForcedTransport(const std::string& s, ForcedTransport* out) {
  if (!strcasecmp(s.c_str(), "auto")) return *out = ForcedTransport::Auto, true;
  if (!strcasecmp(s.c_str(), "p2p")) return *out = ForcedTransport::P2P, true;
  if (!strcasecmp(s.c_str(), "rdma")) return *out = ForcedTransport::Rdma, true;
  if (!strcasecmp(s.c_str(), "sdma")) return *out = ForcedTransport::Sdma, true;
  return false;
}

const char* transportName(Transport t) {
  switch (t) {
    case Transport::P2P: return "P2P";
    case Transport::Rdma: return "RDMA";
    case Transport::Sdma: return "SDMA";
    default: return "none";
  }
}

bool rdmaNeeded(const TransportInputs& in) {
  if (in.forced == ForcedTransport::Rdma) return in.nPes > 1;
  if (in.forced != ForcedTransport::Auto) return false;
  for (int a = 0; a < in.nPes; ++a)
    for (int b = a + 1; b < in.nPes; ++b)
      if (!pairP2P(in, a, b)) return true;
  return false;
}

bool sdmaWanted(const TransportInputs& in) {
  if (in.nPes < 2) return false;
  return in.forced == ForcedTransport::Sdma || (in.forced == ForcedTransport::Auto && in.sdmaPolicy);
}

bool buildTransportTable(const TransportInputs& in, std::vector<Transport>* out, std::string* why) {
  out->assign(in.nPes, Transport::None);
  const auto hasSdma = [&](int pe) { return !in.sdmaAvailable.empty() && in.sdmaAvailable[pe] != 0; };
  if (in.forced == ForcedTransport::Sdma)
    for (int pe = 0; pe < in.nPes; ++pe)
      if (in.nPes > 1 && !hasSdma(pe)) {
        *why = "MORI_SHMEM_TRANSPORT=sdma but PE " + std::to_string(pe) +
               " has no SDMA engines to drive (they exist only on AMD GPUs, opened through the KFD; on NVIDIA only the "
               "test-only DMA-engine model plays them: docs/SDMA.md)";
        return false;
      }
  // Check every pair, not only this PE's row, so that all PEs fail on the same pair.
  for (int a = 0; a < in.nPes; ++a) {
    for (int b = 0; b < in.nPes; ++b) {
      Transport t = Transport::None;
      const bool p2p = pairP2P(in, a, b);
      const bool rdma = in.rdmaAvailable[a] && in.rdmaAvailable[b];
      if (a == b) {
        t = Transport::P2P;  // a PE reaches its own heap by load/store
      } else if (in.forced == ForcedTransport::P2P) {
        if (!p2p) {
          *why = "MORI_SHMEM_TRANSPORT=p2p but PE " + std::to_string(a) + " cannot map PE " + std::to_string(b) +
                 "'s GPU memory (" + (in.hostIds[a] != in.hostIds[b] ? "different hosts" : "no peer access") + ")";
          return false;
        }
        t = Transport::P2P;
      } else if (in.forced == ForcedTransport::Sdma) {
        // The engine reads and writes the peer's memory through the mapping P2P uses, and single
        // elements (p, g, atomics) and puts below MORI_SHMEM_SDMA_MIN_BYTES are P2P loads/stores.
        if (in.disableP2P) {
          *why =
              "MORI_SHMEM_TRANSPORT=sdma with MORI_SHMEM_DISABLE_P2P=1: SDMA peers take single-element operations and "
              "puts below MORI_SHMEM_SDMA_MIN_BYTES as P2P loads and stores";
          return false;
        }
        if (!p2p) {
          *why = "MORI_SHMEM_TRANSPORT=sdma but PE " + std::to_string(a) + " cannot map PE " + std::to_string(b) +
                 "'s GPU memory for its copy engines (" +
                 (in.hostIds[a] != in.hostIds[b] ? "different hosts: SDMA reaches same-node peers only"
                                                 : "no peer access") +
                 ")";
          return false;
        }
        t = Transport::Sdma;
      } else if (in.forced == ForcedTransport::Rdma) {
        if (!rdma) {
          const int missing = in.rdmaAvailable[a] ? b : a;
          *why = "MORI_SHMEM_TRANSPORT=rdma but PE " + std::to_string(missing) + " has no RDMA device";
          return false;
        }
        t = Transport::Rdma;
      } else if (p2p) {
        // Policy: same-node peers on this PE's copy engines (the engine uses the P2P mapping).
        t = in.forced == ForcedTransport::Auto && in.sdmaPolicy && hasSdma(a) ? Transport::Sdma : Transport::P2P;
      } else if (rdma) {
        t = Transport::Rdma;
      } else {
        const bool sameHost = in.hostIds[a] == in.hostIds[b];
        const int missing = in.rdmaAvailable[a] ? b : a;
        *why = "PE " + std::to_string(a) + " cannot reach PE " + std::to_string(b) + ": " +
               (sameHost
                    ? (in.disableP2P ? "P2P is disabled (MORI_SHMEM_DISABLE_P2P)" : "their GPUs cannot map each other")
                    : "they are on different hosts (" + in.hostIds[a] + ", " + in.hostIds[b] + ")") +
               " and PE " + std::to_string(missing) + " has no RDMA device";
        return false;
      }
      if (a == in.myPe) (*out)[b] = t;
    }
  }
  return true;
}

}  // namespace mori::context
