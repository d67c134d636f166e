// Wire formats of the TCP bootstrap (little-endian, fixed sizes) and the verdict frame helpers.
//
//   hello    (PE -> root, once):  magic | version | rank | nranks | secret[16] | pid | 0[12]   48 B
//   verdict  (root -> PE):        magic | status | pe | textLen, then textLen bytes of text      16 B + text
//   call     (PE -> root, per collective): magic | op | 0 | seq | bytes | root | 0              32 B
//
// A rendezvous is: hello, then the root's verdict (status 0 = admitted). A collective is: every
// non-root sends its call header (and its payload), the root checks that all called the same
// collective and answers each with a verdict (and the payload for it). A verdict with a non-zero
// status carries the root's reason; the PE fails with it.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "application/bootstrap/deadline.hpp"
#include "application/bootstrap/secret.hpp"
#include "src/common/status.hpp"

namespace mori::bootstrap::wire {

constexpr uint32_t kProtocolVersion = 1;
constexpr uint32_t kHelloMagic = 0x3148736du;    // "msH1"
constexpr uint32_t kVerdictMagic = 0x3156736du;  // "msV1"
constexpr uint32_t kCallMagic = 0x3143736du;     // "msC1"
constexpr size_t kHelloBytes = 48;
constexpr size_t kVerdictBytes = 16;
constexpr size_t kCallBytes = 32;
constexpr uint32_t kMaxVerdictText = 1024;

struct Hello {
  uint32_t magic = kHelloMagic;
  uint32_t version = kProtocolVersion;
  int32_t rank = -1;
  int32_t nranks = 0;
  Secret secret;
  uint32_t pid = 0;
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

void encode(const Hello& h, uint8_t* out);
// Fields as sent; the caller checks magic and version.
Hello decodeHello(const uint8_t* in);

void encode(const Verdict& v, uint8_t* out);
// false: not a verdict frame.
bool decode(const uint8_t* in, Verdict* v);

void encode(const Call& c, uint8_t* out);
// false: not a call header.
bool decode(const uint8_t* in, Call* c);

// Sends a verdict (with text) to each socket, concurrently; best effort within `dl` (a PE that
// cannot take it is already failing).
void sendVerdicts(const std::vector<int>& fds, Status status, int pe, const std::string& text, const Deadline& dl);

// Reads a verdict's text (textLen bytes, already bounded by the caller) from fd.
bool readVerdictText(int fd, uint32_t textLen, const Deadline& dl, std::string* text);

}  // namespace mori::bootstrap::wire
