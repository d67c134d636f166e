// Wire formats of the TCP bootstrap (little-endian, fixed sizes) and the verdict frame helpers.
//
//   challenge (root -> PE, on accept): magic | version | nonce[32]                                   40 B
//   hello    (PE -> root, once):  magic | version | rank | nranks | pid | 0 | jobTag[16] | mac[32] | 0[8]   80 B
//   verdict  (root -> PE):        magic | status | pe | textLen, then textLen bytes of text      16 B + text
//   call     (PE -> root, per collective): magic | op | 0 | seq | bytes | root | 0              32 B
//   exit request (PE -> root, instead of a call): magic | status | pe | 0                          32 B
//   exit notice  (root -> PE, instead of a verdict): magic | status | pe | 0                       16 B
//
// A rendezvous is: the root's challenge, the PE's hello (its MAC proves the secret over the
// challenge's nonce, join_auth.hpp), then the root's verdict (status 0 = admitted). A collective is: every
// non-root sends its call header (and its payload), the root checks that all called the same
// collective and answers each with a verdict (and the payload for it). A verdict with a non-zero
// status carries the root's reason; the PE fails with it.
//
// A global exit (mori_shmem_global_exit): the PE sends an exit request where a call header would
// go (outside a collective, or as its header of the root's current one); the root sends an exit
// notice where a verdict would go to every PE, the requester included (its acknowledgement), and
// every PE that reads one exits with its status. Requests and notices are the same size as the
// frames they stand in for, so a reader waiting for one finds the other.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "application/bootstrap/deadline.hpp"
#include "application/bootstrap/join_auth.hpp"
#include "application/bootstrap/secret.hpp"
#include "src/common/status.hpp"

namespace mori::bootstrap::wire {

constexpr uint32_t kProtocolVersion = 2;
constexpr uint32_t kChallengeMagic = 0x324e736du;    // "msN2"
constexpr uint32_t kHelloMagic = 0x3248736du;        // "msH2"
constexpr uint32_t kVerdictMagic = 0x3156736du;      // "msV1"
constexpr uint32_t kCallMagic = 0x3143736du;         // "msC1"
constexpr uint32_t kExitRequestMagic = 0x3152736du;  // "msR1"
constexpr uint32_t kExitNoticeMagic = 0x3158736du;   // "msX1"
constexpr size_t kChallengeBytes = 40;
constexpr size_t kHelloBytes = 80;
constexpr size_t kHelloMacOffset = 40;  // the MAC covers the hello's bytes before it
constexpr size_t kVerdictBytes = 16;
constexpr size_t kCallBytes = 32;
constexpr uint32_t kMaxVerdictText = 1024;

struct Challenge {
  uint32_t magic = kChallengeMagic;
  uint32_t version = kProtocolVersion;
  Nonce nonce;
};

struct Hello {
  uint32_t magic = kHelloMagic;
  uint32_t version = kProtocolVersion;
  int32_t rank = -1;
  int32_t nranks = 0;
  uint32_t pid = 0;
  JobTag jobTag;
  Mac mac;
};

struct Verdict {
  int32_t status = 0;  // a Status value
  int32_t pe = -1;     // the PE the verdict is about, -1 if none
  uint32_t textLen = 0;
};

enum class Op : uint16_t { AllGather = 1, AllToAll = 2, Barrier = 3, Broadcast = 4 };

struct Call {
  Op op = Op::Barrier;
  uint64_t seq = 0;
  uint64_t bytes = 0;
  int32_t root = 0;

  bool operator==(const Call& o) const { return op == o.op && seq == o.seq && bytes == o.bytes && root == o.root; }
  // "allGather #3 (64 B per PE)", for messages.
  std::string describe() const;
};

void encode(const Challenge& c, uint8_t* out);
Challenge decodeChallenge(const uint8_t* in);

// Encodes h; its MAC is computed here over the other fields under `secret` and `nonce`. false:
// libcrypto failed.
bool encodeSigned(Hello h, const Secret& secret, const Nonce& nonce, uint8_t* out);
// Encodes h as it is (tests forge hellos with it).
void encode(const Hello& h, uint8_t* out);
// Fields as sent; the caller checks magic and version, then the MAC with helloMacValid.
Hello decodeHello(const uint8_t* in);
// True when the encoded hello `in` carries the MAC of its fields under secret and nonce.
bool helloMacValid(const uint8_t* in, const Secret& secret, const Nonce& nonce);

void encode(const Verdict& v, uint8_t* out);
// false: not a verdict frame.
bool decode(const uint8_t* in, Verdict* v);

void encode(const Call& c, uint8_t* out);
// false: not a call header.
bool decode(const uint8_t* in, Call* c);

// A global exit: the status every PE exits with, and the PE that asked for it.
struct ExitNote {
  int32_t status = 0;
  int32_t pe = -1;
};
// The request (kCallBytes) and the notice (kVerdictBytes); decode: false when not that frame.
void encodeExitRequest(const ExitNote& e, uint8_t* out);
bool decodeExitRequest(const uint8_t* in, ExitNote* e);
void encodeExitNotice(const ExitNote& e, uint8_t* out);
bool decodeExitNotice(const uint8_t* in, ExitNote* e);
// The first four bytes of a frame (whichever it is).
uint32_t frameMagic(const uint8_t* in);

// Sends a verdict (with text) to each socket, concurrently; best effort within `dl` (a PE that
// cannot take it is already failing).
void sendVerdicts(const std::vector<int>& fds, Status status, int pe, const std::string& text, const Deadline& dl);

// Reads a verdict's text (textLen bytes, already bounded by the caller) from fd.
bool readVerdictText(int fd, uint32_t textLen, const Deadline& dl, std::string* text);

}  // namespace mori::bootstrap::wire
