// Index math of the Catanzaro-Keller-Garland decomposition (A Decomposition for In-place Matrix
// Transposition, PPoPP'14, sec. 3-4), backend-free, 64-bit throughout.
//
// The in-place transposition of a row-major m x n matrix moves the element at (i, j) to linear
// position p = j*m + i, i.e. to (p div n, p mod n) of the same m x n buffer. With c = gcd(m, n),
// a = m/c, b = n/c it factors into phases that each permute whole rows or whole columns:
//   1. pre-rotation (c > 1 only): column j rotated down by floor(j / b);
//   2. row shuffle: in row i, the element of column j (it came from row (i - floor(j/b)) mod m)
//      moves to column (j*m + (i - floor(j/b)) mod m) mod n, a bijection for each row;
//   3. column shuffle: new[r][s] = cur[(g(r) + s) mod m][s] with g(r) = (r*n + floor(r/a)) mod m,
//      i.e. column s rotated up by s mod m, then all rows permuted by g.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan/plan_data.hpp"

namespace xpose::detail {

std::int64_t greatest_common_divisor(std::int64_t x, std::int64_t y) noexcept;

/// floor(x / d) and x mod d for a fixed divisor d >= 1 and 0 <= x, through a floating-point
/// reciprocal corrected to the exact result (x < 2^52), or a hardware division above that.
class fixed_divisor {
 public:
  explicit fixed_divisor(std::int64_t d) : d_(d), reciprocal_(1.0 / static_cast<double>(d)) {}

  std::int64_t quotient(std::int64_t x) const noexcept {
    if (x >= (std::int64_t{1} << 52)) return x / d_;
    std::int64_t q = static_cast<std::int64_t>(static_cast<double>(x) * reciprocal_);
    const std::int64_t r = x - q * d_;  // the estimate is off by at most one
    if (r < 0) --q;
    if (r >= d_) ++q;
    return q;
  }
  std::int64_t remainder(std::int64_t x) const noexcept { return x - quotient(x) * d_; }

 private:
  std::int64_t d_;
  double reciprocal_;
};

/// The per-phase maps of the decomposition for one m x n row-major matrix (m, n >= 1).
class row_column_math {
 public:
  row_column_math(std::int64_t m, std::int64_t n)
      : m_(m),
        n_(n),
        c_(greatest_common_divisor(m, n)),
        a_(m / c_),
        b_(n / c_),
        by_m_(m),
        by_a_(a_) {}

  std::int64_t m() const noexcept { return m_; }
  std::int64_t n() const noexcept { return n_; }
  std::int64_t c() const noexcept { return c_; }  ///< gcd(m, n)
  std::int64_t a() const noexcept { return a_; }  ///< m / c
  std::int64_t b() const noexcept { return b_; }  ///< n / c

  /// Phase 1: how far column j is rotated down.
  std::int64_t pre_rotation(std::int64_t j) const noexcept { return j / b_; }
  /// Phase 1 as a gather: the row of the element that lands at (row, j).
  std::int64_t pre_rotation_source(std::int64_t row, std::int64_t j) const noexcept {
    return (row - pre_rotation(j) + m_) % m_;  // floor(j / b) < c <= m
  }
  /// Phase 2: the column where the element at (row, j) goes, within the same row.
  std::int64_t row_shuffle_destination(std::int64_t row, std::int64_t j) const noexcept {
    return (j * m_ + pre_rotation_source(row, j)) % n_;
  }
  /// Phase 3a: how far column s is rotated up.
  std::int64_t column_rotation(std::int64_t s) const noexcept { return s % m_; }
  /// Phase 3b: the row (after 3a) that becomes row r.
  std::int64_t row_permutation_source(std::int64_t r) const noexcept {
    return by_m_.remainder(r * n_ + by_a_.quotient(r));
  }
  /// Phase 3 as one gather: the row of column s whose element lands at (r, s).
  std::int64_t column_shuffle_source(std::int64_t r, std::int64_t s) const noexcept {
    return (row_permutation_source(r) + column_rotation(s)) % m_;
  }

 private:
  std::int64_t m_, n_, c_, a_, b_;
  fixed_divisor by_m_, by_a_;
};

/// Width, in elements, of the column blocks that phases 1 and 3 move together: a block of
/// m rows should stay in a core's L2 cache between the sweeps of one phase.
std::int64_t row_column_block_width(std::int64_t m, std::int64_t n, std::size_t e);

/// The bands in which the CPU runs the pre-rotation fused into the row shuffle of an m x n
/// matrix of e-byte elements with `threads` threads, or 0 where it runs the two apart: one band
/// per thread, each permuting its rows from its last to its first, every row gathered from the
/// rows the pre-rotation would move into it; the gcd(m, n) - 1 rows below each band are copied
/// into a scratch (its halo) first. Fused where gcd(m, n) > 1, the halos and the threads' row
/// buffers fit the CPU's in-place workspace budget (planner.hpp) and a band holds at least
/// row_column_min_band_halos times its halo.
std::int64_t row_column_rotated_bands(std::int64_t m, std::int64_t n, std::size_t e, int threads);
inline constexpr std::int64_t row_column_min_band_halos = 4;

/// The stages of route row_column for an m x n row-major matrix of e-byte elements:
/// [row_column_pre_rotate (only when gcd(m, n) > 1)], row_column_row_shuffle,
/// row_column_column_shuffle; rows = m, cols = n, super_bytes = e, tile = column block width.
/// Passes as the CPU runs them with `threads` threads: the pre-rotation costs its halos where it
/// fuses into the row shuffle (row_column_rotated_bands), a pass where it runs alone.
std::vector<stage> row_column_stages(std::int64_t m, std::int64_t n, std::size_t e,
                                     int threads = 1);

}  // namespace xpose::detail
