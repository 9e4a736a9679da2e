// Helpers shared by the tests: random bytes and a naive reference transpose.
// Byte is the vector's element type: unsigned char (the default) or std::byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace xpose::test {

/// n random bytes, 8 from each draw of `rng` (which advances).
template <class Byte = unsigned char>
std::vector<Byte> random_bytes(std::size_t n, std::mt19937_64& rng) {
  std::vector<Byte> v(n);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(v.data() + i, &r, n - i < 8 ? n - i : 8);
  }
  return v;
}

/// n random bytes, reproducibly from `seed`.
template <class Byte = unsigned char>
std::vector<Byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return random_bytes<Byte>(n, rng);
}

/// dst (cols x rows, leading dimension ldb) = transpose of src (rows x cols, lda), row-major,
/// e-byte elements; bytes of dst outside the transpose are left as they are.
inline void reference_transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                                std::size_t e, std::int64_t lda, std::int64_t ldb) {
  const auto* in = static_cast<const unsigned char*>(src);
  auto* out = static_cast<unsigned char*>(dst);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      std::memcpy(out + (j * ldb + i) * e, in + (i * lda + j) * e, e);
}

/// The transpose (cols x rows) of the dense rows x cols matrix src.
template <class Byte>
std::vector<Byte> reference_transpose(const std::vector<Byte>& src, std::int64_t rows,
                                      std::int64_t cols, std::size_t e) {
  std::vector<Byte> dst(src.size());
  reference_transpose(src.data(), dst.data(), rows, cols, e, cols, rows);
  return dst;
}

}  // namespace xpose::test
