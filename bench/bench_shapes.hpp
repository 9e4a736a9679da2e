// Shapes shared by the micro-benchmarks: the PPoPP'14 Table 2 shapes and two with a prime
// dimension, plus a helper that fills a buffer with non-zero bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace xpose_bench {

struct shape {
  std::int64_t rows, cols;
};

inline constexpr std::array<shape, 8> rectangular_shapes{{{7200, 1800},
                                                          {5100, 2500},
                                                          {4000, 3200},
                                                          {3300, 3900},
                                                          {2500, 5100},
                                                          {1800, 7200},
                                                          {7919, 1800},
                                                          {4999, 3001}}};

inline std::string shape_name(std::int64_t rows, std::int64_t cols, std::size_t elem_size) {
  return std::to_string(rows) + "x" + std::to_string(cols) + "/e" + std::to_string(elem_size);
}

/// Bytes 1..255 in a fixed pattern: the timings do not depend on the values.
inline void fill_non_zero(std::byte* data, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>(1 + i % 251);
}

}  // namespace xpose_bench
