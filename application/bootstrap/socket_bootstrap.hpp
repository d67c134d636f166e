// The TCP-socket Bootstrap: a star through rank 0. Each collective is one round trip: every PE
// sends rank 0 a call header (which collective, sequence number, size) and its payload; rank 0
// checks that all PEs called the same collective, then answers each with a verdict and its
// payload. Rank 0 therefore knows exactly which PE is missing or gone, and tells the others.
// Bootstrap traffic is small; the star keeps every wait attributable to one PE.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "application/bootstrap/bootstrap.hpp"
#include "application/bootstrap/socket_rendezvous.hpp"
#include "application/bootstrap/socket_wire.hpp"

namespace mori::bootstrap {

class SocketBootstrap final : public Bootstrap {
 public:
  // Rank 0: admits the other PEs through `listener` (listening at listenAddr), then discovers
  // local ranks. Collective with createPeer on the other PEs.
  static Status createRoot(const SocketParams& p, Fd listener, const SockAddr& listenAddr,
                           std::unique_ptr<Bootstrap>* out);
  // Ranks 1..nranks-1: join the root at the first of rootAddrs that answers.
  static Status createPeer(const SocketParams& p, const std::vector<SockAddr>& rootAddrs,
                           std::unique_ptr<Bootstrap>* out);

  int rank() const override { return p_.rank; }
  int size() const override { return p_.nranks; }
  const char* name() const override { return p_.kind.c_str(); }

  Status allGather(const void* in, void* out, size_t bytes) override;
  Status allToAll(const void* in, void* out, size_t bytes) override;
  Status barrier() override;
  Status broadcast(void* buf, size_t bytes, int root) override;

  // Between collectives, looks (without waiting) for a dropped connection: the root watches
  // every PE's and tells the others which PE failed; a PE watches the root's, and reads the
  // root's report when one arrives outside a collective. During a collective the collective
  // itself sees the failure. Thread-safe against the collectives.
  int failedPe() override;
  bool detectsPeerFailure() const override { return true; }
  [[noreturn]] void globalExit(int status) override;

 private:
  // Payload segments of one collective. Root: per peer PE, what it receives from and sends to
  // that PE. Non-root: what it sends to and receives from the root.
  struct Plan {
    std::vector<std::vector<iovec>> fromPe, toPe;
    std::vector<iovec> toRoot, fromRoot;
  };

  explicit SocketBootstrap(const SocketParams& p) : p_(p) {}
  Status finishCreate();
  Plan newPlan() const;
  Status run(wire::Op op, size_t bytes, int root, Plan& plan);
  Status runRoot(const wire::Call& call, Plan& plan);
  // Root: moves one stage's bytes (xs[i] is with PE pes[i]); a failure names the PE(s).
  // Stage 1 (the call headers) also ends at the first exit request, and the root exits.
  Status rootStage(std::vector<Transfer>& xs, const std::vector<int>& pes, const wire::Call& call, const char* lateWhat,
                   bool headers = false);
  Status runPeer(const wire::Call& call, Plan& plan);
  // Root: sends every PE the exit notice, waits (bounded) for them to close, exits. Holds io_.
  [[noreturn]] void rootExit(const wire::ExitNote& e);
  // Root: the exit request in the frame PE `pe` sent (a call header's place), if it is one.
  [[noreturn]] void rootExitFrom(int pe, const uint8_t* frame);
  // Root: tells every live PE but `skipPe` why the collective failed, marks this bootstrap
  // unusable and returns st.
  Status rootFail(Status st, int skipPe, const std::string& msg);
  Status peerFail(Status st, const std::string& msg);
  std::string lostMessage(int pe, const Transfer& t, const wire::Call& call) const;

  SocketParams p_;
  // Root: a PE's connection dropped outside a collective: tell the others, fail. Holds io_.
  int rootProbe();
  // Non-root: the root's report or its dropped connection outside a collective. Holds io_.
  int peerProbe();

  std::vector<PeerLink> links_;  // root: indexed by PE (0 unused); non-root: one link, to the root
  uint64_t seq_ = 0;
  // io_ serialises the collectives (run) with failedPe() and globalExit(); failed_/failure_
  // change under it. Timed: a global exit waits for another thread's collective only so long.
  std::timed_mutex io_;
  Status failed_ = Status::Success;
  std::string failure_;
  std::atomic<int> deadPe_{-1};  // the PE that failed, once known
};

}  // namespace mori::bootstrap
