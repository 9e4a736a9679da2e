// In-place transposition of non-square matrices on the GPU through the public API: the plan's
// tiled transpositions (3-stage, 4-stage, cycle following) run on the device and the result is
// compared with a host reference, byte for byte, on random data.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/shared_scratch.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"
#include "xpose/xpose.hpp"

namespace xpose::test {
namespace {

std::string shape_name(std::int64_t batch, std::int64_t rows, std::int64_t cols, std::size_t e,
                       route r) {
  return std::to_string(batch) + " x " + std::to_string(rows) + " x " + std::to_string(cols) +
         " of " + std::to_string(e) + " bytes, " + std::string(to_string(r));
}

/// Transposes `batch` rows x cols matrices of e-byte elements in place on the device along route
/// `r` and compares with the host reference; `seed` picks the data.
void check_inplace(std::int64_t rows, std::int64_t cols, std::size_t e, route r, std::uint64_t seed,
                   std::int64_t batch = 1) {
  const std::size_t matrix = static_cast<std::size_t>(rows * cols) * e;
  const std::vector<unsigned char> host = random_bytes(matrix * batch, seed);
  std::vector<unsigned char> expected(host.size());
  reference_batched(host.data(), expected.data(), batch, rows, cols, e, cols, rows, rows * cols,
                    rows * cols);
  device_buffer data(host.size());
  data.upload(host);
  plan_options options;
  options.target = device::cuda;
  options.forced_route = r;
  matrix_desc desc{rows, cols, e};
  desc.batch = batch;
  const plan p = plan_inplace(desc, options);
  p.execute(data.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << shape_name(batch, rows, cols, e, r);
  const std::vector<unsigned char> got = data.download(host.size());
  const std::int64_t at = first_difference(got, expected);
  ASSERT_EQ(at, -1) << shape_name(batch, rows, cols, e, r) << ": first wrong byte " << at << "\n"
                    << p.describe();
}

TEST(GpuInplaceRectangular, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  check_inplace(12, 20, 4, route::automatic, 1);
  check_inplace(24, 18, 12, route::three_stage, 2);
  check_inplace(30, 12, 2, route::four_stage, 3);
  check_inplace(13, 7, 8, route::cycle_following, 4);
  check_inplace(45, 33, 4, route::row_column, 5);  // gcd 3: all three phases
  check_inplace(23, 19, 12, route::row_column, 6);
  check_inplace(3, 1301, 4, route::row_column, 7);  // more rows than columns in a tile: wraps
  // Column blocks held by clusters of 2 and 4 blocks (sm_90), gcd 3 and 1.
  check_inplace(1500, 1002, 4, route::row_column, 8);
  check_inplace(2000, 333, 8, route::row_column, 9);
  check_inplace(5, 1009, 4, route::skinny_chunks, 10);  // a remainder: split and place
  check_inplace(1009, 3, 2, route::skinny_chunks, 11);  // take and spread
}

TEST(GpuInplaceRectangular, EveryShapeUpTo40Automatic) {
  XPOSE_REQUIRE_GPU();
  for (std::int64_t rows = 1; rows <= 40; ++rows)
    for (std::int64_t cols = 1; cols <= 40; ++cols)
      check_inplace(rows, cols, 4, route::automatic, 100 + rows * 64 + cols);
}

TEST(GpuInplaceRectangular, EveryElementSizeAndRoute) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 7;
  for (std::size_t e : {1, 2, 3, 4, 5, 8, 12, 16, 24})
    for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{48, 36},
                                     {36, 48},
                                     {100, 60},
                                     {64, 1000},
                                     {1000, 64},
                                     {97, 89}})
      for (route r :
           {route::automatic, route::three_stage, route::four_stage, route::cycle_following}) {
        if ((r == route::three_stage || r == route::four_stage) && (rows == 97 || cols == 89))
          continue;  // prime dimensions have no tile factors
        check_inplace(rows, cols, e, r, ++seed);
      }
}

TEST(GpuInplaceRectangular, PaperShapesAndPrimes) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 500;
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{7200, 1800},
                                   {1800, 7200},
                                   {5100, 2500},
                                   {4000, 3200},
                                   {7919, 1800},
                                   {997, 1009}})
    check_inplace(rows, cols, 4, route::automatic, ++seed);
  check_inplace(7200, 1800, 8, route::automatic, ++seed);
  check_inplace(7200, 1800, 2, route::four_stage, ++seed);
  check_inplace(2500, 5100, 1, route::three_stage, ++seed);
  // Large enough for the GPU's 3-stage route to take two stages (100 by chains, 010 through the
  // scratch or on chip), both orientations, skinny both ways, 12-byte elements.
  check_inplace(20000, 5000, 4, route::automatic, ++seed);
  check_inplace(1000000, 16, 4, route::automatic, ++seed);
  check_inplace(16, 1000000, 4, route::automatic, ++seed);
  check_inplace(7200, 1800, 12, route::automatic, ++seed);
  check_inplace(7919, 3000, 4, route::three_stage, ++seed);
  // Dimensions with few factors (4 x a prime) take small super-elements; two primes take one
  // stage of single elements by chains.
  check_inplace(7444, 11444, 4, route::automatic, ++seed);
  check_inplace(7919, 10007, 4, route::automatic, ++seed);
  check_inplace(1009, 997, 2, route::cycle_following, ++seed);
}

// Skinny shapes whose chunks divide the long side take skinny_chunks, all tiled transpositions.
// The row/column route (Catanzaro-Keller-Garland): every shape up to 24 x 24 and every element
// size on a few shapes with and without common factors; long rows through the scratch; column
// blocks narrowed to fit the scratch; more rows than a tile; batches.
TEST(GpuInplaceRectangular, RowColumnRoute) {
  XPOSE_REQUIRE_GPU();
  for (std::int64_t rows = 2; rows <= 24; ++rows)
    for (std::int64_t cols = 2; cols <= 24; ++cols)
      if (rows != cols) check_inplace(rows, cols, 4, route::row_column, 1200 + rows * 32 + cols);
  std::uint64_t seed = 2000;
  for (std::size_t e : {1, 2, 3, 4, 8, 12, 16, 24, 40})
    for (const auto& [rows, cols] :
         {std::pair<std::int64_t, std::int64_t>{97, 89}, {120, 84}, {1009, 331}, {300, 1700}})
      check_inplace(rows, cols, e, route::row_column, ++seed);
  check_inplace(7919, 10007, 4, route::row_column, ++seed);
  check_inplace(7200, 1800, 4, route::row_column, ++seed);
  check_inplace(3, 70001, 4, route::row_column, ++seed);  // 280 KB rows: through the scratch
  check_inplace(5, 50000, 8, route::row_column, ++seed);
  check_inplace(250000, 37, 4, route::row_column, ++seed);  // 25 columns per block
  check_inplace(1000003, 7, 4, route::row_column, ++seed);  // 6 columns per block
  check_inplace(2, 3000001, 4, route::row_column, ++seed);  // more column blocks than a grid.y
  check_inplace(61, 35, 4, route::row_column, ++seed, 3);
  check_inplace(64, 48, 2, route::row_column, ++seed, 2);
}

// Sizes beyond the row/column kernels' limits are refused by name when the plan is made, before
// any device memory is taken (runs without a device too).
TEST(GpuInplaceRectangular, RowColumnBeyondItsLimitsIsRefusedAtPlanTime) {
  plan_options options;
  options.target = device::cuda;
  options.forced_route = route::row_column;
  try {
    plan_inplace({2, std::int64_t{1} << 31, 1}, options);
    FAIL() << "expected xpose::error";
  } catch (const error& err) {
    EXPECT_EQ(err.code(), status::unsupported) << err.what();
    EXPECT_NE(std::string(err.what()).find("2^31"), std::string::npos) << err.what();
  }
}

TEST(GpuInplaceRectangular, SkinnyChunksWithoutARemainder) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 700;
  for (std::size_t e : {1, 4, 12})
    for (const auto& [rows, cols] :
         {std::pair<std::int64_t, std::int64_t>{16, 65536}, {65536, 16}, {3, 4096}}) {
      plan_options options;
      options.target = device::cuda;
      const plan p = plan_inplace({rows, cols, e}, options);
      check_inplace(rows, cols, e, p.chosen_route(), ++seed);
    }
  check_inplace(16, 65536, 4, route::skinny_chunks, ++seed, 2);
}

// The skinny route with a remainder (the long side not a multiple of the chunk): the leftover
// columns set aside and the rows closed up (wide) or opened (tall) on the device, every element
// size, primes, batches; long enough for many ranges of the remainder kernels.
TEST(GpuInplaceRectangular, SkinnyChunksWithARemainder) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 800;
  for (std::size_t e : {1, 2, 3, 4, 8, 12, 16, 24})
    for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{10, 1009},
                                     {1009, 10},
                                     {2, 65},
                                     {64, 7919},
                                     {7919, 64}})
      check_inplace(rows, cols, e, route::skinny_chunks, ++seed);
  check_inplace(37, 1000003, 4, route::skinny_chunks, ++seed);
  check_inplace(1000003, 37, 4, route::skinny_chunks, ++seed);
  check_inplace(5, 300001, 2, route::skinny_chunks, ++seed, 3);
  check_inplace(300001, 5, 8, route::skinny_chunks, ++seed, 2);
}

// Plans made by detail::plan_inplace_sharing_scratch (the distributed transposition's local
// stages) allocate their tables only and run one after another on one scratch of the caller's:
// a 3-stage plan (24 MiB scratch path), a row/column plan and a skinny plan with a remainder.
TEST(GpuInplaceRectangular, PlansSharingOneScratch) {
  XPOSE_REQUIRE_GPU();
  plan_options options;
  options.target = device::cuda;
  auto cell = std::make_shared<void*>(nullptr);
  const std::tuple<std::int64_t, std::int64_t, route> cases[] = {
      {7200, 1800, route::three_stage},
      {1009, 331, route::row_column},
      {37, 100003, route::skinny_chunks}};
  std::vector<plan> plans;
  std::size_t largest = 0;
  for (const auto& [rows, cols, r] : cases) {
    options.forced_route = r;
    std::size_t scratch = 0;
    plans.push_back(detail::plan_inplace_sharing_scratch({rows, cols, 4}, options, cell, scratch));
    const plan own = plan_inplace({rows, cols, 4}, options);
    EXPECT_LE(plans.back().workspace_bytes() + scratch, own.workspace_bytes() + 256)
        << plans.back().describe();
    largest = std::max(largest, scratch);
  }
  ASSERT_GT(largest, 0u);
  device_buffer scratch(largest);
  *cell = scratch.get();
  std::uint64_t seed = 900;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const auto& [rows, cols, r] = cases[k];
    const std::size_t bytes = static_cast<std::size_t>(rows * cols) * 4;
    const std::vector<unsigned char> host = random_bytes(bytes, ++seed);
    std::vector<unsigned char> expected(bytes);
    reference_batched(host.data(), expected.data(), 1, rows, cols, 4, cols, rows, rows * cols,
                      rows * cols);
    device_buffer data(bytes);
    data.upload(host);
    scratch.poison();
    plans[k].execute(data.get());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << shape_name(1, rows, cols, 4, r);
    EXPECT_EQ(first_difference(data.download(bytes), expected), -1)
        << shape_name(1, rows, cols, 4, r);
  }
  // Only GPU plans take a caller's scratch.
  options.target = device::cpu;
  options.forced_route = route::automatic;
  std::size_t unused = 0;
  EXPECT_THROW(detail::plan_inplace_sharing_scratch({64, 48, 4}, options, cell, unused), error);
}

// plan::execute_stage, every stage in order, gives the whole transposition on the device.
TEST(GpuInplaceRectangular, StageByStage) {
  XPOSE_REQUIRE_GPU();
  for (const auto& [rows, cols, r] :
       {std::tuple<std::int64_t, std::int64_t, route>{7200, 1800, route::automatic},
        {20000, 5000, route::automatic},
        {1000000, 16, route::automatic},
        {4000, 3000, route::row_column},
        {7919, 3001, route::row_column}}) {
    const std::size_t bytes = static_cast<std::size_t>(rows * cols) * 4;
    const std::vector<unsigned char> host = random_bytes(bytes, 950 + rows);
    const std::vector<unsigned char> expected = reference_transpose(host, rows, cols, 4);
    device_buffer data(bytes);
    data.upload(host);
    plan_options options;
    options.target = device::cuda;
    options.forced_route = r;
    const plan p = plan_inplace({rows, cols, 4}, options);
    for (std::size_t i = 0; i < p.stage_count(); ++i) p.execute_stage(i, data.get());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(first_difference(data.download(bytes), expected), -1) << p.describe();
  }
}

// A measured plan on device data: the data unchanged by planning, then transposed.
TEST(GpuInplaceRectangular, MeasuredPlan) {
  XPOSE_REQUIRE_GPU();
  const std::int64_t rows = 7200, cols = 1800;
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * 4;
  const std::vector<unsigned char> host = random_bytes(bytes, 990);
  const std::vector<unsigned char> expected = reference_transpose(host, rows, cols, 4);
  device_buffer data(bytes);
  data.upload(host);
  plan_options options;
  options.target = device::cuda;
  options.tune = tuning::measure;
  const plan p = plan_inplace({rows, cols, 4}, data.get(), options);
  ASSERT_EQ(first_difference(data.download(bytes), host), -1) << p.describe();
  p.execute(data.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(first_difference(data.download(bytes), expected), -1) << p.describe();
  forget_wisdom();
}

// One side a multiple of the other, matrices beyond the GPU's one-stage slab (24 MiB): the
// 3-stage route may take the square blocks (a 100 of the blocks' rows and the square tile swap on
// each block), and does for fp32 and fp64 (its cost beats the tiled stages' there). Wide and tall,
// rows on 16 bytes and not, element sizes with and without register-width words, batches.
TEST(GpuInplaceRectangular, SquareBlocks) {
  XPOSE_REQUIRE_GPU();
  std::uint64_t seed = 1500;
  for (const auto& [rows, cols, e, batch] :
       {std::tuple<std::int64_t, std::int64_t, std::size_t, std::int64_t>{1800, 7200, 4, 1},
        {7200, 1800, 4, 1},
        {2048, 8192, 4, 1},
        {8192, 2048, 8, 1},
        {2999, 8997, 4, 1},
        {8997, 2999, 2, 1},
        {3001, 9003, 1, 1},
        {1280, 3840, 16, 1},
        {3840, 1280, 12, 1},
        {1539, 4617, 8, 1},
        {2048, 4096, 4, 2},
        {8192, 2048, 2, 2}}) {
    plan_options options;
    options.target = device::cuda;
    options.forced_route = route::three_stage;
    matrix_desc desc{rows, cols, e};
    desc.batch = batch;
    const std::string described = plan_inplace(desc, options).describe();
    if (e == 4 || e == 8)
      EXPECT_NE(described.find("square blocks"), std::string::npos) << described;
    check_inplace(rows, cols, e, route::three_stage, ++seed, batch);
  }
}

// Small matrices whose 3-stage route may take square blocks, for the sanitizers (the plan run
// and checked is whichever the planner makes).
TEST(GpuInplaceRectangular, SquareBlocksSmall) {
  XPOSE_REQUIRE_GPU();
  check_inplace(128, 512, 4, route::three_stage, 1600);
  check_inplace(384, 128, 8, route::three_stage, 1601);
  check_inplace(65, 195, 4, route::three_stage, 1602);
  check_inplace(256, 512, 2, route::three_stage, 1603, 2);
}

TEST(GpuInplaceRectangular, BatchedAndRoundTrip) {
  XPOSE_REQUIRE_GPU();
  check_inplace(60, 36, 4, route::automatic, 900, 3);
  check_inplace(17, 5, 12, route::cycle_following, 901, 4);
  // There and back: 300 x 200 then 200 x 300 gives the input back.
  const std::vector<unsigned char> host = random_bytes(300 * 200 * 4, 902);
  device_buffer data(host.size());
  data.upload(host);
  plan_options options;
  options.target = device::cuda;
  plan_inplace({300, 200, 4}, options).execute(data.get());
  plan_inplace({200, 300, 4}, options).execute(data.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(first_difference(data.download(host.size()), host), -1);
}

// The plan states its device workspace (allocated when the plan is made), which stays within
// 64 MiB + 0.1 % of the matrix on these shapes (the planner's budget is 1 % of the matrix, at
// least 256 KiB, else the least workspace); they take routes of tiled transpositions.
TEST(GpuInplaceRectangular, WorkspaceWithinBudget) {
  XPOSE_REQUIRE_GPU();
  plan_options options;
  options.target = device::cuda;
  for (const auto& [rows, cols, e] :
       {std::tuple<std::int64_t, std::int64_t, std::size_t>{7200, 1800, 4},
        {20000, 5000, 4},
        {1800, 7200, 8},
        {32768, 16384, 2}}) {
    const plan p = plan_inplace({rows, cols, e}, options);
    EXPECT_TRUE(p.chosen_route() == route::three_stage || p.chosen_route() == route::row_column)
        << p.describe();
    const double matrix = static_cast<double>(rows) * cols * e;
    EXPECT_LE(static_cast<double>(p.workspace_bytes()), 64.0 * (1 << 20) + matrix / 1000)
        << p.describe();
  }
}

}  // namespace
}  // namespace xpose::test
