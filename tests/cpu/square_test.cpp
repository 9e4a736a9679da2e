// Square in-place CPU transposition (cpu::square_swap), every variant, against an out-of-place
// element-by-element reference on random data. Rows may be longer than n: the gap holds random
// bytes that must come back untouched (the whole buffer is compared).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "test_util.hpp"
#include "xpose/error.hpp"

namespace xpose::detail::cpu {
namespace {

using xpose::test::random_bytes;
using xpose::test::reference_transpose;

const route variants[] = {route::square_tile_swap, route::square_naive, route::square_prefetch,
                          route::square_recursive};
const std::size_t element_sizes[] = {1, 2, 4, 8, 16, 12};

stage square_stage(std::int64_t n, std::size_t elem, std::int64_t ld, route variant,
                   std::int64_t tile) {
  stage s;
  s.kind = stage_kind::square_swap;
  s.rows = s.cols = n;
  s.super_bytes = elem;
  s.lda = s.ldb = ld;
  s.variant = variant;
  s.tile = tile;
  return s;
}

/// Transposes one n x n matrix (rows ld apart) in place and compares the whole buffer with the
/// reference.
void check_square(std::int64_t n, std::size_t elem, std::int64_t ld, route variant,
                  std::int64_t tile = 0, int threads = 2) {
  const auto e = static_cast<std::int64_t>(elem);
  const auto bytes = static_cast<std::size_t>(((n - 1) * ld + n) * e);
  std::vector<std::byte> data = random_bytes<std::byte>(bytes, 3 + n * 17 + ld);
  std::vector<std::byte> expected = data;
  reference_transpose(data.data(), expected.data(), n, n, elem, ld, ld);
  square_swap(data.data(), square_stage(n, elem, ld, variant, tile), threads);
  ASSERT_TRUE(data == expected) << to_string(variant) << ": n " << n << ", " << elem
                                << "-byte elements, ld " << ld << ", tile " << tile << ", threads "
                                << threads;
}

TEST(SquareSwap, EveryVariantEveryElementSizeUpTo130) {
  for (route v : variants)
    for (std::size_t e : element_sizes)
      for (std::int64_t n = 1; n <= 130; ++n) {
        check_square(n, e, n, v, 0, 1);
        check_square(n, e, n + 3, v, 0, 1);
        if (HasFatalFailure()) return;
      }
}

TEST(SquareSwap, SmallTilesAndCutOffs) {
  for (route v : {route::square_tile_swap, route::square_recursive})
    for (std::size_t e : element_sizes)
      for (std::int64_t tile : {1, 5, 16, 48})
        for (std::int64_t n : {1, 31, 97, 200}) {
          check_square(n, e, n + 1, v, tile);
          if (HasFatalFailure()) return;
        }
}

TEST(SquareSwap, BigSizesFastVariants) {
  for (route v : {route::square_tile_swap, route::square_recursive})
    for (std::size_t e : element_sizes)
      for (std::int64_t n : {1000, 2048}) {
        check_square(n, e, n, v);
        if (HasFatalFailure()) return;
      }
  for (route v : {route::square_tile_swap, route::square_recursive})
    for (std::size_t e : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
      check_square(4099, e, 4099, v);
      if (HasFatalFailure()) return;
    }
  check_square(2048, 4, 2048 + 16, route::square_tile_swap);
  check_square(1500, 8, 1999, route::square_recursive);
}

TEST(SquareSwap, BigSizesElementByElementVariants) {
  for (route v : {route::square_naive, route::square_prefetch}) {
    check_square(1000, 4, 1000, v);
    check_square(1000, 12, 1003, v);
    check_square(2048, 8, 2048, v);
    check_square(1031, 1, 1031, v);
    check_square(777, 16, 800, v);
  }
}

TEST(SquareSwap, ThreadCounts) {
  for (route v : variants)
    for (int threads : {1, 3, 8}) {
      check_square(600, 4, 600, v, 0, threads);
      check_square(601, 2, 610, v, 32, threads);
      if (HasFatalFailure()) return;
    }
}

TEST(SquareSwap, RoundTripIsIdentity) {
  for (route v : variants)
    for (std::size_t e : element_sizes) {
      const std::int64_t n = 517, ld = 530;
      const std::vector<std::byte> original =
          random_bytes<std::byte>(static_cast<std::size_t>(((n - 1) * ld + n) * e), 99);
      std::vector<std::byte> data = original;
      const stage s = square_stage(n, e, ld, v, 0);
      square_swap(data.data(), s, 2);
      EXPECT_FALSE(data == original);
      square_swap(data.data(), s, 2);
      ASSERT_TRUE(data == original) << to_string(v) << ", " << e << "-byte elements";
    }
}

// The kernel transposes one matrix; a batch is the caller's loop (as in the CPU executor), and
// the gaps between the matrices must come back untouched.
TEST(SquareSwap, BatchLoopedByTheCaller) {
  for (route v : variants) {
    const std::int64_t n = 70, ld = 75, stride = 70 * 75 + 11, batch = 3;
    const std::size_t e = 4;
    const auto bytes = static_cast<std::size_t>(((batch - 1) * stride + (n - 1) * ld + n) * e);
    std::vector<std::byte> data = random_bytes<std::byte>(bytes, 5);
    std::vector<std::byte> expected = data;
    for (std::int64_t b = 0; b < batch; ++b)
      reference_transpose(data.data() + b * stride * e, expected.data() + b * stride * e, n, n, e,
                          ld, ld);
    const stage s = square_stage(n, e, ld, v, 0);
    for (std::int64_t b = 0; b < batch; ++b)
      square_swap(data.data() + b * stride * static_cast<std::int64_t>(e), s, 2);
    ASSERT_TRUE(data == expected) << to_string(v);
  }
}

TEST(SquareSwap, RefusesABatch) {
  std::vector<std::byte> data(2 * 8 * 8 * 4);
  stage s = square_stage(8, 4, 8, route::square_tile_swap, 0);
  s.batch = 2;
  EXPECT_THROW(square_swap(data.data(), s, 1), error);
}

}  // namespace
}  // namespace xpose::detail::cpu
