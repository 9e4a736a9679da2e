// Square in-place transposition on the GPU (square_tile_swap, square_naive) through the public
// API against the host reference on random data; strided rows keep their gaps; batches.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_test_util.hpp"
#include "xpose/error.hpp"
#include "xpose/plan.hpp"

namespace xpose::test {
namespace {

constexpr route square_variants[] = {route::square_tile_swap, route::square_naive};
constexpr std::size_t element_sizes[] = {1, 2, 4, 8, 16, 12};

void check_square(std::int64_t n, std::size_t e, route variant, std::uint64_t seed,
                  std::int64_t ld = 0, std::int64_t batch = 1, std::int64_t stride = 0) {
  const std::int64_t l = ld ? ld : n;
  const std::int64_t s = stride ? stride : n * l;
  const std::size_t bytes = ((batch - 1) * s + (n - 1) * l + n) * e;
  device_buffer data(bytes);
  const std::vector<unsigned char> host = random_bytes(bytes, seed);
  data.upload(host);

  matrix_desc desc{n, n, e, storage_order::row_major, ld, batch, stride};
  plan_options options;
  options.target = device::cuda;
  options.forced_route = variant;
  const plan p = plan_inplace(desc, options);
  p.execute(data.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<unsigned char> expected = host;  // gaps keep their (random) bytes
  for (std::int64_t b = 0; b < batch; ++b)
    reference_transpose(host.data() + b * s * e, expected.data() + b * s * e, n, n, e, l, l);
  const std::int64_t at = first_difference(data.download(bytes), expected);
  ASSERT_EQ(at, -1) << to_string(variant) << ": n " << n << ", " << e << "-byte elements, ld " << l
                    << ", batch " << batch << ": first wrong byte " << at;
}

TEST(GpuSquareSwap, SmallSanitizerShapes) {
  XPOSE_REQUIRE_GPU();
  for (route variant : square_variants)
    for (std::size_t e : element_sizes) {
      check_square(70, e, variant, e);
      check_square(129, e, variant, 2 + e, 133, 2, 129 * 133 + 7);
    }
}

TEST(GpuSquareSwap, EverySizeUpTo70EveryVariant) {
  XPOSE_REQUIRE_GPU();
  for (route variant : square_variants)
    for (std::size_t e : element_sizes)
      for (std::int64_t n = 2; n <= 70; ++n) check_square(n, e, variant, n * 17 + e);
}

TEST(GpuSquareSwap, LargerAndOddSizes) {
  XPOSE_REQUIRE_GPU();
  for (route variant : square_variants)
    for (std::size_t e : element_sizes)
      for (std::int64_t n : {127, 128, 129, 1000, 2047, 3001}) check_square(n, e, variant, n + e);
}

TEST(GpuSquareSwap, StridedAndBatched) {
  XPOSE_REQUIRE_GPU();
  for (route variant : square_variants)
    for (std::size_t e : element_sizes) {
      check_square(300, e, variant, 31 + e, 317);
      check_square(256, e, variant, 32 + e, 264, 3);
      check_square(65, e, variant, 33 + e, 0, 4, 65 * 65 + 9);
      // Whole tiles of rows that do not start on 16 bytes, and a matrix that does not either.
      check_square(256, e, variant, 34 + e, 261);
      check_square(128, e, variant, 35 + e, 131, 3, 128 * 131 + 5);
    }
}

// An error an earlier CUDA call of the caller's left pending is not taken for a failed launch.
TEST(GpuSquareSwap, ErrorLeftPendingByAnEarlierCallIsNotTakenForALaunchFailure) {
  XPOSE_REQUIRE_GPU();
  void* too_large = nullptr;
  const cudaError_t failed = cudaMalloc(&too_large, std::size_t{1} << 62);
  ASSERT_NE(failed, cudaSuccess);
  ASSERT_EQ(cudaPeekAtLastError(), failed);
  check_square(300, 4, route::square_tile_swap, 5);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
}

// A route with CPU-only stages is refused by name before any device memory is taken: runs
// without a device too (CI). square_recursive is a CPU algorithm.
TEST(GpuSquareSwap, InPlaceRefusesCpuOnlyRoutes) {
  plan_options options;
  options.target = device::cuda;
  for (const auto& [r, rows, cols] :
       {std::tuple<route, std::int64_t, std::int64_t>{route::square_recursive, 300, 300}}) {
    options.forced_route = r;
    try {
      plan_inplace({rows, cols, 4}, options);
      FAIL() << "expected xpose::error for " << to_string(r);
    } catch (const error& err) {
      EXPECT_EQ(err.code(), status::unsupported);
      EXPECT_NE(std::string(err.what()).find("CPU"), std::string::npos) << err.what();
    }
  }
}

}  // namespace
}  // namespace xpose::test
