// The description of a distributed matrix: splits, validation, capacities.
#include <algorithm>
#include <string>
#include <vector>

#include "xpose/dist.hpp"
#include "xpose/error.hpp"
#include "xpose/shape.hpp"

namespace xpose::dist {

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw error(status::invalid_argument, message);
}

void check_split(const std::vector<std::int64_t>& split, std::int64_t total, int ranks,
                 const char* name, const char* total_name) {
  if (split.empty()) return;
  if (static_cast<int>(split.size()) != ranks)
    invalid(std::string(name) + " has " + std::to_string(split.size()) +
            " counts; it needs one per rank (" + std::to_string(ranks) + ") or none");
  std::int64_t sum = 0;
  for (std::size_t r = 0; r < split.size(); ++r) {
    if (split[r] < 0)
      invalid(std::string(name) + "[" + std::to_string(r) +
              "] is negative: " + std::to_string(split[r]));
    if (split[r] > total - sum)
      invalid(std::string(name) + " sums to more than " + total_name + " (" +
              std::to_string(total) + ")");
    sum += split[r];
  }
  if (sum != total)
    invalid(std::string(name) + " sums to " + std::to_string(sum) + ", not " + total_name + " (" +
            std::to_string(total) + ")");
}

std::int64_t count_of(const std::vector<std::int64_t>& split, std::int64_t total, int ranks,
                      int rank) {
  if (!split.empty()) return split[static_cast<std::size_t>(rank)];
  return total / ranks + (rank < total % ranks ? 1 : 0);
}

std::int64_t first_of(const std::vector<std::int64_t>& split, std::int64_t total, int ranks,
                      int rank) {
  if (split.empty()) return rank * (total / ranks) + std::min<std::int64_t>(rank, total % ranks);
  std::int64_t first = 0;
  for (int r = 0; r < rank; ++r) first += split[static_cast<std::size_t>(r)];
  return first;
}

}  // namespace

std::vector<std::int64_t> even_split(std::int64_t n, int parts) {
  if (parts < 1) invalid("parts must be positive, got " + std::to_string(parts));
  if (n < 0) invalid("n must not be negative, got " + std::to_string(n));
  std::vector<std::int64_t> split(static_cast<std::size_t>(parts));
  for (int r = 0; r < parts; ++r) split[static_cast<std::size_t>(r)] = count_of({}, n, parts, r);
  return split;
}

void distributed_matrix::validate() const {
  if (rows <= 0) invalid("rows must be positive, got " + std::to_string(rows));
  if (cols <= 0) invalid("cols must be positive, got " + std::to_string(cols));
  if (elem_size == 0) invalid("elem_size must be positive, got 0");
  if (ranks < 1) invalid("ranks must be positive, got " + std::to_string(ranks));
  const auto product = static_cast<__int128>(rows) * cols * static_cast<__int128>(elem_size);
  if (product > INT64_MAX)
    invalid("a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix of " +
            std::to_string(elem_size) + "-byte elements overflows 64-bit indexing");
  check_split(row_split, rows, ranks, "row_split", "rows");
  check_split(col_split, cols, ranks, "col_split", "cols");
}

std::int64_t distributed_matrix::row_count(int rank) const {
  return count_of(row_split, rows, ranks, rank);
}
std::int64_t distributed_matrix::row_first(int rank) const {
  return first_of(row_split, rows, ranks, rank);
}
std::int64_t distributed_matrix::col_count(int rank) const {
  return count_of(col_split, cols, ranks, rank);
}
std::int64_t distributed_matrix::col_first(int rank) const {
  return first_of(col_split, cols, ranks, rank);
}

std::int64_t distributed_matrix::capacity_elements(int rank) const {
  return std::max(row_count(rank) * cols, col_count(rank) * rows);
}

std::size_t distributed_matrix::capacity_bytes(int rank) const {
  return static_cast<std::size_t>(capacity_elements(rank)) * elem_size;
}

distributed_matrix distributed_matrix::transposed() const {
  distributed_matrix t = *this;
  t.rows = cols;
  t.cols = rows;
  t.row_split = col_split.empty() ? even_split(cols, ranks) : col_split;
  t.col_split = row_split.empty() ? even_split(rows, ranks) : row_split;
  return t;
}

const char* to_string(scheme s) noexcept {
  switch (s) {
    case scheme::automatic:
      return "automatic";
    case scheme::rows_even:
      return "rows_even";
    case scheme::cols_even:
      return "cols_even";
    case scheme::any_split:
      return "any_split";
  }
  return "unknown";
}

}  // namespace xpose::dist
