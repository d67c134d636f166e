#include "application/bootstrap/secret.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

namespace mori::bootstrap {

bool secretsEqual(const Secret& a, const Secret& b) {
  uint8_t diff = 0;
  for (size_t i = 0; i < sizeof(a.bytes); ++i) diff |= static_cast<uint8_t>(a.bytes[i] ^ b.bytes[i]);
  return diff == 0;
}

Status randomSecret(Secret* out) {
  size_t got = 0;
  while (got < sizeof(out->bytes)) {
    ssize_t n = getrandom(out->bytes + got, sizeof(out->bytes) - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == ENOSYS) {
      break;  // kernels before 3.17
    } else {
      return MORI_FAIL(Status::System, log::kBootstrap, "getrandom() for the bootstrap secret failed: %s",
                       strerror(errno));
    }
  }
  if (got == sizeof(out->bytes)) return Status::Success;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return MORI_FAIL(Status::System, log::kBootstrap, "cannot open /dev/urandom for the bootstrap secret: %s",
                     strerror(errno));
  while (got < sizeof(out->bytes)) {
    ssize_t n = read(fd, out->bytes + got, sizeof(out->bytes) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      return MORI_FAIL(Status::System, log::kBootstrap, "reading /dev/urandom for the bootstrap secret failed: %s",
                       n == 0 ? "end of file" : strerror(err));
    }
    got += static_cast<size_t>(n);
  }
  close(fd);
  return Status::Success;
}

namespace {
// splitmix64's finaliser: spreads every input bit over the output.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

Secret digestSecret(const char* domain, const std::string& text) {
  // Two FNV-1a lanes with different offsets and primes, length-separated domain, then mixed.
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  auto feed = [&](const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      uint8_t c = static_cast<uint8_t>(p[i]);
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x00000100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    uint64_t len = n;
    a = mix(a ^ len);
    b = mix(b + len);
  };
  feed(domain, strlen(domain));
  feed(text.data(), text.size());
  uint64_t lo = mix(a ^ (b << 17 | b >> 47)), hi = mix(b ^ lo ^ 0x6a09e667f3bcc909ull);
  Secret s;
  for (int i = 0; i < 8; ++i) {
    s.bytes[i] = static_cast<uint8_t>(lo >> (8 * i));
    s.bytes[8 + i] = static_cast<uint8_t>(hi >> (8 * i));
  }
  return s;
}

}  // namespace mori::bootstrap
