// The skinny_chunks route (plan/skinny_route.hpp, cpu/skinny_remainder.cpp) against a naive
// transpose on random data: every short dimension 1..64, wide and tall, long dimensions prime,
// with and without remainder, small ones exhaustively with several chunk widths and thread
// counts, element sizes 1, 2, 4, 8, 16 and 12; the stage lists; and the public API (forced and
// automatic route choice, batches, shapes the route refuses).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu/cpu_executor.hpp"
#include "plan/planner.hpp"
#include "plan/skinny_route.hpp"
#include "test_util.hpp"
#include "xpose/xpose.hpp"

namespace xpose::detail {
namespace {

using bytes = std::vector<unsigned char>;
using xpose::test::random_bytes;
using xpose::test::reference_transpose;

/// Runs `stages` on the M x N matrix `data` through the CPU executor, workspace poisoned.
void execute_stages(bytes& data, std::int64_t M, std::int64_t N, std::size_t e,
                    std::vector<stage> stages, int threads) {
  plan_data p;
  p.desc.rows = M;
  p.desc.cols = N;
  p.desc.elem_size = e;
  p.rows = M;
  p.cols = N;
  p.ld = N;
  p.batch_stride = M * N;
  p.threads = threads;
  p.stages = std::move(stages);
  const std::size_t workspace = cpu::workspace_bytes(p);
  p.workspace = std::shared_ptr<void>(new std::byte[workspace + 1],
                                      [](void* w) { delete[] static_cast<std::byte*>(w); });
  std::memset(p.workspace.get(), 0xa5, workspace + 1);
  cpu::execute_inplace(p, data.data());
}

/// Transposes a random M x N matrix with chunk width w (0: the route's own choice).
void expect_transposed(std::int64_t M, std::int64_t N, std::size_t e, std::int64_t w, int threads) {
  const bytes original = random_bytes(static_cast<std::size_t>(M * N) * e, M * 7919 + N * 31 + e);
  bytes data = original;
  const std::int64_t n = M <= N ? N : M;
  const auto stages =
      skinny_chunks_stages_with_width(M, N, e, w > 0 ? w : skinny_chunk_width(M + N - n, n, e));
  execute_stages(data, M, N, e, stages, threads);
  ASSERT_EQ(data, reference_transpose(original, M, N, e))
      << M << " x " << N << ", e=" << e << ", w=" << w << ", threads=" << threads;
}

TEST(SkinnyChunks, StageListsWideTallAndRefused) {
  for (auto [M, N] : {std::pair<std::int64_t, std::int64_t>{64, 64},
                      {65, 65},
                      {1, 1000},
                      {1000, 1},
                      {100, 100000},
                      {0, 100}})
    EXPECT_TRUE(skinny_chunks_stages(M, N, 4).empty()) << M << " x " << N;

  // 1000003 is prime: a remainder on both sides of 100 + 010 (wide) or 010 + 100 (tall).
  const auto wide = skinny_chunks_stages(2, 1000003, 4);
  ASSERT_EQ(wide.size(), 4u);
  EXPECT_EQ(wide[0].kind, stage_kind::skinny_remainder_split);
  EXPECT_EQ(wide[1].label, "100");
  EXPECT_EQ(wide[2].label, "010");
  EXPECT_EQ(wide[2].method, tiled_method::in_cache);
  EXPECT_EQ(wide[3].kind, stage_kind::skinny_remainder_place);
  EXPECT_GE(wide[1].super_bytes, 256u);
  const auto tall = skinny_chunks_stages(1000003, 64, 4);
  ASSERT_EQ(tall.size(), 4u);
  EXPECT_EQ(tall[0].kind, stage_kind::skinny_remainder_take);
  EXPECT_EQ(tall[1].label, "010");
  EXPECT_EQ(tall[2].label, "100");
  EXPECT_EQ(tall[3].kind, stage_kind::skinny_remainder_spread);
  double passes = 0;
  for (const stage& s : tall) passes += s.passes;
  EXPECT_LT(passes, 3.01);

  // A long dimension with a divisor of 256..1024 bytes needs no remainder steps.
  const auto divisible = skinny_chunks_stages(16, 1 << 20, 4);
  ASSERT_EQ(divisible.size(), 2u);
  EXPECT_EQ(divisible[0].kind, stage_kind::tiled_transpose);
  EXPECT_EQ(divisible[1].kind, stage_kind::tiled_transpose);
}

TEST(SkinnyChunks, WorkspaceWithinOnePercent) {
  // 16 threads (the device machine's CPU): the 010 stage's per-thread tiles dominate. Within
  // the planner's budget: 1% of the matrix, at least 256 KiB.
  for (std::int64_t m : {2, 3, 16, 33, 64})
    for (std::int64_t n : {100003, 999983, 1000003})
      for (std::size_t e : {1, 4, 8, 16, 12})
        for (bool wide : {true, false}) {
          plan_data p;
          p.threads = 16;
          p.rows = wide ? m : n;
          p.cols = wide ? n : m;
          p.stages = skinny_chunks_stages(p.rows, p.cols, e);
          const double matrix = static_cast<double>(m) * n * e;
          const double budget =
              std::max(workspace_budget_fraction * matrix, double{workspace_floor_bytes});
          EXPECT_LE(static_cast<double>(cpu::workspace_bytes(p)), budget)
              << p.rows << " x " << p.cols << ", e=" << e;
        }
}

TEST(SkinnyChunks, EveryShortDimensionWideAndTall) {
  for (std::size_t e : {1, 2, 4, 8, 16, 12})
    for (std::int64_t n : {1009, 2048})
      for (std::int64_t m = 1; m <= 64; ++m) {
        if (n == 2048 && e != 4 && e != 12) continue;
        expect_transposed(m, n, e, 0, 1 + static_cast<int>(m % 2));
        expect_transposed(n, m, e, 0, 1 + static_cast<int>(m % 2));
        if (HasFailure()) return;
      }
}

TEST(SkinnyChunks, PrimeLongDimensions) {
  for (std::int64_t n : {65537, 100003})
    for (std::int64_t m : {2, 17, 64})
      for (std::size_t e : {1, 4, 12}) {
        expect_transposed(m, n, e, 0, 2);
        expect_transposed(n, m, e, 0, 3);
        if (HasFailure()) return;
      }
}

// Up to 3 threads on short ranges: a thread's range can be shorter than the shift it saves.
TEST(SkinnyChunks, SmallLongDimensionsEveryChunkWidthAndThreadCount) {
  for (std::int64_t m : {2, 3, 7, 64})
    for (std::int64_t n = 65; n <= 300; ++n)
      for (std::int64_t w : {0, 1, 5, 64})
        for (std::size_t e : {4, 12}) {
          if (e == 12 && w != 0 && w != 5) continue;
          const int threads = e == 4 && w > 1 ? 1 + static_cast<int>(n % 3) : 1;
          expect_transposed(m, n, e, w, threads);
          expect_transposed(n, m, e, w, threads);
          if (HasFailure()) return;
        }
}

// ---- public API ------------------------------------------------------------------------------

matrix_desc dense(std::int64_t rows, std::int64_t cols, std::size_t e) {
  matrix_desc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_size = e;
  return d;
}

plan_options forcing(route r) {
  plan_options o;
  o.forced_route = r;
  return o;
}

TEST(SkinnyChunks, ForcedThroughTheApiWithBatchAndColumnMajor) {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{3, 10007},
                            {10007, 3},
                            {64, 2053},
                            {2053, 64},
                            {40, 4096}}) {
    const std::size_t e = 8;
    const std::int64_t batch = 3, size = rows * cols;
    const bytes original = random_bytes(static_cast<std::size_t>(batch * size) * e, rows + cols);
    bytes data = original;
    matrix_desc d = dense(rows, cols, e);
    d.batch = batch;
    const plan p = plan_inplace(d, forcing(route::skinny_chunks));
    EXPECT_EQ(p.chosen_route(), route::skinny_chunks);
    p.execute(data.data());
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::size_t offset = static_cast<std::size_t>(b * size) * e;
      const bytes one(original.begin() + offset, original.begin() + offset + size * e);
      const bytes done(data.begin() + offset, data.begin() + offset + size * e);
      ASSERT_EQ(done, reference_transpose(one, rows, cols, e)) << rows << " x " << cols;
    }
    // Column-major rows x cols is the row-major cols x rows view: transpose back.
    d.order = storage_order::col_major;
    plan_inplace(d, forcing(route::skinny_chunks)).execute(data.data());
    EXPECT_EQ(data, original) << rows << " x " << cols << " column-major";
  }
}

// The planner takes skinny_chunks for wide prime shapes; tall ones may go to row_column, whose
// predicted passes are fewer. Either way within the budget and right.
TEST(SkinnyChunks, AutomaticChoiceForPrimeSkinnyShapes) {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{2, 1000003},
                            {16, 100003},
                            {1000003, 2},
                            {100003, 16}}) {
    const std::size_t e = 4;
    const bytes original = random_bytes(static_cast<std::size_t>(rows * cols) * e, rows);
    bytes data = original;
    const plan p = plan_inplace(dense(rows, cols, e));
    if (rows < cols) EXPECT_EQ(p.chosen_route(), route::skinny_chunks) << rows << " x " << cols;
    EXPECT_LE(static_cast<double>(p.workspace_bytes()),
              std::max(workspace_budget_fraction * static_cast<double>(data.size()),
                       double{workspace_floor_bytes}));
    p.execute(data.data());
    EXPECT_EQ(data, reference_transpose(original, rows, cols, e)) << rows << " x " << cols;
  }
}

TEST(SkinnyChunks, RefusedShapesFailCleanly) {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{65, 1000}, {100, 70}, {30, 40}}) {
    const bytes original = random_bytes(static_cast<std::size_t>(rows * cols) * 4, 5);
    bytes data = original;
    try {
      plan_inplace(dense(rows, cols, 4), forcing(route::skinny_chunks)).execute(data.data());
      ADD_FAILURE() << "skinny_chunks accepted " << rows << " x " << cols;
    } catch (const error& err) {
      EXPECT_EQ(err.code(), status::unsupported);
      EXPECT_NE(std::string(err.what()).find("skinny_chunks"), std::string::npos) << err.what();
    }
    EXPECT_EQ(data, original);
  }
}

}  // namespace
}  // namespace xpose::detail
