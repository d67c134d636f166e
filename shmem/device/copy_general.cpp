// The device library's cooperative copy for ends whose offsets in 16 bytes differ (impl::copyBytes
// copies every other case inline): the widest element both ends share, the unaligned head and the
// tail through copySmall on two threads.
#include <type_traits>

#include "mori/shmem/impl/copy.hpp"

namespace mori::shmem::impl {
namespace {

template <bool kOneWave>
MORI_DEVICE_INLINE void copyNarrow(char* dst, const char* src, size_t bytes, int rank, int size) {
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), mis = d ^ reinterpret_cast<uintptr_t>(src);
  // log2 of the widest element both pointers share (below 16 bytes here): the element count is a
  // shift, not a division.
  const int shift = (mis & 7) == 0 ? 3 : (mis & 3) == 0 ? 2 : (mis & 1) == 0 ? 1 : 0;
  const size_t width = size_t{1} << shift;
  size_t head = (width - (d & (width - 1))) & (width - 1);
  if (head > bytes) head = bytes;
  const size_t n = (bytes - head) >> shift;
  const size_t done = head + n * width, tail = bytes - done;
  if (head && rank == 0) copySmall(dst, src, head);
  if (tail && rank == (size > 1 ? 1 : 0)) copySmall(dst + done, src + done, tail);
  char* db = dst + head;
  const char* sb = src + head;
  const size_t skew = lineSkew(d + head, shift, size);
  const auto bulk = [&](auto* element) {
    using T = std::remove_pointer_t<decltype(element)>;
    copyElements<4, kOneWave>(reinterpret_cast<T*>(db), reinterpret_cast<const T*>(sb), n, rank, size, skew);
  };
  switch (width) {
    case 8: bulk(static_cast<uint64_t*>(nullptr)); break;
    case 4: bulk(static_cast<uint32_t*>(nullptr)); break;
    case 2: bulk(static_cast<uint16_t*>(nullptr)); break;
    default: bulk(static_cast<char*>(nullptr)); break;
  }
}

}  // namespace
}  // namespace mori::shmem::impl

extern "C" __device__ void mori_shmemi_copy_unaligned(void* dst, const void* src, size_t bytes, int rank, int size,
                                                      int oneWave) {
  using namespace mori::shmem::impl;
  if (oneWave)
    copyNarrow<true>(static_cast<char*>(dst), static_cast<const char*>(src), bytes, rank, size);
  else
    copyNarrow<false>(static_cast<char*>(dst), static_cast<const char*>(src), bytes, rank, size);
}
