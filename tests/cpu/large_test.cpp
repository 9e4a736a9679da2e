// More than 2^31 elements (1-byte), in place, checked without a second copy: element k holds a
// hash of k, so every position can be checked against the hash of its source index.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "xpose/xpose.hpp"

namespace {

unsigned char hash_of(std::uint64_t k) {
  return static_cast<unsigned char>((k * 0x9E3779B97F4A7C15ull) >> 56);
}

TEST(Large, InplaceBeyondTwoToThe31Elements) {
  // 2,149,908,480 elements; both dimensions have many factors, so the 3-stage route runs.
  const std::int64_t rows = 46080, cols = 46656;
  const std::int64_t n = rows * cols;
  ASSERT_GT(n, std::int64_t(1) << 31);
  std::unique_ptr<unsigned char[]> data(new unsigned char[n]);
#pragma omp parallel for
  for (std::int64_t k = 0; k < n; ++k) data[k] = hash_of(k);
  const xpose::plan p = xpose::plan_inplace({rows, cols, 1});
  std::printf("%s", p.describe().c_str());
  p.execute(data.get());
  std::int64_t wrong = 0;
#pragma omp parallel for reduction(+ : wrong)
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i)
      wrong += data[j * rows + i] != hash_of(static_cast<std::uint64_t>(i) * cols + j);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
