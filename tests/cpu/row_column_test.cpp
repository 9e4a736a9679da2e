// Row/column decomposition (Catanzaro, Keller, Garland, PPoPP'14): the index maps against the
// definition of the transposition, each CPU phase against its gather formula, and the whole
// route against a naive out-of-place transpose, on random bytes with poisoned scratch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "plan/row_column.hpp"
#include "test_util.hpp"
#include "xpose/xpose.hpp"

namespace xpose::detail {
namespace {

using bytes = std::vector<std::byte>;

using xpose::test::random_bytes;
using xpose::test::reference_transpose;

/// Runs one phase with a poisoned workspace, and checks the phase writes nothing past its
/// workspace or past the matrix.
void run_phase(bytes& matrix, const stage& s, int threads) {
  constexpr std::size_t guard = 256;
  const std::size_t work = cpu::row_column_workspace(s, threads);
  bytes workspace = random_bytes<std::byte>(work + guard, 99);
  const bytes workspace_guard(workspace.end() - guard, workspace.end());
  matrix.resize(matrix.size() + guard, std::byte{0x5a});
  cpu::row_column_phase(matrix.data(), s, workspace.data(), threads);
  for (std::size_t k = matrix.size() - guard; k < matrix.size(); ++k)
    ASSERT_EQ(matrix[k], std::byte{0x5a}) << "write past the matrix in " << s.label;
  matrix.resize(matrix.size() - guard);
  ASSERT_TRUE(std::equal(workspace_guard.begin(), workspace_guard.end(), workspace.end() - guard))
      << "write past the workspace in " << s.label;
}

/// Transposes with route row_column; tile > 0 overrides the planned column block width.
bytes transpose_by_phases(bytes matrix, std::int64_t m, std::int64_t n, std::size_t e, int threads,
                          std::int64_t tile = 0) {
  for (stage s : row_column_stages(m, n, e)) {
    if (tile > 0) s.tile = std::min(tile, n);
    run_phase(matrix, s, threads);
  }
  return matrix;
}

void expect_transposes(std::int64_t m, std::int64_t n, std::size_t e, int threads,
                       std::int64_t tile = 0) {
  const bytes in =
      random_bytes<std::byte>(static_cast<std::size_t>(m * n) * e, m * 1000003 + n * 7 + e);
  const bytes out = transpose_by_phases(in, m, n, e, threads, tile);
  ASSERT_TRUE(out == reference_transpose(in, m, n, e))
      << m << " x " << n << ", " << e << "-byte elements, tile " << tile;
}

TEST(RowColumnMath, GcdAndFactors) {
  EXPECT_EQ(greatest_common_divisor(7200, 1800), 1800);
  EXPECT_EQ(greatest_common_divisor(7919, 1801), 1);
  EXPECT_EQ(greatest_common_divisor(1, 5), 1);
  const row_column_math math(5100, 2500);
  EXPECT_EQ(math.c(), 100);
  EXPECT_EQ(math.a(), 51);
  EXPECT_EQ(math.b(), 25);
}

// Applying the three maps literally, as gathers on element ids, gives the transposition.
TEST(RowColumnMath, PhasesComposeToTheTransposition) {
  for (std::int64_t m = 1; m <= 40; ++m) {
    for (std::int64_t n = 1; n <= 40; ++n) {
      const row_column_math math(m, n);
      std::vector<std::int64_t> cur(m * n), next(m * n);
      for (std::int64_t k = 0; k < m * n; ++k) cur[k] = k;
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j)
          next[r * n + j] = cur[math.pre_rotation_source(r, j) * n + j];
      cur.swap(next);
      std::fill(next.begin(), next.end(), -1);
      for (std::int64_t r = 0; r < m; ++r) {
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t s = math.row_shuffle_destination(r, j);
          ASSERT_EQ(next[r * n + s], -1) << "row shuffle is not a bijection: " << m << "x" << n;
          next[r * n + s] = cur[r * n + j];
        }
      }
      cur.swap(next);
      std::vector<bool> is_source(m, false);
      for (std::int64_t r = 0; r < m; ++r) is_source[math.row_permutation_source(r)] = true;
      ASSERT_TRUE(std::all_of(is_source.begin(), is_source.end(), [](bool b) { return b; }));
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t s = 0; s < n; ++s)
          next[r * n + s] = cur[math.column_shuffle_source(r, s) * n + s];
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          ASSERT_EQ(next[j * m + i], i * n + j)
              << m << " x " << n << " at (" << i << "," << j << ")";
    }
  }
}

TEST(RowColumnMath, FixedDivisorIsExact) {
  std::mt19937_64 rng(5);
  for (std::int64_t d :
       {std::int64_t{1}, std::int64_t{3}, std::int64_t{7919}, std::int64_t{1} << 31,
        std::int64_t{999999937}, (std::int64_t{1} << 40) + 15}) {
    const fixed_divisor by_d(d);
    for (int k = 0; k < 20000; ++k) {
      const int bits = 1 + static_cast<int>(rng() % 62);
      std::int64_t x = static_cast<std::int64_t>(rng() >> (64 - bits));
      if (k % 3 == 0) x = (x / d) * d - (k % 2);  // next to a multiple of d
      if (x < 0) continue;
      ASSERT_EQ(by_d.quotient(x), x / d) << x << " / " << d;
      ASSERT_EQ(by_d.remainder(x), x % d) << x << " % " << d;
    }
  }
}

TEST(RowColumnMath, NoOverflowPastTwoToThe31) {
  const std::int64_t m = 3000017, n = 1000003;  // m*n ~ 3e12
  const row_column_math math(m, n);
  EXPECT_EQ(math.c(), 1);
  const std::int64_t r = m - 1, s = n - 1;
  EXPECT_EQ(math.row_permutation_source(r), (r * n + r / math.a()) % m);
  EXPECT_GE(math.column_shuffle_source(r, s), 0);
  EXPECT_LT(math.column_shuffle_source(r, s), m);
  EXPECT_EQ(math.row_shuffle_destination(r, s), (s * m + r) % n);
}

TEST(RowColumnStages, PhaseListAndLabels) {
  const auto with_gcd = row_column_stages(7200, 1800, 4);
  ASSERT_EQ(with_gcd.size(), 3u);
  EXPECT_EQ(with_gcd[0].kind, stage_kind::row_column_pre_rotate);
  EXPECT_EQ(with_gcd[1].kind, stage_kind::row_column_row_shuffle);
  EXPECT_EQ(with_gcd[2].kind, stage_kind::row_column_column_shuffle);
  const auto coprime = row_column_stages(7919, 1801, 8);
  ASSERT_EQ(coprime.size(), 2u);
  for (const stage& s : coprime) {
    EXPECT_EQ(s.rows, 7919);
    EXPECT_EQ(s.cols, 1801);
    EXPECT_EQ(s.super_bytes, 8u);
    EXPECT_GE(s.tile, 1);
    EXPECT_LE(s.tile, 1801);
    EXPECT_FALSE(s.label.empty());
  }
}

// Each CPU phase equals its gather formula, with block widths that split the columns unevenly.
TEST(RowColumnPhases, EachPhaseMatchesItsFormula) {
  const std::size_t e = 4;
  for (auto [m, n] :
       {std::pair<std::int64_t, std::int64_t>{12, 18}, {37, 91}, {64, 48}, {5, 200}, {300, 7}}) {
    const row_column_math math(m, n);
    for (std::int64_t tile : {1, 3, 16, 1000}) {
      bytes cur = random_bytes<std::byte>(m * n * e, m + n + tile);
      for (stage s : row_column_stages(m, n, e)) {
        s.tile = std::min(tile, n);
        bytes expected(cur.size());
        for (std::int64_t r = 0; r < m; ++r) {
          for (std::int64_t j = 0; j < n; ++j) {
            std::int64_t to = r * n + j, from = r * n + j;
            if (s.kind == stage_kind::row_column_pre_rotate)
              from = math.pre_rotation_source(r, j) * n + j;
            if (s.kind == stage_kind::row_column_row_shuffle)
              to = r * n + math.row_shuffle_destination(r, j);
            if (s.kind == stage_kind::row_column_column_shuffle)
              from = math.column_shuffle_source(r, j) * n + j;
            std::memcpy(&expected[to * e], &cur[from * e], e);
          }
        }
        run_phase(cur, s, 2);
        ASSERT_TRUE(cur == expected) << s.label << " on " << m << " x " << n << ", tile " << tile;
      }
    }
  }
}

TEST(RowColumnRoute, EveryShapeUpTo64Fp32) {
  for (std::int64_t m = 1; m <= 64; ++m)
    for (std::int64_t n = 1; n <= 64; ++n) expect_transposes(m, n, 4, 2, (m + n) % 7 + 1);
}

TEST(RowColumnRoute, EveryShapeUpTo64OtherElementSizes) {
  // Sampled: every shape once, the element size cycling through the other five.
  const std::size_t sizes[] = {1, 2, 8, 16, 12};
  int k = 0;
  for (std::int64_t m = 1; m <= 64; ++m)
    for (std::int64_t n = 1; n <= 64; ++n) expect_transposes(m, n, sizes[k++ % 5], 2);
}

TEST(RowColumnRoute, PlannedBlockWidthOneThread) {
  for (std::int64_t m : {1, 2, 17, 64})
    for (std::int64_t n : {1, 3, 31, 64}) expect_transposes(m, n, 4, 1);
}

TEST(RowColumnRoute, PrimeShapes) {
  expect_transposes(7919, 1801, 4, 2);
  expect_transposes(4999, 3001, 8, 2);
  expect_transposes(1009, 2003, 12, 2);
  expect_transposes(997, 1013, 2, 2, 37);
}

TEST(RowColumnRoute, PaperTable2Shapes) {
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{7200, 1800},
                      {5100, 2500},
                      {4000, 3200},
                      {3300, 3900},
                      {2500, 5100},
                      {1800, 7200}})
    expect_transposes(m, n, 4, 2);
  expect_transposes(5100, 2500, 8, 2);
}

TEST(RowColumnRoute, SkinnyShapes) {
  expect_transposes(2, 1000000, 4, 2);
  expect_transposes(3, 999983, 2, 2);
  expect_transposes(64, 100000, 4, 2);
  expect_transposes(17, 250001, 8, 2);
  expect_transposes(48, 120000, 1, 2);
  expect_transposes(1000000, 2, 4, 2);
  expect_transposes(100003, 64, 16, 2);
  expect_transposes(250000, 24, 12, 2);
}

TEST(RowColumnRoute, SquaresAndGcdCases) {
  expect_transposes(1000, 1000, 4, 2);
  expect_transposes(777, 777, 16, 2);
  expect_transposes(1024, 4096, 8, 2);  // gcd 1024
  expect_transposes(3000, 2001, 4, 2);  // gcd 3
  expect_transposes(2310, 1001, 1, 2);  // gcd 77
}

// The pre-rotation fused into the row shuffle (cpu::row_column_fused_phases), against the two
// gather formulas in sequence, with a poisoned workspace and guards past it and the matrix.
void expect_fused_phases(std::int64_t m, std::int64_t n, std::size_t e, int threads,
                         std::int64_t bands) {
  const row_column_math math(m, n);
  const std::vector<stage> stages = row_column_stages(m, n, e, threads);
  ASSERT_EQ(stages.size(), 3u);
  const stage &pre = stages[0], &row = stages[1];
  bytes matrix = random_bytes<std::byte>(static_cast<std::size_t>(m * n) * e, m * 131 + n + e);
  bytes rotated(matrix.size()), expected(matrix.size());
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t j = 0; j < n; ++j) {
      std::memcpy(&rotated[(r * n + j) * e], &matrix[(math.pre_rotation_source(r, j) * n + j) * e],
                  e);
    }
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t j = 0; j < n; ++j)
      std::memcpy(&expected[(r * n + math.row_shuffle_destination(r, j)) * e],
                  &rotated[(r * n + j) * e], e);
  constexpr std::size_t guard = 256;
  const std::size_t work = cpu::row_column_fused_workspace(row, threads, bands);
  bytes workspace = random_bytes<std::byte>(work + guard, 77);
  const bytes workspace_guard(workspace.end() - guard, workspace.end());
  matrix.resize(matrix.size() + guard, std::byte{0x5a});
  cpu::row_column_fused_phases(matrix.data(), pre, row, workspace.data(), threads, bands);
  for (std::size_t k = matrix.size() - guard; k < matrix.size(); ++k)
    ASSERT_EQ(matrix[k], std::byte{0x5a}) << "write past the matrix";
  matrix.resize(matrix.size() - guard);
  ASSERT_TRUE(std::equal(workspace_guard.begin(), workspace_guard.end(), workspace.end() - guard))
      << "write past the workspace";
  ASSERT_TRUE(matrix == expected) << m << " x " << n << ", " << e << "-byte elements, " << threads
                                  << " threads, " << bands << " bands";
}

// Every shape up to 40 x 40 with gcd > 1, every element size 1-16, bands from one to one per
// row (bands shorter than their halos included) and 1-3 threads.
TEST(RowColumnFused, EveryShapeUpTo40WithGcd) {
  int k = 0;
  for (std::int64_t m = 2; m <= 40; ++m)
    for (std::int64_t n = 2; n <= 40; ++n) {
      if (greatest_common_divisor(m, n) < 2) continue;
      for (std::size_t e = 1; e <= 16; ++e, ++k) {
        const std::int64_t bands[] = {1, 2, 3, m, (m + 1) / 2};
        expect_fused_phases(m, n, e, k % 3 + 1, bands[k % 5]);
      }
    }
}

// Larger random shapes with a common factor: both row shuffle orders (b >= 16 through the
// destination table, b < 16 run by run), many bands, 1-4 threads.
TEST(RowColumnFused, RandomLargerShapes) {
  std::mt19937_64 rng(45);
  const std::size_t sizes[] = {1, 2, 4, 8, 16, 12, 3};
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t c = std::uniform_int_distribution<std::int64_t>(2, 40)(rng);
    const std::int64_t a = std::uniform_int_distribution<std::int64_t>(1, 60)(rng);
    const std::int64_t b = std::uniform_int_distribution<std::int64_t>(1, 60)(rng);
    const int threads = trial % 4 + 1;
    const std::int64_t bands =
        std::uniform_int_distribution<std::int64_t>(1, std::min<std::int64_t>(c * a, 64))(rng);
    expect_fused_phases(c * a, c * b, sizes[trial % 7], threads, bands);
  }
  expect_fused_phases(7444, 1144, 4, 2, 2);
  expect_fused_phases(1641, 1461, 8, 3, 7);  // gcd 3
  expect_fused_phases(3000, 2001, 12, 4, 4);
}

// The planned fusion runs where the halos are small, prices the pre-rotation at its halos, and
// stays apart where they are not (gcd 1800 of 7200 x 1800) or the bands are short.
TEST(RowColumnFused, PlannedWhereTheHalosAreSmall) {
  EXPECT_EQ(row_column_rotated_bands(7444, 11444, 4, 2), 2);
  EXPECT_EQ(row_column_rotated_bands(7444, 11444, 4, 16), 16);
  EXPECT_EQ(row_column_rotated_bands(7919, 1801, 4, 2), 0);  // gcd 1: no pre-rotation
  EXPECT_EQ(row_column_rotated_bands(7200, 1800, 4, 2), 0);
  EXPECT_EQ(row_column_rotated_bands(40, 30, 4, 2), 0);  // bands of 20 rows, halos of 9
  const auto stages = row_column_stages(7444, 11444, 4, 2);
  EXPECT_LT(stages[0].passes, 0.2);
  EXPECT_EQ(row_column_stages(7200, 1800, 4, 2)[0].passes, 1.0);
  const stage& pre = stages[0];
  const stage& row = stages[1];
  EXPECT_EQ(cpu::row_column_fused_bands(pre, row, 2), 2);
  EXPECT_EQ(cpu::row_column_fused_bands(row, pre, 2), 0);
  EXPECT_EQ(cpu::row_column_fused_bands(pre, stages[2], 2), 0);
}

// The whole route through the executor, where it fuses, at 1-4 threads.
TEST(RowColumnFused, RouteThroughThePlan) {
  for (int threads = 1; threads <= 4; ++threads) {
    for (auto [m, n, e] :
         {std::tuple<std::int64_t, std::int64_t, std::size_t>{2400, 1802, 4},  // gcd 2
          {3000, 2001, 8},                                                     // gcd 3
          {1800, 2404, 1},                                                     // gcd 4
          {1203, 903, 12},                                                     // gcd 3
          {3005, 905, 16}}) {                                                  // gcd 5
      const bytes in = random_bytes<std::byte>(static_cast<std::size_t>(m * n) * e, m + threads);
      plan_options options;
      options.forced_route = route::row_column;
      options.threads = threads;
      const plan p = plan_inplace({m, n, e}, options);
      EXPECT_GT(row_column_rotated_bands(m, n, e, threads), 0) << m << " x " << n;
      EXPECT_LT(p.predicted_passes(), 2.5) << p.describe();
      bytes data = in;
      p.execute(data.data());
      ASSERT_TRUE(data == reference_transpose(in, m, n, e)) << p.describe();
      // Stage by stage, the pre-rotation runs alone.
      bytes staged = in;
      for (std::size_t i = 0; i < p.stage_count(); ++i) p.execute_stage(i, staged.data());
      ASSERT_TRUE(staged == data) << p.describe();
    }
  }
}

// Rows of 16 KiB or more with gcd(m, n) > 1 and runs of 64 or more take the row shuffle as a
// gather: every element size, gcd 2 to 40, a few row counts and thread counts, the row shuffle
// alone, fused with the pre-rotation, and the whole route.
TEST(RowColumnGather, LongRowsEveryElementSize) {
  const std::size_t sizes[] = {1, 2, 3, 4, 5, 8, 12, 16};
  int trial = 0;
  for (std::size_t e : sizes) {
    for (std::int64_t c : {2, 3, 7, 40}) {
      for (std::int64_t a : {1, 2, 5}) {
        std::int64_t b = (16 << 10) / static_cast<std::int64_t>(e) / c + 1 + trial % 5;
        while (greatest_common_divisor(b, a * (8 * a + 1)) != 1) ++b;  // gcd exactly c
        const int threads = trial % 3 + 1;
        ++trial;
        const std::int64_t m = c * a, n = c * b;
        ASSERT_GE(n * static_cast<std::int64_t>(e), 16 << 10);
        ASSERT_EQ(row_column_math(m, n).c(), c);
        expect_transposes(m, n, e, threads);
        expect_fused_phases(m * 8 + c, n, e, threads, threads);
      }
    }
  }
  // Row shuffle alone against its formula.
  for (auto [m, n, e] : {std::tuple<std::int64_t, std::int64_t, std::size_t>{12, 16386, 1},
                         {9, 2049, 12},
                         {40, 1040, 16}}) {
    const row_column_math math(m, n);
    for (int threads : {1, 2, 3}) {
      bytes cur = random_bytes<std::byte>(m * n * e, m + n + threads);
      stage s = row_column_stages(m, n, e)[1];
      ASSERT_EQ(s.kind, stage_kind::row_column_row_shuffle);
      bytes expected(cur.size());
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j)
          std::memcpy(&expected[(r * n + math.row_shuffle_destination(r, j)) * e],
                      &cur[(r * n + j) * e], e);
      run_phase(cur, s, threads);
      ASSERT_TRUE(cur == expected) << m << " x " << n << ", " << e << " bytes";
    }
  }
}

// More than 2^31 one-byte elements; checked against the element's own index, no second copy.
TEST(RowColumnRoute, LargeMoreThan2To31Elements) {
  const std::int64_t m = 40000, n = 53700;  // gcd 100, 2.148e9 elements
  ASSERT_GT(m * n, std::int64_t{1} << 31);
  auto value = [](std::int64_t k) {
    return static_cast<std::uint8_t>((k * 0x9E3779B97F4A7C15ull) >> 56);
  };
  std::vector<std::uint8_t> data(static_cast<std::size_t>(m * n));
  for (std::int64_t k = 0; k < m * n; ++k) data[k] = value(k);
  for (const stage& s : row_column_stages(m, n, 1)) {
    std::vector<std::byte> workspace(cpu::row_column_workspace(s, 2));
    cpu::row_column_phase(reinterpret_cast<std::byte*>(data.data()), s, workspace.data(), 2);
  }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      ASSERT_EQ(data[j * m + i], value(i * n + j)) << "(" << i << "," << j << ")";
}

}  // namespace
}  // namespace xpose::detail
