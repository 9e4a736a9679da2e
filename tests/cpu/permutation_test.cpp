// Eq. 1 (PPoPP'14 sec. 3) and its cycles against the naive definition of a transposition, and
// cycle_following_reference against an out-of-place transpose on every shape up to 64 x 64.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "plan/permutation.hpp"
#include "test_util.hpp"

namespace xpose::detail {
namespace {

TEST(Permutation, DestinationMatchesRowColumnDefinitionAndEquationOne) {
  for (std::int64_t rows = 1; rows <= 40; ++rows)
    for (std::int64_t cols = 1; cols <= 40; ++cols) {
      const transpose_permutation perm(rows, cols);
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          const std::int64_t k = i * cols + j;
          ASSERT_EQ(perm.destination(k), j * rows + i) << rows << "x" << cols << " k=" << k;
          ASSERT_EQ(destination_by_modulus(k, rows, cols), j * rows + i);
          ASSERT_EQ(perm.source(perm.destination(k)), k);
        }
    }
}

TEST(Permutation, HugeSizesDoNotOverflow) {
  // rows * cols > 2^62: k * rows overflows 64 bits, the div/mod form must not.
  const std::int64_t rows = (std::int64_t{1} << 31) + 11, cols = (std::int64_t{1} << 31) - 1;
  const transpose_permutation perm(rows, cols);
  std::mt19937_64 rng(7);
  for (int t = 0; t < 1000; ++t) {
    const std::int64_t i = static_cast<std::int64_t>(rng() % rows);
    const std::int64_t j = static_cast<std::int64_t>(rng() % cols);
    const std::int64_t k = i * cols + j;
    ASSERT_EQ(perm.destination(k), j * rows + i);
    ASSERT_EQ(destination_by_modulus(k, rows, cols), j * rows + i);
    ASSERT_EQ(perm.source(j * rows + i), k);
  }
  EXPECT_EQ(perm.destination(perm.size() - 1), perm.size() - 1);
}

TEST(Permutation, CyclesOfThePapersFiveByThreeExample) {
  // Sec. 3: a 5 x 3 matrix has cycles (0)(1 5 11 13 9 3)(7)(2 10 8 12 4 6)(14).
  const transpose_permutation perm(5, 3);
  std::vector<std::uint8_t> flags(flag_bytes(perm.size()), 0);
  std::vector<std::set<std::int64_t>> cycles;
  for_each_cycle(perm, flags.data(), [&](std::int64_t leader, std::int64_t length) {
    std::set<std::int64_t> cycle;
    std::int64_t k = leader;
    do {
      cycle.insert(k);
      k = perm.destination(k);
    } while (k != leader);
    EXPECT_EQ(static_cast<std::int64_t>(cycle.size()), length);
    cycles.push_back(cycle);
  });
  const std::vector<std::set<std::int64_t>> expected = {
      {0}, {1, 5, 11, 13, 9, 3}, {2, 10, 8, 12, 4, 6}, {7}, {14}};
  EXPECT_EQ(cycles, expected);
  // Destination order along the paper's cycle: 1 -> 5 -> 11 -> 13 -> 9 -> 3 -> 1.
  EXPECT_EQ(perm.destination(1), 5);
  EXPECT_EQ(perm.destination(3), 1);
  const cycle_summary summary = summarize_cycles(5, 3);
  EXPECT_EQ(summary.cycles, 5);
  EXPECT_EQ(summary.fixed_points, 3);
  EXPECT_EQ(summary.longest, 6);
}

TEST(Permutation, SummaryCountsEveryElementOnce) {
  for (std::int64_t rows = 1; rows <= 30; ++rows)
    for (std::int64_t cols = 1; cols <= 30; ++cols) {
      const transpose_permutation perm(rows, cols);
      std::vector<std::uint8_t> flags(flag_bytes(perm.size()), 0);
      std::int64_t covered = 0, cycles = 0, fixed = 0, longest = 0;
      for_each_cycle(perm, flags.data(), [&](std::int64_t, std::int64_t length) {
        covered += length;
        ++cycles;
        fixed += length == 1;
        longest = std::max(longest, length);
      });
      ASSERT_EQ(covered, rows * cols);
      const cycle_summary s = summarize_cycles(rows, cols);
      ASSERT_EQ(s.cycles, cycles);
      ASSERT_EQ(s.fixed_points, fixed);
      ASSERT_EQ(s.longest, longest);
      // Square matrices: every cycle has length 1 or 2.
      if (rows == cols) {
        ASSERT_LE(s.longest, 2);
      }
    }
}

using xpose::test::random_bytes;
using xpose::test::reference_transpose;

void check_reference(std::int64_t rows, std::int64_t cols, std::size_t e, std::mt19937_64& rng) {
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  std::vector<std::byte> data = random_bytes<std::byte>(n * e, rng);
  const std::vector<std::byte> expected = reference_transpose(data, rows, cols, e);
  // Flags poisoned: the callee zeroes them.
  std::vector<std::byte> flags(flag_bytes(rows * cols), std::byte{0xff});
  cpu::cycle_following_reference(data.data(), rows, cols, e, flags.data());
  ASSERT_EQ(data, expected) << rows << "x" << cols << " e=" << e;
}

TEST(CycleFollowingReference, EveryShapeUpTo64) {
  std::mt19937_64 rng(42);
  const std::size_t random_sizes[] = {2, 3, 4, 5, 8, 16, 20, 24};
  for (std::int64_t rows = 1; rows <= 64; ++rows)
    for (std::int64_t cols = 1; cols <= 64; ++cols) {
      check_reference(rows, cols, 1, rng);
      check_reference(rows, cols, 12, rng);
      check_reference(rows, cols, random_sizes[rng() % 8], rng);
    }
}

}  // namespace
}  // namespace xpose::detail
