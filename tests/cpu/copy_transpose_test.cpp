// Out-of-place CPU transposition (cpu::copy_transpose) against an element-by-element reference
// on random data. Destinations are poisoned first and compared whole, so gaps between rows and
// between matrices of a batch must come back untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "test_util.hpp"

namespace xpose::detail::cpu {
namespace {

using xpose::test::random_bytes;
using xpose::test::reference_transpose;

struct copy_case {
  std::int64_t rows, cols;
  std::size_t elem;
  std::int64_t lda = 0, ldb = 0;  // 0: dense
  std::int64_t batch = 1;
  std::int64_t src_stride = 0, dst_stride = 0;  // 0: dense
  std::int64_t tile = 0;
  std::size_t dst_offset_bytes = 0;  // misaligns the destination
};

/// Runs copy_transpose on case c and returns whether dst equals the reference, whole buffer.
void check_copy(copy_case c, int threads = 2) {
  if (c.lda == 0) c.lda = c.cols;
  if (c.ldb == 0) c.ldb = c.rows;
  if (c.src_stride == 0) c.src_stride = c.rows * c.lda;
  if (c.dst_stride == 0) c.dst_stride = c.cols * c.ldb;
  const auto e = static_cast<std::int64_t>(c.elem);
  const std::size_t src_bytes =
      static_cast<std::size_t>((c.batch - 1) * c.src_stride + (c.rows - 1) * c.lda + c.cols) *
      c.elem;
  const std::size_t dst_bytes =
      static_cast<std::size_t>((c.batch - 1) * c.dst_stride + (c.cols - 1) * c.ldb + c.rows) *
      c.elem;
  const std::vector<std::byte> src = random_bytes<std::byte>(src_bytes, 1 + c.rows * 131 + c.cols);
  std::vector<std::byte> dst_buffer =
      random_bytes<std::byte>(dst_bytes + c.dst_offset_bytes, 7 + c.cols);
  std::vector<std::byte> expected = dst_buffer;
  std::byte* const want = expected.data() + c.dst_offset_bytes;
  for (std::int64_t b = 0; b < c.batch; ++b)
    reference_transpose(src.data() + b * c.src_stride * e, want + b * c.dst_stride * e, c.rows,
                        c.cols, c.elem, c.lda, c.ldb);

  stage s;
  s.kind = stage_kind::copy_transpose;
  s.variant = route::copy_blocked;
  s.batch = c.batch;
  s.rows = c.rows;
  s.cols = c.cols;
  s.super_bytes = c.elem;
  s.tile = c.tile;
  s.lda = c.lda;
  s.ldb = c.ldb;
  s.src_batch_stride = c.src_stride;
  s.dst_batch_stride = c.dst_stride;
  copy_transpose(src.data(), dst_buffer.data() + c.dst_offset_bytes, s, threads);
  ASSERT_TRUE(dst_buffer == expected)
      << c.rows << " x " << c.cols << ", " << c.elem << "-byte elements, lda " << c.lda << ", ldb "
      << c.ldb << ", batch " << c.batch << ", tile " << c.tile << ", threads " << threads;
}

const std::size_t element_sizes[] = {1, 2, 4, 8, 16, 12};

TEST(CopyTranspose, EveryShapeUpTo64) {
  for (std::size_t e : element_sizes)
    for (std::int64_t rows = 1; rows <= 64; ++rows)
      for (std::int64_t cols = 1; cols <= 64; ++cols) {
        check_copy({rows, cols, e}, 1);
        if (HasFatalFailure()) return;
      }
}

TEST(CopyTranspose, SmallShapesWithGapsAndSmallTiles) {
  for (std::size_t e : element_sizes)
    for (std::int64_t rows : {1, 5, 17, 33, 64})
      for (std::int64_t cols : {1, 3, 16, 31, 64}) {
        copy_case c{rows, cols, e, cols + 3, rows + 5};
        c.tile = 16;
        check_copy(c, 2);
        if (HasFatalFailure()) return;
      }
}

TEST(CopyTranspose, RandomShapesUpTo1600) {
  std::mt19937_64 gen(42);
  for (std::size_t e : element_sizes)
    for (int k = 0; k < 3; ++k) {
      const auto rows = static_cast<std::int64_t>(100 + gen() % 1500);
      const auto cols = static_cast<std::int64_t>(100 + gen() % 1500);
      check_copy({rows, cols, e});
      if (HasFatalFailure()) return;
    }
}

TEST(CopyTranspose, PrimeShapes) {
  for (std::size_t e : element_sizes) {
    check_copy({997, 1009, e});
    check_copy({2053, 131, e});
    check_copy({7, 4099, e});
    if (HasFatalFailure()) return;
  }
}

// Destinations of at least 8 MiB take non-temporal stores when aligned; misaligned ones do not.
TEST(CopyTranspose, DestinationsOf8MiBAlignedAndMisaligned) {
  check_copy({2048, 1024, 4});
  check_copy({1024, 2048, 8});
  check_copy({1031, 4096, 2});
  check_copy({2048, 1024, 4, 0, 0, 1, 0, 0, 0, 4});
  check_copy({1024, 2048, 8, 0, 0, 1, 0, 0, 0, 8});
  check_copy({700, 600, 16, 0, 0, 1, 0, 0, 0, 16});
  check_copy({4096, 2051, 1});
}

TEST(CopyTranspose, SkinnyAndTall) {
  for (std::int64_t narrow : {2, 3, 5, 8, 17, 32, 64})
    for (std::int64_t wide : {100000, 1000003}) {
      if (narrow * wide > 8000000) continue;
      for (std::size_t e : {std::size_t{1}, std::size_t{4}, std::size_t{16}, std::size_t{12}}) {
        if (e > 4 && narrow * wide > 2000000) continue;
        check_copy({narrow, wide, e});
        check_copy({wide, narrow, e});
        if (HasFatalFailure()) return;
      }
    }
}

TEST(CopyTranspose, LeadingDimensionsWiderThanDense) {
  for (std::size_t e : element_sizes) {
    check_copy({300, 200, e, 211, 333});
    check_copy({513, 1025, e, 1100, 600});
    check_copy({64, 64, e, 1024, 1024});
    if (HasFatalFailure()) return;
  }
}

TEST(CopyTranspose, BatchedWithStrides) {
  for (std::size_t e : element_sizes) {
    check_copy({37, 53, e, 0, 0, 5});
    check_copy({100, 70, e, 75, 110, 3, 100 * 75 + 13, 70 * 110 + 29});
    check_copy({256, 512, e, 0, 0, 4, 0, 0, 100});
    if (HasFatalFailure()) return;
  }
}

TEST(CopyTranspose, ExplicitTileEdges) {
  for (std::int64_t tile : {1, 3, 8, 40, 64, 1000})
    for (std::size_t e : element_sizes) {
      copy_case c{531, 389, e};
      c.tile = tile;
      check_copy(c);
      if (HasFatalFailure()) return;
    }
}

TEST(CopyTranspose, OneThreadAndManyThreads) {
  for (int threads : {1, 3, 8}) {
    check_copy({777, 555, 4}, threads);
    check_copy({555, 777, 8}, threads);
  }
}

// More than 2^31 elements: 64-bit index math. The source holds a pattern computed from (r, c), so
// the check needs no second copy.
TEST(CopyTransposeLarge, MoreThan2To31Elements) {
  const std::int64_t rows = 65537, cols = 32771;  // 2,147,713,027 > 2^31 one-byte elements
  ASSERT_GT(rows * cols, std::int64_t{1} << 31);
  const auto pattern = [](std::int64_t r, std::int64_t c) {
    return static_cast<std::byte>((r * 7 + c * 13 + (r >> 8) * 3) & 0xff);
  };
  std::vector<std::byte> src(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) src[r * cols + c] = pattern(r, c);
  std::vector<std::byte> dst(src.size(), std::byte{0x5a});
  stage s;
  s.kind = stage_kind::copy_transpose;
  s.rows = rows;
  s.cols = cols;
  s.super_bytes = 1;
  s.lda = cols;
  s.ldb = rows;
  s.src_batch_stride = s.dst_batch_stride = rows * cols;
  copy_transpose(src.data(), dst.data(), s, 2);
  std::int64_t wrong = 0;
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r) wrong += dst[c * rows + r] != pattern(r, c);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace xpose::detail::cpu
