// The local stages around the exchange, per scheme, as data: which in-place transpositions run on
// a rank's buffer before and after the exchange so that the exchange finds the outgoing segments
// in order of peer, and the segments it brings in (in order of peer) become the rank's block of
// the transpose. Backend-free: the plan runs them on the GPU, the tests on the host.
//
// Rank r holds the m_r x N block A_r of the M x N matrix; column block s of it, m_r x n_s, goes
// to rank s, which ends up holding the n_s x M block of the transpose.
//  - rows_even (all m_r = m): A_r transposed (N x m) holds the transposed column blocks in order,
//    n_s x m each; rank s receives P of them, a P x n_s matrix of super-elements of m elements,
//    and one 010 (transposing that matrix of super-elements) gives n_s x (P m).
//  - cols_even (all n_s = n): A_r as an m_r x P matrix of super-elements of n elements, transposed
//    (one 010), holds the column blocks in order, m_r x n each; rank s receives them stacked,
//    the M x n column block, and transposes it.
//  - any_split: A_r transposed as in rows_even; rank s receives blocks n_s x m_r, transposes each
//    (batched where consecutive ranks hold as many rows), which stacks them into the M x n_s
//    column block, and transposes that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dist/exchange_schedule.hpp"
#include "xpose/dist.hpp"

namespace xpose::detail::dist {

/// One in-place transposition on the buffer: `batch` consecutive rows x cols matrices of
/// `unit`-byte units starting `offset` bytes in. `super`: the units are super-elements of several
/// elements, moved by one elementary tiled transposition (PPoPP'14's 010); otherwise they are the
/// matrix's elements, transposed by an xpose in-place plan.
struct local_op {
  bool super = false;
  std::uint64_t offset = 0;
  std::int64_t batch = 1, rows = 0, cols = 0;
  std::size_t unit = 0;
  std::string what;  ///< for describe()

  std::uint64_t bytes() const {
    return static_cast<std::uint64_t>(batch) * static_cast<std::uint64_t>(rows) *
           static_cast<std::uint64_t>(cols) * unit;
  }
};

struct local_stages {
  xpose::dist::scheme chosen = xpose::dist::scheme::rows_even;
  std::vector<local_op> before, after;
};

bool all_equal(const std::vector<std::int64_t>& counts);

/// The scheme `requested` resolves to for `layout` (automatic: rows_even, cols_even, any_split,
/// the first whose split applies; the plan then takes cols_even over rows_even where both apply
/// and only cols_even's block after the exchange is square blocks). Throws
/// xpose::error{invalid_argument} when a requested scheme's split is not even.
xpose::dist::scheme resolve_scheme(const split_layout& layout, xpose::dist::scheme requested);

/// Rank `rank`'s local stages under `chosen` (a resolved scheme). Transpositions that move
/// nothing (a dimension of 1, no elements) are left out.
local_stages plan_local_stages(const split_layout& layout, int rank, xpose::dist::scheme chosen);

}  // namespace xpose::detail::dist
