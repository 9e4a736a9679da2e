// The chains path's table (cuda/inplace/chain_table.hpp), without a device: the chains path run
// on the host (heads saved, chains moved, short cycles found by the same leader walk as the
// kernel) must transpose every instance, and the table must stay within its bounds.
#include "cuda/inplace/chain_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace xpose::test {
namespace {

using detail::cuda::build_chain_table;
using detail::cuda::chain_entries_bound;
using detail::cuda::chain_entry;
using detail::cuda::chain_short_limit;
using detail::cuda::chain_slots_bound;
using detail::cuda::chain_table;

std::uint32_t source(std::uint32_t k, std::uint32_t rows, std::uint32_t cols) {
  const std::uint32_t a = k / rows;
  return (k - a * rows) * cols + a;
}

/// The chains kernels' moves on `data` (one value per position), in the kernels' order.
void run_chains(std::vector<std::uint32_t>& data, const chain_table& t, std::uint32_t rows,
                std::uint32_t cols) {
  std::vector<std::uint32_t> heads(t.split_chains);
  for (std::uint32_t c = 0; c < t.split_chains; ++c) heads[c] = data[t.entries[c].head];
  for (const chain_entry& e : t.entries) {
    const std::uint32_t last = e.next_slot < 0 ? data[e.head] : heads[e.next_slot];
    std::uint32_t p = e.head;
    for (std::uint32_t j = 0; j < e.length; ++j) {
      const std::uint32_t next = source(p, rows, cols);
      data[p] = j + 1 < e.length ? data[next] : last;
      p = next;
    }
  }
  const std::uint32_t size = rows * cols;
  for (std::uint32_t k = 0; k < size; ++k) {
    std::uint32_t length = 0, x = source(k, rows, cols);
    for (std::uint32_t t = 1; t <= chain_short_limit; ++t) {
      if (x == k) {
        length = t;
        break;
      }
      if (x < k) break;
      x = source(x, rows, cols);
    }
    if (length < 2) continue;
    const std::uint32_t first = data[k];
    std::uint32_t p = k;
    for (std::uint32_t j = 0; j < length; ++j) {
      const std::uint32_t next = source(p, rows, cols);
      data[p] = j + 1 < length ? data[next] : first;
      p = next;
    }
  }
}

void check(std::uint32_t rows, std::uint32_t cols, std::uint32_t length) {
  const chain_table t = build_chain_table(rows, cols, length);
  const std::uint64_t size = std::uint64_t{rows} * cols;
  ASSERT_LE(t.entries.size(), chain_entries_bound(size, length)) << rows << "x" << cols;
  ASSERT_LE(t.split_chains, chain_slots_bound(size, length)) << rows << "x" << cols;
  for (const chain_entry& e : t.entries) ASSERT_LE(e.length, length);
  std::vector<std::uint32_t> data(size);
  std::iota(data.begin(), data.end(), 0u);
  run_chains(data, t, rows, cols);
  for (std::uint32_t i = 0; i < rows; ++i)
    for (std::uint32_t j = 0; j < cols; ++j)
      ASSERT_EQ(data[std::uint64_t{j} * rows + i], i * cols + j)
          << rows << "x" << cols << " chains of " << length << " at (" << i << ", " << j << ")";
}

TEST(ChainTable, EveryShapeUpTo40) {
  for (std::uint32_t rows = 1; rows <= 40; ++rows)
    for (std::uint32_t cols = 1; cols <= 40; ++cols)
      for (std::uint32_t length : {16u, 64u, 100u}) {
        check(rows, cols, length);
        if (HasFatalFailure()) return;
      }
}

TEST(ChainTable, LargerAndPrimeShapes) {
  check(30, 1800, 16);
  check(1009, 997, 16);
  check(4001, 3000, 128);
  check(2, 50000, 16);
  check(50000, 3, 1024);
  check(7919, 1801, 64);
}

}  // namespace
}  // namespace xpose::test
