// The local stages of each scheme (local_stages.hpp).
#include "dist/local_stages.hpp"

#include "xpose/error.hpp"

namespace xpose::detail::dist {

using xpose::dist::scheme;

namespace {

void add(std::vector<local_op>& ops, local_op op) {
  if (op.batch <= 0 || op.rows <= 1 || op.cols <= 1 || op.unit == 0) return;
  ops.push_back(std::move(op));
}

std::string dims(std::int64_t rows, std::int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

}  // namespace

bool all_equal(const std::vector<std::int64_t>& counts) {
  for (std::int64_t c : counts)
    if (c != counts.front()) return false;
  return true;
}

scheme resolve_scheme(const split_layout& layout, scheme requested) {
  const bool rows_even = all_equal(layout.row_count), cols_even = all_equal(layout.col_count);
  switch (requested) {
    case scheme::automatic:
      return rows_even ? scheme::rows_even : cols_even ? scheme::cols_even : scheme::any_split;
    case scheme::rows_even:
      if (!rows_even)
        throw error(status::invalid_argument,
                    "options.local is rows_even, which needs every rank to hold as many rows, but "
                    "the row split is uneven (use automatic or any_split)");
      return requested;
    case scheme::cols_even:
      if (!cols_even)
        throw error(status::invalid_argument,
                    "options.local is cols_even, which needs every rank to hold as many columns "
                    "after, but the column split is uneven (use automatic or any_split)");
      return requested;
    case scheme::any_split:
      return requested;
  }
  throw error(status::invalid_argument,
              "options.local must be a scheme, got " + std::to_string(static_cast<int>(requested)));
}

local_stages plan_local_stages(const split_layout& layout, int rank, scheme chosen) {
  local_stages s;
  s.chosen = chosen;
  const std::size_t e = layout.elem;
  const std::int64_t M = layout.rows, N = layout.cols, P = layout.ranks;
  const std::int64_t m = layout.row_count[rank], n = layout.col_count[rank];
  const auto element_transpose = [&](std::uint64_t offset, std::int64_t batch, std::int64_t rows,
                                     std::int64_t cols, std::string what) {
    return local_op{false, offset, batch, rows, cols, e, std::move(what)};
  };
  if (chosen == scheme::cols_even) {
    // All n_s = N / P: the block as m x P super-elements of n_s elements.
    const std::int64_t width = layout.col_count[0];
    add(s.before, {true, 0, 1, m, P, static_cast<std::size_t>(width) * e,
                   "010: the " + dims(m, N) + " block as " + dims(m, P) + " super-elements of " +
                       std::to_string(width) + " elements: column blocks in order of rank"});
    add(s.after,
        element_transpose(0, 1, M, n, "transpose the received " + dims(M, n) + " column block"));
    return s;
  }
  add(s.before, element_transpose(0, 1, m, N,
                                  "transpose the " + dims(m, N) +
                                      " block: transposed column blocks in order of "
                                      "rank"));
  if (chosen == scheme::rows_even) {
    const std::int64_t height = layout.row_count[0];
    add(s.after, {true, 0, 1, P, n, static_cast<std::size_t>(height) * e,
                  "010: the received " + dims(P, n) + " super-elements of " +
                      std::to_string(height) + " elements"});
    return s;
  }
  // any_split: each received n x m_p block transposed, runs of equal m_p batched.
  for (int p = 0; p < P;) {
    int q = p;
    while (q + 1 < P && layout.row_count[q + 1] == layout.row_count[p]) ++q;
    const std::int64_t rows_p = layout.row_count[p], batch = q - p + 1;
    add(s.after,
        element_transpose(
            layout.recv_offset(rank, p), batch, n, rows_p,
            (batch > 1
                 ? std::to_string(batch) + " received blocks " + dims(n, rows_p) + " (ranks " +
                       std::to_string(p) + ".." + std::to_string(q) + ")"
                 : "the received block " + dims(n, rows_p) + " (rank " + std::to_string(p) + ")") +
                " transposed: the column block's rows"));
    p = q + 1;
  }
  add(s.after, element_transpose(0, 1, M, n, "transpose the " + dims(M, n) + " column block"));
  return s;
}

}  // namespace xpose::detail::dist
