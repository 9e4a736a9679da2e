// The chains path's table (cuda/inplace/chain_table.hpp), without a device: the chains path run
// on the host (heads saved, then chains moved, in the kernels' order) must transpose every
// instance; chains stay within their length and every cycle of two positions or more is listed.
#include "cuda/inplace/chain_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace xpose::test {
namespace {

using detail::cuda::build_chain_table;
using detail::cuda::chain_entry;
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
}

void check(std::uint32_t rows, std::uint32_t cols, std::uint32_t length) {
  const chain_table t = build_chain_table(rows, cols, length);
  const std::uint64_t size = std::uint64_t{rows} * cols;
  std::uint64_t listed = 0;
  for (const chain_entry& e : t.entries) {
    ASSERT_LE(e.length, length);
    ASSERT_GE(e.length, e.next_slot < 0 ? 2u : 1u);  // a cut cycle may end in a chain of one
    listed += e.length;
  }
  std::uint64_t moved = 0;  // positions on cycles of two or more
  for (std::uint64_t k = 0; k < size; ++k)
    moved += source(static_cast<std::uint32_t>(k), rows, cols) != k;
  ASSERT_EQ(listed, moved) << rows << "x" << cols;
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
