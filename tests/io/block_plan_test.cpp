// The blocked transposition of io/block_plan.hpp on memory: every route, on shapes with and
// without common factors, with steps small enough to make many; each step gathers its runs,
// permutes them and scatters them back, as a file run does, and the result must be the
// transpose. Also: the route choice, its refusals, and that no two runs of a step overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "io/block_plan.hpp"
#include "test_util.hpp"
#include "xpose/error.hpp"

namespace xpose::test {
namespace {

using detail::io::block_phase;
using detail::io::block_plan;
using detail::io::block_route;
using detail::io::byte_run;

/// Runs every step of `plan` on `data` as a file run would.
void run_in_memory(const block_plan& plan, std::vector<unsigned char>& data) {
  std::vector<byte_run> runs;
  for (std::int64_t step = 0; step < plan.total_steps; ++step) {
    const auto [phase, local] = detail::io::locate_step(plan, step);
    const std::uint64_t bytes = detail::io::step_runs(plan.phases[phase], local, runs);
    ASSERT_LE(bytes, plan.step_bytes) << plan.describe();
    std::vector<std::byte> in(bytes), out(bytes);
    std::uint64_t at = 0;
    for (const byte_run& r : runs) {
      ASSERT_LE(r.offset + r.bytes, data.size());
      std::memcpy(in.data() + at, data.data() + r.offset, r.bytes);
      at += r.bytes;
    }
    detail::io::permute_step(plan.phases[phase], local, in.data(), out.data(), 2);
    at = 0;
    for (const byte_run& r : runs) {
      std::memcpy(data.data() + r.offset, out.data() + at, r.bytes);
      at += r.bytes;
    }
  }
}

void check_route(std::int64_t rows, std::int64_t cols, std::size_t e, std::uint64_t step,
                 block_route route, std::int64_t factor, std::uint64_t seed) {
  const block_plan plan = detail::io::make_block_plan(rows, cols, e, step, route, factor, true);
  std::vector<unsigned char> data = random_bytes(static_cast<std::size_t>(rows * cols) * e, seed);
  const std::vector<unsigned char> expected = reference_transpose(data, rows, cols, e);
  run_in_memory(plan, data);
  ASSERT_TRUE(data == expected) << rows << " x " << cols << " of " << e << " bytes, step " << step
                                << "\n"
                                << plan.describe();
}

TEST(BlockPlan, RowColumnOnEveryShapeUpTo24) {
  std::uint64_t seed = 1;
  for (std::int64_t rows = 2; rows <= 24; ++rows)
    for (std::int64_t cols = 2; cols <= 24; ++cols)
      for (std::size_t e : {1, 4, 12}) {
        const std::uint64_t step = std::max(rows, cols) * e * 3;  // a few rows or columns a step
        check_route(rows, cols, e, step, block_route::row_column, 0, ++seed);
      }
}

TEST(BlockPlan, RowsFirstAndColumnsFirstOnEveryFactor) {
  std::uint64_t seed = 1000;
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{12, 18},
                                   {36, 20},
                                   {30, 42},
                                   {64, 48},
                                   {100, 7},
                                   {7, 100}})
    for (std::size_t e : {1, 2, 8, 24}) {
      const std::uint64_t matrix = static_cast<std::uint64_t>(rows * cols) * e;
      for (std::int64_t m = 2; m < rows; ++m) {
        if (rows % m) continue;
        const std::uint64_t step = std::max(m * cols, rows) * e;
        if (step >= matrix) continue;
        check_route(rows, cols, e, step, block_route::rows_first, m, ++seed);
        check_route(rows, cols, e, step * 2 + e, block_route::rows_first, m, ++seed);
      }
      for (std::int64_t n = 2; n < cols; ++n) {
        if (cols % n) continue;
        const std::uint64_t step = std::max(rows * n, cols) * e;
        if (step >= matrix) continue;
        check_route(rows, cols, e, step, block_route::columns_first, n, ++seed);
        check_route(rows, cols, e, step * 3, block_route::columns_first, n, ++seed);
      }
    }
}

TEST(BlockPlan, WholeAndIdentity) {
  check_route(33, 17, 4, 33 * 17 * 4, block_route::whole, 0, 1);
  check_route(1, 50, 8, 64, block_route::identity, 0, 2);
  check_route(50, 1, 8, 64, block_route::identity, 0, 3);
}

TEST(BlockPlan, ChosenRoutesTransposeLargerShapes) {
  std::uint64_t seed = 5000;
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1000, 720},
                                   {997, 1009},  // primes: row_column
                                   {4096, 96},   // tall
                                   {96, 4096},   // wide
                                   {2000, 3}})
    for (std::size_t e : {1, 4, 16})
      for (std::uint64_t step : {std::uint64_t{64} << 10, std::uint64_t{1} << 20}) {
        const std::uint64_t needed = detail::io::min_step_bytes(rows, cols, e);
        if (needed > step) continue;
        const block_plan plan = detail::io::choose_block_plan(rows, cols, e, step, true);
        std::vector<unsigned char> data =
            random_bytes(static_cast<std::size_t>(rows * cols) * e, ++seed);
        const std::vector<unsigned char> expected = reference_transpose(data, rows, cols, e);
        run_in_memory(plan, data);
        ASSERT_TRUE(data == expected) << plan.describe();
      }
}

TEST(BlockPlan, RunsOfAStepDoNotOverlapAndCoverTheMatrixOncePerPhase) {
  const block_plan plan =
      detail::io::make_block_plan(60, 84, 4, 60 * 4 * 5, block_route::row_column, 0, true);
  ASSERT_EQ(plan.phases.size(), 3u);  // gcd 12: pre-rotation too
  std::vector<byte_run> runs;
  for (const block_phase& p : plan.phases) {
    std::vector<int> covered(60 * 84 * 4, 0);
    for (std::int64_t s = 0; s < p.steps; ++s) {
      detail::io::step_runs(p, s, runs);
      for (const byte_run& r : runs)
        for (std::uint64_t b = r.offset; b < r.offset + r.bytes; ++b) ++covered[b];
    }
    EXPECT_TRUE(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }));
  }
}

TEST(BlockPlan, PrefersWideSuperElementsForTallMatrices) {
  // 2^20 x 64 of 4 bytes (256 MiB) with 8 MiB steps: row_column would read 4-byte runs per row.
  const block_plan plan = detail::io::choose_block_plan(1 << 20, 64, 4, 8 << 20, true);
  EXPECT_NE(plan.route, block_route::row_column) << plan.describe();
}

TEST(BlockPlan, RefusesWhatDoesNotFit) {
  // A row of 10^6 4-byte elements does not fit a 1 MiB step.
  try {
    detail::io::choose_block_plan(4, 1000000, 4, 1 << 20, true);
    FAIL() << "expected a refusal";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::unsupported);
    EXPECT_NE(std::string(e.what()).find("more memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(detail::io::make_block_plan(12, 18, 4, 1 << 20, block_route::rows_first, 5, true),
               error);  // 5 does not divide 12
  EXPECT_THROW(detail::io::make_block_plan(12, 18, 4, 16, block_route::whole, 0, true), error);
  EXPECT_THROW(detail::io::make_block_plan(12, 1, 4, 1 << 20, block_route::row_column, 0, true),
               error);
}

}  // namespace
}  // namespace xpose::test
