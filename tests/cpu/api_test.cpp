// The public C++ API on the CPU: every route against the naive reference, storage orders,
// batches, leading dimensions, round trips, and bad inputs (clear error, data untouched).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "test_util.hpp"
#include "xpose/xpose.hpp"

namespace {

using bytes = std::vector<unsigned char>;
using xpose::test::random_bytes;
using xpose::test::reference_transpose;

xpose::matrix_desc dense(std::int64_t rows, std::int64_t cols, std::size_t e) {
  xpose::matrix_desc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_size = e;
  return d;
}

xpose::plan_options forcing(xpose::route r) {
  xpose::plan_options o;
  o.forced_route = r;
  return o;
}

/// Runs `r` in place on a random rows x cols matrix; false if the route does not apply.
bool inplace_matches_reference(std::int64_t rows, std::int64_t cols, std::size_t e, xpose::route r,
                               std::uint64_t seed) {
  const bytes original = random_bytes(static_cast<std::size_t>(rows * cols) * e, seed);
  bytes data = original;
  try {
    const xpose::plan p = xpose::plan_inplace(dense(rows, cols, e), forcing(r));
    p.execute(data.data());
  } catch (const xpose::error& err) {
    if (err.code() == xpose::status::unsupported) return false;
    throw;
  }
  EXPECT_EQ(data, reference_transpose(original, rows, cols, e))
      << to_string(r) << " " << rows << " x " << cols << " e=" << e;
  return true;
}

TEST(InplaceRoutes, ExhaustiveSmallShapesEveryRouteAndElementSize) {
  const xpose::route routes[] = {xpose::route::automatic,  xpose::route::cycle_following,
                                 xpose::route::row_column, xpose::route::three_stage,
                                 xpose::route::four_stage, xpose::route::skinny_chunks};
  for (std::size_t e : {1, 2, 4, 8, 16, 12}) {
    int staged_runs = 0, skinny_runs = 0;
    for (std::int64_t rows = 1; rows <= 64; ++rows)
      for (std::int64_t cols = 1; cols <= 64; ++cols)
        for (xpose::route r : routes) {
          const bool ran = inplace_matches_reference(rows, cols, e, r, rows * 131 + cols);
          if (r == xpose::route::automatic || r == xpose::route::row_column ||
              r == xpose::route::cycle_following)
            ASSERT_TRUE(ran) << to_string(r) << " must apply to " << rows << " x " << cols;
          staged_runs += ran && (r == xpose::route::three_stage || r == xpose::route::four_stage);
          skinny_runs += ran && r == xpose::route::skinny_chunks;
          if (HasFailure()) return;
        }
    EXPECT_GT(staged_runs, 1000) << "staged routes barely ever applied, e=" << e;
    // Skinny needs a dimension above 64, so on these shapes only vectors (identity) plan.
    EXPECT_GT(skinny_runs, 0) << "e=" << e;
  }
}

TEST(InplaceRoutes, SquareVariantsWithLeadingDimension) {
  for (xpose::route r : {xpose::route::square_tile_swap, xpose::route::square_naive,
                         xpose::route::square_prefetch, xpose::route::square_recursive})
    for (std::int64_t n : {1, 2, 3, 31, 64, 65, 200}) {
      const std::int64_t ld = n + 3;
      const std::size_t e = 8;
      const bytes original = random_bytes(static_cast<std::size_t>(n * ld) * e, n);
      bytes data = original;
      xpose::matrix_desc d = dense(n, n, e);
      d.ld = ld;
      xpose::plan_inplace(d, forcing(r)).execute(data.data());
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < ld; ++j) {
          const std::int64_t from = j < n ? j * ld + i : i * ld + j;  // gaps stay untouched
          ASSERT_EQ(0, std::memcmp(&data[(i * ld + j) * e], &original[from * e], e))
              << to_string(r) << " n=" << n << " at " << i << "," << j;
        }
    }
}

TEST(InplaceRoutes, RandomBiggerShapesPrimesSkinnyAndPaperShapes) {
  struct shape {
    std::int64_t rows, cols;
    std::size_t e;
  };
  const shape shapes[] = {{7200, 1800, 4}, {5100, 2500, 4}, {4000, 3200, 4}, {3300, 3900, 4},
                          {2500, 5100, 4}, {1800, 7200, 4}, {7919, 1801, 4}, {4999, 3001, 8},
                          {2, 1000003, 4}, {64, 100000, 2}, {300007, 17, 4}, {1000, 1000, 4},
                          {997, 1009, 12}, {3, 333331, 16}, {1024, 4096, 1}};
  for (const shape& s : shapes) {
    const bytes original = random_bytes(static_cast<std::size_t>(s.rows * s.cols) * s.e, s.rows);
    const bytes expected = reference_transpose(original, s.rows, s.cols, s.e);
    bytes data = original;
    xpose::transpose_inplace(data.data(), s.rows, s.cols, s.e);
    EXPECT_TRUE(data == expected) << s.rows << " x " << s.cols << " e=" << s.e;
  }
}

// One side a multiple of the other: the 3-stage route takes the square blocks (a 100 of the
// blocks' rows and the square tile swap on each block), wide and tall, edges on 16 bytes and not,
// several element sizes, a batch.
TEST(InplaceRoutes, ThreeStageSquareBlocks) {
  struct shape {
    std::int64_t rows, cols;
    std::size_t e;
    std::int64_t batch;
  };
  const shape shapes[] = {{64, 128, 4, 1},    {128, 64, 8, 1},  {65, 195, 4, 1},
                          {600, 200, 12, 1},  {97, 970, 1, 1},  {1800, 7200, 4, 1},
                          {7200, 1800, 2, 1}, {96, 288, 16, 3}, {300, 100, 8, 2}};
  for (const shape& s : shapes) {
    xpose::matrix_desc d = dense(s.rows, s.cols, s.e);
    d.batch = s.batch;
    const std::size_t matrix = static_cast<std::size_t>(s.rows * s.cols) * s.e;
    const bytes original = random_bytes(matrix * s.batch, s.rows + s.cols);
    bytes data = original;
    const xpose::plan p = xpose::plan_inplace(d, forcing(xpose::route::three_stage));
    EXPECT_NE(p.describe().find("square blocks"), std::string::npos) << p.describe();
    p.execute(data.data());
    for (std::int64_t b = 0; b < s.batch; ++b) {
      const bytes one(original.begin() + b * matrix, original.begin() + (b + 1) * matrix);
      EXPECT_TRUE(std::equal(data.begin() + b * matrix, data.begin() + (b + 1) * matrix,
                             reference_transpose(one, s.rows, s.cols, s.e).begin()))
          << s.rows << " x " << s.cols << " e=" << s.e << " matrix " << b;
    }
  }
}

TEST(InplaceRoutes, RoundTripIsIdentity) {
  for (xpose::route r : {xpose::route::automatic, xpose::route::row_column,
                         xpose::route::three_stage, xpose::route::cycle_following}) {
    const std::int64_t rows = 360, cols = 1001;
    const bytes original = random_bytes(rows * cols * 4, 7);
    bytes data = original;
    const xpose::plan there = xpose::plan_inplace(dense(rows, cols, 4), forcing(r));
    const xpose::plan back = xpose::plan_inplace(dense(cols, rows, 4), forcing(r));
    there.execute(data.data());
    EXPECT_FALSE(data == original) << to_string(r) << " did nothing";
    back.execute(data.data());
    EXPECT_TRUE(data == original) << to_string(r);
  }
}

TEST(InplaceRoutes, ColumnMajorAndBatch) {
  const std::int64_t rows = 37, cols = 120, batch = 3;
  const std::size_t e = 4;
  const bytes original = random_bytes(rows * cols * batch * e, 11);
  bytes data = original;
  xpose::matrix_desc d = dense(rows, cols, e);
  d.order = xpose::storage_order::col_major;  // in memory: cols x rows row-major
  d.batch = batch;
  xpose::plan_inplace(d).execute(data.data());
  for (std::int64_t b = 0; b < batch; ++b) {
    bytes one(original.begin() + b * rows * cols * e, original.begin() + (b + 1) * rows * cols * e);
    const bytes expected = reference_transpose(one, cols, rows, e);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), data.begin() + b * rows * cols * e))
        << "matrix " << b;
  }
}

TEST(CopyRoutes, StridedBatchedColumnMajorAndGapsUntouched) {
  const std::int64_t rows = 45, cols = 77, lda = 80, ldb = 50, batch = 2;
  const std::int64_t src_stride = rows * lda + 5, dst_stride = cols * ldb + 9;
  for (std::size_t e : {1, 2, 4, 8, 16, 12}) {
    const bytes src = random_bytes(src_stride * batch * e, e);
    bytes dst(dst_stride * batch * e, 0xAB);
    xpose::matrix_desc d = dense(rows, cols, e);
    d.ld = lda;
    d.batch = batch;
    d.batch_stride = src_stride;
    xpose::plan_copy(d, ldb, dst_stride).execute(src.data(), dst.data());
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < ldb; ++i) {
          const unsigned char* got = &dst[(b * dst_stride + j * ldb + i) * e];
          if (i < rows) {
            ASSERT_EQ(0, std::memcmp(got, &src[(b * src_stride + i * lda + j) * e], e));
          } else {
            ASSERT_EQ(got[0], 0xAB) << "gap overwritten";
          }
        }
  }
  // Column-major: the same bytes as a row-major cols x rows matrix.
  const bytes src = random_bytes(rows * cols * 4, 3);
  bytes dst(src.size());
  xpose::matrix_desc d = dense(rows, cols, 4);
  d.order = xpose::storage_order::col_major;
  xpose::plan_copy(d).execute(src.data(), dst.data());
  EXPECT_TRUE(dst == reference_transpose(src, cols, rows, 4));
}

TEST(Plans, DescribeNamesRouteStagesAndWorkspace) {
  const xpose::plan p = xpose::plan_inplace(dense(7200, 1800, 4));
  const std::string text = p.describe();
  EXPECT_EQ(p.chosen_route(), xpose::route::three_stage);
  EXPECT_NE(text.find("route: three_stage"), std::string::npos) << text;
  EXPECT_NE(text.find("7200 x 1800 row-major, 4-byte elements"), std::string::npos) << text;
  EXPECT_NE(text.find("stage 1"), std::string::npos) << text;
  EXPECT_NE(text.find("workspace"), std::string::npos) << text;
  EXPECT_GT(p.predicted_passes(), 0.0);
  const std::string skinny = xpose::plan_inplace(dense(2, 100003, 4)).describe();
  EXPECT_NE(skinny.find("route: skinny_chunks"), std::string::npos) << skinny;
  EXPECT_NE(skinny.find("split remainder — skinny remainder"), std::string::npos) << skinny;
  // Extra memory stays under 1% of the matrix for the default route.
  EXPECT_LE(p.workspace_bytes(), 7200u * 1800u * 4u / 100u) << text;
  // A plan executes many times.
  bytes data = random_bytes(7200 * 1800 * 4, 1);
  const bytes original = data;
  p.execute(data.data());
  xpose::plan_inplace(dense(1800, 7200, 4)).execute(data.data());
  EXPECT_TRUE(data == original);
}

// Out-of-place and square GPU plans are made without touching the device (in-place non-square
// ones allocate their device workspace), so their description is checked here too.
TEST(Plans, DescribeNamesTheGpuKernel) {
  if (!xpose::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  xpose::plan_options gpu;
  gpu.target = xpose::device::cuda;
  const auto kernel_line = [&](const xpose::plan& p) {
    const std::string text = p.describe();
    const std::size_t at = text.find("    kernel: ");
    return at == std::string::npos ? text : text.substr(at, text.find('\n', at) - at);
  };
  // Columns that are no whole tiles on any memory (copy_tuned's whole tiles name other tiles).
  const std::string aligned = kernel_line(xpose::plan_copy(dense(8192, 8200, 4), 0, 0, gpu));
  EXPECT_NE(aligned.find("kernel: copy_tuned's tiles of 64 rows x 256 bytes when"),
            std::string::npos)
      << aligned;
  EXPECT_NE(aligned.find("(pointers aligned to 4 bytes)"), std::string::npos) << aligned;
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(10007, 7001, 4), 0, 0, gpu)).find("copy_unaligned"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(10007, 7001, 8), 0, 0, gpu)).find("copy_unaligned"),
            std::string::npos);
  // 16-byte rows of 4095 elements start mid-sector: copy_sectors.
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(4097, 4095, 16), 0, 0, gpu)).find("copy_sectors"),
            std::string::npos);
  // 1-byte rows of 8208 bytes start 16 bytes into a 32-byte sector: copy_unaligned.
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(8176, 8208, 1), 0, 0, gpu)).find("copy_unaligned"),
            std::string::npos);
  // copy_unaligned names its tiles: the large ones for 4-byte elements from 192 MiB (on any
  // device), the 8-byte ones, the standard 1-byte ones below 192 MiB.
  for (const auto& [rows, cols, e, tiles] :
       {std::tuple<std::int64_t, std::int64_t, std::size_t, const char*>{
            10007, 7001, 4, "tiles of 120 rows x 256 bytes and a halo of 8 rows"},
        {10007, 7001, 8, "tiles of 60 rows x 512 bytes and a halo of 4 rows"},
        {8176, 8208, 1, "tiles of 224 rows x 128 bytes and a halo of 32 rows"}}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(rows, cols, e), 0, 0, gpu));
    EXPECT_NE(line.find(std::string("sectors, ") + tiles + " (pointers aligned to"),
              std::string::npos)
        << line;
  }
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(16, 100000, 2), 0, 0, gpu)).find("skinny slabs"),
            std::string::npos);
  // Short, wide and tall, narrow ones whose tiles would cut the rows or be mostly empty.
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(32, 100000, 2), 0, 0, gpu)).find("copy_full_height"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100001, 65, 2), 0, 0, gpu)).find("copy_full_width"),
            std::string::npos);
  for (std::size_t e : {3, 7, 12, 15}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(360, 500, e), 0, 0, gpu));
    EXPECT_NE(line.find("copy_any_size, each " + std::to_string(e) + "-byte element"),
              std::string::npos)
        << line;
  }
  // copy_any_size names its tiles (any_size_tiles_for in cuda/copy/any_size.cu picks them by
  // element size and shape, and how full they are) and the tiles with a halo it takes where a
  // destination row starts off 32 bytes at execute.
  for (const auto& [rows, cols, e, tiles, halo_tiles] :
       {std::tuple<std::int64_t, std::int64_t, std::size_t, const char*, const char*>{
            16384, 16384, 3, "tiles of 128 rows x 42 columns when", "96 rows x 42 columns"},
        {1000000, 100, 3, "tiles of 96 rows x 42 columns when", "128 rows x 34 columns"},
        {8192, 4096, 3, "tiles of 64 rows x 32 columns when", "96 rows x 42 columns"},
        {5024, 128, 3, "tiles of 96 rows x 32 columns when", "128 rows x 32 columns"},
        {224, 128, 3, "tiles of 32 rows x 64 columns when", "96 rows x 42 columns"},
        {3072, 1024, 5, "tiles of 128 rows x 25 columns when", "96 rows x 25 columns"},
        {1000000, 64, 6, "tiles of 96 rows x 21 columns when", "96 rows x 42 columns"},
        {1000000, 100, 6, "tiles of 128 rows x 21 columns when", "96 rows x 21 columns"},
        {20000, 100, 7, "tiles of 64 rows x 36 columns when", "64 rows x 36 columns"},
        {1000000, 65, 9, "tiles of 96 rows x 14 columns when", "96 rows x 14 columns"},
        {8192, 8192, 7, "tiles of 64 rows x 32 columns when", "64 rows x 36 columns"},
        {8192, 8192, 9, "tiles of 32 rows x 28 columns when", "64 rows x 28 columns"},
        {8192, 4096, 13, "tiles of 32 rows x 32 columns when", "64 rows x 19 columns"}}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(rows, cols, e), 0, 0, gpu));
    EXPECT_NE(line.find(tiles), std::string::npos) << line;
    EXPECT_NE(line.find(std::string("at execute, else tiles of ") + halo_tiles + " and a halo of " +
                        std::to_string((31 + e - 1) / e) + " rows"),
              std::string::npos)
        << line;
  }
  const std::string odd_rows = kernel_line(xpose::plan_copy(dense(8193, 8192, 3), 0, 0, gpu));
  EXPECT_NE(odd_rows.find("tiles of 96 rows x 42 columns and a halo of 11 rows"), std::string::npos)
      << odd_rows;
  EXPECT_EQ(odd_rows.find(" when "), std::string::npos) << odd_rows;
  // Short, wide ones of 48 to 320 rows: copy_full_height, one tile over every row (from 7 bytes,
  // where copy_any_size's tiles with a halo are not four tile rows at least 9/10 full).
  for (const auto& [rows, e] : {std::pair<std::int64_t, std::size_t>{48, 3},
                                {100, 3},
                                {120, 3},
                                {100, 11},
                                {230, 7},
                                {281, 13},
                                {319, 6}}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(rows, 100000, e), 0, 0, gpu));
    EXPECT_NE(line.find("copy_full_height, short rows that tiles would cut: one tile covers every "
                        "row, each " +
                        std::to_string(e) + "-byte element"),
              std::string::npos)
        << rows << " " << line;
  }
  // Past 320 rows, copy_any_size again, but for 3-byte elements in 321 to 353 rows whose
  // destination rows start off 32 bytes (352 rows: copy_any_size where they start on 32 bytes at
  // execute).
  for (const auto& [rows, e] :
       {std::pair<std::int64_t, std::size_t>{321, 5}, {354, 3}, {321, 3}, {353, 3}, {352, 3}}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(rows, 100000, e), 0, 0, gpu));
    const bool full_height = e == 3 && rows != 352 && rows <= 353;
    EXPECT_NE(line.find(full_height ? "kernel: copy_full_height" : "kernel: copy_any_size"),
              std::string::npos)
        << rows << " " << line;
  }
  const std::string rows_352 = kernel_line(xpose::plan_copy(dense(352, 100000, 3), 0, 0, gpu));
  EXPECT_NE(rows_352.find("when the destination rows start on 32 bytes at execute, else "
                          "copy_full_height"),
            std::string::npos)
      << rows_352;
  // Tall 12-byte shapes of at most 128 columns in rows on 16 / 32 bytes: the super-element
  // kernel's aligned chunks at execute; squares copy_any_size.
  const std::string aligned_twelve =
      kernel_line(xpose::plan_copy(dense(100000, 64, 12), 0, 0, gpu));
  EXPECT_NE(aligned_twelve.find("3 words of 4 bytes in aligned 16-byte chunks"), std::string::npos)
      << aligned_twelve;
  EXPECT_NE(aligned_twelve.find("else copy_any_size"), std::string::npos) << aligned_twelve;
  // (64 columns: 96 rows of 128 bytes, 10 columns, fill them 1/7 better than 21-column tiles.)
  EXPECT_NE(aligned_twelve.find("tiles of 96 rows x 10 columns where the destination rows start on "
                                "32 bytes, and tiles of 96 rows x 10 columns and a halo of 3 rows "
                                "where they do not"),
            std::string::npos)
      << aligned_twelve;
  const std::string square_twelve = kernel_line(xpose::plan_copy(dense(8192, 8192, 12), 0, 0, gpu));
  EXPECT_NE(square_twelve.find("kernel: copy_any_size, each 12-byte element"), std::string::npos)
      << square_twelve;
  // copy_any_size's tiles full on short, wide shapes whose destination rows start on 32 bytes
  // (320 rows of 6 bytes), copy_full_height where they do not; from 7 bytes its tiles with a halo
  // too where they make four tile rows or more at least 9/10 full (320 rows of 15 bytes, 300 of 7,
  // 319 of 15).
  const std::string full_tiles = kernel_line(xpose::plan_copy(dense(320, 100000, 6), 0, 0, gpu));
  EXPECT_NE(full_tiles.find("kernel: copy_any_size, each 6-byte element"), std::string::npos)
      << full_tiles;
  EXPECT_NE(full_tiles.find("when the destination rows start on 32 bytes at execute, else "
                            "copy_full_height"),
            std::string::npos)
      << full_tiles;
  const std::string full_halo_tiles =
      kernel_line(xpose::plan_copy(dense(320, 100000, 15), 0, 0, gpu));
  EXPECT_NE(full_halo_tiles.find("tiles of 32 rows x 17 columns when the destination rows start "
                                 "on 32 bytes at execute, else tiles of 64 rows x 17 columns and "
                                 "a halo of 3 rows"),
            std::string::npos)
      << full_halo_tiles;
  for (const auto& [rows, e] : {std::pair<std::int64_t, std::size_t>{300, 7}, {319, 15}}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(rows, 100000, e), 0, 0, gpu));
    EXPECT_NE(line.find("kernel: copy_any_size, each " + std::to_string(e) + "-byte element"),
              std::string::npos)
        << rows << " " << line;
    EXPECT_NE(line.find("and a halo of"), std::string::npos) << rows << " " << line;
  }
  // Tall with 2 to 16 columns and a long side of 4096 or more, or wide with 2 rows in words of
  // 4 bytes or more: copy_skinny_narrow; other shapes of fewer than 48 rows (short, wide), or at
  // most 64 columns: skinny_any_size.
  for (const auto& [rows, cols, e] :
       {std::tuple<std::int64_t, std::int64_t, std::size_t>{100000, 16, 3},
        {100000, 2, 5},
        {2, 100000, 12}}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(rows, cols, e), 0, 0, gpu));
    EXPECT_NE(line.find("copy_skinny_narrow"), std::string::npos) << rows << "x" << cols << line;
  }
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(2, 100000, 3), 0, 0, gpu)).find("skinny_any_size"),
            std::string::npos);
  for (const auto& [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{16, 100000}, {47, 100000}, {100000, 17}, {2, 3}}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(rows, cols, 3), 0, 0, gpu));
    EXPECT_NE(line.find("skinny_any_size slabs"), std::string::npos) << rows << "x" << cols << line;
  }
  const std::string wide_twelve = kernel_line(xpose::plan_copy(dense(31, 100000, 12), 0, 0, gpu));
  EXPECT_NE(wide_twelve.find("skinny_any_size slabs"), std::string::npos) << wide_twelve;
  // Tall shapes whose columns fill copy_any_size's column tiles (128 bytes for 3 to 6 bytes,
  // 256 from 7) more than 3/4: copy_any_size.
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 31, 3), 0, 0, gpu)).find("skinny_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 33, 3), 0, 0, gpu)).find("copy_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 54, 7), 0, 0, gpu)).find("skinny_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 64, 6), 0, 0, gpu)).find("copy_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 17, 12), 0, 0, gpu)).find("copy_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(50, 33, 3), 0, 0, gpu)).find("skinny_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 65, 3), 0, 0, gpu)).find("copy_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 64, 7), 0, 0, gpu)).find("copy_any_size"),
            std::string::npos);
  // Rows of more than 384 bytes by the same 3/4: 13-byte 40 columns (40/57) on the slabs.
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 40, 13), 0, 0, gpu)).find("skinny_any_size"),
            std::string::npos);
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(100000, 57, 13), 0, 0, gpu)).find("copy_any_size"),
            std::string::npos);
  const std::string wide_aligned = kernel_line(xpose::plan_copy(dense(32, 100000, 12), 0, 0, gpu));
  EXPECT_NE(wide_aligned.find("kernel: copy_full_height"), std::string::npos) << wide_aligned;
  EXPECT_NE(wide_aligned.find("when the source rows start on 16 bytes and the destination rows "
                              "on 32 at execute, else skinny_any_size"),
            std::string::npos)
      << wide_aligned;
  const std::string wider_aligned = kernel_line(xpose::plan_copy(dense(64, 100000, 12), 0, 0, gpu));
  EXPECT_NE(wider_aligned.find("kernel: copy_any_size, each 12-byte element"), std::string::npos)
      << wider_aligned;
  EXPECT_NE(wider_aligned.find("when the destination rows start on 32 bytes at execute, else "
                               "copy_full_height"),
            std::string::npos)
      << wider_aligned;
  const std::string small_fifteen = kernel_line(xpose::plan_copy(dense(31, 30, 15), 0, 0, gpu));
  EXPECT_NE(small_fifteen.find("15 words of 1 byte"), std::string::npos) << small_fifteen;
  // In place, a 12-byte element is three 4-byte words.
  const std::string twelve = kernel_line(xpose::plan_inplace(dense(300, 300, 12), gpu));
  EXPECT_NE(twelve.find("12-byte element as 3 words of 4 bytes"), std::string::npos) << twelve;
  const std::string eighteen = kernel_line(xpose::plan_copy(dense(300, 500, 18), 0, 0, gpu));
  EXPECT_NE(eighteen.find("9 words of 2 bytes"), std::string::npos) << eighteen;
  EXPECT_NE(eighteen.find("aligned 16-byte chunks"), std::string::npos) << eighteen;
  for (std::size_t e : {17, 36}) {
    const std::string line = kernel_line(xpose::plan_copy(dense(300, 500, e), 0, 0, gpu));
    EXPECT_NE(line.find("one word per access"), std::string::npos) << line;
  }
  EXPECT_NE(kernel_line(xpose::plan_inplace(dense(4096, 4096, 8), gpu)).find("square_tile_swap"),
            std::string::npos);
  xpose::plan_options naive = gpu;
  naive.forced_route = xpose::route::copy_naive;
  EXPECT_NE(kernel_line(xpose::plan_copy(dense(64, 64, 4), 0, 0, naive)).find("copy_naive"),
            std::string::npos);
  // CPU plans name no GPU kernel.
  EXPECT_EQ(xpose::plan_copy(dense(64, 64, 4)).describe().find("    kernel: "), std::string::npos);
}

TEST(Plans, ConcurrentExecutionsOfOnePlanAreSerialized) {
  // 4999 x 3001 takes the row/column route, whose workspace holds a lookup table.
  const std::int64_t rows = 4999, cols = 3001;
  const bytes original = random_bytes(rows * cols * 4, 9);
  const bytes expected = reference_transpose(original, rows, cols, 4);
  xpose::plan_options one_thread;
  one_thread.threads = 1;
  const xpose::plan p = xpose::plan_inplace(dense(rows, cols, 4), one_thread);
  std::vector<bytes> buffers(4, original);
  std::vector<std::thread> workers;
  for (bytes& b : buffers) workers.emplace_back([&p, &b] { p.execute(b.data()); });
  for (std::thread& w : workers) w.join();
  for (const bytes& b : buffers) EXPECT_TRUE(b == expected);
}

TEST(Plans, TypedWrappers) {
  std::vector<double> a(6 * 9), b(6 * 9);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i) + 0.5;
  xpose::transpose(a.data(), b.data(), 6, 9);
  xpose::transpose_inplace(a.data(), 6, 9);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 9; ++j) {
      EXPECT_EQ(a[j * 6 + i], i * 9 + j + 0.5);
      EXPECT_EQ(b[j * 6 + i], i * 9 + j + 0.5);
    }
}

/// Expects `call` to throw xpose::error with `code` and a message containing `needle`.
template <typename Call>
void expect_error(Call&& call, xpose::status code, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const xpose::error& err) {
    EXPECT_EQ(err.code(), code) << err.what();
    EXPECT_NE(std::string(err.what()).find(needle), std::string::npos)
        << "message '" << err.what() << "' does not mention '" << needle << "'";
  }
}

TEST(BadInputs, ClearErrorsAndDataUntouched) {
  const bytes original = random_bytes(12 * 7 * 4, 5);
  bytes data = original;
  bytes dst(data.size(), 0);
  using xpose::status;
  auto inplace = [&](xpose::matrix_desc d, xpose::plan_options o = {}) {
    return [&data, d, o] { xpose::plan_inplace(d, o).execute(data.data()); };
  };
  expect_error([&] { xpose::transpose_inplace(nullptr, 12, 7, 4); }, status::invalid_argument,
               "data is null");
  expect_error([&] { xpose::transpose(nullptr, dst.data(), 12, 7, 4); }, status::invalid_argument,
               "src is null");
  expect_error([&] { xpose::transpose(data.data(), nullptr, 12, 7, 4); }, status::invalid_argument,
               "dst is null");
  expect_error(inplace(dense(0, 7, 4)), status::invalid_argument, "rows must be positive, got 0");
  expect_error(inplace(dense(12, -3, 4)), status::invalid_argument,
               "cols must be positive, got -3");
  expect_error(inplace(dense(12, 7, 0)), status::invalid_argument, "elem_size");
  expect_error(inplace(dense(12, 7, 5000)), status::unsupported, "elem_size 5000");
  xpose::matrix_desc d = dense(12, 7, 4);
  d.batch = 0;
  expect_error(inplace(d), status::invalid_argument, "batch must be positive, got 0");
  d = dense(12, 7, 4);
  d.ld = 5;
  expect_error(inplace(d), status::invalid_argument, "ld (5) must be at least cols (7)");
  d.ld = 9;
  expect_error(inplace(d), status::unsupported, "needs a dense matrix");
  d = dense(12, 7, 4);
  d.batch = 2;
  d.batch_stride = 10;
  expect_error(inplace(d), status::invalid_argument, "batch_stride (10)");
  expect_error(inplace(dense(std::int64_t(1) << 40, std::int64_t(1) << 40, 4)),
               status::invalid_argument, "overflows");
  xpose::plan_options o;
  o.threads = -2;
  expect_error(inplace(dense(12, 7, 4), o), status::invalid_argument, "got -2");
  o.threads = 1 << 30;
  expect_error(inplace(dense(12, 7, 4), o), status::invalid_argument, "options.threads");
  expect_error(inplace(dense(12, 7, 4), forcing(xpose::route::square_tile_swap)),
               status::unsupported, "needs a square matrix, got 12 x 7");
  expect_error(inplace(dense(12, 7, 4), forcing(xpose::route::copy_blocked)), status::unsupported,
               "plan_copy");
  expect_error(inplace(dense(12, 7, 4), forcing(xpose::route::copy_tuned)), status::unsupported,
               "copy_tuned");
  expect_error([&] { xpose::plan_copy(dense(12, 7, 4), 5); }, status::invalid_argument,
               "dst_ld (5) must be at least");
  expect_error([&] { xpose::plan_copy(dense(12, 7, 4)).execute(data.data()); },
               status::invalid_argument, "out of place");
  expect_error([&] { xpose::plan_inplace(dense(12, 7, 4)).execute(data.data(), dst.data()); },
               status::invalid_argument, "in place");
  expect_error([&] { xpose::plan_copy(dense(12, 7, 4)).execute(data.data(), data.data() + 8); },
               status::invalid_argument, "overlap");
  xpose::plan_options gpu;
  gpu.target = xpose::device::cuda;
  if (!xpose::built_with_cuda()) {
    expect_error(inplace(dense(12, 7, 4), gpu), status::unsupported, "without CUDA");
  } else {
    // These GPU plans are refused before any device memory is taken: they need no device. The
    // recursive square route is a CPU algorithm.
    gpu.forced_route = xpose::route::square_recursive;
    expect_error(inplace(dense(300, 300, 4), gpu), status::unsupported,
                 "route square_recursive runs on the CPU only");
  }
  EXPECT_TRUE(data == original) << "a failed call modified the data";
  EXPECT_TRUE(std::all_of(dst.begin(), dst.end(), [](unsigned char c) { return c == 0; }));
}

}  // namespace
