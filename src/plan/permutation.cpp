// Eq. 1 of PPoPP'14 (sec. 3) in its modulus form, and the cycle summary of a transposition.
#include "plan/permutation.hpp"

#include <algorithm>
#include <vector>

namespace xpose::detail {

std::int64_t destination_by_modulus(std::int64_t k, std::int64_t rows, std::int64_t cols) {
  const std::int64_t last = rows * cols - 1;
  if (k == last) return k;
  const unsigned __int128 product = static_cast<unsigned __int128>(k) * rows;
  return static_cast<std::int64_t>(product % static_cast<unsigned __int128>(last));
}

cycle_summary summarize_cycles(std::int64_t rows, std::int64_t cols) {
  const transpose_permutation perm(rows, cols);
  std::vector<std::uint8_t> flags(flag_bytes(perm.size()), 0);
  cycle_summary summary;
  for_each_cycle(perm, flags.data(), [&](std::int64_t, std::int64_t length) {
    ++summary.cycles;
    if (length == 1) ++summary.fixed_points;
    summary.longest = std::max(summary.longest, length);
  });
  return summary;
}

}  // namespace xpose::detail
