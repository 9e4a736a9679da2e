// Index permutation of an in-place transposition (PPoPP'14 sec. 3, eq. 1) and its cycles.
// Transposing an R x C row-major matrix in place moves the element at linear index k = i*C + j
// to j*R + i, which equals k*R mod (R*C - 1) for k < R*C - 1 (the last index stays). The
// functions here use the div/mod form, exact for every size below 2^63 (no 128-bit products).
// Backend-free: used by the CPU kernels (cycle following, the reference); the cycle summary
// serves the tests and analysis of cycle structure.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpose::detail {

/// The permutation of linear indices done by transposing a rows x cols row-major matrix.
class transpose_permutation {
 public:
  transpose_permutation(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols) {}

  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t cols() const noexcept { return cols_; }
  std::int64_t size() const noexcept { return rows_ * cols_; }

  /// Where the element at index k of the rows x cols matrix goes (eq. 1).
  std::int64_t destination(std::int64_t k) const noexcept {
    const std::int64_t i = k / cols_;
    return (k - i * cols_) * rows_ + i;
  }
  /// Which element lands at index k of the transposed cols x rows matrix (inverse of eq. 1:
  /// k*C mod (R*C - 1)). Following source() is the gather order of cycle following.
  std::int64_t source(std::int64_t k) const noexcept {
    const std::int64_t a = k / rows_;
    return (k - a * rows_) * cols_ + a;
  }

 private:
  std::int64_t rows_;
  std::int64_t cols_;
};

/// Eq. 1 literally, k*R mod (R*C - 1) with a 128-bit product: for tests and cross-checks.
std::int64_t destination_by_modulus(std::int64_t k, std::int64_t rows, std::int64_t cols);

/// Bit flags over raw bytes, one bit per index (bit k % 8 of byte k / 8).
inline bool flag_is_set(const std::uint8_t* flags, std::int64_t k) noexcept {
  return (flags[k >> 3] >> (k & 7)) & 1u;
}
inline void set_flag(std::uint8_t* flags, std::int64_t k) noexcept {
  flags[k >> 3] = static_cast<std::uint8_t>(flags[k >> 3] | (1u << (k & 7)));
}
inline std::size_t flag_bytes(std::int64_t count) noexcept {
  return static_cast<std::size_t>((count + 7) / 8);
}

/// Calls visit(leader, length) once per cycle of the permutation, in increasing order of
/// leaders (the smallest index of each cycle); fixed points are cycles of length 1. `flags`
/// holds flag_bytes(size()) bytes and must be zero on entry (all set on return).
template <class Visit>
void for_each_cycle(const transpose_permutation& perm, std::uint8_t* flags, Visit&& visit) {
  const std::int64_t size = perm.size();
  for (std::int64_t leader = 0; leader < size; ++leader) {
    if (flag_is_set(flags, leader)) continue;
    std::int64_t length = 0;
    std::int64_t k = leader;
    do {
      set_flag(flags, k);
      ++length;
      k = perm.source(k);
    } while (k != leader);
    visit(leader, length);
  }
}

/// Cycle structure of the transposition of a rows x cols matrix, for describe() and tests.
struct cycle_summary {
  std::int64_t cycles = 0;        ///< all cycles, fixed points included
  std::int64_t fixed_points = 0;  ///< cycles of length 1
  std::int64_t longest = 0;       ///< length of the longest cycle
};

/// Enumerates every cycle (O(rows*cols) time, rows*cols/8 bytes of flags allocated here).
cycle_summary summarize_cycles(std::int64_t rows, std::int64_t cols);

}  // namespace xpose::detail
