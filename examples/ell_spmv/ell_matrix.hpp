// ELL matrices for the SpMV example: n rows of W (value, column) pairs, row-major (AoS: each row a
// structure of W fields), with the dimensions of the DL paper's Table 1.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace ell {

/// DL paper ("DL: A Data Layout Transformation System for Heterogeneous Computing"), Table 1:
/// rows and widths of its sparse matrices.
inline constexpr std::int64_t table1_rows[] = {11948, 17281, 35588, 44609, 90449, 49152};
inline constexpr int table1_widths[] = {40, 62, 197, 215, 59, 39};

struct matrix {
  std::int64_t rows = 0;
  int width = 0;
  std::vector<float> values;          ///< rows x width, AoS
  std::vector<std::int32_t> columns;  ///< rows x width, AoS
  std::vector<float> x;               ///< the vector, `rows` long (square matrices)
};

/// Random values in [-1, 1); columns within 2048 of the diagonal, as in the banded matrices of
/// Table 1, so that x stays in cache. Blocks of rows are drawn on all cores, each from its own
/// generator: the matrix depends on the seed only.
inline matrix make_matrix(std::int64_t rows, int width, std::uint64_t seed) {
  constexpr std::int64_t block_rows = 4096;
  matrix m;
  m.rows = rows;
  m.width = width;
  m.values.resize(static_cast<std::size_t>(rows * width));
  m.columns.resize(m.values.size());
  m.x.resize(static_cast<std::size_t>(rows));
  const std::int64_t blocks = (rows + block_rows - 1) / block_rows;
  std::atomic<std::int64_t> next{0};
  const auto draw_blocks = [&] {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::uniform_int_distribution<std::int64_t> offset(-2048, 2048);
    for (std::int64_t b = next++; b < blocks; b = next++) {
      std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(b));
      for (std::int64_t i = b * block_rows; i < std::min(rows, (b + 1) * block_rows); ++i) {
        for (int k = 0; k < width; ++k) {
          m.values[i * width + k] = value(rng);
          m.columns[i * width + k] =
              static_cast<std::int32_t>(std::clamp<std::int64_t>(i + offset(rng), 0, rows - 1));
        }
        m.x[i] = value(rng);
      }
    }
  };
  std::vector<std::thread> threads(std::max(1u, std::thread::hardware_concurrency()));
  for (auto& t : threads) t = std::thread(draw_blocks);
  for (auto& t : threads) t.join();
  return m;
}

/// Whether y matches the AoS result: every layout adds each row's products in the same order,
/// but compiled code may contract them into fused multiply-adds differently.
inline bool same_result(const std::vector<float>& y, const std::vector<float>& reference) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    const float d = y[i] - reference[i], scale = 1.0f + std::abs(reference[i]);
    if (d > 1e-4f * scale || -d > 1e-4f * scale) return false;
  }
  return true;
}

}  // namespace ell
