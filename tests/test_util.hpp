// Helpers shared by the tests: random bytes, a naive reference transpose, poison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace xpose::test {

inline std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> v(n);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(v.data() + i, &r, n - i < 8 ? n - i : 8);
  }
  return v;
}

/// dst (cols x rows, leading dimension ldb) = transpose of src (rows x cols, lda), row-major.
inline void reference_transpose(const unsigned char* src, unsigned char* dst, std::int64_t rows,
                                std::int64_t cols, std::size_t e, std::int64_t lda,
                                std::int64_t ldb) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      std::memcpy(dst + (j * ldb + i) * e, src + (i * lda + j) * e, e);
}

inline std::vector<unsigned char> reference_transpose(const std::vector<unsigned char>& src,
                                                      std::int64_t rows, std::int64_t cols,
                                                      std::size_t e) {
  std::vector<unsigned char> dst(src.size());
  reference_transpose(src.data(), dst.data(), rows, cols, e, cols, rows);
  return dst;
}

}  // namespace xpose::test
