#include "application/bootstrap/secret.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace mori::bootstrap {

bool secretsEqual(const Secret& a, const Secret& b) { return CRYPTO_memcmp(a.bytes, b.bytes, sizeof(a.bytes)) == 0; }

Status randomBytes(void* out, size_t n) {
  uint8_t* p = static_cast<uint8_t*>(out);
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(p + got, n - got, 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else if (r < 0 && errno == ENOSYS) {
      break;  // kernels before 3.17
    } else {
      return MORI_FAIL(Status::System, log::kBootstrap, "getrandom() for the bootstrap failed: %s", strerror(errno));
    }
  }
  if (got == n) return Status::Success;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return MORI_FAIL(Status::System, log::kBootstrap, "cannot open /dev/urandom for the bootstrap: %s",
                     strerror(errno));
  while (got < n) {
    ssize_t r = read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      int err = errno;
      close(fd);
      return MORI_FAIL(Status::System, log::kBootstrap, "reading /dev/urandom for the bootstrap failed: %s",
                       r == 0 ? "end of file" : strerror(err));
    }
    got += static_cast<size_t>(r);
  }
  close(fd);
  return Status::Success;
}

Secret digestSecret(const char* domain, const std::string& text) {
  std::string msg;
  const uint64_t dl = strlen(domain), tl = text.size();
  msg.append(reinterpret_cast<const char*>(&dl), sizeof(dl)).append(domain);
  msg.append(reinterpret_cast<const char*>(&tl), sizeof(tl)).append(text);
  uint8_t md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), md);
  Secret s;
  memcpy(s.bytes, md, sizeof(s.bytes));
  return s;
}

bool JobTag::operator==(const JobTag& o) const { return memcmp(bytes, o.bytes, sizeof(bytes)) == 0; }

JobTag jobTagOf(const std::string& identity) {
  const Secret d = digestSecret("mori-shmem job tag v2", identity);
  JobTag t;
  memcpy(t.bytes, d.bytes, sizeof(t.bytes));
  return t;
}

}  // namespace mori::bootstrap
