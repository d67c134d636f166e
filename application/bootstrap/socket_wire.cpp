#include "application/bootstrap/socket_wire.hpp"

#include <stdio.h>
#include <string.h>

#include "application/bootstrap/socket_io.hpp"

namespace mori::bootstrap::wire {
namespace {

void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}
uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::string Call::describe() const {
  char buf[128];
  const unsigned long long b = static_cast<unsigned long long>(bytes), s = static_cast<unsigned long long>(seq);
  switch (op) {
    case Op::AllGather: snprintf(buf, sizeof(buf), "allGather #%llu (%llu B per PE)", s, b); break;
    case Op::AllToAll: snprintf(buf, sizeof(buf), "allToAll #%llu (%llu B per pair)", s, b); break;
    case Op::Barrier: snprintf(buf, sizeof(buf), "barrier #%llu", s); break;
    case Op::Broadcast: snprintf(buf, sizeof(buf), "broadcast #%llu (%llu B from PE %d)", s, b, root); break;
    default: snprintf(buf, sizeof(buf), "unknown collective %u #%llu", static_cast<unsigned>(op), s); break;
  }
  return buf;
}

void encode(const Challenge& c, uint8_t* out) {
  put32(out + 0, c.magic);
  put32(out + 4, c.version);
  memcpy(out + 8, c.nonce.bytes, sizeof(c.nonce.bytes));
}

Challenge decodeChallenge(const uint8_t* in) {
  Challenge c;
  c.magic = get32(in + 0);
  c.version = get32(in + 4);
  memcpy(c.nonce.bytes, in + 8, sizeof(c.nonce.bytes));
  return c;
}

void encode(const Hello& h, uint8_t* out) {
  memset(out, 0, kHelloBytes);
  put32(out + 0, h.magic);
  put32(out + 4, h.version);
  put32(out + 8, static_cast<uint32_t>(h.rank));
  put32(out + 12, static_cast<uint32_t>(h.nranks));
  put32(out + 16, h.pid);
  memcpy(out + 24, h.jobTag.bytes, sizeof(h.jobTag.bytes));
  memcpy(out + kHelloMacOffset, h.mac.bytes, sizeof(h.mac.bytes));
}

bool encodeSigned(Hello h, const Secret& secret, const Nonce& nonce, uint8_t* out) {
  encode(h, out);
  if (!joinMac(secret, nonce, out, kHelloMacOffset, &h.mac)) return false;
  memcpy(out + kHelloMacOffset, h.mac.bytes, sizeof(h.mac.bytes));
  return true;
}

Hello decodeHello(const uint8_t* in) {
  Hello h;
  h.magic = get32(in + 0);
  h.version = get32(in + 4);
  h.rank = static_cast<int32_t>(get32(in + 8));
  h.nranks = static_cast<int32_t>(get32(in + 12));
  h.pid = get32(in + 16);
  memcpy(h.jobTag.bytes, in + 24, sizeof(h.jobTag.bytes));
  memcpy(h.mac.bytes, in + kHelloMacOffset, sizeof(h.mac.bytes));
  return h;
}

bool helloMacValid(const uint8_t* in, const Secret& secret, const Nonce& nonce) {
  Mac want, got;
  if (!joinMac(secret, nonce, in, kHelloMacOffset, &want)) return false;
  memcpy(got.bytes, in + kHelloMacOffset, sizeof(got.bytes));
  return macsEqual(want, got);
}

void encode(const Verdict& v, uint8_t* out) {
  put32(out + 0, kVerdictMagic);
  put32(out + 4, static_cast<uint32_t>(v.status));
  put32(out + 8, static_cast<uint32_t>(v.pe));
  put32(out + 12, v.textLen);
}

bool decode(const uint8_t* in, Verdict* v) {
  if (get32(in) != kVerdictMagic) return false;
  v->status = static_cast<int32_t>(get32(in + 4));
  v->pe = static_cast<int32_t>(get32(in + 8));
  v->textLen = get32(in + 12);
  return v->textLen <= kMaxVerdictText;
}

void encode(const Call& c, uint8_t* out) {
  memset(out, 0, kCallBytes);
  put32(out + 0, kCallMagic);
  out[4] = static_cast<uint8_t>(static_cast<uint16_t>(c.op));
  out[5] = static_cast<uint8_t>(static_cast<uint16_t>(c.op) >> 8);
  put64(out + 8, c.seq);
  put64(out + 16, c.bytes);
  put32(out + 24, static_cast<uint32_t>(c.root));
}

bool decode(const uint8_t* in, Call* c) {
  if (get32(in) != kCallMagic) return false;
  c->op = static_cast<Op>(static_cast<uint16_t>(in[4] | (in[5] << 8)));
  c->seq = get64(in + 8);
  c->bytes = get64(in + 16);
  c->root = static_cast<int32_t>(get32(in + 24));
  return true;
}

namespace {
void encodeExit(uint32_t magic, const ExitNote& e, uint8_t* out, size_t bytes) {
  memset(out, 0, bytes);
  put32(out + 0, magic);
  put32(out + 4, static_cast<uint32_t>(e.status));
  put32(out + 8, static_cast<uint32_t>(e.pe));
}
bool decodeExit(uint32_t magic, const uint8_t* in, ExitNote* e) {
  if (get32(in) != magic) return false;
  e->status = static_cast<int32_t>(get32(in + 4));
  e->pe = static_cast<int32_t>(get32(in + 8));
  return true;
}
}  // namespace

void encodeExitRequest(const ExitNote& e, uint8_t* out) { encodeExit(kExitRequestMagic, e, out, kCallBytes); }
bool decodeExitRequest(const uint8_t* in, ExitNote* e) { return decodeExit(kExitRequestMagic, in, e); }
void encodeExitNotice(const ExitNote& e, uint8_t* out) { encodeExit(kExitNoticeMagic, e, out, kVerdictBytes); }
bool decodeExitNotice(const uint8_t* in, ExitNote* e) { return decodeExit(kExitNoticeMagic, in, e); }
uint32_t frameMagic(const uint8_t* in) { return get32(in); }

void sendVerdicts(const std::vector<int>& fds, Status status, int pe, const std::string& text, const Deadline& dl) {
  Verdict v;
  v.status = static_cast<int32_t>(status);
  v.pe = pe;
  v.textLen = static_cast<uint32_t>(text.size() < kMaxVerdictText ? text.size() : kMaxVerdictText);
  uint8_t head[kVerdictBytes];
  encode(v, head);
  std::vector<iovec> frame{iovec{head, sizeof(head)}};
  if (v.textLen) frame.push_back(iovec{const_cast<char*>(text.data()), v.textLen});
  sendToEach(fds, frame, dl);
}

bool readVerdictText(int fd, uint32_t textLen, const Deadline& dl, std::string* text) {
  text->assign(textLen, '\0');
  return textLen == 0 || recvAll(fd, &(*text)[0], textLen, dl);
}

}  // namespace mori::bootstrap::wire
